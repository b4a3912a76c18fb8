"""What the soak test knows of the game it plays: players, their phones in groups, and each group's
progress, to check the server's answers against."""

import collections
import random
import threading


class Player:
    def __init__(self, token, pid, name):
        self.token, self.id, self.name = token, pid, name


class Membership:
    """A member's phone in a group, for the event streams. `detached` once the phone goes away."""

    def __init__(self, group_id, player):
        self.group_id, self.player = group_id, player
        self.lock = threading.Lock()
        self.detached = False
        self.streams = 0          # owned by the selector thread


class Group:
    def __init__(self, doc, venue, creator):
        self.id = doc["id"]
        self.code = doc["joinCode"]
        self.venue = venue                      # the venue document
        self.missions = {m["id"]: m for m in venue["missions"]}
        self.max_size = min(5, venue["rules"]["maxGroupSize"])
        self.members = [creator]
        self.memberships = {}                   # player id -> Membership
        self.lock = threading.Lock()
        self.photos = collections.defaultdict(list)   # (mission, task) or None -> [photo id]
        self.all_photos = set()
        self.thumb_urls = []
        self.collage_due = []                   # missions whose collage changed since last fetched
        self.collage_urls = {}                  # mission -> signed jpg URL from the group document
        self.steps = 0
        self.lifespan = random.randint(60, 220)
        self.retired = False

    def done(self, mission, task):
        return bool(self.photos.get((mission, task)))

    def complete(self, mission):
        return all(self.done(mission, t["id"]) for t in self.missions[mission]["tasks"])

    def unlocked(self, mission):
        return all(self.complete(a) for a in self.missions[mission].get("after") or [])

    def open_tasks(self):
        return [(m, t["id"]) for m in self.missions if self.unlocked(m)
                for t in self.missions[m]["tasks"] if not self.done(m, t["id"])]

    def done_tasks(self):
        return [key for key, ids in self.photos.items() if key is not None and ids]

    def all_complete(self):
        return all(self.complete(m) for m in self.missions)
