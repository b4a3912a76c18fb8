"""What members do together besides photos and answers: claim a task ("I'm on it") and give it
back, read the group's feed and react to its photos and completed missions, and download the
recap (PNG or PDF) at the end of a visit, now and then before it too. Each answer is checked
against the model: the claims in the group document (group reads, actions.py), the feed's
entries and reactions, and the recap's bytes."""

import re
import struct
import time
import urllib.parse

from stats import STATS
from venues import KINDS

REACTIONS = ["heart", "laugh", "wow", "clap", "star"]      # GroupFeed.reactions, in their order
FEED_KINDS = {"member-joined": False, "photo-added": True, "task-claimed": False, "mission-completed": True}   # kind -> reactable
FEED_SHOWN = 60


class TogetherActions:
    """Part of Load (game.py), kept apart to keep each file short."""

    # --- claims
    def claim(self, client, g, member, rng):
        now = time.time()
        candidates = [k for k in g.open_tasks(KINDS) if g.claim_state(k, now) in ((None, True), (member.id, True))]
        if not candidates:
            return self.release(client, g, rng)
        key = rng.choice(candidates)
        sent = time.time()
        client.call("PUT /groups/{id}/missions/{m}/tasks/{t}/claim", "PUT",
                    f"/api/v1/groups/{g.id}/missions/{key[0]}/tasks/{key[1]}/claim", {204}, token=member.token)
        g.claims[key] = (member.id, sent, time.time())
        g.claimed_ever.add(key)
        STATS.count("claims")

    def release(self, client, g, rng):
        now = time.time()
        members = {p.id: p for p in g.members}
        held = [(k, c[0]) for k, c in g.claims.items() if c[0] in members and g.claim_state(k, now) == (c[0], True)]
        if not held:
            return
        key, holder = rng.choice(held)
        client.call("DELETE /groups/{id}/missions/{m}/tasks/{t}/claim", "DELETE",
                    f"/api/v1/groups/{g.id}/missions/{key[0]}/tasks/{key[1]}/claim", {204}, token=members[holder].token)
        del g.claims[key]
        STATS.count("claims released")

    # --- the feed and its reactions
    def read_feed(self, client, g, member):
        doc = client.json("GET /groups/{id}/feed", "GET", f"/api/v1/groups/{g.id}/feed", {200}, token=member.token)
        STATS.count("feed reads")
        problems = []
        if doc["reactions"] != REACTIONS:
            problems.append(f"reactions {doc['reactions']}")
        ids = [e["id"] for e in doc["entries"]]
        if ids != sorted(ids, reverse=True) or len(set(ids)) != len(ids) or len(ids) > FEED_SHOWN:
            problems.append(f"entries {ids[:10]}… not newest first, or more than {FEED_SHOWN}")
        for e in doc["entries"]:
            kind = e["kind"]
            if kind not in FEED_KINDS or e["reactable"] != FEED_KINDS[kind]:
                problems.append(f"entry {e['id']} of kind {kind!r}, reactable {e['reactable']}")
                continue
            known = {"member-joined": lambda: e.get("playerId") in g.ever,
                     "photo-added": lambda: e.get("photoId") in g.all_photos,
                     "task-claimed": lambda: (e.get("missionId"), e.get("taskId")) in g.claimed_ever,
                     "mission-completed": lambda: e.get("missionId") in g.completed}[kind]()
            if not known:
                problems.append(f"entry {e['id']} ({kind}) of nothing the group did: {e}")
            shown = {r["reaction"]: r for r in e["reactions"]}
            for reaction in REACTIONS:
                players = g.reactions.get((e["id"], reaction)) or set()
                r = shown.get(reaction)
                if (r is None and players) or (r is not None and (set(r["playerIds"]) != players or r["count"] != len(players)
                                                                  or r["mine"] != (member.id in players))):
                    problems.append(f"entry {e['id']} {reaction}: {r}, expected {sorted(players)}")
        if problems:
            STATS.error("inconsistent answer", f"GET /groups/{g.id}/feed: " + "; ".join(problems[:3]))
        g.reactable = [e["id"] for e in doc["entries"] if e["reactable"]]

    def react(self, client, g, member, rng):
        if not g.reactable:
            return self.read_feed(client, g, member)
        given = [key for key, players in g.reactions.items() if member.id in players and key[0] in g.reactable]
        if given and rng.random() < 0.3:
            entry, reaction = rng.choice(given)              # a tap again on one's own reaction
        else:
            entry, reaction = rng.choice(g.reactable), rng.choice(REACTIONS)
        players = g.reactions[(entry, reaction)]
        path = f"/api/v1/groups/{g.id}/feed/{entry}/reactions/{reaction}"
        if member.id in players and rng.random() < 0.8:
            client.call("DELETE /groups/{id}/feed/{entry}/reactions/{r}", "DELETE", path, {204}, token=member.token)
            players.discard(member.id)
            STATS.count("reactions taken back")
        else:
            client.call("PUT /groups/{id}/feed/{entry}/reactions/{r}", "PUT", path, {204}, token=member.token)
            players.add(member.id)
            STATS.count("reactions given")

    # --- the recap
    def recap(self, client, g, member, rng):
        kind = rng.choice(["png", "pdf"])
        route, path, bearer = f"GET /groups/{{id}}/recap.{kind}", f"/api/v1/groups/{g.id}/recap.{kind}", member.token
        if rng.random() < 0.4:
            # The download link: a stream token in the URL.
            token = client.json("POST /groups/{id}/events/token", "POST", f"/api/v1/groups/{g.id}/events/token",
                                {200}, token=member.token)["token"]
            route, path, bearer = route + " (token)", f"{path}?token={urllib.parse.quote(token)}&download=1", None
        _, headers, data = client.call(route, "GET", path, {200}, token=bearer)
        STATS.count(f"recaps ({kind})")
        problem = check_recap(kind, headers, data)
        if problem:
            STATS.error("bad response", f"{route} of {g.id}: {problem}")


def check_recap(kind, headers, data):
    """What is wrong with a recap's answer, or None: its type, its bytes' format, one page."""
    if kind == "png":
        if headers.get("Content-Type") != "image/png" or not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
            return f"not a PNG ({headers.get('Content-Type')}, {data[:16]!r})"
        width, height = struct.unpack(">II", data[16:24])
        return None if width > 0 and height > 0 else f"a PNG of {width}x{height}"
    if headers.get("Content-Type") != "application/pdf" or not data.startswith(b"%PDF-"):
        return f"not a PDF ({headers.get('Content-Type')}, {data[:16]!r})"
    pages = len(re.findall(rb"/Type\s*/Page(?![s\w])", data))
    return None if pages == 1 else f"a PDF of {pages} pages, not one"
