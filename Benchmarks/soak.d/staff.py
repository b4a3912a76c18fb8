"""The venues' staff during the soak: for each venue a moderator (an account made with `groupie
staff add`, as Tests/harness does) signed in to the console with its live venue page open: the
page's event stream (`GET /staff/venues/{id}/events`), and the page fetched again after a
change, at most once a second (as assets/staff/live.js does). Now and then the moderator sends
a message to one group playing, or to every group of the venue (the messages page's form).
Checked: each message reaches the console's stream as a `staff-message` of each group it was
for, every group the stream names is one of the venue's, and (events.py) every message a phone
receives is one the staff sent."""

import collections
import http.client
import json
import threading
import time
import urllib.parse

from client import Client
from groupie_harness.client import Api
from groupie_harness.events import EventStream
from groupie_harness.staff import cookie_named, form_token
from model import KNOWN_GROUPS, MESSAGES
from stats import STATS, Unexpected

MESSAGE_EVERY = (20, 45)     # seconds between a moderator's messages
HEARD_WITHIN = 20            # seconds for a message to reach the console's stream
# The changes after which the venue page fetches itself again (assets/staff/live.js).
REFRESHING = {"member-joined", "member-left", "member-renamed", "photo-added", "photo-removed", "task-done", "task-undone",
              "choice-changed", "mission-completed", "collage-ready", "collage-removed", "group-closed", "group-reopened",
              "review-changed", "group-created"}


class ConsoleStream(EventStream):
    """The venue page's event stream; `ended` once it is over, however it ended."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ended = False
        self.failure = None

    def run(self):
        try:
            super().run()
        except (OSError, http.client.HTTPException) as failure:
            self.failure = failure
        finally:
            self.ended = True


class Staff(threading.Thread):
    """A moderator of one venue, in a thread of its own."""

    def __init__(self, port, load, venue_id, email, password, rng):
        super().__init__(daemon=True, name=f"staff-{venue_id}")
        self.port, self.load, self.venue_id, self.email, self.password, self.rng = port, load, venue_id, email, password, rng
        self.stop = threading.Event()
        self.shutting_down = False
        self.lock = threading.Lock()
        self.heard = collections.deque()     # (arrival, event, group id) of the stream, not yet checked
        self.stream = None
        self.epoch = 0                       # streams opened: a message is checked on the stream it was sent under
        self.pending = []                    # (sent, epoch, text, group ids it is for)
        self.refresh_due = None
        self.last_refresh = 0.0
        self.sent_count = 0

    def begin_shutdown(self):
        """The load is over: no more requests; the stream's end is the server's shutdown."""
        self.shutting_down = True

    def run(self):
        client = Client(self.port)
        try:
            self.session = self.sign_in(client)
        except Unexpected:
            STATS.error("staff", f"the moderator of {self.venue_id} could not sign in")
            return
        self.open_stream()
        next_message = time.monotonic() + self.rng.uniform(5, MESSAGE_EVERY[0])
        while not self.stop.wait(0.25):
            try:
                now = time.monotonic()
                if self.stream.ended and not self.shutting_down:
                    STATS.error("console stream ended", f"{self.venue_id}: status {self.stream.status}, {self.stream.failure}")
                    self.stop.wait(2)
                    self.open_stream()
                self.take_heard(now)
                if self.refresh_due is not None and now >= self.refresh_due and not self.shutting_down:
                    self.refresh_due, self.last_refresh = None, now
                    client.call("staff: GET /staff/venues/{id}", "GET", f"/staff/venues/{self.venue_id}", {200},
                                headers={"Cookie": self.session, "Accept": "text/html"})
                    STATS.count("console page loads")
                if now >= next_message and not self.shutting_down:
                    next_message = now + self.rng.uniform(*MESSAGE_EVERY)
                    self.send_message(client)
                self.check_pending(now)
            except Unexpected:
                client.close()
        client.close()
        if self.stream is not None:
            self.stream.close()

    def sign_in(self, client):
        """The sign-in form, then the session cookie (groupie_harness.staff.sign_in, counted)."""
        _, headers, page = client.call("staff: GET /staff/login", "GET", "/staff/login", {200})
        cookie = "groupie_staff_login=" + cookie_named(headers, "groupie_staff_login")
        form = urllib.parse.urlencode({"csrf": form_token(page), "email": self.email, "password": self.password}).encode()
        _, headers, _ = client.call("staff: POST /staff/login", "POST", "/staff/login", {303}, body=form,
                                    content_type="application/x-www-form-urlencoded", headers={"Cookie": cookie})
        return "groupie_staff=" + cookie_named(headers, "groupie_staff")

    def open_stream(self):
        self.epoch += 1
        self.stream = ConsoleStream(Api(f"http://127.0.0.1:{self.port}"), f"/staff/venues/{self.venue_id}/events",
                                    headers={"Cookie": self.session}, on_event=self.on_event, name=f"{self.venue_id} console")
        self.stream.start()
        if not self.stream.opened.wait(30) or self.stream.status != 200:
            STATS.error("console stream", f"{self.venue_id}: the venue page's stream answered {self.stream.status}")
        STATS.request("staff: GET /staff/venues/{id}/events", self.stream.status or "no answer", 0.0)
        STATS.count("console streams opened")

    def on_event(self, arrived, _id, event, data):
        """From the stream's thread: each event, kept for the checks."""
        try:
            group = json.loads(data).get("groupId")
        except (ValueError, AttributeError):
            STATS.error("bad event", f"{self.venue_id} console: {event} {data!r}")
            return
        STATS.count("console events")
        with self.lock:
            self.heard.append((arrived, event, group, self.epoch))
            if event in REFRESHING and self.refresh_due is None:
                self.refresh_due = max(arrived, self.last_refresh + 1.0)

    def take_heard(self, now):
        """The events heard 10 s ago or more: each of a group of this venue (known by then); the
        staff messages among them met against those sent."""
        while True:
            with self.lock:
                if not self.heard or self.heard[0][0] > now - 10:
                    return
                arrived, event, group, epoch = self.heard.popleft()
            if KNOWN_GROUPS.get(group) != self.venue_id:
                STATS.error("inconsistent answer", f"{self.venue_id} console: {event} of group {group}, "
                                                   f"not one of the venue's ({KNOWN_GROUPS.get(group)})")
            if event == "staff-message":
                STATS.count("staff messages heard on the console")
                for sent, sent_epoch, _, groups in self.pending:
                    if sent_epoch == epoch and sent <= arrived and group in groups:
                        groups.discard(group)
                        break

    def check_pending(self, now):
        for message in [m for m in self.pending if m[0] < now - HEARD_WITHIN - 10]:
            self.pending.remove(message)
            sent, epoch, text, groups = message
            if epoch != self.epoch:
                STATS.count("staff messages unchecked (console stream reopened)")
            elif groups:
                STATS.error("staff message not heard", f"{self.venue_id}: {text!r} reached the console's stream of "
                                                       f"{len(groups)} groups it was for within {HEARD_WITHIN} s: {sorted(groups)[:3]}")

    def send_message(self, client):
        with self.load.pool_lock:
            playing = [g.id for g in self.load.groups if g.venue_id == self.venue_id and not g.retired]
        to_all = not playing or self.rng.random() < 0.2
        target = None if to_all else self.rng.choice(playing)
        query = "" if to_all else f"?group={target}"
        _, _, page = client.call("staff: GET /staff/venues/{id}/messages", "GET", f"/staff/venues/{self.venue_id}/messages{query}",
                                 {200}, headers={"Cookie": self.session})
        self.sent_count += 1
        text = (f"Message {self.sent_count} from the staff of {self.venue_id}: the café on level 2 closes in "
                f"{self.rng.randint(5, 55)} minutes – see you there!")
        MESSAGES.note(self.venue_id, target, text)
        form = {"csrf": form_token(page), "text": text, **({} if to_all else {"group": target})}
        sent = time.monotonic()
        client.call("staff: POST /staff/venues/{id}/messages", "POST", f"/staff/venues/{self.venue_id}/messages", {303},
                    body=urllib.parse.urlencode(form).encode(), content_type="application/x-www-form-urlencoded",
                    headers={"Cookie": self.session})
        # Every group of the venue that someone is in gets a message to all; the soak knows those it plays.
        self.pending.append((sent, self.epoch, text, set(playing) if to_all else {target}))
        STATS.count("staff messages to every group" if to_all else "staff messages to one group")

