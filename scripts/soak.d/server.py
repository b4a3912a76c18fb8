"""The server under test: photos to upload, starting it, what /proc says of it, stopping it."""

import http.client
import os
import signal
import socket
import subprocess
import time

from stats import STATS

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SHUTDOWN_WAIT = 30           # seconds for the server to exit after SIGTERM


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def heap(port):
    """The server's C heap from /metrics, (in use, free held) in bytes, or None."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
        connection.close()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in ("groupie_heap_in_use_bytes", "groupie_heap_free_bytes"):
            values[name] = float(value)
    if len(values) < 2:
        return None
    return values["groupie_heap_in_use_bytes"], values["groupie_heap_free_bytes"]


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def folder_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def make_photos(work):
    """A few small JPEGs of different sizes made with the vips CLI, plus the test fixtures."""
    photos = []
    for i, (w, h, rgb) in enumerate([(800, 600, (180, 60, 40)), (1200, 1600, (40, 120, 200)),
                                     (1024, 768, (60, 170, 90)), (640, 960, (220, 200, 60))]):
        noise, bands, out = f"{work}/n{i}.v", f"{work}/b{i}.v", f"{work}/p{i}.jpg"
        subprocess.run(["vips", "gaussnoise", noise, str(w), str(h), "--sigma", "18", "--mean", "0"], check=True)
        subprocess.run(["vips", "bandjoin", f"{noise} {noise} {noise}", bands], check=True)
        subprocess.run(["vips", "linear", bands, f"{out}[Q=85]", "1 1 1", " ".join(map(str, rgb)), "--uchar"],
                       check=True)
        os.unlink(noise)
        os.unlink(bands)
        photos.append(open(out, "rb").read())
    fixtures = os.path.join(REPO, "Tests", "Fixtures", "Photos")
    if os.path.isdir(fixtures):
        for name in sorted(os.listdir(fixtures)):
            if name.endswith(".jpg"):
                photos.append(open(os.path.join(fixtures, name), "rb").read())
    return photos


def start_server(binary, work):
    port = free_port()
    data = os.path.join(work, "data")
    logfile = open(os.path.join(work, "server.log"), "w")
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data,
         "--missions", os.path.join(REPO, "missions"), "--assets", os.path.join(REPO, "assets"),
         "--public-url", base, "--log-level", "warning",
         # Each simulated phone says its own address, as behind the museum's proxy.
         "--trust-proxy"],
        stdout=logfile, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"soak: the server exited with status {process.returncode}; see {logfile.name}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                c.close()
                return process, port, logfile
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("soak: the server did not answer /healthz within 30 s")


def terminate(process):
    """SIGTERM, and the server must exit 0 within SHUTDOWN_WAIT (else it is killed); anything else is
    an error. Returns (exit status, seconds it took to exit or None)."""
    exit_status = None
    shutdown_seconds = None
    if process.poll() is None:
        t0 = time.monotonic()
        process.send_signal(signal.SIGTERM)
        try:
            exit_status = process.wait(SHUTDOWN_WAIT)
            shutdown_seconds = time.monotonic() - t0
        except subprocess.TimeoutExpired:
            STATS.error("unclean shutdown", f"the server did not exit within {SHUTDOWN_WAIT} s of SIGTERM; killed")
            process.kill()
            process.wait()
    else:
        exit_status = process.returncode
    if exit_status not in (0, None):
        STATS.error("unclean shutdown", f"the server exited with status {exit_status} after SIGTERM")
    return exit_status, shutdown_seconds
