"""Starts `groupie serve` for the Python tests: a free port, a data folder under `workdir`, the
repository's missions/ and assets/, ready when `start` returns (it answers /healthz)."""
import random
import signal
import socket
import subprocess
import time
import urllib.request
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
