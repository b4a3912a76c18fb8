"""Photos sent in parts, as the web client sends them (assets/web/resumable.js): PUT
…/uploads/<key> with `Content-Range: bytes first-last/total`, 512 KiB a part; now and then a part
cut off on its way (the phone's Wi-Fi drops), after which the phone asks where the upload stands
(GET) and goes on from there; now and then `bytes */total` again once the photo is made, which
must answer the same photo."""

import json
import math
import random
import socket
import time
import urllib.parse
import uuid

from actions import problem_code
from groupie_harness.client import request_bytes
from stats import STATS

PART_SIZE = 512 * 1024       # resumable.js's PART_SIZE
CUT_SHARE = 0.25             # uploads with a part cut off on its way
ROUTE = "PUT /groups/{id}/uploads/{key}"


class ResumableUploads:
    """Part of Load (game.py), kept apart to keep each file short. Uses its `port`."""

    def resumable(self, client, g, member, query, body, expect, rng):
        """Sends `body` in parts under a new key: (status, answer) of the part that made the photo
        (201) or was refused with a status of `expect` (409 time-up); (None, None) when it went wrong."""
        key = str(uuid.uuid4())
        path = f"/api/v1/groups/{g.id}/uploads/{key}"
        put = path + ("?" + urllib.parse.urlencode(query) if query else "")
        total = len(body)
        parts = math.ceil(total / PART_SIZE)
        cut = rng.randrange(parts) if rng.random() < CUT_SHARE else None
        offset, part, was_cut = 0, 0, False
        for _ in range(4 * parts + 8):
            end = min(offset + PART_SIZE, total)
            if part == cut and not was_cut:
                was_cut = True
                self._cut_part(member, put, body[offset:end], offset, total)
                # The phone is back: it asks where the upload stands. A part cut off counts for nothing.
                status, headers, data = client.call("GET /groups/{id}/uploads/{key}", "GET", path, {200, 404}, token=member.token)
                held = 0 if status == 404 else json.loads(data)["offset"]
                if (status == 404 and (offset != 0 or problem_code(data) != "upload-not-found")) or held != offset:
                    STATS.error("inconsistent answer", f"upload {key} of {g.id}: after a part cut off at {offset} the server "
                                                       f"holds {held} bytes ({status} {data[:120]!r})")
                STATS.count("upload parts cut off")
                offset = held
                continue
            status, headers, data = client.call(
                ROUTE, "PUT", put, expect | {200} | ({409} if was_cut else set()), body=body[offset:end], token=member.token,
                content_type="application/octet-stream", headers={"Content-Range": f"bytes {offset}-{end - 1}/{total}"})
            STATS.count("upload parts")
            if status == 201:
                answer = json.loads(data)
                STATS.count("resumable uploads")
                if rng.random() < 0.1:
                    self._retry_done(client, g, member, put, total, answer)
                return status, answer
            code = problem_code(data) if status == 409 else None
            if status == 200:
                held = json.loads(data)["offset"]
                if held != end or headers.get("Upload-Offset") != str(held):
                    STATS.error("inconsistent answer", f"upload {key} of {g.id}: part {offset}-{end - 1} answered offset {held} "
                                                       f"(Upload-Offset {headers.get('Upload-Offset')})")
                offset, part = held, part + 1
            elif code == "upload-offset-mismatch" and was_cut:
                offset = int(headers.get("Upload-Offset") or 0)
            elif code == "upload-busy" and was_cut:
                time.sleep(0.5)       # the part cut off is still being given up
            elif code == "time-up" and 409 in expect:
                return status, json.loads(data)
            else:
                STATS.error("unexpected 4xx", f"{ROUTE} of {g.id}: {status} {data[:200]!r}")
                return None, None
        STATS.error("script", f"upload {key} of {g.id} did not finish in {4 * parts + 8} requests")
        return None, None

    def _cut_part(self, member, path, chunk, offset, total):
        """Half of a part, then the connection drops."""
        started = time.monotonic()
        head = request_bytes("PUT", path, [
            ("Host", f"127.0.0.1:{self.port}"), ("Authorization", "Bearer " + member.token),
            ("Content-Range", f"bytes {offset}-{offset + len(chunk) - 1}/{total}"), ("Content-Type", "application/octet-stream"),
            ("Content-Length", str(len(chunk))),
            ("X-Forwarded-For", f"10.{random.randrange(1, 60)}.{random.randrange(256)}.{random.randrange(1, 255)}")])
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
                s.sendall(head + chunk[:len(chunk) // 2])
                time.sleep(0.2)
        except OSError as failure:
            STATS.error("connection error", f"{ROUTE} (cut off): {failure}")
        STATS.request(ROUTE + " (cut off)", "cut", time.monotonic() - started)

    def _retry_done(self, client, g, member, put, total, answer):
        """`bytes */total` once the photo is made (the phone missed the answer): the same photo."""
        again = client.json(ROUTE + " (retry)", "PUT", put, {201}, body=b"", token=member.token,
                            content_type="application/octet-stream", headers={"Content-Range": f"bytes */{total}"})
        if again["photo"]["id"] != answer["photo"]["id"]:
            STATS.error("idempotency", f"an upload of {g.id} asked again gave {again['photo']['id']}, first {answer['photo']['id']}")
        STATS.count("resumable uploads asked again")
