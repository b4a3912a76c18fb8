"""The staff console: the numbers page over 100,000 stored groups, and the live venue page with
200 groups playing.

Targets (issue: the staff console): the numbers page answers in under 200 ms over 100,000
stored groups; the live page with 200 groups playing updates within 1 s of an upload (p99).

Numbers: a data folder gets 100,000 groups at the science centre over the last 25 days, each
with the events of a real game (photos for tasks, tasks done, missions completed, some given
up), written straight into the database, whose triggers keep the tally as the server's own
writes do. The numbers page is timed beside `research.csv` (which reads every event, as the
numbers page did before the tally) and `/healthz` (the bare route), on the same server.

Live: 200 groups with a member each, the console's event stream open as a signed-in member of
staff. For each upload: from sending it to the stream's event, and to the venue page fetched
again (what the page's script does on the event) showing the new photo.
"""
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid

import benchlib
import yaml
from groupie_harness import REPO
from groupie_harness.events import EventStream
from groupie_harness.photos import black_jpeg, read
from groupie_harness.staff import add_staff, sign_in

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="groupie-bench-staff-")
VENUE = "science-centre"
GROUPS = int(os.environ.get("BENCH_STAFF_GROUPS", "100000"))
EMAIL, PASSWORD = "bench@museum.example", "a bench password"


def start(data):
    server = benchlib.server(BINARY, WORK, data=data, log_name=f"server-{os.path.basename(data)}.log")
    server.api.timeout = 120
    return server


def staff_session(server):
    """An admin made with `groupie staff add`, signed in through the form: the Cookie header."""
    add_staff(BINARY, server.data, EMAIL, PASSWORD, role="admin")
    return {"Cookie": sign_in(server.api, EMAIL, PASSWORD)[0]}


def timed(server, path, headers, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        status = server.api.request("GET", path, headers=headers, expect=None).status
        times.append((time.perf_counter() - started) * 1000)
        assert status == 200, (path, status)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def seed(data):
    """GROUPS groups with the events of their games, as the server would have stored them."""
    venue = yaml.safe_load(read(f"{REPO}/missions/{VENUE}.yaml"))
    missions = [(m["id"], [t["id"] for t in m["tasks"]]) for m in venue["missions"]]
    rng = random.Random(20261124)
    db = sqlite3.connect(f"{data}/groupie.sqlite")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("INSERT INTO player (id, name, token_hash, created_at) VALUES ('bench', 'Bench', x'00', 0)")
    now = time.time()
    groups, events = [], []
    for n in range(GROUPS):
        group = uuid.uuid4().hex
        at = now - 25 * 86400 + n * (24 * 86400 / GROUPS)
        groups.append((group, VENUE, f"B{n:09d}", "bench", at, at + 8 * 3600))
        seq, clock = 0, at
        for mission, tasks in missions[:rng.randint(1, len(missions))]:
            finish = rng.random() < 0.7
            for index, task in enumerate(tasks):
                if not finish and index > 0 and rng.random() < 0.5:
                    break
                clock += rng.randint(30, 600)
                photo = uuid.uuid4().hex
                seq += 1
                events.append((group, seq, "photo-added", json.dumps({"photoId": photo, "missionId": mission, "taskId": task,
                                                                      "photographerId": "bench", "photographerName": "Bench"}), clock))
                seq += 1
                events.append((group, seq, "task-done", json.dumps({"missionId": mission, "taskId": task}), clock))
            else:
                if finish:
                    seq += 1
                    events.append((group, seq, "mission-completed", json.dumps({"missionId": mission}), clock))
                    continue
            break
    db.executemany("INSERT INTO play_group (id, venue_id, join_code, creator_id, created_at, joinable_until) VALUES (?, ?, ?, ?, ?, ?)", groups)
    db.executemany("INSERT INTO group_event (group_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)", events)
    db.commit()
    db.close()
    return len(events)


def numbers():
    data = f"{WORK}/numbers"
    start(data).stop()       # makes the database and its tables
    started = time.perf_counter()
    count = seed(data)
    print(f"  seeded {GROUPS:,} groups with {count:,} events in {time.perf_counter() - started:.0f} s")
    server = start(data)
    try:
        session = staff_session(server)
        page = f"/staff/venues/{VENUE}/numbers"
        timed(server, page, session, 3)                                   # warm-up
        p50, p99 = timed(server, page, session, 30)
        csv50, csv99 = timed(server, f"/staff/venues/{VENUE}/numbers/missions.csv", session, 10)
        before = server.memory_mib("VmHWM")
        ref50, ref99 = timed(server, f"/staff/venues/{VENUE}/numbers/research.csv", session, 3)
        after = server.memory_mib("VmHWM")
        bare50, bare99 = timed(server, "/healthz", {}, 30)
        print(f"  numbers page over {GROUPS:,} groups:        p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  (target < 200 ms)")
        print(f"  missions.csv, same tally:                p50 {csv50:7.1f} ms  p99 {csv99:7.1f} ms")
        print(f"  reference, research.csv (every event):   p50 {ref50:7.1f} ms  p99 {ref99:7.1f} ms"
              f"  (server peak RSS {before:.0f} -> {after:.0f} MiB)")
        print(f"  reference, GET /healthz:                 p50 {bare50:7.1f} ms  p99 {bare99:7.1f} ms")
    finally:
        server.stop()


class StaffStream:
    """The console's event stream: when each `photo-added` arrived, with its group (the feed
    names only the group)."""

    def __init__(self, server, headers):
        self.arrived = []
        self.lock = threading.Condition()
        self.stream = EventStream(server.api, f"/staff/venues/{VENUE}/events", headers={**headers, "Accept": "text/event-stream"},
                                  on_event=self.on_event)
        self.stream.start()
        self.stream.opened.wait(120)
        assert self.stream.status == 200, self.stream.status

    def on_event(self, _, __, kind, data):
        if kind == "photo-added":
            group = json.loads(data).get("groupId")
            with self.lock:
                self.arrived.append((group, time.perf_counter()))
                self.lock.notify_all()

    def wait_for(self, group, after, timeout=10):
        def found():
            return next((at for g, at in self.arrived if g == group and at >= after), None)
        with self.lock:
            self.lock.wait_for(lambda: found() is not None, timeout)
            return found()


def live(uploads=100):
    data = f"{WORK}/live"
    server = start(data)
    api = server.api
    try:
        session = staff_session(server)
        photo = read(black_jpeg(f"{WORK}/small.jpg", 320, 240))
        players = []
        for n in range(200):
            token = api.new_player(f"Player {n}")["token"]
            players.append((token, api.new_group(token, VENUE)["id"]))
        venue = yaml.safe_load(read(f"{REPO}/missions/{VENUE}.yaml"))
        mission = venue["missions"][0]
        stream = StaffStream(server, session)
        rng = random.Random(7)
        to_event, to_page = [], []
        for n in range(uploads):
            token, group = rng.choice(players)
            task = rng.choice(mission["tasks"])["id"]
            sent = time.perf_counter()
            photo_id = api.upload_photo(group, photo, token, mission=mission["id"], task=task)["id"]
            arrived = stream.wait_for(group, sent)
            assert arrived is not None, "no event for the photo of group " + group
            page = api.request("GET", f"/staff/venues/{VENUE}", headers=session, expect=None).body
            assert photo_id.encode() in page, "the venue page does not show the new photo"
            to_event.append((arrived - sent) * 1000)
            to_page.append((time.perf_counter() - sent) * 1000)
            time.sleep(0.05)
        bare50, bare99 = timed(server, "/healthz", {}, 30)
        page50, page99 = timed(server, f"/staff/venues/{VENUE}", session, 30)
        for label, values in (("upload sent to the console's event", to_event), ("upload sent to the page fetched again", to_page)):
            values.sort()
            print(f"  {label + ':':42} p50 {statistics.median(values):7.1f} ms  p99 {values[int(len(values) * 0.99) - 1]:7.1f} ms"
                  + ("  (target < 1000 ms)" if "page" in label else ""))
        print(f"  the venue page alone, 200 groups:          p50 {page50:7.1f} ms  p99 {page99:7.1f} ms")
        print(f"  reference, GET /healthz:                   p50 {bare50:7.1f} ms  p99 {bare99:7.1f} ms")
    finally:
        server.stop()


def main():
    try:
        print("Staff console: the numbers page")
        numbers()
        print("Staff console: the live venue page, 200 groups playing")
        live()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
