"""What the soak test knows of the game it plays: players, their phones in groups, and each group's
progress (photos, answers, time limits, claims, reactions), to check the server's answers against."""

import collections
import random
import threading
import time

CLAIM_SECONDS = 600          # ClaimRules.lifetime: a claim holds ten minutes without a photo
CLAIM_MARGIN = 5             # seconds either side of a claim's end when the soak cannot tell
LATE_SHARE = 0.4             # timed missions a group lets run out, then tries once more
CLOCK_SLACK = 0.05           # seconds: the server's timestamps against the soak's clock (one machine)


class Player:
    def __init__(self, token, pid, name):
        self.token, self.id, self.name = token, pid, name


class Membership:
    """A member's phone in a group, for the event streams. `detached` once the phone goes away."""

    def __init__(self, group_id, venue_id, player):
        self.group_id, self.venue_id, self.player = group_id, venue_id, player
        self.lock = threading.Lock()
        self.detached = False
        self.streams = 0          # owned by the selector thread


class StaffMessages:
    """The texts the venues' staff sent (soak.d/staff.py), by group and to every group of a venue:
    a `staff-message` a phone receives must be one of them. Each is noted before it is sent."""

    def __init__(self):
        self.lock = threading.Lock()
        self.to_group = collections.defaultdict(set)
        self.to_venue = collections.defaultdict(set)

    def note(self, venue_id, group_id, text):
        with self.lock:
            (self.to_group[group_id] if group_id else self.to_venue[venue_id]).add(text)

    def sent(self, venue_id, group_id, text):
        with self.lock:
            return text in self.to_group.get(group_id, ()) or text in self.to_venue.get(venue_id, ())


MESSAGES = StaffMessages()
KNOWN_GROUPS = {}            # group id -> venue id: every group the soak made (the game's and the attacker's)


class Timer:
    """A timed mission's clock for one group. It starts with the group's first photo or attempt for
    one of its tasks; the soak knows the server's start only to within that request, so the end
    lies in [`end_lo`, `end_hi`], narrowed once the group's answers (`deadlines`) say it."""

    def __init__(self, minutes, rng):
        self.seconds = minutes * 60
        self.end_lo = self.end_hi = None
        self.late = rng.random() < LATE_SHARE     # the group lets it run out, then tries once more
        self.late_tried = False
        self.refused = 0                          # late attempts refused with 409 time-up

    @property
    def started(self):
        return self.end_lo is not None

    def start(self, sent, answered):
        if not self.started:
            self.end_lo, self.end_hi = sent + self.seconds - CLOCK_SLACK, answered + self.seconds + CLOCK_SLACK

    def state(self, now, room=3.0):
        """idle (not started), running (with `room` seconds to spare), over, or closing (too near to tell)."""
        if not self.started:
            return "idle"
        if now + room < self.end_lo:
            return "running"
        if now > self.end_hi:
            return "over"
        return "closing"

    def verdict(self, sent, answered):
        """For a request sent and answered at these times: "in time" (must be taken), "late" (must
        be refused with time-up), or None (either)."""
        if not self.started or answered < self.end_lo:
            return "in time"
        if sent > self.end_hi:
            return "late"
        return None


class Group:
    def __init__(self, doc, venue, creator, rules, rng=random):
        self.id = doc["id"]
        self.code = doc["joinCode"]
        self.venue = venue                      # the venue document
        self.venue_id = venue["id"]
        self.missions = {m["id"]: m for m in venue["missions"]}
        self.kinds = {(m["id"], t["id"]): t["kind"] for m in venue["missions"] for t in m["tasks"]}
        self.rules = rules                      # (mission, task) -> TaskRules of the tasks answered
        self.max_size = min(5, venue["rules"]["maxGroupSize"])
        self.members = [creator]
        self.ever = {creator.id}                # every player who was a member
        self.left = set()                       # players who left the group (some join it again)
        self.memberships = {}                   # player id -> Membership
        self.lock = threading.Lock()
        self.photos = collections.defaultdict(list)   # (mission, task) or None -> [photo id]
        self.all_photos = set()
        self.chosen = {}                        # (mission, task) -> the task's chosen photo
        self.answered = set()                   # (mission, task) answered right
        self.attempts = []                      # (mission, task, player id, answer as stored, right)
        self.timers = {m["id"]: Timer(m["timeLimit"], rng) for m in venue["missions"] if m.get("timeLimit")}
        self.claims = {}                        # (mission, task) -> (player id, claimed between lo and hi)
        self.claimed_ever = set()
        self.reactions = collections.defaultdict(set)  # (feed entry, reaction) -> player ids
        self.reactable = []                     # reactable feed entries of the last read
        self.completed = set()                  # missions completed
        self.thumb_urls = []
        self.collage_due = []                   # missions whose collage changed since last fetched
        self.collage_urls = {}                  # mission -> signed jpg URL from the group document
        self.steps = 0
        self.lifespan = rng.randint(60, 220)
        self.retired = False

    # --- tasks and missions
    def kind(self, mission, task):
        return self.kinds[(mission, task)]

    def done(self, mission, task):
        if self.kinds[(mission, task)] == "photo":
            return bool(self.photos.get((mission, task)))
        return (mission, task) in self.answered

    def complete(self, mission):
        return all(self.done(mission, t["id"]) for t in self.missions[mission]["tasks"])

    def unlocked(self, mission):
        return all(self.complete(a) for a in self.missions[mission].get("after") or [])

    def has_photo_tasks(self, mission):
        return any(t["kind"] == "photo" for t in self.missions[mission]["tasks"])

    def playable(self, mission, now=None):
        """Whether a phone offers the mission's tasks now: unlocked, and not near or past its time
        (a group that lets the time run out leaves it alone once started)."""
        if not self.unlocked(mission):
            return False
        timer = self.timers.get(mission)
        if timer is None:
            return True
        state = timer.state(time.time() if now is None else now)
        return state == "idle" or (state == "running" and not timer.late)

    def open_tasks(self, kinds=("photo",)):
        now = time.time()
        return [(m, t["id"]) for m in self.missions if self.playable(m, now)
                for t in self.missions[m]["tasks"] if t["kind"] in kinds and not self.done(m, t["id"])]

    def done_tasks(self):
        """Photo tasks with a photo, in missions still playable: a second photo may go there."""
        now = time.time()
        return [key for key, ids in self.photos.items() if key is not None and ids and self.playable(key[0], now)]

    def all_complete(self):
        return all(self.complete(m) for m in self.missions)

    def visit_ends(self, sent, answered):
        """The `visitEnd` values the group document may carry, read between `sent` and `answered`:
        every mission complete, or every mission complete or over (its time ran out before it was,
        or it waits for such a mission); both None and missions-over when a deadline is too near."""
        if self.all_complete():
            return {"missions-done"}

        def over(surely):
            ended = {m for m, timer in self.timers.items() if timer.started and not self.complete(m)
                     and (sent > timer.end_hi if surely else answered >= timer.end_lo)}
            grew = True
            while grew:
                grew = False
                for m, mission in self.missions.items():
                    if m not in ended and not self.complete(m) and set(mission.get("after") or []) & ended:
                        ended.add(m)
                        grew = True
            return all(self.complete(m) or m in ended for m in self.missions)

        if over(surely=True):
            return {"missions-over"}
        return {None, "missions-over"} if over(surely=False) else {None}

    def late_tasks(self):
        """The open tasks of timed missions whose time is surely over, that the group tries once
        more (each such mission once): the server must refuse them with 409 time-up."""
        now = time.time()
        return [(m, t["id"]) for m, timer in self.timers.items()
                if timer.late and not timer.late_tried and timer.state(now) == "over" and not self.complete(m)
                for t in self.missions[m]["tasks"] if not self.done(m, t["id"])]

    def waiting_for_time(self):
        """A timed mission the group lets run out is not over yet: the visit lasts until it is."""
        return any(t.late and t.started and not t.late_tried and not self.complete(m) for m, t in self.timers.items())

    def started(self, mission, sent, answered):
        """A photo or an attempt for the mission was taken between `sent` and `answered`."""
        if mission in self.timers:
            self.timers[mission].start(sent, answered)

    # --- claims ("I'm on it")
    def claim_state(self, key, now):
        """(player id, certain) of the member whose claim of `key` holds now, or (None, certain)."""
        claim = self.claims.get(key)
        if claim is None:
            return None, True
        player, lo, hi = claim
        if now < lo + CLAIM_SECONDS - CLAIM_MARGIN:
            return player, True
        if now > hi + CLAIM_SECONDS + CLAIM_MARGIN:
            return None, True
        return player, False

    def end_claims_of(self, player_id):
        for key in [k for k, c in self.claims.items() if c[0] == player_id]:
            del self.claims[key]
