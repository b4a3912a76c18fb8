#!/usr/bin/env python3
"""Browser test of the web client without the network: the museum's Wi-Fi drops.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`:

  A visitor starts a group and uploads a photo; the page installs its service worker and the
  app's manifest is there. Then the phone goes offline (Chromium's network emulation) and the
  server goes away too (stopped), and the visitor reloads the page: the group, its missions and the photo already seen
  are still shown. A photo taken meanwhile waits in the upload bar. The server comes back on
  the same address and data: the photo uploads by itself, exactly once.

Screenshots go to .build/browser-screenshots/ (prefixed "offline-").

Usage:  python3 Tests/Browser/offline_test.py .build/debug/groupie
"""

import sys

from browser_support import Browser, check, log, make_photo, run_scenario, start_server

VENUE, MISSION = "science-centre", "poison-frogs"
TASKS = ("brightest-frog", "frog-pose")
# A mission whose album the phone has never opened: nothing of it is kept.
UNSEEN = "shark-tunnel"

# Before any of the page's scripts: every read of the album the page makes.
COUNT_ALBUM_READS = """
window.albumReads = 0;
const fetched = window.fetch;
window.fetch = function (input, init) {
  if (/\\/api\\/v1\\/groups\\/[^/]+\\/photos\\?/.test(String(input && input.url || input))) window.albumReads += 1;
  return fetched.apply(this, arguments);
};
"""


def photos_of(server, token, group_id):
    return server.api.get(f"/api/v1/groups/{group_id}/photos?mission={MISSION}", token)["photos"]


def scenario(binary, work, started):
    photos = [make_photo(work / f"p{i}.jpg", c) for i, c in enumerate([(200, 40, 40), (40, 70, 200)])]
    server = start_server(binary, work)
    started.append(server)
    log(f"server on {server.base}")
    a = Browser("offline-A", work)
    started.append(a)
    a.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COUNT_ALBUM_READS})
    a.d.get(server.base + f"/?venue={VENUE}")
    check(a.js("return !!document.querySelector('link[rel=manifest]')"), "the page names its manifest")
    a.type("#name", "Ada")
    a.click("#create")
    a.click("#create-group")
    a.click("#to-missions")
    token = a.token()
    group_id = server.api.get("/api/v1/me", token)["group"]["id"]
    a.wait(lambda d: a.js("return !!navigator.serviceWorker.controller"), "the service worker to look after the page", timeout=20)

    # Within the first visit's page: only the hash changes until the network goes.
    a.js(f"location.hash = '#/m/{MISSION}'")
    a.send_file(f"#take-{MISSION}-{TASKS[0]}", photos[0])
    a.click("#accept-photo")
    a.wait(lambda d: len(photos_of(server, token, group_id)) == 1, "the first photo uploaded", timeout=30)
    # What a visitor has seen is kept, from the first visit on: no reload before the network goes.
    a.wait(lambda d: a.js("return document.querySelectorAll('.task figure.chosen img').length") == 1, "the chosen photo")
    a.wait(lambda d: a.img_loaded(".task figure.chosen img"), "the chosen photo shown")
    a.js("location.hash = '#/album'")
    a.wait(lambda d: a.img_loaded(".thumbs img"), "the album's photo shown")
    a.js("location.hash = '#/missions'")
    a.el(".mission-card")
    title = a.text("main h1")
    log(f"online: the group {title!r} with its photo; service worker in charge")

    # ------------------------------------------------------------ the Wi-Fi drops
    # The phone is told it is offline (Chromium's network emulation), and the server is gone
    # too: whatever reaches past the page's own emulation finds nothing.
    port = server.port
    a.set_offline(True)
    server.stop()
    a.d.refresh()
    a.el(".mission-card", timeout=20)
    check(a.text("main h1") == title, "the group is shown after a reload without network")
    a.d.get(a.d.current_url.split("#")[0] + "#/album")
    a.wait(lambda d: a.img_loaded(".thumbs img"), "the photo already seen, without network")
    a.shot("album-offline")
    # An album never seen cannot be shown offline: the phone says so, once, and waits for the
    # network or the visitor instead of asking again every time the screen is drawn.
    reads = a.js("return window.albumReads")
    a.d.get(a.d.current_url.split("#")[0] + f"#/album/{UNSEEN}")
    a.el("#album-again")
    check("Wi-Fi" in a.text(".album .unavailable"), f"the album says it needs the network: {a.text('.album .unavailable')!r}")
    # A failed read that draws the screen again asks again at once, and again: as many reads as
    # the page's own fetches, one after another, have time to come back. Five of them here.
    a.d.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => { for (let i = 0; i < 5; i += 1) await fetch('/api/v1/me').catch(() => {}); })().finally(done);""")
    unseen_reads = a.js("return window.albumReads") - reads
    check(1 <= unseen_reads <= 2, f"the unseen album was asked for {unseen_reads} times without network")
    a.shot("album-unseen-offline")
    a.d.get(a.d.current_url.split("#")[0] + f"#/m/{MISSION}")
    a.wait(lambda d: a.img_loaded(".task figure.chosen img"), "the mission's photo, without network")
    a.send_file(f"#take-{MISSION}-{TASKS[1]}", photos[1])
    a.click("#accept-photo")
    a.wait(lambda d: a.js("const p = document.getElementById('pending'); return p && !p.hidden"), "the upload bar")
    a.shot("waiting-offline")
    log("offline: the reloaded page shows the group, its missions and the photo; a new photo waits")

    # ------------------------------------------------------------ the Wi-Fi comes back
    server = start_server(binary, work, port=port)
    started.append(server)
    a.watch_uploads()
    a.set_offline(False)
    a.wait(lambda d: len(photos_of(server, token, group_id)) == 2, "the waiting photo uploaded", timeout=60)
    a.wait(lambda d: a.js("return document.getElementById('pending').hidden"), "the upload bar gone", timeout=20)
    # A second copy would come from another request of the queue: once every one it made has
    # come back, none is still on its way to the server.
    requests = a.wait(lambda d: a.uploads_settled(), "every upload request of the page to come back", timeout=30)
    got = photos_of(server, token, group_id)
    check(len(got) == 2 and {p["taskId"] for p in got} == set(TASKS), f"each photo once: {[(p['taskId'], p['id']) for p in got]}")
    a.shot("back-online")
    log(f"online again: the waiting photo arrived once ({requests} upload request(s), each answered)")


def main():
    return run_scenario(__doc__, "groupie-offline-", scenario)


if __name__ == "__main__":
    sys.exit(main())
