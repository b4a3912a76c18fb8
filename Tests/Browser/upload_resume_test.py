#!/usr/bin/env python3
"""Browser test of resumable uploads on bad Wi-Fi, and of two tabs of one phone.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve` through a
relay this test controls, which passes on a set number of bytes towards the server and then
holds the rest (connected, nothing flows), and notes the `Content-Range` of every part it passes:

  - Ada takes a 2 MB photo; its first part reaches the server, the next stalls. A second tab of
    the same phone, opened now, shows the photo as sent from another tab and sends nothing.
  - "Try again now" with the Wi-Fi back: the upload goes on from the server's offset, the first
    part is never sent again, and the photo arrives once; the second tab lets go of it.

The same again in a browser without Web Locks, where the queue keeps a lease in IndexedDB.
Then the answer to a photo's last part is lost on its way back: the phone asks where the
upload stands, learns that the photo is made, and says so, with no second copy.

Screenshots go to .build/browser-screenshots/ (prefixed "resume-").

Usage:  python3 Tests/Browser/upload_resume_test.py .build/debug/groupie
"""

import re
import socket
import sys
import threading
import time

from browser_support import Browser, check, log, make_photo, run_scenario, start_group, start_server, uploads_answered
from teamwork_test import DeadZone, record_toasts

VENUE, MISSION, TASK = "science-centre", "poison-frogs", "frog-pose"
PART = 512 * 1024
RANGE = re.compile(rb"content-range: bytes (\d+)-(\d+)/(\d+)", re.IGNORECASE)

# In the second tab, before any of its scripts: every request about an upload it makes.
COUNT_UPLOADS = """
window.uploadRequests = [];
const open = XMLHttpRequest.prototype.open;
XMLHttpRequest.prototype.open = function (method, url) {
  if (/\\/uploads\\/|\\/photos(\\?|$)/.test(String(url))) window.uploadRequests.push(method + ' ' + url);
  return open.apply(this, arguments);
};
const fetched = window.fetch;
window.fetch = function (input, init) {
  const url = String(input && input.url || input);
  if (/\\/uploads\\/|\\/photos(\\?|$)/.test(url) && !/\\/photos\\/[^/]+\\//.test(url)) window.uploadRequests.push('fetch ' + url);
  return fetched.apply(this, arguments);
};
"""


class PartRelay(DeadZone):
    """A TCP relay to the server. With `budget` set, it passes that many more bytes towards the
    server and holds the rest until `budget` is None again; answers always flow."""

    def __init__(self, target_port):
        self.budget = None
        self.ranges = []   # (first, last, total) of each part passed on, in order
        self.lock = threading.Lock()
        super().__init__(target_port)

    def connect(self, client):
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
        except OSError:
            client.close()
            return
        threading.Thread(target=self.pump, args=(upstream, client, False), daemon=True).start()
        self.pump(client, upstream, True)

    def allowance(self, wanted):
        """How many of `wanted` bytes may go towards the server now (waits while none may)."""
        while self.running:
            with self.lock:
                if self.budget is None:
                    return wanted
                if self.budget > 0:
                    n = min(wanted, self.budget)
                    self.budget -= n
                    return n
            time.sleep(0.05)
        return wanted

    def noted(self, client, part):
        """A part (first, last, total) read from the browser's connection `client`."""

    def passes_back(self, client):
        """Whether the server's answers go back to the browser's connection `client`."""
        return True

    def pump(self, source, sink, towards_server):
        try:
            while self.running:
                data = source.recv(65536)
                if not data:
                    break
                if not towards_server:
                    if self.passes_back(sink):
                        sink.sendall(data)
                    continue
                self.requests.extend(line.decode() for line in self.REQUEST_LINE.findall(data))
                for m in RANGE.finditer(data):
                    self.ranges.append(tuple(int(x) for x in m.groups()))
                    self.noted(source, self.ranges[-1])
                while data:
                    n = self.allowance(len(data))
                    sink.sendall(data[:n])
                    data = data[n:]
        except OSError:
            pass
        finally:
            self.shut(source, sink)



class LostReply(PartRelay):
    """A relay that passes everything on, but never passes back the server's answer on a
    connection that carried the last part of a photo: the photo is made, and the phone is left
    waiting for its answer (a Wi-Fi that drops just then)."""

    def __init__(self, target_port):
        self.swallowing = set()   # ids of the browser's connections whose answers are held
        self.last_parts = 0
        super().__init__(target_port)

    def noted(self, client, part):
        first, last, total = part
        if last == total - 1:
            with self.lock:
                self.swallowing.add(id(client))
                self.last_parts += 1

    def passes_back(self, client):
        with self.lock:
            return id(client) not in self.swallowing


def photos_of(server, token, group_id):
    return server.api.get(f"/api/v1/groups/{group_id}/photos", token)["photos"]


# The states an upload is shown in from now on (`upload sending`, `upload elsewhere`, ...), in
# order: each state change draws the upload's row anew.
WATCH_TURNS = """
window.uploadTurns = [];
new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      for (const row of [node, ...node.querySelectorAll('[data-upload]')]) {
        if (row.matches('[data-upload]')) window.uploadTurns.push(...row.classList);
      }
    }
  }
}).observe(document.body, { childList: true, subtree: true });
"""

# A browser without Web Locks: the queue falls back on its lease in IndexedDB.
NO_WEB_LOCKS = "Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined });"


def scenario(binary, work, started):
    photo = make_photo(work / "big.jpg", (40, 120, 60), size=(1800, 1350), sigma=40, quality=92)
    size = photo.stat().st_size
    check(3 * PART < size < int(2.5 * 1024 * 1024), f"the photo takes several parts and is not scaled down: {size} bytes")
    server = start_server(binary, work)
    started.append(server)
    log(f"server on {server.base}")
    for name, without_locks in (("resume-A", False), ("resume-lease", True)):
        one_phone(server, work, started, photo, name, without_locks)
    lost_reply(server, work, started, photo)


def lost_reply(server, work, started, photo):
    """The photo reaches the server, and the answer to its last part never reaches the phone:
    the phone asks where the upload stands, learns that the photo is made, and says so."""
    relay = LostReply(server.port)
    started.append(relay)
    base = f"http://localhost:{relay.port}"
    a = Browser("resume-lost", work)
    started.append(a)
    start_group(a, base, VENUE, "Ada")
    group_id = server.api.get("/api/v1/me", a.token())["group"]["id"]
    a.d.get(base + f"/#/m/{MISSION}")
    a.el(f".task[data-task={TASK}]")
    record_toasts(a)
    a.send_file(f"#take-{MISSION}-{TASK}", photo)
    a.click("#accept-photo")
    a.wait(lambda d: len(photos_of(server, a.token(), group_id)) == 1, "the photo made by the server", timeout=60)
    check(relay.last_parts >= 1, f"the last part went through the relay: {relay.ranges}")
    a.wait(lambda d: not a.js("return !!document.querySelector('[data-upload]')"), "the phone to learn that its photo arrived", timeout=30)
    a.wait(lambda d: a.js("return document.querySelectorAll('.task.done[data-task=%s] .chosen img').length" % TASK) == 1,
           "the photo shown as the task's")
    told = a.js("return window.toldTexts")
    check(any("task’s photo" in t or "uploaded" in t.lower() for t in told), f"the phone says the photo arrived: {told}")
    asked = [r for r in relay.requests if r.startswith("GET ") and "/uploads/" in r]
    check(asked, f"the phone asked where its upload stands: {relay.requests}")
    check(len(photos_of(server, a.token(), group_id)) == 1, "the photo arrived once")
    a.shot("lost-reply")
    log(f"the answer to the last part lost: the phone asked ({len(asked)} time(s)) and says the photo arrived, once")
    a.quit()
    relay.stop()


def one_phone(server, work, started, photo, name, without_locks):
    """The whole story on one phone; `without_locks`: in a browser without Web Locks."""
    size = photo.stat().st_size
    answered_before = uploads_answered(server)
    relay = PartRelay(server.port)
    started.append(relay)
    base = f"http://localhost:{relay.port}"
    log(f"{name}: through a relay on {base}" + (", without Web Locks" if without_locks else ""))

    a = Browser(name, work)
    started.append(a)
    if without_locks:
        a.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NO_WEB_LOCKS})
    a.d.get(base + f"/?venue={VENUE}")
    a.type("#name", "Ada")
    a.click("#create")
    a.click("#create-group")
    a.click("#to-missions")
    group_id = server.api.get("/api/v1/me", a.token())["group"]["id"]
    a.wait(lambda d: a.js("return !!navigator.serviceWorker.controller"), "the service worker to look after the page", timeout=20)
    a.d.get(base + f"/#/m/{MISSION}")
    a.el(f".task[data-task={TASK}]")
    first_tab = a.d.current_window_handle

    # ------------------------------------------------------------ the first part passes, then nothing
    relay.budget = PART + 180_000
    a.send_file(f"#take-{MISSION}-{TASK}", photo)
    a.click("#accept-photo")
    a.wait(lambda d: a.js("return !!document.querySelector('.upload.stalled [data-again]')"), "the stuck upload said", timeout=40)
    check([r[0] for r in relay.ranges][:2] == [0, PART] and all(r[2] == size for r in relay.ranges),
          f"parts of the photo went in order: {relay.ranges}")
    log(f"a {size}-byte photo: its first part passed, the second is stuck")

    # ------------------------------------------------------------ a second tab of the same phone
    a.d.switch_to.new_window("tab")
    second_tab = a.d.current_window_handle
    a.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (NO_WEB_LOCKS if without_locks else "") + COUNT_UPLOADS})
    a.d.get(base + f"/#/m/{MISSION}")
    # The row is drawn anew at each turn the tab takes at the photo: read in the same look.
    said = a.wait(lambda d: a.js("const e = document.querySelector('[data-upload].elsewhere .state'); return e && e.textContent"),
                  "the second tab shows the photo sent elsewhere", timeout=20)
    check("another tab" in said, f"the second tab says another tab sends it: {said!r}")
    a.shot("second-tab-elsewhere")
    # The tab looks again every 3 s: once it has taken its turn at the photo (shown as sending)
    # and set it aside as another tab's again, it would have sent it by then.
    a.js(WATCH_TURNS)
    a.wait(lambda d: a.js("const t = window.uploadTurns; const s = t.indexOf('sending'); return s >= 0 && t.indexOf('elsewhere', s) > s"),
           "the second tab to look at the photo again and leave it to the other tab", timeout=20)
    check(a.js("return window.uploadRequests") == [], f"the second tab sent nothing: {a.js('return window.uploadRequests')}")
    log("a second tab of the phone shows the photo as sent from another tab, and sends nothing")

    # ------------------------------------------------------------ back in reach: on from the server's offset
    a.d.switch_to.window(first_tab)
    a.click(".upload.stalled [data-again]")
    relay.budget = None
    a.wait(lambda d: len(photos_of(server, a.token(), group_id)) == 1, "the photo arrived when the Wi-Fi came back", timeout=60)
    a.wait(lambda d: not a.js("return !!document.querySelector('[data-upload]')"), "the waiting picture gone once uploaded", timeout=30)
    starts = [r[0] for r in relay.ranges]
    check(starts.count(0) == 1, f"the first part was sent once: {relay.ranges}")
    check(sorted(set(starts)) == list(range(0, size, PART)) and all(starts.count(s) <= 2 for s in starts),
          f"every part sent, the stuck one at most twice: {relay.ranges}")
    log(f"resumed from the server's offset: parts {starts}, the first never again")

    a.d.switch_to.window(second_tab)
    a.wait(lambda d: not a.js("return !!document.querySelector('[data-upload]')"), "the second tab lets go of the photo", timeout=15)
    check(a.js("return window.uploadRequests") == [], f"the second tab never sent it: {a.js('return window.uploadRequests')}")
    # A second copy would come from a part held by the relay and passed on late, or from another
    # request of the first tab: once the server has answered every one the relay read, none is
    # still on its way.
    a.wait(lambda d: uploads_answered(server) - answered_before >= relay.uploads(), "the server to answer every upload request of the phone",
           timeout=30)
    answered = uploads_answered(server) - answered_before
    check(answered == relay.uploads(), f"the server answered {answered} upload requests, the phone sent {relay.uploads()}: {relay.requests}")
    check(len(photos_of(server, a.token(), group_id)) == 1, "the photo arrived once")
    log(f"the photo arrived once ({answered} upload request(s) through the relay, each answered); the second tab never sent it")
    check(a.js("return !navigator.locks") == without_locks, "Web Locks as the run says")
    a.quit()
    relay.stop()


if __name__ == "__main__":
    sys.exit(run_scenario(__doc__, "groupie-resume-", scenario))
