"""The things a member of a group does with photos that the server's answers are checked for:
upload a photo (in one request, or in parts as the web client sends it: uploads.py), read the
group and the album, choose a photo, download a collage or album.zip."""

import io
import json
import time
import urllib.parse
import uuid
import zipfile

from groupie_harness.client import path_of
from stats import STATS


def problem_code(data):
    try:
        return json.loads(data).get("code")
    except (ValueError, AttributeError):
        return None


class MemberActions:
    """Part of Load (game.py), kept apart to keep each file short. Uses its `unique_photo` and
    `resumable` (uploads.py)."""

    # --- time limits, for photos and answers alike
    def judge_time(self, g, mission, sent, answered, status, data, what):
        """Checks a photo's or an attempt's answer against the mission's time limit: refused with
        409 time-up only once the time may be over, taken only while it may still run. Returns
        whether it was taken."""
        timer = g.timers.get(mission) if mission else None
        if status != 409:
            if timer is not None:
                if timer.verdict(sent, answered) == "late":
                    STATS.error("inconsistent answer", f"{what} in {g.id}/{mission} taken {answered - timer.end_hi:.1f} s "
                                                       f"after the mission's time was up")
                if not timer.started:
                    STATS.count("timed missions started")
                timer.start(sent, answered)
            return True
        code = problem_code(data)
        if code != "time-up" or timer is None:
            STATS.error("unexpected 4xx", f"{what} in {g.id}/{mission}: 409 {data[:200]!r}")
        elif timer.verdict(sent, answered) == "in time":
            STATS.error("inconsistent answer", f"{what} in {g.id}/{mission} refused with time-up "
                                               f"{timer.end_lo - answered:.1f} s before the mission's time was up")
        else:
            timer.refused += 1
            STATS.count("late attempts refused (time-up)")
        return False

    def expect_for(self, g, mission, ok):
        """The statuses a photo or attempt for the mission may get: 409 too once its time runs."""
        timer = g.timers.get(mission) if mission else None
        return ok | ({409} if timer is not None and timer.started else set())

    # --- photos
    def upload(self, client, g, member, rng, key=None):
        if key is None:
            open_tasks = g.open_tasks()
            roll = rng.random()
            if open_tasks and roll < 0.85:
                key = rng.choice(open_tasks)
            elif g.done_tasks() and roll < 0.95:
                key = rng.choice(g.done_tasks())       # a second try at a task: something to choose from
        query = {}
        if key:
            query = {"mission": key[0], "task": key[1]}
            if g.photos.get(key) and rng.random() < 0.1:
                query["choose"] = "true"               # "Show this one for the task instead"
        body = self.unique_photo()
        expect = self.expect_for(g, key and key[0], {201})
        sent = time.time()
        if rng.random() < 0.25:
            status, answer = self.resumable(client, g, member, query, body, expect, rng)
        else:
            status, answer = self.one_shot(client, g, member, query, body, expect, rng)
        answered = time.time()
        if status is None:
            return
        if key is not None and not self.judge_time(g, key[0], sent, answered, status, json.dumps(answer).encode(), "a photo"):
            return
        self.photo_taken(g, key, member, answer, choose=query.get("choose") == "true")
        STATS.count("photo bytes uploaded", len(body))

    def one_shot(self, client, g, member, query, body, expect, rng):
        """POST …/photos with an Idempotency-Key: (status, answer)."""
        path = f"/api/v1/groups/{g.id}/photos" + ("?" + urllib.parse.urlencode(query) if query else "")
        idem = str(uuid.uuid4())
        status, _, data = client.call("POST /groups/{id}/photos", "POST", path, expect, body=body, token=member.token,
                                      content_type="image/jpeg", headers={"Idempotency-Key": idem})
        answer = json.loads(data)
        if status == 201 and rng.random() < 0.05:
            # The phone lost the answer and sends the same photo again.
            again = client.json("POST /groups/{id}/photos (retry)", "POST", path, {201}, body=body,
                                token=member.token, content_type="image/jpeg", headers={"Idempotency-Key": idem})["photo"]
            if again["id"] != answer["photo"]["id"]:
                STATS.error("idempotency", f"retry with the same Idempotency-Key gave {again['id']}, first {answer['photo']['id']}")
        return status, answer

    def photo_taken(self, g, key, member, answer, choose):
        """A photo the server took: its placement checked, the model brought up to date."""
        photo = answer["photo"]
        if key is not None:
            before = g.chosen.get(key)
            placement = answer.get("placement")
            if before is None or choose:
                if placement != "task":
                    STATS.error("inconsistent answer", f"photo for {g.id}/{key[0]}/{key[1]}: placement {placement!r}, expected 'task'")
                g.chosen[key] = photo["id"]
            elif placement != "album" or (answer.get("taskPhoto") or {}).get("id") != before:
                STATS.error("inconsistent answer", f"second photo for {g.id}/{key[0]}/{key[1]}: placement {placement!r}, "
                                                   f"taskPhoto {answer.get('taskPhoto')}, expected 'album' beside {before}")
            # The photographer's claim of the task ends with their photo.
            if (g.claims.get(key) or (None,))[0] == member.id:
                del g.claims[key]
                STATS.count("claims ended by a photo")
        was_complete = key is not None and g.complete(key[0])
        g.photos[key].append(photo["id"])
        g.all_photos.add(photo["id"])
        g.thumb_urls.append(photo["urls"])
        del g.thumb_urls[:-50]
        STATS.count("photos uploaded")
        if key is not None:
            STATS.count("tasks done (photo)" if len(g.photos[key]) == 1 else "second photos")
            if choose:
                self.collage_changed(g, key[0])
            if g.complete(key[0]) and not was_complete:
                self.mission_completed(g, key[0])

    def mission_completed(self, g, mission):
        g.completed.add(mission)
        STATS.count("missions completed")
        if mission in g.timers:
            STATS.count("timed missions done in time")
        if g.has_photo_tasks(mission):
            g.collage_due.append(mission)

    def collage_changed(self, g, mission):
        if g.complete(mission) and g.has_photo_tasks(mission) and mission not in g.collage_due:
            g.collage_due.append(mission)

    def read_group(self, client, g, member):
        now = time.time()
        doc = client.json("GET /groups/{id}", "GET", f"/api/v1/groups/{g.id}", {200}, token=member.token)["group"]
        answered = time.time()
        problems = []
        if {m["id"] for m in doc["members"]} != {p.id for p in g.members}:
            problems.append(f"members {sorted(m['id'] for m in doc['members'])} != {sorted(p.id for p in g.members)}")
        visit_ends = g.visit_ends(now, answered)
        if doc.get("visitEnd") not in visit_ends:
            problems.append(f"visitEnd {doc.get('visitEnd')!r}, expected one of {sorted(map(str, visit_ends))}")
        for mission in doc["missions"]:
            mid = mission["id"]
            if mid not in g.missions:
                continue
            if mission["complete"] != g.complete(mid):
                problems.append(f"mission {mid} complete={mission['complete']}")
            if mission["unlocked"] != g.unlocked(mid):
                problems.append(f"mission {mid} unlocked={mission['unlocked']}")
            for task in mission["tasks"]:
                key = (mid, task["id"])
                if (task["state"] == "done") != g.done(*key):
                    problems.append(f"task {mid}/{task['id']} ({g.kind(*key)}) state={task['state']}, "
                                    f"{len(g.photos.get(key) or [])} photos, answered right: {key in g.answered}")
                chosen = (task.get("chosenPhoto") or {}).get("id")
                if chosen != g.chosen.get(key):
                    problems.append(f"task {mid}/{task['id']} chosen photo {chosen}, expected {g.chosen.get(key)}")
                holder, certain = g.claim_state(key, now)
                shown = (task.get("claim") or {}).get("playerId")
                if certain and shown != (None if g.done(*key) else holder):
                    rejoined = " (who left the group and joined it again)" if shown in g.left else ""
                    problems.append(f"task {mid}/{task['id']} ({task['state']}) claimed by {shown}{rejoined}, expected {holder}")
            collage = mission.get("collage")
            if (collage is not None) != (g.complete(mid) and g.has_photo_tasks(mid)):
                problems.append(f"mission {mid} collage {collage and collage.get('status')} "
                                f"(complete {g.complete(mid)}, photo tasks {g.has_photo_tasks(mid)})")
            if collage and collage.get("status") == "ready" and collage.get("urls"):
                g.collage_urls[mid] = collage["urls"]["jpg"]
        if problems:
            STATS.error("inconsistent answer", f"GET /groups/{g.id}: " + "; ".join(problems[:4]))
        return doc

    def read_album(self, client, g, member, rng):
        query = "limit=30"
        mission = None
        if rng.random() < 0.2 and g.photos:
            missions = sorted({key[0] for key, ids in g.photos.items() if key is not None and ids})
            if missions:
                mission = rng.choice(missions)
                query += f"&mission={mission}"
        page = client.json("GET /groups/{id}/photos", "GET", f"/api/v1/groups/{g.id}/photos?{query}", {200},
                           token=member.token)
        expected = len(g.all_photos) if mission is None else \
            sum(len(ids) for key, ids in g.photos.items() if key is not None and key[0] == mission)
        if len(page["photos"]) != min(30, expected):
            STATS.error("inconsistent answer", f"album of {g.id}{' mission ' + mission if mission else ''}: "
                                               f"{len(page['photos'])} photos on the first page, expected {min(30, expected)}")
        for p in page["photos"][:3]:
            g.thumb_urls.append(p["urls"])
        del g.thumb_urls[:-50]
        if page.get("next") and rng.random() < 0.4:
            client.json("GET /groups/{id}/photos", "GET",
                        f"/api/v1/groups/{g.id}/photos?{query}&before={urllib.parse.quote(page['next'])}", {200},
                        token=member.token)

    def choose(self, client, g, member, rng):
        candidates = [k for k in g.done_tasks() if len(set(g.photos[k])) > 1]
        if not candidates:
            return self.read_group(client, g, member)
        key = rng.choice(candidates)
        photo = rng.choice(g.photos[key])
        client.call("PUT /groups/{id}/missions/{m}/tasks/{t}/choice", "PUT",
                    f"/api/v1/groups/{g.id}/missions/{key[0]}/tasks/{key[1]}/choice", {204},
                    body={"photoId": photo}, token=member.token)
        STATS.count("choices")
        g.chosen[key] = photo
        self.collage_changed(g, key[0])

    def fetch_collage(self, client, g, rng):
        mission = g.collage_due.pop(0)
        member = rng.choice(g.members)
        if mission in g.collage_urls and rng.random() < 0.3:
            route, path, token = "GET /groups/{id}/missions/{m}/collage.jpg (signed)", path_of(g.collage_urls[mission]), None
        else:
            route, path, token = "GET /groups/{id}/missions/{m}/collage.jpg", \
                f"/api/v1/groups/{g.id}/missions/{mission}/collage.jpg", member.token
            roll = rng.random()
            if roll < 0.15:
                path += "?size=1024"
            elif roll < 0.25:
                path += "?download=1"
            elif roll < 0.3:
                route, path = route.replace(".jpg", ".png"), path.replace(".jpg", ".png") + "?size=512"
        # A signed URL names one picture: a member's choice since the document was read made
        # another, and the old URL answers 404 collage-changed (the document has the new one).
        status, _, data = client.call(route, "GET", path, {200, 404} if token is None else {200}, token=token)
        if status == 404:
            if b'"collage-changed"' not in data:
                STATS.error("unexpected 4xx", f"{route} of {g.id}/{mission}: 404 {data[:200]!r}")
            STATS.count("collage URLs outdated by a choice")
            return
        magic = b"\x89PNG" if ".png" in route else b"\xff\xd8\xff"
        if not data.startswith(magic):
            STATS.error("bad response", f"{route} of {g.id}/{mission}: not an image ({data[:16]!r})")
        STATS.count("collages downloaded")

    def album_zip(self, client, g, member, rng):
        if rng.random() < 0.5:
            token = client.json("POST /groups/{id}/events/token", "POST", f"/api/v1/groups/{g.id}/events/token",
                                {200}, token=member.token)["token"]
            route, path, bearer = "GET /groups/{id}/album.zip (token)", \
                f"/api/v1/groups/{g.id}/album.zip?token={urllib.parse.quote(token)}", None
        else:
            route, path, bearer = "GET /groups/{id}/album.zip", f"/api/v1/groups/{g.id}/album.zip", member.token
        _, _, data = client.call(route, "GET", path, {200}, token=bearer)
        STATS.count("album.zip downloaded")
        STATS.count("album.zip bytes", len(data))
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                bad = archive.testzip()
                names = archive.namelist()
        except (zipfile.BadZipFile, OSError, ValueError) as failure:
            STATS.error("bad album.zip", f"group {g.id}: {failure} ({len(data)} bytes)")
            return
        if bad:
            STATS.error("bad album.zip", f"group {g.id}: entry {bad} has a bad CRC")
        photos = [n for n in names if not n.endswith(" - collage.jpg")]
        if len(photos) != len(g.all_photos):
            STATS.error("inconsistent answer", f"album.zip of {g.id}: {len(photos)} photos, expected {len(g.all_photos)}")
