"""The things a member of a group does that the server's answers are checked for: upload a photo,
read the group and the album, choose a photo, download a collage or album.zip."""

import io
import urllib.parse
import uuid
import zipfile

from groupie_harness.client import path_of
from stats import STATS


class MemberActions:
    """Part of Load (game.py), kept apart to keep each file short. Uses its `unique_photo`."""

    def upload(self, client, g, member, rng):
        open_tasks = g.open_tasks()
        roll = rng.random()
        if open_tasks and roll < 0.85:
            key = rng.choice(open_tasks)
        elif g.done_tasks() and roll < 0.95:
            key = rng.choice(g.done_tasks())       # a second try at a task: something to choose from
        else:
            key = None                             # a free photo
        path = f"/api/v1/groups/{g.id}/photos"
        if key:
            path += f"?mission={key[0]}&task={key[1]}"
        body = self.unique_photo()
        idem = str(uuid.uuid4())
        was_complete = key is not None and g.complete(key[0])
        photo = client.json("POST /groups/{id}/photos", "POST", path, {201}, body=body, token=member.token,
                            content_type="image/jpeg", headers={"Idempotency-Key": idem})["photo"]
        STATS.count("photos uploaded")
        STATS.count("photo bytes uploaded", len(body))
        if rng.random() < 0.05:
            # The phone lost the answer and sends the same photo again.
            again = client.json("POST /groups/{id}/photos (retry)", "POST", path, {201}, body=body,
                                token=member.token, content_type="image/jpeg", headers={"Idempotency-Key": idem})["photo"]
            if again["id"] != photo["id"]:
                STATS.error("idempotency", f"retry with the same Idempotency-Key gave {again['id']}, first {photo['id']}")
        g.photos[key].append(photo["id"])
        g.all_photos.add(photo["id"])
        g.thumb_urls.append(photo["urls"])
        del g.thumb_urls[:-50]
        if key is not None and g.complete(key[0]) and not was_complete:
            g.collage_due.append(key[0])
            STATS.count("missions completed")

    def read_group(self, client, g, member):
        doc = client.json("GET /groups/{id}", "GET", f"/api/v1/groups/{g.id}", {200}, token=member.token)["group"]
        problems = []
        if {m["id"] for m in doc["members"]} != {p.id for p in g.members}:
            problems.append(f"members {sorted(m['id'] for m in doc['members'])} != {sorted(p.id for p in g.members)}")
        for mission in doc["missions"]:
            mid = mission["id"]
            if mid not in g.missions:
                continue
            if mission["complete"] != g.complete(mid):
                problems.append(f"mission {mid} complete={mission['complete']}")
            if mission["unlocked"] != g.unlocked(mid):
                problems.append(f"mission {mid} unlocked={mission['unlocked']}")
            for task in mission["tasks"]:
                ours = g.photos.get((mid, task["id"])) or []
                if (task["state"] == "done") != bool(ours):
                    problems.append(f"task {mid}/{task['id']} state={task['state']} with {len(ours)} photos")
                chosen = (task.get("chosenPhoto") or {}).get("id")
                if chosen and chosen not in ours:
                    problems.append(f"task {mid}/{task['id']} chosen photo {chosen} is not one of its photos")
            collage = mission.get("collage")
            if collage and collage.get("status") == "ready" and collage.get("urls"):
                g.collage_urls[mid] = collage["urls"]["jpg"]
        if problems:
            STATS.error("inconsistent answer", f"GET /groups/{g.id}: " + "; ".join(problems[:4]))

    def read_album(self, client, g, member, rng):
        query = "limit=30"
        mission = None
        if rng.random() < 0.2 and g.done_tasks():
            mission = rng.choice(g.done_tasks())[0]
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
        if g.complete(key[0]) and key[0] not in g.collage_due:
            g.collage_due.append(key[0])

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
