"""The soak test's attack phase (--attacks): what the second attack did to the server, done in
rounds beside the game, from an address of its own (X-Forwarded-For, the server trusting its proxy):
one token opening more event streams than a player may; album.zip and original downloads that
never read; a completed mission's collage asked at many sizes; players made from one address
past its limit; and wrong staff passwords in a burst. Every refusal the server owes is expected
(429, 503); anything else is an error.

Then the third attack's floods, each bounded by the server: found-it codes guessed (many wrong
codes from one player, in a new group each round: 429 too-many-guesses), tiny resumable uploads
(`Content-Range: bytes */1` under many new keys: each past the player's eight ends their oldest) and
a recap flood (16 recaps asked at once by one member: 429 recap-busy). Any refusal (4xx) is
expected of them, a 5xx is an error; the report says what the server did.

The game's own requests are timed apart, so that the report can set their p99 under attack
beside the quiet one."""

import hashlib
import os
import random
import socket
import string
import threading
import time
import uuid

from client import Client
from model import KNOWN_GROUPS
from stats import STATS, Unexpected, log
from venues import code_form

ATTACKER = "10.66.0.1"
ROUND_SECONDS = 20
VENUE = "art-museum"
CODE_GUESSES = 100           # wrong codes a round, one after another, from one player
TINY_UPLOADS = 200           # new upload keys a round, each `bytes */1`
RECAP_FLOOD = 16             # recaps asked at once by one member
REFUSALS = set(range(400, 500))


class Attacks:
    def __init__(self, port, photo, data_folder, staff_email, staff_password, rules):
        self.port = port
        self.rules = rules.get(VENUE, {})       # the venue's questions and codes (venues.py)
        self.photo = photo
        self.data_folder = data_folder
        self.staff = (staff_email, staff_password)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="attacks")
        self.client = Client(port, address=ATTACKER)

    def start(self):
        self.thread.start()

    def join(self, timeout):
        self.thread.join(timeout)
        return self.thread.is_alive()

    def _call(self, route, method, path, expect, **kw):
        return self.client.json(route, method, path, expect, **kw)

    def _setup(self):
        player = self._call("attack: POST /players", "POST", "/api/v1/players", {201}, body={"name": "Mallory"})
        self.token = player["token"]
        group = self._call("attack: POST /groups", "POST", "/api/v1/groups", {201},
                           body={"venueId": VENUE}, token=self.token)["group"]
        self.group = group["id"]
        KNOWN_GROUPS[self.group] = VENUE
        # The code guesser: a player of its own, made before the flood of players uses up the address's.
        self.guesser = self._call("attack: POST /players", "POST", "/api/v1/players", {201}, body={"name": "Eve"})["token"]
        venue = self._call("attack: GET /venues/{id}", "GET", f"/api/v1/venues/{VENUE}", {200})
        self.codes = [(m["id"], t["id"]) for m in venue["missions"] if not m["after"] for t in m["tasks"]
                      if t["kind"] == "code" and (m["id"], t["id"]) in self.rules]
        # A one-task mission: its collage exists once this photo is in.
        answer = self._call("attack: POST photo", "POST",
                            f"/api/v1/groups/{self.group}/photos?mission=be-the-artist&task=artist-pose", {201},
                            body=self.photo, token=self.token, content_type="image/jpeg")
        self.photo_id = answer["photo"]["id"]

    def _run(self):
        try:
            self._setup()
        except Unexpected:
            STATS.error("attack setup", "the attacker could not make its group")
            return
        log("attacks: rounds begin")
        while not self.stop.is_set():
            for attack in (self._streams, self._unread_downloads, self._collage_sizes, self._creations, self._passwords,
                           self._code_guesses, self._tiny_uploads, self._recap_flood):
                if self.stop.is_set():
                    break
                try:
                    attack()
                except Unexpected:
                    pass
                except OSError as failure:
                    STATS.error("attack connection", f"{attack.__name__}: {failure}")
            STATS.count("attack rounds")
            # A new connection each round: the server may close one kept idle between rounds.
            self.client.close()
            self.stop.wait(ROUND_SECONDS)

    def _raw(self, request):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(request.encode())
        return s

    def _status(self, s):
        return self._head(s)[0]

    def _head(self, s):
        """The status of the answer on `s`, and what came with it."""
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(256)
            if not chunk:
                break
            data += chunk
        return (int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else 0), data

    def _streams(self):
        """Thirty streams with one token: each is served and ends the oldest past the player's
        four, so that at most four stay open."""
        held = []
        for _ in range(30):
            s = self._raw(f"GET /api/v1/groups/{self.group}/events HTTP/1.1\r\nHost: x\r\n"
                          f"Authorization: Bearer {self.token}\r\nX-Forwarded-For: {ATTACKER}\r\n\r\n")
            status, data = self._head(s)
            if status != 200:
                STATS.error("attack: streams", f"a stream of the attacker's token answered {status}")
            held.append((s, data))
        time.sleep(2)
        ended = 0
        for s, data in held:
            s.settimeout(0.2)
            try:
                while not data.endswith(b"0\r\n\r\n"):
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            ended += data.endswith(b"0\r\n\r\n")
            s.close()
        if ended < 26:
            STATS.error("attack: streams", f"only {ended} of 30 streams of one token ended; at most 4 may stay")
        STATS.count("attack streams ended", ended)

    def _unread_downloads(self):
        """Twenty album.zip and original downloads that never read, held ten seconds."""
        token = self._call("attack: POST events/token", "POST", f"/api/v1/groups/{self.group}/events/token", {200},
                           token=self.token)["token"]
        held = []
        for i in range(40):
            path = (f"/api/v1/groups/{self.group}/album.zip?token={token}" if i % 2 == 0
                    else f"/api/v1/photos/{self.photo_id}/original")
            held.append(self._raw(f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {self.token}\r\n"
                                  f"X-Forwarded-For: {ATTACKER}\r\n\r\n"))
        time.sleep(10)
        for s in held:
            s.close()
        STATS.count("attack unread downloads", len(held))

    def _collage_sizes(self):
        """Forty sizes of the collage: the server keeps at most four pictures a format."""
        for size in random.sample(range(256, 4097), 40):
            status, _, _ = self.client.call("attack: collage sizes", "GET",
                                            f"/api/v1/groups/{self.group}/missions/be-the-artist/collage.jpg?size={size}",
                                            {200, 409, 503}, token=self.token)
            if status != 200:
                return
        folder = os.path.join(self.data_folder, "collages", self.group)
        kept = [n for n in os.listdir(folder) if n.endswith(".jpg")] if os.path.isdir(folder) else []
        if len(kept) > 4:
            STATS.error("attack: collage sizes", f"{len(kept)} pictures kept for one mission: {kept}")

    def _creations(self):
        """Players made from the attacker's address until refused (300 in ten minutes)."""
        for _ in range(100):
            status, _, _ = self.client.call("attack: POST /players (flood)", "POST", "/api/v1/players", {201, 429},
                                            body=b'{"name": "Flood"}', content_type="application/json")
            if status == 429:
                STATS.count("attack creations refused")
                return

    def _passwords(self):
        """Thirty wrong passwords for one account at once: at most ten are checked."""
        email, _ = self.staff
        statuses = []
        lock = threading.Lock()

        def attempt():
            client = Client(self.port, address=ATTACKER)
            try:
                status, headers, data = client.call("attack: GET /staff/login", "GET", "/staff/login", {200})
                cookie = headers.get("Set-Cookie", "").split(";")[0]
                text = data.decode(errors="replace")
                marker = 'name="csrf" value="'
                csrf = text[text.index(marker) + len(marker):].split('"')[0] if marker in text else ""
                body = f"csrf={csrf}&email={email}&password=not+the+password".encode()
                status, _, _ = client.call("attack: POST /staff/login", "POST", "/staff/login", {401, 429, 503}, body=body,
                                           headers={"Cookie": cookie}, content_type="application/x-www-form-urlencoded")
                with lock:
                    statuses.append(status)
            except Unexpected:
                pass
            finally:
                client.close()

        threads = [threading.Thread(target=attempt) for _ in range(30)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if statuses.count(401) > 10:
            STATS.error("attack: passwords", f"{statuses.count(401)} of 30 concurrent wrong passwords were checked")

    # --- provocations the server may not bound yet: what it does is reported, a 5xx is an error
    def _code_guesses(self):
        """Many wrong found-it codes from one player, in a new group (a timed mission's clock
        would refuse them all after its limit)."""
        if not self.codes:
            return
        group = self._call("attack: POST /groups (guesser)", "POST", "/api/v1/groups", {201},
                           body={"venueId": VENUE}, token=self.guesser)["group"]["id"]
        KNOWN_GROUPS[group] = VENUE
        mission, task = random.choice(self.codes)
        right = code_form(self.rules[(mission, task)].code)
        for _ in range(CODE_GUESSES):
            guess = "".join(random.choices(string.ascii_uppercase + string.digits, k=4)) + "-" + str(random.randrange(10, 100))
            if code_form(guess) == right:
                continue
            status, _, data = self.client.call("attack: code guesses", "POST",
                                               f"/api/v1/groups/{group}/missions/{mission}/tasks/{task}/answer",
                                               {200} | REFUSALS, body={"text": guess}, token=self.guesser)
            STATS.count("attack code guesses")
            if status == 200 and b'"right":false' not in data.replace(b" ", b""):
                STATS.error("attack: code guesses", f"the wrong code {guess} was answered {data[:120]!r}")

    def _tiny_uploads(self):
        """Resumable uploads of one byte announced under many new keys, none ever sent."""
        for _ in range(TINY_UPLOADS):
            self.client.call("attack: tiny uploads", "PUT", f"/api/v1/groups/{self.group}/uploads/{uuid.uuid4()}",
                             {200} | REFUSALS, body=b"", token=self.token, content_type="application/octet-stream",
                             headers={"Content-Range": "bytes */1"})
            STATS.count("attack tiny uploads")
        folder = os.path.join(self.data_folder, "uploads", hashlib.sha256(self.group.encode()).hexdigest()[:32])
        kept = len(os.listdir(folder)) if os.path.isdir(folder) else 0
        STATS.counters["attack tiny uploads kept"] = kept      # the latest count, not a sum

    def _recap_flood(self):
        """Sixteen recaps asked at once by one member."""
        def ask(kind):
            client = Client(self.port, address=ATTACKER)
            try:
                client.call(f"attack: recap flood ({kind})", "GET", f"/api/v1/groups/{self.group}/recap.{kind}",
                            {200} | REFUSALS, token=self.token)
            except Unexpected:
                pass
            finally:
                client.close()

        threads = [threading.Thread(target=ask, args=("png" if i % 2 else "pdf",)) for i in range(RECAP_FLOOD)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        STATS.count("attack recap floods")
