"""What the benchmarks share: a free port, and a Groupie server on the sample venues."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def percentile(values, share):
    """The value below which `share` of `values` fall (nan when there are none)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def ensure_wrk():
    """Installs Debian's wrk when it is missing (updating the package lists if need be)."""
    if shutil.which("wrk") is None:
        if subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"]).returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], check=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`groupie serve` on a free port with a data folder under `work`, ready when constructed."""

    def __init__(self, binary, work, data=None, extra=()):
        """`data`: a data folder to share with another instance; `extra`: further settings."""
        self.port = free_port()
        self.data = data or f"{work}/data-{self.port}"
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data,
             "--missions", f"{REPOSITORY}/missions", "--assets", f"{REPOSITORY}/assets", "--log-level", "error", *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(400):
            try:
                self.call("GET", "/healthz")
                return
            except OSError:
                time.sleep(0.025)
        self.process.kill()
        self.process.wait()
        raise RuntimeError("the server did not start")

    def call(self, method, path, body=None, token=None, content_type="application/json"):
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method, data=data)
        request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read()
            return json.loads(text) if text else None

    def player_in_group(self, venue="science-centre"):
        token = self.call("POST", "/api/v1/players", {"name": "Bench"})["token"]
        group = self.call("POST", "/api/v1/groups", {"venueId": venue}, token)["group"]
        return token, group

    def memory_mib(self, field):
        """A line of /proc/<pid>/status in MiB: `VmRSS` now, `VmHWM` at its peak."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def peak_rss_mib(self):
        return self.memory_mib("VmHWM")

    def stop(self):
        self.process.terminate()
        self.process.wait()
