#!/usr/bin/env python3
"""docs/operating.md's Caddy configuration for a network without a domain (deploy/Caddyfile.lan), run
by Debian's caddy in front of `groupie serve` as docs/operating.md says to start it:

  - Caddy makes its own authority and a certificate for groupie.museum.lan; a client that
    trusts that authority's root (what docs/operating.md puts on the tablets) reaches /readyz;
  - join links carry the https public URL;
  - a photo's event reaches a member's stream through Caddy while the stream stays open and
    nothing follows it (no buffering);
  - the staff sign-in page through Caddy says nothing of HTTPS (Caddy's X-Forwarded-Proto).

The site's upstream port is the only line changed; a global block of the test's own in front
turns Caddy's admin endpoint off and moves its ports to free ones.

Usage: caddy_test.py path/to/groupie   (caddy, which scripts/bootstrap installs). Exits 1 on
any failure.
"""
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO  # noqa: E402
from groupie_harness.checks import Failure, check, logger, require  # noqa: E402
from groupie_harness.client import Api  # noqa: E402
from groupie_harness.events import EventStream  # noqa: E402
from groupie_harness.photos import FIXTURES  # noqa: E402
from groupie_harness.server import Server, free_port  # noqa: E402

NAME = "groupie.museum.lan"
MISSION, TASK = "poison-frogs", "brightest-frog"
log = logger("caddy")


class NamedConnection(http.client.HTTPSConnection):
    """HTTPS to NAME at 127.0.0.1, as a tablet whose DNS gives the name this machine's address."""

    def connect(self):
        sock = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


class NamedApi(Api):
    def connection(self, timeout=None):
        return NamedConnection(self.host, self.port, timeout=timeout or self.timeout, context=self.context)


def configuration(work, upstream, http_port, https_port):
    site = (REPO / "deploy" / "Caddyfile.lan").read_text()
    check(site.count("reverse_proxy 127.0.0.1:8080") == 1, "deploy/Caddyfile.lan proxies to 127.0.0.1:8080 once")
    site = site.replace("reverse_proxy 127.0.0.1:8080", f"reverse_proxy 127.0.0.1:{upstream}")
    return f"""{{
	admin off
	skip_install_trust
	http_port {http_port}
	https_port {https_port}
	storage file_system {work / "caddy-data"}
}}
{site}"""


def run(binary, caddy, work):
    port = free_port()
    public = f"https://{NAME}:{port}"
    server = Server(binary, work, log_level="warning", public_url=public, options=("--trust-proxy",), grace=5)
    conf = work / "Caddyfile"
    conf.write_text(configuration(work, server.port, free_port(), port))
    environment = {**os.environ, "HOME": str(work), "XDG_DATA_HOME": str(work / "xdg-data"), "XDG_CONFIG_HOME": str(work / "xdg-config")}
    proxy = subprocess.Popen([caddy, "run", "--config", str(conf), "--adapter", "caddyfile"], env=environment,
                             stdout=subprocess.DEVNULL, stderr=open(work / "caddy.log", "w"), start_new_session=True)
    stream = None
    try:
        root = work / "caddy-data" / "pki" / "authorities" / "local" / "root.crt"
        deadline = time.monotonic() + 30
        while True:
            check(proxy.poll() is None, f"caddy runs docs/operating.md's configuration; see {work / 'caddy.log'}")
            try:
                if root.exists():
                    api = NamedApi(f"https://{NAME}:{port}", context=ssl.create_default_context(cafile=str(root)), timeout=10, name="caddy")
                    if api.request("GET", "/readyz", expect=None).status == 200:
                        break
            except OSError:
                pass
            check(time.monotonic() < deadline, "Caddy answers /readyz with its own certificate within 30 s")
            time.sleep(0.2)
        log("Caddy's own authority certifies groupie.museum.lan; a client trusting its root reaches Groupie")

        ada, bo = api.new_player("Ada", "en"), api.new_player("Bo", "en")
        group = api.new_group(ada["token"], "science-centre", "Frogs")
        check(group["joinUrl"].startswith(public + "/j/"), f"join links carry the https public URL: {group['joinUrl']}")
        api.join(bo["token"], group["joinCode"])
        stream = EventStream(api, f"/api/v1/groups/{group['id']}/events", ada["token"], name="Ada's (through Caddy)")
        stream.start()
        check(stream.opened.wait(30), "the event stream opens through Caddy")
        uploaded = api.upload(group["id"], (FIXTURES / "chelsea.jpg").read_bytes(), bo["token"], mission=MISSION, task=TASK)
        answered = time.monotonic()
        photo_id = uploaded.data["photo"]["id"]
        # The event is published before the upload is answered, and nothing follows it on the
        # stream but a heartbeat of a few bytes every 15 s. A proxy that buffers holds it until
        # its buffer fills or the stream ends, many minutes away: a deadline of a minute tells
        # the two apart on however busy a machine.
        arrived, _ = stream.wait_for(lambda e: e[2] == "photo-added" and photo_id in e[3], "the photo's event", timeout=60)
        log(f"a photo's event reaches a member's stream through Caddy, {max(0.0, arrived[0] - answered) * 1000:.0f} ms after the upload's answer")

        page = api.request("GET", "/staff/login", expect=(200,)).body.decode()
        check("needs HTTPS" not in page, "through Caddy the staff sign-in page says nothing of HTTPS")
        log("the staff sign-in page through Caddy knows the visitor came over HTTPS")
    finally:
        if stream:
            stream.close()
        if proxy.poll() is None:
            os.killpg(proxy.pid, signal.SIGTERM)
            try:
                proxy.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proxy.pid, signal.SIGKILL)
                proxy.wait()
        server.stop()


def main():
    binary = os.path.abspath(sys.argv[1])
    work = Path(tempfile.mkdtemp(prefix="groupie-caddy-"))
    try:
        caddy = require("caddy", what="Debian's caddy")
        run(binary, caddy, work)
        log("PASS")
        shutil.rmtree(work, ignore_errors=True)
        return 0
    except Failure as failure:
        log(f"FAILED: {failure}")
        print(f"work folder kept: {work}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
