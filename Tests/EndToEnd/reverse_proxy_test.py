#!/usr/bin/env python3
"""docs/operating.md's nginx configuration ("Reverse proxies"), as it gives it, in front of two
`groupie serve` instances on one PostgreSQL database and one data folder ("PostgreSQL and
several instances"):

  - the configuration passes `nginx -t` once its addresses, port and certificate are filled in
    (each of those lines must still be in docs/operating.md: a change there fails this test);
  - `/readyz` answers through the proxy, over TLS;
  - a group is made and joined through the proxy, and a photo uploaded through it reaches the
    group's event stream, also through the proxy, while the stream is open: a proxy that
    buffered the stream would hold the event until its buffer filled, far longer than the test
    waits with 15-second heartbeats of a few bytes (the latency is printed);
  - requests are spread over both instances;
  - a body of 20 MiB passes the proxy and gets Groupie's own answer, not nginx's 413;
  - with one instance killed, reads through the proxy go on.

Usage: reverse_proxy_test.py path/to/groupie   (GROUPIE_TEST_POSTGRES as for the two-instance
test; nginx from Debian, which scripts/bootstrap installs). Exits 1 on any failure.
"""
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO, postgres  # noqa: E402
from groupie_harness.checks import Failure, check, logger, require  # noqa: E402
from groupie_harness.client import Api  # noqa: E402
from groupie_harness.events import EventStream  # noqa: E402
from groupie_harness.photos import FIXTURES  # noqa: E402
from groupie_harness.server import Server, free_port  # noqa: E402

VENUE = "science-centre"
MISSION, TASK = "poison-frogs", "brightest-frog"
PHOTO = FIXTURES / "chelsea.jpg"
log = logger("reverse-proxy")


def replace_once(text, old, new):
    check(text.count(old) == 1, f"docs/operating.md's nginx configuration has the line {old!r} once ({text.count(old)} times)")
    return text.replace(old, new)


def configuration(workdir, port, upstreams, certificate, key):
    """docs/operating.md's nginx block with this machine's addresses, wrapped in what nginx needs to run
    from a temporary folder."""
    readme = (REPO / "docs" / "operating.md").read_text()
    blocks = re.findall(r"```nginx\n(.*?)```", readme, re.S)
    check(len(blocks) == 1, f"docs/operating.md has one nginx configuration ({len(blocks)})")
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


def proxy_client(port, certificate):
    """HTTPS requests to nginx on 127.0.0.1, checking its certificate."""
    return Api(f"https://127.0.0.1:{port}", timeout=30, context=ssl.create_default_context(cafile=str(certificate)), name="proxy")


def main():
    binary = os.path.abspath(sys.argv[1])
    try:
        nginx = shutil.which("nginx") or require("/usr/sbin/nginx", what="Debian's nginx")
        with postgres.database("groupie_proxy") as database:
            return run(binary, nginx, database)
    except Failure as failure:
        log(f"FAILED: {failure}")
        return 1


def run(binary, nginx, database):
    workdir = Path(tempfile.mkdtemp(prefix="groupie-proxy-"))
    instances, proxy_process, stream, passed = [], None, None, False
    try:
        for label in "AB":
            instances.append(Server(binary, workdir, log_level="info", wait=60, grace=3, name=label,
                                    options=("--database", database, "--trust-proxy"), log_name=f"server-{label}.log"))
        certificate, key = workdir / "proxy.crt", workdir / "proxy.key"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(certificate)],
                       check=True, capture_output=True)
        port = free_port()
        conf = workdir / "nginx.conf"
        conf.write_text(configuration(workdir, port, [instances[0].port, instances[1].port], certificate, key))
        tested = subprocess.run([nginx, "-t", "-c", str(conf), "-p", str(workdir)], capture_output=True, text=True)
        check(tested.returncode == 0, f"nginx -t accepts docs/operating.md's configuration: {tested.stderr.strip()}")
        # A session of its own, so that the master and its workers can be ended together.
        proxy_process = subprocess.Popen([nginx, "-c", str(conf), "-p", str(workdir)], start_new_session=True,
                                         stdout=subprocess.DEVNULL, stderr=open(workdir / "nginx-stderr.log", "w"))
        proxy = proxy_client(port, certificate)
        deadline = time.monotonic() + 20
        while True:
            try:
                ready = proxy.request("GET", "/readyz", expect=None)
                if ready.status == 200:
                    ready = ready.data
                    break
            except OSError:
                pass
            check(time.monotonic() < deadline and proxy_process.poll() is None, "nginx answers /readyz within 20 s")
            time.sleep(0.1)
        check(ready["status"] == "ready" and ready["backend"] == "postgresql", f"/readyz through the proxy: {ready}")
        log("nginx with docs/operating.md's configuration answers /readyz over TLS")

        ada = proxy.new_player("Ada", "en")
        bo = proxy.new_player("Bo", "en")
        group = proxy.new_group(ada["token"], VENUE, "Frogs")
        proxy.join(bo["token"], group["joinCode"])

        # Ada's event stream through the proxy; Bo's photo through the proxy must reach it while
        # the stream stays open.
        stream = EventStream(proxy, f"/api/v1/groups/{group['id']}/events", ada["token"], name="Ada")
        stream.start()
        check(stream.opened.wait(10), "the event stream opens through the proxy")
        uploaded = proxy.upload(group["id"], PHOTO.read_bytes(), bo["token"], mission=MISSION, task=TASK)
        answered = time.monotonic()
        check(uploaded.status == 201, "the upload through the proxy is taken")
        photo_id = uploaded.data["photo"]["id"]
        arrived, _ = stream.wait_for(lambda e: e[2] == "photo-added" and photo_id in e[3], "the photo's event", timeout=30)
        check(stream.is_alive(), "the stream is still open when the photo's event comes through the proxy (not flushed by its end)")
        log(f"the photo's event came through the proxy {max(0.0, (arrived[0] - answered) * 1000):.0f} ms after the upload's 201")

        # Four readers at once: `least_conn` sends each request to the instance with the fewer
        # requests under way (the open event stream counts as one).
        before = [instance.metric("hb_requests") for instance in instances]
        failures = []

        def read_group():
            try:
                for _ in range(10):
                    proxy.call("GET", f"/api/v1/groups/{group['id']}", token=ada["token"])
            except (Failure, OSError) as error:
                failures.append(str(error))

        readers = [threading.Thread(target=read_group) for _ in range(4)]
        for thread in readers:
            thread.start()
        for thread in readers:
            thread.join(60)
        check(not failures, f"reads through the proxy: {failures[:3]}")
        after = [instance.metric("hb_requests") for instance in instances]
        # Less each instance's first request for its metrics, counted once it was answered.
        spread = [int(after[i] - before[i]) - 1 for i in range(2)]
        check(sum(spread) == 40 and all(count > 0 for count in spread), f"40 reads through the proxy are spread over both instances: {spread}")
        log(f"40 reads through the proxy, four at a time, went {spread[0]} to A and {spread[1]} to B")

        large = os.urandom(20 * 1024 * 1024)
        large = proxy.upload(group["id"], large, bo["token"], expect=None)
        answer, status, kind = large.data, large.status, large.content_type
        check(status != 413 and kind.startswith("application/problem+json") and isinstance(answer, dict),
              f"a 20 MiB body passes the proxy and gets Groupie's own answer: {status} {kind} {answer if isinstance(answer, dict) else answer[:200]!r}")
        log(f"a 20 MiB body passed the proxy; Groupie answered {status} {answer.get('code')}")

        instances[1].kill()
        for _ in range(10):
            status = proxy.request("GET", f"/api/v1/groups/{group['id']}", token=ada["token"], expect=None).status
            check(status == 200, f"with B killed, reads through the proxy go on ({status})")
        log("with B killed, 10 reads through the proxy were answered by A")
        log("passed")
        passed = True
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
        for instance in instances:
            instance.stop()
        if passed:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
