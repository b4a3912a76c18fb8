#!/usr/bin/env python3
"""Two `groupie serve` instances on one PostgreSQL database and one shared data folder, as the
README's "Running several instances" describes them:

  - a player makes a group on A, a teammate joins it on B;
  - the teammate uploads on B, and the player's event stream on A shows each photo, the tasks
    and the completed mission (the latency from B's 201 to A's event is printed);
  - the mission's collage is rendered once across the two instances and announced once;
  - both answer /readyz with the PostgreSQL backend;
  - B is killed with SIGKILL in the middle of a burst of uploads: every photo B answered 201 for
    is there through A, with its image, and A's stream goes on.

Usage: two_instances_test.py path/to/groupie   (GROUPIE_TEST_POSTGRES: a PostgreSQL server's URL,
as `scripts/with-postgres` sets it). Exits 1 on any failure.
"""
import http.client
import json
import os
import queue
import signal
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import groupie_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
VENUE = "science-centre"
MISSION, TASKS = "poison-frogs", ("brightest-frog", "frog-pose")   # 2 tasks, no after:
PHOTOS = [REPO / "Tests/Fixtures/Photos/chelsea.jpg", REPO / "Tests/Fixtures/Photos/coffee.jpg"]


class Failure(Exception):
    pass


def log(message):
    print(f"two-instances: {message}", flush=True)


def check(condition, message):
    if not condition:
        raise Failure(message)


class Instance:
    def __init__(self, name, binary, workdir, database):
        self.name = name
        self.proc, self.port, self.base, self.logpath, self.logfile = groupie_server.start(
            binary, workdir, "info", 60, Failure, extra=("--database", database), log_name=f"server-{name}.log")

    def call(self, method, path, token=None, body=None, content_type="application/json", expect=(200, 201, 204)):
        headers = {"Authorization": "Bearer " + token} if token else {}
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        if status not in expect:
            raise Failure(f"{self.name}: {method} {path} answered {status}: {text[:300]!r}")
        return (json.loads(text) if text and text[:1] in b"[{" else text), status

    def metric(self, name):
        text, _ = self.call("GET", "/metrics")
        total = 0.0
        for line in text.decode().splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def stop(self):
        groupie_server.stop(self.proc, self.logfile)


class EventStream(threading.Thread):
    """Reads a group's Server-Sent Events into a queue of (arrival time, id, event, data)."""

    def __init__(self, instance, group_id, token, last_event_id=None):
        super().__init__(daemon=True)
        self.instance, self.group_id, self.token, self.last_event_id = instance, group_id, token, last_event_id
        self.events = queue.Queue()
        self.opened = threading.Event()
        self.connection = None

    def run(self):
        self.connection = connection = http.client.HTTPConnection("127.0.0.1", self.instance.port, timeout=120)
        headers = {"Authorization": "Bearer " + self.token}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = str(self.last_event_id)
        connection.request("GET", f"/api/v1/groups/{self.group_id}/events", headers=headers)
        response = connection.getresponse()
        self.opened.set()
        groupie_server.read_events(response, lambda id, event, data: self.events.put((time.monotonic(), id, event, data)))

    def close(self):
        """Drops the connection, as a phone losing its Wi-Fi does."""
        self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.join(10)

    def wait_for(self, predicate, what, timeout=20):
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(event)
            if predicate(event):
                return event, seen
        raise Failure(f"{self.instance.name}'s stream did not show {what} within {timeout} s; it showed {[(e[1], e[2]) for e in seen]}")


def main():
    binary = os.path.abspath(sys.argv[1])
    try:
        with groupie_server.postgres_database("groupie_two", Failure) as database:
            return run(binary, database)
    except Failure as failure:
        log(f"FAILED: {failure}")
        return 1


def run(binary, database):
    workdir = Path(tempfile.mkdtemp(prefix="groupie-two-"))
    a = b = None
    try:
        # Started together: the second waits for the first's migration under the advisory lock.
        starting = {}
        threads = [threading.Thread(target=lambda n=n: starting.__setitem__(n, Instance(n, binary, workdir, database))) for n in "AB"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        check(set(starting) == {"A", "B"}, f"both instances start on one new database at once (started: {sorted(starting)})")
        a, b = starting["A"], starting["B"]
        for instance in (a, b):
            ready, _ = instance.call("GET", "/readyz")
            check(ready["status"] == "ready" and ready["backend"] == "postgresql", f"{instance.name} /readyz: {ready}")
        log("A and B ready on one PostgreSQL database")

        ada, _ = a.call("POST", "/api/v1/players", body={"name": "Ada", "lang": "en"})
        bo, _ = b.call("POST", "/api/v1/players", body={"name": "Bo", "lang": "en"})
        group = a.call("POST", "/api/v1/groups", ada["token"], {"venueId": VENUE, "name": "Frogs"})[0]["group"]
        b.call("POST", "/api/v1/groups/join", bo["token"], {"code": group["joinCode"]})
        stream = EventStream(a, group["id"], ada["token"])
        stream.start()
        check(stream.opened.wait(10), "A's event stream opens")
        stream.wait_for(lambda e: e[2] == "member-joined", "Bo joining on B")

        latencies = []
        for task, photo in zip(TASKS, PHOTOS):
            sent = time.monotonic()
            uploaded, status = b.call("POST", f"/api/v1/groups/{group['id']}/photos?mission={MISSION}&task={task}", bo["token"],
                                      photo.read_bytes(), "image/jpeg")
            answered = time.monotonic()
            check(status == 201, f"B takes the photo for {task}")
            photo_id = uploaded["photo"]["id"]
            event, _ = stream.wait_for(lambda e: e[2] == "photo-added" and photo_id in e[3], f"Bo's photo for {task}")
            latencies.append((event[0] - answered) * 1000)
        stream.wait_for(lambda e: e[2] == "mission-completed", "the completed mission")
        log("A's stream showed B's photos " + ", ".join(f"{ms:.1f} ms" for ms in latencies) + " after B's 201")

        stream.wait_for(lambda e: e[2] == "collage-ready", "the collage", timeout=60)
        time.sleep(3)
        again = []
        while not stream.events.empty():
            again.append(stream.events.get())
        check(not [e for e in again if e[2] == "collage-ready"], f"the collage is announced once, not again: {again}")
        renders = a.metric("groupie_collages_rendered_total") + b.metric("groupie_collages_rendered_total")
        check(renders == 1, f"the collage is rendered once across both instances, not {renders} times")
        log("the collage was rendered once and announced once")

        # Bo's phone follows the group on B, loses its connection, and comes back on A with the
        # last event id it had: it gets what it missed, in order, once each.
        on_b = EventStream(b, group["id"], bo["token"])
        on_b.start()
        check(on_b.opened.wait(10), "Bo's event stream on B opens")
        a.call("PATCH", "/api/v1/me", ada["token"], {"name": "Ada One"})
        last, _ = on_b.wait_for(lambda e: e[2] == "member-renamed" and "Ada One" in e[3], "Ada's first rename, made on A")
        on_b.close()
        for name in ("Ada Two", "Ada Three"):
            a.call("PATCH", "/api/v1/me", ada["token"], {"name": name})
        on_a = EventStream(a, group["id"], bo["token"], last_event_id=last[1])
        on_a.start()
        check(on_a.opened.wait(10), "Bo's event stream on A opens with Last-Event-ID")
        _, replayed = on_a.wait_for(lambda e: e[2] == "member-renamed" and "Ada Three" in e[3], "the renames Bo missed")
        time.sleep(1)
        while not on_a.events.empty():
            replayed.append(on_a.events.get())
        ids = [e[1] for e in replayed]
        check(ids == list(range(last[1] + 1, last[1] + 1 + len(ids))) and len(ids) >= 2,
              f"after event {last[1]} on B, A replays the next events once each, in order: {[(e[1], e[2]) for e in replayed]}")
        on_a.close()
        log(f"a stream that left B after event {last[1]} resumed on A with events {ids}")

        # SIGKILL of B while uploads run: every 201 survives, served by A.
        acknowledged, stop = [], threading.Event()

        def burst():
            while not stop.is_set():
                try:
                    uploaded, _ = b.call("POST", f"/api/v1/groups/{group['id']}/photos", bo["token"], PHOTOS[0].read_bytes(), "image/jpeg")
                    acknowledged.append(uploaded["photo"]["id"])
                except (Failure, OSError, http.client.HTTPException):
                    return

        uploader = threading.Thread(target=burst, daemon=True)
        uploader.start()
        deadline = time.monotonic() + 20
        while len(acknowledged) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        b.proc.send_signal(signal.SIGKILL)
        b.proc.wait()
        stop.set()
        uploader.join(10)
        check(len(acknowledged) >= 3, f"B answered 201 to uploads before it was killed ({len(acknowledged)})")
        album, _ = a.call("GET", f"/api/v1/groups/{group['id']}/photos?limit=100", ada["token"])
        listed = {p["id"] for p in album["photos"]}
        missing = [p for p in acknowledged if p not in listed]
        check(not missing, f"every photo B answered 201 for is in the album through A; missing {missing}")
        for photo_id in acknowledged:
            image, status = a.call("GET", f"/api/v1/photos/{photo_id}/display", ada["token"])
            check(status == 200 and len(image) > 100, f"A serves the display image of {photo_id}")
        for photo_id in acknowledged:
            stream.wait_for(lambda e, p=photo_id: e[2] == "photo-added" and p in e[3], f"the photo {photo_id} B took before it died")
        log(f"B killed with SIGKILL after {len(acknowledged)} acknowledged uploads: all of them are served by A")
        log("passed")
        return 0
    except Failure as failure:
        log(f"FAILED: {failure}")
        for instance in (a, b):
            if instance:
                log(f"{instance.name}'s log: {instance.logpath}")
        return 1
    finally:
        for instance in (a, b):
            if instance and instance.proc.poll() is None:
                instance.stop()


if __name__ == "__main__":
    sys.exit(main())
