#!/usr/bin/env python3
"""The README's nginx configuration, as the README gives it, in front of two `groupie serve`
instances on one PostgreSQL database and one data folder ("Running several instances"):

  - the configuration passes `nginx -t` once its addresses, port and certificate are filled in
    (each of those lines must still be in the README: a change there fails this test);
  - `/readyz` answers through the proxy, over TLS;
  - a group is made and joined through the proxy, and a photo uploaded through it reaches the
    group's event stream, also through the proxy, at once (the stream is not buffered);
  - requests are spread over both instances;
  - a body of 20 MiB passes the proxy and gets Groupie's own answer, not nginx's 413;
  - with one instance killed, reads through the proxy go on.

Usage: reverse_proxy_test.py path/to/groupie   (GROUPIE_TEST_POSTGRES as for the two-instance
test; nginx from Debian, which scripts/bootstrap installs). Exits 1 on any failure.
"""
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import groupie_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
VENUE = "science-centre"
MISSION, TASK = "poison-frogs", "brightest-frog"
PHOTO = REPO / "Tests/Fixtures/Photos/chelsea.jpg"


class Failure(Exception):
    pass


def log(message):
    print(f"reverse-proxy: {message}", flush=True)


def check(condition, message):
    if not condition:
        raise Failure(message)


def replace_once(text, old, new):
    check(text.count(old) == 1, f"the README's nginx configuration has the line {old!r} once ({text.count(old)} times)")
    return text.replace(old, new)


def configuration(workdir, port, upstreams, certificate, key):
    """The README's nginx block with this machine's addresses, wrapped in what nginx needs to run
    from a temporary folder."""
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```nginx\n(.*?)```", readme, re.S)
    check(len(blocks) == 1, f"the README has one nginx configuration ({len(blocks)})")
    block = blocks[0]
    block = replace_once(block, "server 10.0.0.11:8080", f"server 127.0.0.1:{upstreams[0]}")
    block = replace_once(block, "server 10.0.0.12:8080", f"server 127.0.0.1:{upstreams[1]}")
    block = replace_once(block, "listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
    block = replace_once(block, "/etc/ssl/groupie/fullchain.pem", str(certificate))
    block = replace_once(block, "/etc/ssl/groupie/privkey.pem", str(key))
    temporary = workdir / "nginx-temp"
    temporary.mkdir()
    # nginx's workers run as another user than a root master (nobody): let them through the
    # test's folder and write uploads here.
    os.chmod(workdir, 0o711)
    os.chmod(temporary, 0o777)
    return f"""daemon off;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log info;
events {{}}
http {{
    access_log {workdir}/nginx-access.log;
    client_body_temp_path {temporary}/body;
    proxy_temp_path {temporary}/proxy;
    fastcgi_temp_path {temporary}/fastcgi;
    uwsgi_temp_path {temporary}/uwsgi;
    scgi_temp_path {temporary}/scgi;
{block}
}}
"""


class Proxy:
    """HTTPS requests to nginx on 127.0.0.1, checking its certificate."""

    def __init__(self, port, certificate):
        self.port = port
        self.context = ssl.create_default_context(cafile=str(certificate))

    def connection(self, timeout=30):
        return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=self.context)

    def call(self, method, path, token=None, body=None, content_type="application/json", expect=(200, 201, 204)):
        headers = {"Authorization": "Bearer " + token} if token else {}
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        connection = self.connection()
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            status, kind, text = response.status, response.getheader("Content-Type", ""), response.read()
        finally:
            connection.close()
        if expect and status not in expect:
            raise Failure(f"proxy: {method} {path} answered {status}: {text[:300]!r}")
        return (json.loads(text) if text[:1] in b"[{" else text), status, kind


def requests_served(instance):
    """The requests an instance has answered, from its own /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{instance[1]}/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("hb_requests{"))


def main():
    binary = os.path.abspath(sys.argv[1])
    try:
        nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
        check(nginx, "nginx is not installed (Debian: apt-get install nginx; scripts/bootstrap does it)")
        with groupie_server.postgres_database("groupie_proxy", Failure) as database:
            return run(binary, nginx, database)
    except Failure as failure:
        log(f"FAILED: {failure}")
        return 1


def run(binary, nginx, database):
    workdir = Path(tempfile.mkdtemp(prefix="groupie-proxy-"))
    instances, proxy_process, stream = [], None, None
    try:
        for label in "AB":
            instances.append(groupie_server.start(binary, workdir, "info", 60, Failure,
                                                  extra=("--database", database, "--trust-proxy"), log_name=f"server-{label}.log"))
        certificate, key = workdir / "proxy.crt", workdir / "proxy.key"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(certificate)],
                       check=True, capture_output=True)
        port = groupie_server.free_port()
        conf = workdir / "nginx.conf"
        conf.write_text(configuration(workdir, port, [instances[0][1], instances[1][1]], certificate, key))
        tested = subprocess.run([nginx, "-t", "-c", str(conf), "-p", str(workdir)], capture_output=True, text=True)
        check(tested.returncode == 0, f"nginx -t accepts the README's configuration: {tested.stderr.strip()}")
        # A session of its own, so that the master and its workers can be ended together.
        proxy_process = subprocess.Popen([nginx, "-c", str(conf), "-p", str(workdir)], start_new_session=True,
                                         stdout=subprocess.DEVNULL, stderr=open(workdir / "nginx-stderr.log", "w"))
        proxy = Proxy(port, certificate)
        deadline = time.monotonic() + 20
        while True:
            try:
                ready, status, _ = proxy.call("GET", "/readyz", expect=None)
                if status == 200:
                    break
            except OSError:
                pass
            check(time.monotonic() < deadline and proxy_process.poll() is None, "nginx answers /readyz within 20 s")
            time.sleep(0.1)
        check(ready["status"] == "ready" and ready["backend"] == "postgresql", f"/readyz through the proxy: {ready}")
        log("nginx with the README's configuration answers /readyz over TLS")

        ada = proxy.call("POST", "/api/v1/players", body={"name": "Ada", "lang": "en"})[0]
        bo = proxy.call("POST", "/api/v1/players", body={"name": "Bo", "lang": "en"})[0]
        group = proxy.call("POST", "/api/v1/groups", ada["token"], {"venueId": VENUE, "name": "Frogs"})[0]["group"]
        proxy.call("POST", "/api/v1/groups/join", bo["token"], {"code": group["joinCode"]})

        # Ada's event stream through the proxy; Bo's photo through the proxy must reach it at once.
        events, opened = [], threading.Event()
        stream = proxy.connection(timeout=120)

        def read_stream():
            stream.request("GET", f"/api/v1/groups/{group['id']}/events", headers={"Authorization": "Bearer " + ada["token"]})
            response = stream.getresponse()
            opened.set()
            groupie_server.read_events(response, lambda _, event, data: events.append((time.monotonic(), event, data)))

        reader = threading.Thread(target=read_stream, daemon=True)
        reader.start()
        check(opened.wait(10), "the event stream opens through the proxy")
        uploaded, status, _ = proxy.call("POST", f"/api/v1/groups/{group['id']}/photos?mission={MISSION}&task={TASK}", bo["token"],
                                         PHOTO.read_bytes(), "image/jpeg")
        answered = time.monotonic()
        check(status == 201, "the upload through the proxy is taken")
        photo_id = uploaded["photo"]["id"]
        deadline = answered + 5
        arrived = None
        while time.monotonic() < deadline and arrived is None:
            arrived = next((e for e in list(events) if e[1] == "photo-added" and photo_id in e[2]), None)
            time.sleep(0.01)
        check(arrived is not None, f"the photo's event comes through the proxy within 5 s of the 201 (saw {[e[1] for e in events]})")
        log(f"the photo's event came through the proxy {max(0.0, (arrived[0] - answered) * 1000):.0f} ms after the upload's 201")

        # Four readers at once: `least_conn` sends each request to the instance with the fewer
        # requests under way (the open event stream counts as one).
        before = [requests_served(instance) for instance in instances]
        failures = []

        def read_group():
            try:
                for _ in range(10):
                    proxy.call("GET", f"/api/v1/groups/{group['id']}", ada["token"])
            except (Failure, OSError) as error:
                failures.append(str(error))

        readers = [threading.Thread(target=read_group) for _ in range(4)]
        for thread in readers:
            thread.start()
        for thread in readers:
            thread.join(60)
        check(not failures, f"reads through the proxy: {failures[:3]}")
        after = [requests_served(instance) for instance in instances]
        # Less each instance's first request for its metrics, counted once it was answered.
        spread = [int(after[i] - before[i]) - 1 for i in range(2)]
        check(sum(spread) == 40 and all(count > 0 for count in spread), f"40 reads through the proxy are spread over both instances: {spread}")
        log(f"40 reads through the proxy, four at a time, went {spread[0]} to A and {spread[1]} to B")

        large = os.urandom(20 * 1024 * 1024)
        answer, status, kind = proxy.call("POST", f"/api/v1/groups/{group['id']}/photos", bo["token"], large, "image/jpeg", expect=None)
        check(status != 413 and kind.startswith("application/problem+json") and isinstance(answer, dict),
              f"a 20 MiB body passes the proxy and gets Groupie's own answer: {status} {kind} {answer if isinstance(answer, dict) else answer[:200]!r}")
        log(f"a 20 MiB body passed the proxy; Groupie answered {status} {answer.get('code')}")

        b_process = instances[1][0]
        b_process.send_signal(signal.SIGKILL)
        b_process.wait()
        for _ in range(10):
            _, status, _ = proxy.call("GET", f"/api/v1/groups/{group['id']}", ada["token"], expect=None)
            check(status == 200, f"with B killed, reads through the proxy go on ({status})")
        log("with B killed, 10 reads through the proxy were answered by A")
        log("passed")
        return 0
    except Failure as failure:
        log(f"FAILED: {failure}")
        log(f"logs in {workdir}")
        return 1
    finally:
        if stream is not None:
            stream.close()
        if proxy_process and proxy_process.poll() is None:
            # SIGTERM: a fast shutdown, which does not wait for the open event stream.
            proxy_process.terminate()
            try:
                proxy_process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proxy_process.pid, signal.SIGKILL)
                proxy_process.wait()
        for process, _, _, _, logfile in instances:
            if process.poll() is None:
                groupie_server.stop(process, logfile)


if __name__ == "__main__":
    sys.exit(main())
