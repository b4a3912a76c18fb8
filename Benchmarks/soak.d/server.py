"""The server under test as the soak runs it: photos to upload, starting it, its C heap from
/metrics, and its shutdown, which must be clean."""

from groupie_harness.photos import fixture_photos, make_photo, read
from groupie_harness.server import Server
from stats import STATS

SHUTDOWN_WAIT = 30           # seconds for the server to exit after SIGTERM


def make_photos(work):
    """A few small JPEGs of different sizes made with the vips CLI, plus the test fixtures."""
    photos = []
    for i, (w, h, rgb) in enumerate([(800, 600, (180, 60, 40)), (1200, 1600, (40, 120, 200)),
                                     (1024, 768, (60, 170, 90)), (640, 960, (220, 200, 60))]):
        photos.append(read(make_photo(f"{work}/p{i}.jpg", rgb, size=(w, h), sigma=18)))
    return photos + [read(path) for path in fixture_photos()]


def start_server(binary, work, missions):
    # Each simulated phone says its own address, as behind the museum's proxy.
    return Server(binary, work, missions=missions, log_level="warning", options=("--trust-proxy",), wait=30, grace=SHUTDOWN_WAIT)


def heap(server):
    """The server's C heap from /metrics, (in use, free held) in bytes, or None."""
    try:
        text = server.api.request("GET", "/metrics", timeout=10, expect=None).body.decode()
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


def terminate(server):
    """SIGTERM, and the server must exit 0 within SHUTDOWN_WAIT (else it is killed); anything else is
    an error. Returns (exit status, seconds it took to exit or None)."""
    stopped = server.stop()
    if stopped.killed:
        STATS.error("unclean shutdown", f"the server did not exit within {SHUTDOWN_WAIT} s of SIGTERM; killed")
    elif stopped.status not in (0, None):
        STATS.error("unclean shutdown", f"the server exited with status {stopped.status} after SIGTERM")
    return stopped.status, stopped.seconds
