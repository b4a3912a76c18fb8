#!/usr/bin/env python3
"""Browser test of a group splitting its tasks, and of playing on bad Wi-Fi.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`, with
phones at 390 px:

  - Ada says "I'm on it" for a task; Bo's phone shows "Ada is on it" at once, and no button to
    claim it; Bo photographing it anyway is told that Ada is on it. Ada's photo ends her claim.
  - Ada and Bo photograph the same open task at the same moment, neither asked to replace
    anything: the first photo to arrive is the task's, and each phone says what happened to
    its own photo (the task's photo, or the album beside a teammate's, with "Use mine instead",
    which makes it the task's). A task Ada said she is on goes to her photo, even when Bo's
    arrived a moment before: Bo is told kindly that his stays in the album.
  - Cy plays through a relay this test controls (a Wi-Fi dead zone when told: it accepts
    connections and passes nothing on). After a first visit, a reload in the dead zone shows
    the saved group, marked offline, at once: while the reload's reads of the player and the
    group still wait in the dead zone, not given up. A photo taken there shows as a picture on
    its task and in the album; its upload says it is not moving and offers to try again now;
    when the relay passes data again, it arrives once.

Screenshots go to .build/browser-screenshots/ (prefixed "team-").

Usage:  python3 Tests/Browser/teamwork_test.py .build/debug/groupie
"""

import re
import select
import socket
import sys
import threading
import time

from browser_support import (UPLOAD_REQUEST, Browser, Failure, accessibility_problems, check, join_group, log, make_photo, run_scenario,
                             start_group, start_server, uploads_answered)

VENUE, MISSION = "science-centre", "poison-frogs"
CLAIMED, RACED = "brightest-frog", "frog-pose"


class DeadZone:
    """A TCP relay to the server on a port of its own. While `stalled`, it accepts connections
    and reads what comes (a TCP window's worth a connection, then the sender waits, as on a
    congested network), but passes nothing on, either way: connected, and nothing flows. What
    it read is passed on once it flows again, even where the sender has closed meanwhile (packets
    that were under way). `held` notes each request the browser sent while stalled: its line
    (`GET /path`), whether the browser gave it up (closed its connection) before it was passed
    on, and whether it was passed on. `requests` has the line of every request the browser sent
    through it, stalled or not."""

    WINDOW = 65536
    REQUEST_LINE = re.compile(rb"(?m)^([A-Z]+ \S+) HTTP/1\.[01]\r$")

    def __init__(self, target_port):
        self.target_port = target_port
        self.stalled = False
        self.held = []
        self.requests = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.running = True
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.connect, args=(client,), daemon=True).start()

    def hold(self):
        while self.stalled and self.running:
            time.sleep(0.05)

    def connect(self, client):
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
        except OSError:
            client.close()
            return
        threading.Thread(target=self.pump, args=(upstream, client), daemon=True).start()
        self.pump(client, upstream, noted=[])

    def pump(self, source, sink, noted=None):
        """Passes what `source` sends on to `sink`, keeping it while stalled. `noted`: a list for
        the browser's side, of its requests read while stalled and not passed on yet."""
        kept = b""
        try:
            while self.running:
                if kept and not self.stalled:
                    sink.sendall(kept)
                    kept = b""
                    for request in noted or ():
                        request["passed"] = True
                    if noted:
                        noted.clear()
                if len(kept) >= self.WINDOW or not select.select([source], [], [], 0.05)[0]:
                    if len(kept) >= self.WINDOW:
                        self.hold()
                    continue
                data = source.recv(65536)
                if not data:
                    for request in noted or ():
                        request["given_up"] = True
                    self.hold()
                    if kept:
                        sink.sendall(kept)
                    break
                kept += data
                if noted is not None:
                    self.requests.extend(line.decode() for line in self.REQUEST_LINE.findall(data))
                if noted is not None and self.stalled:
                    for line in self.REQUEST_LINE.findall(data):
                        request = {"request": line.decode(), "given_up": False, "passed": False}
                        noted.append(request)
                        self.held.append(request)
        except OSError:
            pass
        finally:
            self.shut(source, sink)

    @staticmethod
    def shut(*sockets):
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def uploads(self):
        """How many requests sending a photo the browser sent through the relay."""
        return len([line for line in list(self.requests) if UPLOAD_REQUEST.match(line)])

    def first(self, request):
        """The first of `held` that is `request` (`GET /path`, whatever its query), or None."""
        return next((r for r in list(self.held) if r["request"].split("?")[0] == request), None)

    def stop(self):
        self.running = False
        self.stalled = False
        self.listener.close()


def record_toasts(b):
    """Every message shown from now on, in window.toldTexts."""
    b.js("window.toldTexts = []; const box = document.getElementById('toast');"
         "new MutationObserver(() => { if (box.innerText) window.toldTexts.push(box.innerText); })"
         ".observe(box, {childList: true, subtree: true, characterData: true});")


def plain(text):
    """Text without the marks that isolate a visitor's name from the sentence around it."""
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def shown(b, css):
    """The text of the first element `css` finds, or '' when there is none."""
    return plain(b.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css))


def told(b):
    return [plain(t) for t in b.js("return window.toldTexts || []")]


def task_of(server, token, group_id, task_id):
    g = server.api.get(f"/api/v1/groups/{group_id}", token)["group"]
    return next(t for m in g["missions"] if m["id"] == MISSION for t in m["tasks"] if t["id"] == task_id)


def photos_of(server, token, group_id):
    return server.api.get(f"/api/v1/groups/{group_id}/photos?mission={MISSION}", token)["photos"]


def splitting(server, work, started, photos):
    a, b = Browser("team-A", work), Browser("team-B", work)
    started += [a, b]
    join_group(b, start_group(a, server.base, VENUE, "Ada"), "Bo")
    group_id = server.api.get("/api/v1/me", a.token())["group"]["id"]
    for p in (a, b):
        p.d.get(server.base + f"/#/m/{MISSION}")
        p.el(f".task[data-task={CLAIMED}]")

    # ------------------------------------------------------------ "I'm on it", seen live
    a.click(f"#claim-{MISSION}-{CLAIMED}")
    a.wait(lambda d: "You're on it" in shown(a, f".task[data-task={CLAIMED}] .claim"), "Ada's own claim shown")
    b.wait(lambda d: "Ada is on it" in shown(b, f".task[data-task={CLAIMED}] .claim"),
           "Bo told live that Ada is on the task")
    check(not b.js(f"return !!document.getElementById('claim-{MISSION}-{CLAIMED}')"), "Bo has no button to claim Ada's task")
    claim = task_of(server, b.token(), group_id, CLAIMED).get("claim") or {}
    check(claim.get("name") == "Ada", f"the group document names the claimer: {claim}")
    b.shot("ada-is-on-it")
    b.send_file(f"#take-{MISSION}-{CLAIMED}", photos[0])
    b.wait(lambda d: "Ada is on this task" in shown(b, "#photo-claimed"), "Bo photographing Ada's task told she is on it")
    b.click(".screen.photo a.button.quiet")  # cancel
    log("a claim is shown to the teammate at once, and when they photograph the task")

    a.send_file(f"#take-{MISSION}-{CLAIMED}", photos[0])
    a.click("#accept-photo")
    a.wait(lambda d: task_of(server, a.token(), group_id, CLAIMED)["state"] == "done", "Ada's photo for her task", timeout=30)
    check("claim" not in task_of(server, a.token(), group_id, CLAIMED), "Ada's photo ended her claim")
    b.wait(lambda d: not b.js(f"return !!document.querySelector('.task[data-task={CLAIMED}] .claim')"), "Bo's phone no longer shows the claim")
    log("the claimer's photo ends the claim")

    # ------------------------------------------------------------ two photos of one task at once
    for p, photo in ((a, photos[1]), (b, photos[2])):
        p.d.get(server.base + f"/#/m/{MISSION}")
        p.send_file(f"#take-{MISSION}-{RACED}", photo)
        p.el("#accept-photo")
        check(not p.js("return !!document.getElementById('choose-photo')"), f"{p.name}: nothing to replace yet, so nothing asked")
        record_toasts(p)
    a.js("document.getElementById('accept-photo').click()")
    b.js("document.getElementById('accept-photo').click()")
    a.wait(lambda d: len([x for x in photos_of(server, a.token(), group_id) if x["taskId"] == RACED]) == 2, "both photos of the task", timeout=30)
    chosen = task_of(server, a.token(), group_id, RACED)["chosenPhoto"]
    winner, loser = (a, b) if chosen["photographerName"] == "Ada" else (b, a)
    winner_name = chosen["photographerName"]
    winner.wait(lambda d: any("the task’s photo" in t for t in told(winner)), f"{winner.name} told their photo is the task's", timeout=30)
    loser.wait(lambda d: any("in the album" in t and winner_name in t for t in told(loser)),
               f"{loser.name} told their photo went to the album beside {winner_name}'s", timeout=30)
    loser.shot("photo-went-to-album")
    log(f"two photos at once: {winner_name}'s is the task's, and each phone says where its photo went")

    def collage_version():
        m = next(m for m in server.api.get(f"/api/v1/groups/{group_id}", a.token())["group"]["missions"] if m["id"] == MISSION)
        c = m.get("collage") or {}
        found = c.get("status") == "ready" and re.search(r"[?&]v=([^&]+)", c["urls"]["jpg"])
        return found and found.group(1)
    # The mission is complete: its collage, before the swap redraws it.
    version_before = a.wait(lambda d: collage_version(), "the mission's collage", timeout=60)

    # The photographer whose photo went to the album makes it the task's; both cards follow.
    loser.click("#toast button.link")
    loser_name = "Bo" if winner_name == "Ada" else "Ada"
    loser.wait(lambda d: task_of(server, loser.token(), group_id, RACED)["chosenPhoto"]["photographerName"] == loser_name,
               "'Use mine instead' makes the photo the task's")
    for p in (a, b):
        p.js(f"location.hash = '#/m/{MISSION}'")
        p.wait(lambda d: loser_name in shown(p, f".task[data-task={RACED}] figcaption"), f"{p.name}'s task card names {loser_name}")
    log("'Use mine instead' swaps the task's photo")

    # ------------------------------------------------------------ the group's feed, with reactions
    # The swap redraws the collage, whose event draws the group screen (and its feed) anew:
    # the phones have the new collage before the feed is looked at.
    version = a.wait(lambda d: (v := collage_version()) and v != version_before and v, "the collage redrawn after the swap", timeout=60)
    for p in (a, b):
        p.js(f"location.hash = '#/done/{MISSION}'")
        p.wait(lambda d, p=p: f"v={version}" in (p.js("const i = document.querySelector('.collage img'); return i ? i.src : ''") or ""),
               f"{p.name} has the new collage")
    for p in (a, b):
        p.js("location.hash = '#/group'")
        p.el("#feed .feed-entry[data-kind=photo-added]")
    b.wait(lambda d: "Ada is on" in shown(b, "#feed"), "the feed tells of Ada's claim")
    heart = "#feed .feed-entry[data-kind=photo-added] .reaction[data-reaction=heart]"
    feed_reads = "return performance.getEntriesByType('resource').filter(e => /\\/feed$/.test(e.name)).length"
    # Emptied first: the browser keeps 250 entries, and Ada's phone has loaded more than that.
    a.js("performance.clearResourceTimings()")
    b.click(heart)
    b.wait(lambda d: b.js("const e = document.querySelector(arguments[0]); return !!e && !e.disabled && e.getAttribute('aria-pressed') === 'true'", heart),
           "Bo's heart shown as his")
    a.wait(lambda d: shown(a, heart + " .count") == "1", "Ada sees Bo's heart live, without a reload")
    b.click(heart)
    a.wait(lambda d: shown(a, heart + " .count") == "", "Ada sees Bo take his heart back")
    b.click(heart)
    a.wait(lambda d: shown(a, heart + " .count") == "1", "and give it again")
    check(a.js(feed_reads) == 0, "the reactions' events change Ada's feed without reading it again")
    problems = accessibility_problems(a)
    check(not problems, f"the group screen with its feed passes axe: {problems}")
    a.shot("group-feed")
    log("the group's feed shows what happened, and a reaction reaches the other phone live")

    # ------------------------------------------------------------ deleting is the photographer's
    bo_photo = next(x for x in photos_of(server, a.token(), group_id) if x["photographer"]["name"] == "Bo")
    refused = server.api.request("DELETE", f"/api/v1/photos/{bo_photo['id']}", token=a.token(), expect=None)
    check(refused.status == 403 and b"creator-may-only-hide" in refused.body, f"the creator cannot delete Bo's photo: {refused.status}")

    # ------------------------------------------------------------ the claimer's photo wins its race
    # Ada is on a task of another mission; Bo's photo of it arrives a moment before hers. Hers is
    # the task's, and Bo is told kindly that his stays in the album.
    other, task = "shark-tunnel", "ray"
    server.api.call("PUT", f"/api/v1/groups/{group_id}/missions/{other}/tasks/{task}/claim", token=a.token())
    b.d.get(server.base + f"/#/m/{other}")
    photo_bytes = photos[0].read_bytes()
    server.api.upload(group_id, photo_bytes, b.token(), mission=other, task=task)
    b.wait(lambda d: "Bo" in shown(b, f".task[data-task={task}] figcaption"), "Bo's photo shown as the task's for now")
    record_toasts(b)
    server.api.upload(group_id, photo_bytes, a.token(), mission=other, task=task)
    chosen = server.api.get(f"/api/v1/groups/{group_id}", a.token())["group"]
    chosen = next(t for m in chosen["missions"] if m["id"] == other for t in m["tasks"] if t["id"] == task)["chosenPhoto"]
    check(chosen["photographerName"] == "Ada", f"the claimer's photo is the task's: {chosen}")
    b.wait(lambda d: any("Ada was on this one" in t and "album" in t for t in told(b)), "Bo told kindly that Ada's photo is the task's")
    b.wait(lambda d: "Ada" in shown(b, f".task[data-task={task}] figcaption"), "Bo's task card names Ada")
    b.shot("claimer-won")
    log("the claimer's photo wins over a teammate's taken at the same time, and the teammate is told kindly")
    a.quit()
    b.quit()


def dead_zone(server, work, started, photos):
    answered_before = uploads_answered(server)
    relay = DeadZone(server.port)
    started.append(relay)
    base = f"http://localhost:{relay.port}"
    c = Browser("team-C", work)
    started.append(c)
    start_group(c, base, VENUE, "Cy")
    group_id = server.api.get("/api/v1/me", c.token())["group"]["id"]
    c.wait(lambda d: c.js("return !!navigator.serviceWorker.controller"), "the service worker to look after the page", timeout=20)
    c.d.get(base + f"/#/m/{MISSION}")
    c.el(f".task[data-task={RACED}]")
    kept = ("const done = arguments[arguments.length - 1];"
            "caches.keys().then(async (names) => { for (const n of names.filter((n) => n.endsWith('-data'))) {"
            "  const keys = await (await caches.open(n)).keys(); if (keys.some((k) => /\\/groups\\/[^/]+$/.test(new URL(k.url).pathname)) &&"
            "  keys.some((k) => /\\/venues\\//.test(k.url))) return done(true); } done(false); }).catch(() => done(false));")
    c.wait(lambda d: c.d.execute_async_script(kept), "the group and the venue kept for later", timeout=20)
    title = c.text("main h1")

    # ------------------------------------------------------------ connected, nothing flows
    relay.stalled = True
    c.js("location.reload()")
    # "At once" is: while the network is still asked. The reload's reads of the player and of
    # the group wait in the dead zone until the service worker gives them up; the kept answers
    # must stand in before that, so the group shows while the relay still holds both reads. A
    # page that waited for the network to fail would show it only once a read was given up, and
    # fails then (the deadline only bounds a page that shows nothing).
    reads = ("GET /api/v1/me", f"GET /api/v1/groups/{group_id}")

    def saved_group_shown(d):
        shown_now = (c.js("return document.querySelector('main h1') && document.querySelector('main h1').innerText") == title
                     and c.js("return !!document.querySelector('#bar .live.is-offline')"))
        firsts = [relay.first(read) for read in reads]
        abandoned = [r["request"] for r in firsts if r and (r["given_up"] or r["passed"])]
        check(not abandoned, f"the saved group, marked offline, shows before the browser gives up its reads in the dead zone: "
                             f"it gave up {abandoned} first")
        return shown_now and all(firsts)

    try:
        c.wait(saved_group_shown, "the saved group, marked offline, while its reads wait in the dead zone", timeout=60)
    except Failure as failure:
        raise Failure(f"{failure}; the dead zone held {relay.held}") from None
    c.shot("dead-zone-group")
    log("a reload in a dead zone shows the saved group, marked offline, while the network is still asked")

    c.send_file(f"#take-{MISSION}-{RACED}", photos[3])
    c.click("#accept-photo")
    c.el(f".task[data-task={RACED}] .upload .upload-picture")
    c.wait(lambda d: c.js("return !!document.querySelector('.upload.stalled [data-again]')"), "the stuck upload said, with 'Try again now'", timeout=20)
    check(not c.js("return !!document.querySelector('#bar .live.is-live')"), "the header does not say Live while nothing moves")
    said = shown(c, f".task[data-task={RACED}] .upload.stalled .state")
    check("Not moving" in said, f"the upload says it is not moving: {said!r}")
    c.shot("upload-not-moving")
    c.js("location.hash = '#/album'")
    c.el(".thumbs.uploading img.upload-picture")
    c.shot("album-waiting-picture")
    log("a photo waiting in the dead zone shows as a picture on its task and in the album; its upload says it is stuck")

    c.js(f"location.hash = '#/m/{MISSION}'")
    c.click(f".task[data-task={RACED}] .upload.stalled [data-again]")
    relay.stalled = False
    c.wait(lambda d: len(photos_of(server, c.token(), group_id)) == 1, "the photo arrived when the Wi-Fi came back", timeout=60)
    c.wait(lambda d: not c.js("return !!document.querySelector('[data-upload]')"), "the waiting picture gone once uploaded", timeout=30)
    # A second copy would come from a request held in the dead zone and passed on late, or from
    # another request of the queue: once the server has answered every one the relay read, none
    # is still on its way.
    c.wait(lambda d: uploads_answered(server) - answered_before >= relay.uploads(), "the server to answer every upload request of the phone",
           timeout=30)
    answered = uploads_answered(server) - answered_before
    check(answered == relay.uploads(), f"the server answered {answered} upload requests, the phone sent {relay.uploads()}: {relay.requests}")
    check(len(photos_of(server, c.token(), group_id)) == 1, "the photo arrived once")
    log(f"back in reach, the photo uploads once ({answered} upload request(s) through the dead zone, each answered)")


def scenario(binary, work, started):
    photos = [make_photo(work / f"p{i}.jpg", c) for i, c in enumerate([(200, 40, 40), (40, 160, 60), (40, 70, 200), (220, 180, 30)])]
    server = start_server(binary, work)
    started.append(server)
    log(f"server on {server.base}")
    splitting(server, work, started, photos)
    dead_zone(server, work, started, photos)


if __name__ == "__main__":
    sys.exit(run_scenario(__doc__, "groupie-team-", scenario))
