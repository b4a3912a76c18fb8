"""The visitor's first load, the way in by a join link, and the saved group opened in a Wi-Fi
dead zone.

First load: a headless Chromium with a fresh profile and its cache off loads `/` (the start
screen, ready for a name) and counts the requests and the bytes they carried over the wire
(headers and bodies, as Resource Timing's `transferSize` says), with gzip (what every browser
asks for) and with `Accept-Encoding: identity` (compression off), beside the reference of
130 KB in 22 requests.

Join: a phone opens a group's join link in a fresh profile (cache off), types a name and taps
Join; timed to the group's first mission on the screen, on loopback and on Chromium's emulated
"Regular 3G", with the bytes and requests of the way.

Dead zone: a visitor who has played once opens the saved group again where the Wi-Fi is
connected but passes nothing (a relay that accepts connections and holds every byte); timed
from the reload to the group's title and missions drawn, beside the same load fully offline
(Chromium told it has no network). Five loads each; the median and the slowest.

No targets are asserted: the figures are printed.
"""
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import benchlib  # noqa: F401  (the harness on the import path)
from groupie_harness import REPO

sys.path.insert(0, str(REPO / "Tests" / "Browser"))
from browser_support import Browser, measure_first_load, start_server  # noqa: E402
from teamwork_test import DeadZone  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
WORK = Path(tempfile.mkdtemp(prefix="groupie-bench-first-load-"))
VENUE, MISSION = "science-centre", "poison-frogs"
LOADS = 5


def first_load(server, name, encoding=None):
    b = Browser(name, WORK)
    try:
        if encoding:
            b.d.execute_cdp_cmd("Network.enable", {})
            b.d.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Encoding": encoding}})
        load = measure_first_load(b, server.base + "/")
        return load.transferred, len(load.entries)
    finally:
        b.quit()


# Chromium's "Regular 3G": 100 ms more a round trip, 750 kbit/s down, 250 kbit/s up.
THREE_G = {"offline": False, "latency": 100, "downloadThroughput": 750 * 1000 // 8, "uploadThroughput": 250 * 1000 // 8}


def join_time(server, code, name, network=None):
    """Milliseconds from opening a join link in a fresh profile (cache off) to the group's first
    mission on the screen, the name typed at once and Join tapped as soon as it shows; and the
    bytes and requests the page made on the way."""
    b = Browser(name, WORK)
    try:
        b.d.execute_cdp_cmd("Network.enable", {})
        b.d.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        if network:
            b.d.execute_cdp_cmd("Network.emulateNetworkConditions", network)
        b.d.get("about:blank")
        start = time.monotonic()
        b.d.get(f"{server.base}/j/{code}")
        b.type("#name", "Bo")
        b.click("#join-group")
        b.wait(lambda d: b.js("return !!document.querySelector('.mission-card')"), "the first mission", timeout=60)
        took = (time.monotonic() - start) * 1000
        entries = b.js("return [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]"
                       ".map((e) => Math.max(e.transferSize || 0, e.encodedBodySize || 0))")
        return took, sum(entries), len(entries)
    finally:
        b.quit()


def shown(b, title):
    return b.js("const h = document.querySelector('main h1'); return !!(h && h.innerText === arguments[0]"
                " && document.querySelector('.task'))", title)


def timed_reload(b, title):
    """Milliseconds from the reload's start to the group's title and tasks on the page."""
    b.js("location.reload()")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if shown(b, title):
                return b.js("return performance.now()")
        except Exception:  # the page between two documents
            pass
        time.sleep(0.01)
    raise SystemExit("the saved group did not show within 30 s")


def dead_zone(server):
    relay = DeadZone(server.port)
    base = f"http://localhost:{relay.port}"
    b = Browser("dead-zone", WORK)
    try:
        b.d.get(base + f"/?venue={VENUE}")
        b.type("#name", "Ada")
        b.click("#create")
        b.click("#create-group")
        b.click("#to-missions")
        b.wait(lambda d: b.js("return !!navigator.serviceWorker.controller"), "the service worker", timeout=20)
        b.d.get(base + f"/#/m/{MISSION}")
        b.el(".task")
        time.sleep(2)  # the group's and the venue's answers kept by the service worker
        title = b.text("main h1")
        relay.stalled = True
        stalled = [timed_reload(b, title) for _ in range(LOADS)]
        relay.stalled = False
        b.set_offline(True)
        offline = [timed_reload(b, title) for _ in range(LOADS)]
        b.set_offline(False)
        return stalled, offline
    finally:
        b.quit()
        relay.stop()


def main():
    server = start_server(BINARY, WORK)
    try:
        gz_bytes, gz_requests = first_load(server, "first-gzip")
        plain_bytes, plain_requests = first_load(server, "first-plain", encoding="identity")
        print("first load of / (fresh profile, cache off):")
        print(f"  with gzip:        {gz_bytes / 1000:.1f} KB in {gz_requests} requests")
        print(f"  without (identity): {plain_bytes / 1000:.1f} KB in {plain_requests} requests")
        print("  reference:        130 KB in 22 requests")
        def new_code():  # a group of its own for each phone: a group holds five
            return server.api.new_group(server.api.new_player("Ada")["token"], VENUE)["joinCode"]

        for label, network in (("loopback", None), ("Regular 3G", THREE_G)):
            runs = [join_time(server, new_code(), f"join-{label.split()[-1]}-{i}", network) for i in range(LOADS)]
            times = [r[0] for r in runs]
            print(f"join link to the first mission, {label}, {LOADS} phones one after another:"
                  f" median {statistics.median(times):.0f} ms, slowest {max(times):.0f} ms;"
                  f" {runs[0][1] / 1000:.1f} KB in {runs[0][2]} requests")
        print("  targets: under 1,500 ms on loopback, under 4,000 ms on Regular 3G")
        stalled, offline = dead_zone(server)
        print(f"saved group opened, {LOADS} loads each:")
        print(f"  dead zone (connected, nothing flows): median {statistics.median(stalled):.0f} ms, slowest {max(stalled):.0f} ms")
        print(f"  offline (reference):                  median {statistics.median(offline):.0f} ms, slowest {max(offline):.0f} ms")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
