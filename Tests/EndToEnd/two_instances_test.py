#!/usr/bin/env python3
"""Two `groupie serve` instances on one PostgreSQL database and one shared data folder, as
docs/operating.md's "PostgreSQL and several instances" describes them:

  - a player makes a group on A, a teammate joins it on B;
  - the teammate uploads on B, and the player's event stream on A shows each photo, the tasks
    and the completed mission (the latency from B's 201 to A's event is printed);
  - the mission's collage is rendered once across the two instances and announced once: up to
    the announcement of the collage of a photo chosen after it, nothing announces it again;
  - both answer /readyz with the PostgreSQL backend;
  - a staff page's live stream on B hears of a group made on A and of a photo held for review on
    A (the art museum's copy says `review: before_sharing`), and of its sharing: PostgreSQL's
    notifications are the only way a staff notice goes from one instance to another (the
    latency is printed);
  - a stream that leaves B with the last event id it had gets on A what it missed, in order,
    once each, and then what happens next;
  - B is killed with SIGKILL in the middle of a burst of uploads: every photo B answered 201 for
    is there through A, with its image, and A's stream goes on.

Usage: two_instances_test.py path/to/groupie   (GROUPIE_TEST_POSTGRES: a PostgreSQL server's URL,
as `scripts/with-postgres` sets it). Exits 1 on any failure.
"""
import http.client
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO, postgres  # noqa: E402
from groupie_harness.checks import Failure, check, logger  # noqa: E402
from groupie_harness.events import EventStream  # noqa: E402
from groupie_harness.photos import FIXTURES  # noqa: E402
from groupie_harness.server import Server  # noqa: E402
from groupie_harness.staff import add_staff, form_token, sign_in  # noqa: E402

VENUE = "science-centre"
REVIEWED, REVIEWED_MISSION, REVIEWED_TASK = "art-museum", "hats-on", "portrait-with-hat"
MISSION, TASKS = "poison-frogs", ("brightest-frog", "frog-pose")   # 2 tasks, no after:
PHOTOS = [FIXTURES / "chelsea.jpg", FIXTURES / "coffee.jpg"]
log = logger("two-instances")


def start_instance(name, binary, workdir, database):
    """An instance on the shared database, data folder and missions folder; stopped with a kill
    after 3 s, as its streams may hold it up and the data folder is thrown away anyway."""
    return Server(binary, workdir, missions=workdir / "missions", log_level="info", wait=60, grace=3, options=("--database", database),
                  log_name=f"server-{name}.log", name=name)


def missions_with_review(workdir):
    """The sample venues, the art museum's photos held for the staff's review."""
    shutil.copytree(REPO / "missions", workdir / "missions")
    venue_file = workdir / "missions" / f"{REVIEWED}.yaml"
    text = venue_file.read_text()
    check("\nmissions:\n" in text, "the art museum's file has its missions at the top level")
    venue_file.write_text(text.replace("\nmissions:\n", "\nreview: before_sharing\nmissions:\n", 1))


def staff_hears_other_instance(a, b, binary, database):
    """A moderator's venue page on B follows its live stream while a visitor plays on A."""
    email, password = "moderator@museum.example", "a long moderator password"
    add_staff(binary, b.data, email, password, role="moderator", venue=REVIEWED, missions=b.work / "missions", database=database)
    cookie, _ = sign_in(b.api, email, password)
    live = EventStream(b.api, f"/staff/venues/{REVIEWED}/events", headers={"Cookie": cookie}, name="B's staff")
    live.start()
    check(live.opened.wait(10) and live.status == 200, f"the staff's live stream on B opens ({live.status})")
    # The stream listens once it hears of a group made on its own instance.
    dee = b.api.new_player("Dee", "en")
    own = b.api.new_group(dee["token"], REVIEWED, "Frames")
    live.wait_for(lambda e: e[2] == "group-created" and own["id"] in e[3], "the group made on B itself")

    cy = a.api.new_player("Cy", "en")
    sent = time.monotonic()
    group = a.api.new_group(cy["token"], REVIEWED, "Hats")
    created, _ = live.wait_for(lambda e: e[2] == "group-created" and group["id"] in e[3], "the group made on A")
    held_photo = a.api.upload(group["id"], PHOTOS[0].read_bytes(), cy["token"], mission=REVIEWED_MISSION, task=REVIEWED_TASK, expect=None)
    uploaded = time.monotonic()
    check(held_photo.status == 201, f"A takes the photo to hold for review: {held_photo.status} {held_photo.body[:300]!r}")
    held, _ = live.wait_for(lambda e: e[2] == "review-changed" and group["id"] in e[3], "the photo held for review on A")
    log(f"B's staff stream heard of the group {(created[0] - sent) * 1000:.0f} ms after it was made on A, "
        f"of the held photo {(held[0] - uploaded) * 1000:.0f} ms after A's 201")

    # Shared by a moderator signed in on A: the review queue on B empties without a reload.
    cookie_a, _ = sign_in(a.api, email, password)
    queue = a.api.request("GET", f"/staff/venues/{REVIEWED}/review", headers={"Cookie": cookie_a}, expect=(200,))
    photo_id = held_photo.data["photo"]["id"]
    check(photo_id in queue.body.decode(), "the review queue on A lists the held photo")
    a.api.request("POST", f"/staff/photos/{photo_id}/restore", headers={"Cookie": cookie_a},
                  form={"csrf": form_token(queue.body), "next": "review"}, expect=(303,))
    live.wait_for(lambda e: e[2] == "review-changed" and group["id"] in e[3], "the photo shared on A")
    live.close()
    log("a staff page on B heard of a group made, a photo held and a photo shared on A")


def stream_of(server, group_id, token, last_event_id=None):
    """A group's Server-Sent Events, read into a queue of (arrival time, id, event, data)."""
    return EventStream(server.api, f"/api/v1/groups/{group_id}/events", token, last_event_id=last_event_id, name=server.name)


def main():
    binary = os.path.abspath(sys.argv[1])
    try:
        with postgres.database("groupie_two") as database:
            return run(binary, database)
    except Failure as failure:
        log(f"FAILED: {failure}")
        return 1


def run(binary, database):
    workdir = Path(tempfile.mkdtemp(prefix="groupie-two-"))
    a = b = None
    passed = False
    try:
        missions_with_review(workdir)
        # Started together: the second waits for the first's migration under the advisory lock.
        starting = {}
        threads = [threading.Thread(target=lambda n=n: starting.__setitem__(n, start_instance(n, binary, workdir, database))) for n in "AB"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        check(set(starting) == {"A", "B"}, f"both instances start on one new database at once (started: {sorted(starting)})")
        a, b = starting["A"], starting["B"]
        for instance in (a, b):
            ready = instance.api.call("GET", "/readyz")
            check(ready["status"] == "ready" and ready["backend"] == "postgresql", f"{instance.name} /readyz: {ready}")
        log("A and B ready on one PostgreSQL database")
        staff_hears_other_instance(a, b, binary, database)

        ada = a.api.new_player("Ada", "en")
        bo = b.api.new_player("Bo", "en")
        group = a.api.new_group(ada["token"], VENUE, "Frogs")
        b.api.join(bo["token"], group["joinCode"])
        stream = stream_of(a, group["id"], ada["token"])
        stream.start()
        check(stream.opened.wait(10), "A's event stream opens")
        stream.wait_for(lambda e: e[2] == "member-joined", "Bo joining on B")

        latencies = []
        for task, photo in zip(TASKS, PHOTOS):
            sent = time.monotonic()
            uploaded = b.api.upload(group["id"], photo.read_bytes(), bo["token"], mission=MISSION, task=task, expect=None)
            answered = time.monotonic()
            check(uploaded.status == 201, f"B takes the photo for {task}: {uploaded.status} {uploaded.body[:300]!r}")
            photo_id = uploaded.data["photo"]["id"]
            event, _ = stream.wait_for(lambda e: e[2] == "photo-added" and photo_id in e[3], f"Bo's photo for {task}")
            latencies.append((event[0] - answered) * 1000)
        stream.wait_for(lambda e: e[2] == "mission-completed", "the completed mission")
        log("A's stream showed B's photos " + ", ".join(f"{ms:.1f} ms" for ms in latencies) + " after B's 201")

        stream.wait_for(lambda e: e[2] == "collage-ready", "the collage", timeout=60)
        # Another photo chosen for the first task, on B: B makes a group's collages one round at a
        # time, so the new choice's collage is announced after anything the first one's round
        # announced, once more or not.
        chosen = b.api.upload(group["id"], PHOTOS[1].read_bytes(), bo["token"], mission=MISSION, task=TASKS[0], choose="true").data
        _, since = stream.wait_for(lambda e: e[2] == "collage-ready", "the collage of the photo chosen next", timeout=60)
        announced = [e for e in since if e[2] == "collage-ready"]
        check(len(announced) == 1, f"the first collage is announced once, not again before the next one: {[(e[1], e[2]) for e in since]}")
        renders = a.metric("groupie_collages_rendered_total") + b.metric("groupie_collages_rendered_total")
        check(renders == 2, f"each of the two collages is rendered once across both instances: {renders} renders")
        log(f"each collage was rendered once and announced once (the second after photo {chosen['photo']['id']} was chosen)")

        # Bo's phone follows the group on B, loses its connection, and comes back on A with the
        # last event id it had: it gets what it missed, in order, once each.
        on_b = stream_of(b, group["id"], bo["token"])
        on_b.start()
        check(on_b.opened.wait(10), "Bo's event stream on B opens")
        a.api.call("PATCH", "/api/v1/me", {"name": "Ada One"}, token=ada["token"])
        last, _ = on_b.wait_for(lambda e: e[2] == "member-renamed" and "Ada One" in e[3], "Ada's first rename, made on A")
        on_b.close()
        for name in ("Ada Two", "Ada Three"):
            a.api.call("PATCH", "/api/v1/me", {"name": name}, token=ada["token"])
        on_a = stream_of(a, group["id"], bo["token"], last_event_id=last[1])
        on_a.start()
        check(on_a.opened.wait(10), "Bo's event stream on A opens with Last-Event-ID")
        _, replayed = on_a.wait_for(lambda e: e[2] == "member-renamed" and "Ada Three" in e[3], "the renames Bo missed")
        # A rename made now comes after the replay: anything the replay sent twice, it sent before.
        a.api.call("PATCH", "/api/v1/me", {"name": "Ada Four"}, token=ada["token"])
        _, since = on_a.wait_for(lambda e: e[2] == "member-renamed" and "Ada Four" in e[3], "a rename made after the replay")
        replayed += since
        ids = [e[1] for e in replayed]
        check(ids == list(range(last[1] + 1, last[1] + 1 + len(ids))) and len(ids) >= 3,
              f"after event {last[1]} on B, A replays the next events once each, in order, then the new one: "
              f"{[(e[1], e[2]) for e in replayed]}")
        on_a.close()
        log(f"a stream that left B after event {last[1]} resumed on A with events {ids}")

        # SIGKILL of B while uploads run: every 201 survives, served by A.
        acknowledged, stop = [], threading.Event()

        def burst():
            while not stop.is_set():
                try:
                    acknowledged.append(b.api.upload_photo(group["id"], PHOTOS[0].read_bytes(), bo["token"])["id"])
                except (Failure, OSError, http.client.HTTPException):
                    return

        uploader = threading.Thread(target=burst, daemon=True)
        uploader.start()
        deadline = time.monotonic() + 20
        while len(acknowledged) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        b.kill()
        stop.set()
        uploader.join(10)
        check(len(acknowledged) >= 3, f"B answered 201 to uploads before it was killed ({len(acknowledged)})")
        album = a.api.call("GET", f"/api/v1/groups/{group['id']}/photos?limit=100", token=ada["token"])
        listed = {p["id"] for p in album["photos"]}
        missing = [p for p in acknowledged if p not in listed]
        check(not missing, f"every photo B answered 201 for is in the album through A; missing {missing}")
        for photo_id in acknowledged:
            image = a.api.request("GET", f"/api/v1/photos/{photo_id}/display", token=ada["token"])
            check(image.status == 200 and len(image.body) > 100, f"A serves the display image of {photo_id}")
        for photo_id in acknowledged:
            stream.wait_for(lambda e, p=photo_id: e[2] == "photo-added" and p in e[3], f"the photo {photo_id} B took before it died")
        log(f"B killed with SIGKILL after {len(acknowledged)} acknowledged uploads: all of them are served by A")
        log("passed")
        passed = True
        return 0
    except Failure as failure:
        log(f"FAILED: {failure}")
        for instance in (a, b):
            if instance:
                log(f"{instance.name}'s log: {instance.log_path}")
        return 1
    finally:
        for instance in (a, b):
            if instance:
                instance.stop()
        if passed:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
