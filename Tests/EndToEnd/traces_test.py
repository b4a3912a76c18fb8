#!/usr/bin/env python3
"""Traces over OpenTelemetry's protocol (`--otlp-endpoint`), received by a small OTLP/HTTP
collector of the test's own (spans as JSON, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`):

  - an upload's request is one trace: its span is the parent of the photo's ingest, its commit
    and its events' publication, and of the collage refresh that runs after the answer, whose
    drawing of the collage is its child (the upload that completes a mission);
  - the spans name the service `groupie`;
  - a traced server's spans are in by the time it has stopped (swift-otel sends what it holds
    on a graceful shutdown, and waits for the collector's answer);
  - without the option, no span leaves the server, even with swift-otel's own
    `OTEL_EXPORTER_OTLP_ENDPOINT` naming the collector: a server that did the same and
    stopped the same way as the traced one has sent nothing by its exit.

Usage: traces_test.py path/to/groupie. Exits 1 on any failure.
"""
import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness.checks import Failure, check, logger  # noqa: E402
from groupie_harness.photos import FIXTURES, read  # noqa: E402
from groupie_harness.server import Server  # noqa: E402

MISSION = "poison-frogs"
log = logger("traces")


class Collector:
    """Takes OTLP/HTTP JSON posts to /v1/traces and keeps their spans; counts every post it gets
    (`requests`), whatever its path or encoding."""

    def __init__(self):
        self.spans, self.services, self.requests = [], set(), 0
        self.lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with collector.lock:
                    collector.requests += 1     # any post, of spans or not, in any encoding
                status = 404
                if self.path == "/v1/traces" and self.headers.get("Content-Type", "").startswith("application/json"):
                    collector.take(json.loads(body))
                    status = 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *_):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self, document):
        with self.lock:
            for resource in document.get("resourceSpans", []):
                for attribute in resource.get("resource", {}).get("attributes", []):
                    if attribute["key"] == "service.name":
                        self.services.add(attribute["value"].get("stringValue"))
                for scope in resource.get("scopeSpans", []):
                    self.spans.extend(scope.get("spans", []))

    def named(self, name):
        with self.lock:
            return [span for span in self.spans if span["name"] == name]

    def wait_for(self, names, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if all(self.named(name) for name in names):
                return
            time.sleep(0.1)
        with self.lock:
            seen = sorted({span["name"] for span in self.spans})
        raise Failure(f"spans {names} did not all arrive within {seconds} s; received: {seen}")


def upload_tasks(server):
    """A new group's photo for each task of the mission, the last of which completes it: the photos."""
    token = server.api.new_player("Ada")["token"]
    group = server.api.new_group(token)
    venue = server.api.get("/api/v1/venues/science-centre")
    tasks = next(mission for mission in venue["missions"] if mission["id"] == MISSION)["tasks"]
    return [server.api.upload_photo(group["id"], read(FIXTURES / "chelsea.jpg"), token, mission=MISSION, task=task["id"])
            for task in tasks]


def upload(server):
    """`upload_tasks`' last photo."""
    return upload_tasks(server)[-1]


def main():
    binary = os.path.abspath(sys.argv[1])
    collector = Collector()
    os.environ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/json"
    os.environ["OTEL_BSP_SCHEDULE_DELAY"] = "100"
    with tempfile.TemporaryDirectory(prefix="groupie-traces-") as work:
        server = Server(binary, work, options=("--otlp-endpoint", collector.url), log_name="traced.log")
        try:
            photo = upload(server)
            collector.wait_for(["photo ingest", "photo commit", "events publish", "collages refresh", "collage render"])
            # What the server without the option does below: uploads, then a stop.
            commits = len(collector.named("photo commit"))
            uploaded = len(upload_tasks(server))
        finally:
            stopped = server.stop()
        check(stopped.status == 0, f"the traced server stops by itself on SIGTERM: {stopped}")
        check(len(collector.named("photo commit")) == commits + uploaded,
              f"the traced server's last uploads' spans are in by its exit: {len(collector.named('photo commit')) - commits} of {uploaded}")
        check(collector.services == {"groupie"}, f"the spans name the service groupie: {collector.services}")
        # The last upload's trace: the one its collage is drawn in.
        render = collector.named("collage render")[0]
        trace = render["traceId"]
        commit = next((span for span in collector.named("photo commit") if span["traceId"] == trace), None)
        check(commit is not None, "the collage is drawn in the trace of an upload's request (the one whose commit completed its mission)")
        request = [span for span in collector.spans if span["spanId"] == commit.get("parentSpanId")]
        check(len(request) == 1 and "photos" in request[0]["name"], f"the commit's parent is the upload's request: {request}")
        request = request[0]
        for name in ("photo ingest", "collages refresh"):
            ours = [span for span in collector.named(name) if span["traceId"] == trace]
            check(len(ours) == 1 and ours[0].get("parentSpanId") == request["spanId"], f"'{name}' is a child of the upload's request")
        refresh = next(span for span in collector.named("collages refresh") if span["traceId"] == trace)
        # The photo's events are published in the request; the collage's `collage-ready` in the refresh.
        published = [span for span in collector.named("events publish") if span["traceId"] == trace]
        by_request = [span for span in published if span.get("parentSpanId") == request["spanId"]]
        check(len(by_request) == 1, f"'events publish' is a child of the upload's request once: {len(by_request)}")
        check(all(span.get("parentSpanId") in (request["spanId"], refresh["spanId"]) for span in published),
              "every other publication of the trace is the refresh's (its collage-ready)")
        render = [span for span in collector.named("collage render") if span["traceId"] == trace]
        check(len(render) >= 1 and all(span.get("parentSpanId") == refresh["spanId"] for span in render),
              "the collage's drawing is a child of the refresh, in the upload's trace")
        check(int(render[0]["endTimeUnixNano"]) > int(commit["endTimeUnixNano"]), "the collage is drawn after the commit")
        log(f"one trace from the upload of {photo['id']} to its collage: {1 + 3 + 1 + len(render)} spans")

        requests = collector.requests
        os.makedirs(work + "/plain")
        plain = Server(binary, work + "/plain", log_name="plain.log",
                       environment={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": collector.url + "/v1/traces"})
        try:
            upload(plain)
        finally:
            stopped = plain.stop()
        # Stopped as the traced server was, whose spans were all in by its exit: so would these be.
        check(stopped.status == 0, f"the server without the option stops by itself on SIGTERM: {stopped}")
        check(collector.requests == requests, f"without --otlp-endpoint no span is sent, even with OTEL_EXPORTER_OTLP_ENDPOINT "
                                              f"naming the collector: it received {collector.requests - requests} posts")
    log("passed")


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
