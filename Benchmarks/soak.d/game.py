"""The load: worker threads, each a member's phone at a time, form groups, join and leave them and
play every kind of task (the things a member does are in actions.py, uploads.py, answers.py and
together.py); finished groups download their recap and break up."""

import collections
import random
import threading
import time
import uuid

from actions import MemberActions
from answers import AnswerActions
from client import Client
from groupie_harness.client import path_of
from groupie_harness.photos import with_comment
from model import KNOWN_GROUPS, Group, Membership, Player
from stats import STATS, Unexpected
from together import TogetherActions
from uploads import ResumableUploads
from venues import check_kinds

NAMES = ["Ada", "Bo", "Chloé", "Lucas", "Zoë", "Ólafur", "Maja", "Noah", "Elsa", "Omar", "Wei", "Aiko",
         "Søren", "Ines", "Léa", "Hugo", "Amira", "Jonas", "Freja", "Li Na", "محمد", "李雷", "Дарья", "Ülkü"]
GROUP_NAMES = ["Class 4B", "The Frogs", "Team Rocket", "Familjen Berg", "Les Curieux", "Astronauts", None, None]


class Load(MemberActions, ResumableUploads, AnswerActions, TogetherActions):
    def __init__(self, port, photos, streams, workers, think, stream_manager, rules):
        self.port = port
        self.photos = photos
        self.rules = rules                     # venue -> (mission, task) -> TaskRules (venues.py)
        self.streams = streams
        self.think = think
        self.stream_manager = stream_manager    # the StreamManager: members' phones hold streams
        self.stop = threading.Event()
        self.pool_lock = threading.Lock()
        self.groups = []
        self.free_players = []                 # players of broken-up groups who may play on
        self.target_groups = max(4, -(-streams // 3) + 4)
        self.photo_no = 0
        self.venues = None
        self.venue_docs = {}
        self.etags = {}
        self.threads = [threading.Thread(target=self._worker, args=(i,), daemon=True, name=f"worker-{i}")
                        for i in range(workers)]

    def start(self):
        client = Client(self.port)
        self.venues = client.json("GET /venues", "GET", "/api/v1/venues", {200})["venues"]
        for v in self.venues:
            self.venue_docs[v["id"]] = client.json("GET /venues/{id}", "GET", f"/api/v1/venues/{v['id']}", {200})
        client.close()
        check_kinds(self.venue_docs, self.rules)
        for t in self.threads:
            t.start()

    def join(self, timeout):
        deadline = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.1, deadline - time.monotonic()))
        return sum(t.is_alive() for t in self.threads)

    def kinds(self):
        """How many tasks of each kind the venues have."""
        return collections.Counter(t["kind"] for v in self.venue_docs.values() for m in v["missions"] for t in m["tasks"])

    # --- helpers
    def unique_photo(self):
        """One of the photos, made unique with a JPEG comment after SOI, as each camera shot is."""
        with self.pool_lock:
            self.photo_no += 1
            n = self.photo_no
        return with_comment(random.choice(self.photos), f"groupie soak photo {n} {uuid.uuid4()}")

    def new_player(self, client):
        name = random.choice(NAMES)
        body = {"name": name}
        if random.random() < 0.2:
            body["lang"] = random.choice(["sv", "fr", "en"])
        answer = client.json("POST /players", "POST", "/api/v1/players", {201}, body=body)
        STATS.count("players created")
        player = Player(answer["token"], answer["player"]["id"], name)
        # The phone opens the app: venue list and document, revalidated when it has them.
        venue_id = random.choice(self.venues)["id"]
        headers = {}
        if venue_id in self.etags and random.random() < 0.7:
            headers["If-None-Match"] = self.etags[venue_id]
        _, h, _ = client.call("GET /venues/{id}", "GET", f"/api/v1/venues/{venue_id}", {200, 304}, headers=headers)
        if h.get("ETag"):
            self.etags[venue_id] = h["ETag"]
        return player

    def some_player(self, client):
        with self.pool_lock:
            if self.free_players and random.random() < 0.5:
                return self.free_players.pop(random.randrange(len(self.free_players)))
        return self.new_player(client)

    def attach(self, group, player):
        group.ever.add(player.id)
        m = Membership(group.id, group.venue_id, player)
        group.memberships[player.id] = m
        self.stream_manager.attach(m)

    def detach(self, group, player):
        m = group.memberships.pop(player.id, None)
        if m is not None:
            self.stream_manager.detach(m)

    # --- the worker loop
    def _worker(self, index):
        client = Client(self.port)
        rng = random.Random(index * 7919 + int(time.time()))
        while not self.stop.is_set():
            group = None
            try:
                with self.pool_lock:
                    forming = len(self.groups) < self.target_groups
                if forming:
                    self.form_group(client, rng)
                else:
                    group = self.pick(rng)
                    if group is not None:
                        try:
                            self.step(client, group, rng)
                        finally:
                            group.lock.release()
            except Unexpected:
                client.close()
            except Exception as failure:                     # a bug in this script, or a strange answer
                STATS.error("script exception", f"{type(failure).__name__}: {failure}")
                import traceback
                traceback.print_exc()
                client.close()
            if self.think:
                self.stop.wait(rng.uniform(0, 2 * self.think))
        client.close()

    def pick(self, rng):
        with self.pool_lock:
            candidates = list(self.groups)
        rng.shuffle(candidates)
        for g in candidates[:8]:
            if g.lock.acquire(blocking=False):
                if g.retired:
                    g.lock.release()
                    continue
                return g
        return None

    def form_group(self, client, rng):
        creator = self.some_player(client)
        venue_summary = rng.choice(self.venues)
        venue = self.venue_docs[venue_summary["id"]]
        body = {"venueId": venue["id"]}
        name = rng.choice(GROUP_NAMES)
        if name:
            body["name"] = name
        doc = client.json("POST /groups", "POST", "/api/v1/groups", {201}, body=body, token=creator.token)["group"]
        STATS.count("groups created")
        KNOWN_GROUPS[doc["id"]] = venue["id"]
        group = Group(doc, venue, creator, self.rules.get(venue["id"], {}), rng)
        group.lock.acquire()
        try:
            with self.pool_lock:
                self.groups.append(group)
            self.attach(group, creator)
            if rng.random() < 0.5:
                kind = rng.choice(["png", "svg"])
                client.call(f"GET /groups/{{id}}/qr.{kind}", "GET", f"/api/v1/groups/{group.id}/qr.{kind}", {200},
                            token=creator.token)
            size = rng.randint(2, group.max_size)
            while len(group.members) < size:
                self.join_one(client, group, rng)
        finally:
            group.lock.release()

    def join_one(self, client, group, rng):
        player = self.some_player(client)
        code = group.code
        if rng.random() < 0.3:
            code = code.lower()[:3] + "-" + code.lower()[3:]      # typed on a phone: case and dashes ignored
        client.json("POST /groups/join", "POST", "/api/v1/groups/join", {200}, body={"code": code}, token=player.token)
        STATS.count("joins")
        group.members.append(player)
        self.attach(group, player)

    def leave_one(self, client, group, rng, player=None):
        player = player or rng.choice(group.members)
        self.detach(group, player)
        client.call("DELETE /groups/{id}/members/{player}", "DELETE",
                    f"/api/v1/groups/{group.id}/members/{player.id}", {204}, token=player.token)
        group.members.remove(player)
        group.end_claims_of(player.id)         # a claim ends when its member leaves
        group.left.add(player.id)
        STATS.count("leaves")
        with self.pool_lock:
            if len(self.free_players) < 300 and rng.random() < 0.5:
                self.free_players.append(player)

    def retire(self, group, rng):
        """The visit is over: phones close; some players play on in other groups later."""
        for mission, timer in group.timers.items():
            if timer.started:
                if mission not in group.completed:
                    STATS.count("timed missions run out" if timer.state(time.time(), room=0) == "over" else "timed missions unfinished")
        group.retired = True
        with self.pool_lock:
            self.groups.remove(group)
        for player in list(group.members):
            self.detach(group, player)
            with self.pool_lock:
                if len(self.free_players) < 300 and rng.random() < 0.4:
                    self.free_players.append(player)
        STATS.count("groups finished")

    # --- one thing a member of the group does
    def step(self, client, g, rng):
        g.steps += 1
        ending = g.steps > g.lifespan and (not g.waiting_for_time() or g.steps > 3 * g.lifespan)
        if ending or (g.all_complete() and rng.random() < 0.3):
            # The visit is over: the phones read the group (its visitEnd) and show the recap.
            self.read_group(client, g, rng.choice(g.members))
            self.recap(client, g, rng.choice(g.members), rng)
            if len(g.members) > 1 and rng.random() < 0.3:
                self.leave_one(client, g, rng)
            self.retire(g, rng)
            return
        if g.collage_due and rng.random() < 0.7:
            return self.fetch_collage(client, g, rng)
        if g.late_tasks() and rng.random() < 0.5:
            return self.late_attempt(client, g, rng)
        action = rng.choices(
            ["upload", "answer", "answers", "claim", "release", "feed", "react", "recap", "group", "album", "thumb",
             "choose", "zip", "me", "venues", "leave", "join"],
            weights=[22, 8, 2, 4, 2, 4, 4, 0.3, 26, 12, 10, 6, 1.2, 4, 3, 1.5, 1.5])[0]
        member = rng.choice(g.members)
        if action == "upload":
            self.upload(client, g, member, rng)
        elif action == "answer":
            self.answer(client, g, member, rng)
        elif action == "answers":
            self.read_answers(client, g, member)
        elif action == "claim":
            self.claim(client, g, member, rng)
        elif action == "release":
            self.release(client, g, rng)
        elif action == "feed":
            self.read_feed(client, g, member)
        elif action == "react":
            self.react(client, g, member, rng)
        elif action == "recap":
            self.recap(client, g, member, rng)     # the visit so far, from the album
        elif action == "group":
            self.read_group(client, g, member)
        elif action == "album":
            self.read_album(client, g, member, rng)
        elif action == "thumb" and g.thumb_urls:
            url, variant = rng.choice(g.thumb_urls), rng.choices(["thumb", "display", "original"], [6, 3, 1])[0]
            client.call(f"GET /photos/{{id}}/{variant} (signed)", "GET", path_of(url[variant]), {200})
        elif action == "choose":
            self.choose(client, g, member, rng)
        elif action == "zip":
            self.album_zip(client, g, member, rng)
        elif action == "me":
            me = client.json("GET /me", "GET", "/api/v1/me", {200}, token=member.token)
            if (me.get("group") or {}).get("id") != g.id:
                STATS.error("inconsistent answer", f"GET /me of a member of {g.id} says group {me.get('group')}")
        elif action == "venues":
            headers = {"If-None-Match": self.etags["list"]} if "list" in self.etags else {}
            _, h, _ = client.call("GET /venues", "GET", "/api/v1/venues", {200, 304}, headers=headers)
            if h.get("ETag"):
                self.etags["list"] = h["ETag"]
        elif action == "leave" and len(g.members) > 2:
            self.leave_one(client, g, rng, member)
        elif action == "join" and len(g.members) < g.max_size:
            self.join_one(client, g, rng)
