"""Starts `groupie serve` for the Python tests: a free port, a data folder under `workdir`, the
repository's missions/ and assets/, ready when `start` returns (it answers /healthz). Also what
the tests of several instances share: a PostgreSQL database of their own, and reading an event
stream."""
import contextlib
import os
import random
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port():
    """A port no socket holds on 127.0.0.1 now, below Linux's ephemeral range (32768 up): a
    port from that range may be taken meanwhile as the local end of an outgoing connection (the
    tests' own, an instance's to PostgreSQL), and a killed instance is started again on its port."""
    while True:
        port = random.randrange(20000, 32768)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def start(binary, workdir, log_level, wait_seconds, failure, missions=None, port=None, extra=(), log_name="server.log"):
    """Returns (process, port, base URL, log path, open log file); raises `failure(message)`.
    `missions` is another missions folder than the repository's; `port` a port to listen on
    again (a server started anew on the same data folder); `extra` further settings, such as
    `--database`; `log_name` the log's file in `workdir` (one per instance)."""
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    logpath = workdir / log_name
    logfile = open(logpath, "a")
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(workdir / "data"),
         "--missions", str(missions or REPO / "missions"), "--assets", str(REPO / "assets"),
         "--public-url", base, "--log-level", log_level, *extra],
        stdout=logfile, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise failure(f"the server exited with status {process.returncode}; see {logpath}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1) as r:
                if r.status == 200:
                    return process, port, base, logpath, logfile
        except OSError:
            time.sleep(0.1)
    raise failure(f"the server did not answer /healthz within {wait_seconds} s")


def stop(process, logfile):
    """SIGTERM, and a kill when the graceful shutdown takes more than 3 s: event streams that
    the test stopped reading can hold it up, and the data folder is thrown away anyway."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(3)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    logfile.close()


@contextlib.contextmanager
def postgres_database(prefix, failure):
    """A new database on the PostgreSQL server of GROUPIE_TEST_POSTGRES (as scripts/with-postgres
    sets it), as a URL without TLS; dropped afterwards. Raises `failure` without the variable."""
    server_url = os.environ.get("GROUPIE_TEST_POSTGRES")
    if not server_url:
        raise failure("GROUPIE_TEST_POSTGRES is not set; run this under scripts/with-postgres")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    subprocess.run(["psql", "-X", "-q", server_url, "-c", f"CREATE DATABASE {name}"], check=True)
    parts = urllib.parse.urlsplit(server_url)
    try:
        yield urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, "sslmode=disable", ""))
    finally:
        subprocess.run(["psql", "-X", "-q", server_url, "-c", f"DROP DATABASE IF EXISTS {name}"], capture_output=True)


def read_events(response, on_event):
    """Reads Server-Sent Events from an `http.client` response until the stream ends, calling
    `on_event(id, event, data)` for each (id 0 when the event has none). Comments (heartbeats)
    are skipped; a chunked stream, as a proxy sends it, is read through the response."""
    fields = {}
    while True:
        try:
            line = response.readline()
        except OSError:
            return
        if not line:
            return
        line = line.decode().rstrip("\n")
        if line == "":
            if "event" in fields:
                on_event(int(fields.get("id", 0)), fields["event"], fields.get("data", ""))
            fields = {}
        elif not line.startswith(":") and ":" in line:
            key, value = line.split(":", 1)
            fields[key] = value.lstrip(" ")
