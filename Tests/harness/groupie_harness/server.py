"""`groupie serve` for a test or a benchmark: a free port, a data folder in a work folder, the
repository's missions/ and assets/ unless told otherwise, ready when constructed (it answers
/readyz), its output in a log file, stopped with SIGTERM and its exit status kept."""
import collections
import os
import random
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

from . import REPO
from .checks import Failure
from .client import Api

Stopped = collections.namedtuple("Stopped", "status seconds killed")
Stopped.__doc__ = """How a server ended: its exit status (None when it had to be killed), the
seconds from SIGTERM to its exit (None when it was no longer running), and whether it was killed."""


def free_port():
    """A port no socket holds on 127.0.0.1 now, below Linux's ephemeral range (32768 up): a
    port from that range may be taken meanwhile as the local end of an outgoing connection (the
    tests' own, an instance's to PostgreSQL), and a killed instance, or a PostgreSQL cluster, is
    started again on its port."""
    while True:
        port = random.randrange(20000, 32768)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


class Server:
    """A running `groupie serve`. `api` is a client of it; `data` its data folder; `log_path` the
    file its standard output and error go to (appended to: an instance started again on the same
    work folder adds to it)."""

    def __init__(self, binary, work, *, data=None, missions=None, assets=None, port=None, log_level="warning",
                 options=(), log_name="server.log", public_url=True, ready="/readyz", wait=30, grace=30, name=None,
                 tls=None, host="127.0.0.1", environment=None):
        """`data`: another data folder than `work`/data (one shared by two instances); `port`: one
        to listen on again (a server started anew on the same data); `options`: further settings,
        such as `--database URL`; `ready`: the path that must answer 200 before the constructor
        returns (None: return at once); `wait`: seconds for that; `grace`: seconds `stop` waits
        after SIGTERM before it kills; `name`: what failures and logs call it (one of several);
        `tls`: (certificate chain, key, TLS context of a client that trusts it) to serve HTTPS;
        `public_url`: True for the address it listens on, or a URL of its own; `environment`:
        variables it gets besides this process's."""
        self.binary = str(binary)
        self.work = Path(work)
        self.port = port or free_port()
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.data = Path(data) if data else self.work / "data"
        self.log_path = self.work / log_name
        self.grace = grace
        self.name = name
        self.api = Api(self.base, name=name, context=tls[2] if tls else None)
        self.stopped = None
        if public_url is True:
            public_url = self.base
        command = [self.binary, "serve", "--host", host, "--port", str(self.port), "--data", str(self.data),
                   "--missions", str(missions or REPO / "missions"), "--assets", str(assets or REPO / "assets"),
                   "--log-level", log_level, *(["--public-url", public_url] if public_url else []),
                   *(["--tls-certificate", str(tls[0]), "--tls-key", str(tls[1])] if tls else []), *options]
        self.log = open(self.log_path, "a")
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT,
                                        env={**os.environ, **environment} if environment else None)
        self.pid = self.process.pid
        if ready:
            try:
                self.wait_until_ready(ready, wait)
            except BaseException:
                self.kill()
                raise

    def wait_until_ready(self, path="/readyz", seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise Failure(f"{self.name or 'the server'} exited with status {self.process.returncode}; see {self.log_path}")
            try:
                if self.api.request("GET", path, expect=None, timeout=1).status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise Failure(f"{self.name or 'the server'} did not answer {path} within {seconds} s; see {self.log_path}")

    def running(self):
        return self.process.poll() is None

    def stop(self, grace=None):
        """SIGTERM, and a kill when the server has not exited within `grace` seconds (the
        constructor's by default). Returns and keeps (`stopped`) how it ended: `Stopped`."""
        grace = self.grace if grace is None else grace
        if self.process.poll() is not None:
            result = Stopped(self.process.returncode, None, False)
        else:
            began = time.monotonic()
            self.process.send_signal(signal.SIGTERM)
            try:
                status = self.process.wait(grace)
                result = Stopped(status, time.monotonic() - began, False)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                result = Stopped(None, None, True)
        self.log.close()
        self.stopped = self.stopped or result
        return result

    def kill(self):
        """SIGKILL, as a crash or an operator's `kill -9` ends it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.log.close()

    # --- what /proc and /metrics say of it
    def status_kib(self, field):
        """A line of /proc/<pid>/status in KiB (`VmRSS` now, `VmHWM` at its peak), or None."""
        try:
            with open(f"/proc/{self.pid}/status") as status:
                for line in status:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def memory_mib(self, field="VmRSS"):
        return (self.status_kib(field) or 0) / 1024

    def open_files(self):
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return None

    def cpu_ticks(self):
        return cpu_ticks(self.pid)

    def metric(self, name, **labels):
        """The sum of a metric's samples in /metrics (each label set's); with `labels`, of the
        samples that carry those labels with those values (`http_request_method="PUT"`)."""
        text = self.api.request("GET", "/metrics", timeout=10).body.decode()
        total = 0.0
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                sample, value = line.rsplit(" ", 1)
                found = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', sample))
                if all(found.get(label) == str(wanted) for label, wanted in labels.items()):
                    total += float(value)
        return total


def cpu_ticks(pid):
    """The user and system CPU a process has used, in clock ticks (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError):
        return 0


def folder_size(path):
    """The bytes of every file below `path` (a data folder, as it grows)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total
