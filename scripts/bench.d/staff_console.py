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
import http.client
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import yaml

import benchlib

BINARY = os.path.abspath(sys.argv[1])
REPOSITORY = benchlib.REPOSITORY
WORK = tempfile.mkdtemp(prefix="groupie-bench-staff-")
VENUE = "science-centre"
GROUPS = int(os.environ.get("BENCH_STAFF_GROUPS", "100000"))
EMAIL, PASSWORD = "bench@museum.example", "a bench password"


def start(data):
    port = benchlib.free_port()
    process = subprocess.Popen(
        [BINARY, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data, "--missions", f"{REPOSITORY}/missions",
         "--assets", f"{REPOSITORY}/assets", "--log-level", "error"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(800):
        try:
            status, _, _ = request(port, "GET", "/healthz")
            if status == 200:
                return process, port
        except OSError:
            time.sleep(0.025)
    raise RuntimeError("the server did not start")


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def staff_session(port, data):
    """An admin made with `groupie staff add`, signed in through the form: the Cookie header."""
    subprocess.run([BINARY, "staff", "add", EMAIL, "--role", "admin", "--data", data], input=PASSWORD + "\n",
                   capture_output=True, text=True, check=True)
    _, headers, html = request(port, "GET", "/staff/login")
    login = re.search(r"groupie_staff_login=([^;]+)", headers.get("Set-Cookie", "")).group(1)
    csrf = re.search(rb'name="csrf" value="([^"]+)"', html).group(1).decode()
    form = urllib.parse.urlencode({"csrf": csrf, "email": EMAIL, "password": PASSWORD})
    status, headers, _ = request(port, "POST", "/staff/login", form, {
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": "groupie_staff_login=" + login})
    assert status == 303, status
    session = [c for c in headers.get_all("Set-Cookie") if c.startswith("groupie_staff=")][0].split(";")[0]
    return {"Cookie": session}


def peak_rss_mib(process):
    with open(f"/proc/{process.pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))


def timed(port, path, headers, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        status, _, _ = request(port, "GET", path, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        assert status == 200, (path, status)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def seed(data):
    """GROUPS groups with the events of their games, as the server would have stored them."""
    venue = yaml.safe_load(open(f"{REPOSITORY}/missions/{VENUE}.yaml"))
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
    process, _ = start(data)       # makes the database and its tables
    process.terminate()
    process.wait()
    started = time.perf_counter()
    count = seed(data)
    print(f"  seeded {GROUPS:,} groups with {count:,} events in {time.perf_counter() - started:.0f} s")
    process, port = start(data)
    try:
        session = staff_session(port, data)
        page = f"/staff/venues/{VENUE}/numbers"
        timed(port, page, session, 3)                                   # warm-up
        p50, p99 = timed(port, page, session, 30)
        csv50, csv99 = timed(port, f"/staff/venues/{VENUE}/numbers/missions.csv", session, 10)
        before = peak_rss_mib(process)
        ref50, ref99 = timed(port, f"/staff/venues/{VENUE}/numbers/research.csv", session, 3)
        after = peak_rss_mib(process)
        bare50, bare99 = timed(port, "/healthz", {}, 30)
        print(f"  numbers page over {GROUPS:,} groups:        p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  (target < 200 ms)")
        print(f"  missions.csv, same tally:                p50 {csv50:7.1f} ms  p99 {csv99:7.1f} ms")
        print(f"  reference, research.csv (every event):   p50 {ref50:7.1f} ms  p99 {ref99:7.1f} ms"
              f"  (server peak RSS {before:.0f} -> {after:.0f} MiB)")
        print(f"  reference, GET /healthz:                 p50 {bare50:7.1f} ms  p99 {bare99:7.1f} ms")
    finally:
        process.terminate()
        process.wait()


class StaffStream(threading.Thread):
    """The console's event stream: when each `photo-added` arrived, with its group (the feed
    names only the group)."""

    def __init__(self, port, headers):
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.connection.request("GET", f"/staff/venues/{VENUE}/events", headers={**headers, "Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        self.arrived = []
        self.lock = threading.Condition()

    def run(self):
        kind = None
        for raw in self.response:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and kind == "photo-added":
                group = json.loads(line[5:]).get("groupId")
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
    process, port = start(data)
    try:
        session = staff_session(port, data)
        subprocess.run(["vips", "black", f"{WORK}/small.jpg", "320", "240", "--bands", "3"], check=True)
        photo = open(f"{WORK}/small.jpg", "rb").read()
        players = []
        for n in range(200):
            _, _, body = request(port, "POST", "/api/v1/players", json.dumps({"name": f"Player {n}"}), {"Content-Type": "application/json"})
            token = json.loads(body)["token"]
            _, _, body = request(port, "POST", "/api/v1/groups", json.dumps({"venueId": VENUE}),
                                 {"Content-Type": "application/json", "Authorization": "Bearer " + token})
            players.append((token, json.loads(body)["group"]["id"]))
        venue = yaml.safe_load(open(f"{REPOSITORY}/missions/{VENUE}.yaml"))
        mission = venue["missions"][0]
        stream = StaffStream(port, session)
        stream.start()
        rng = random.Random(7)
        to_event, to_page = [], []
        for n in range(uploads):
            token, group = rng.choice(players)
            task = rng.choice(mission["tasks"])["id"]
            sent = time.perf_counter()
            status, _, body = request(port, "POST", f"/api/v1/groups/{group}/photos?mission={mission['id']}&task={task}", photo,
                                      {"Content-Type": "image/jpeg", "Authorization": "Bearer " + token})
            assert status == 201, status
            photo_id = json.loads(body)["photo"]["id"]
            arrived = stream.wait_for(group, sent)
            assert arrived is not None, "no event for the photo of group " + group
            _, _, page = request(port, "GET", f"/staff/venues/{VENUE}", headers=session)
            assert photo_id.encode() in page, "the venue page does not show the new photo"
            to_event.append((arrived - sent) * 1000)
            to_page.append((time.perf_counter() - sent) * 1000)
            time.sleep(0.05)
        bare50, bare99 = timed(port, "/healthz", {}, 30)
        page50, page99 = timed(port, f"/staff/venues/{VENUE}", session, 30)
        for label, values in (("upload sent to the console's event", to_event), ("upload sent to the page fetched again", to_page)):
            values.sort()
            print(f"  {label + ':':42} p50 {statistics.median(values):7.1f} ms  p99 {values[int(len(values) * 0.99) - 1]:7.1f} ms"
                  + ("  (target < 1000 ms)" if "page" in label else ""))
        print(f"  the venue page alone, 200 groups:          p50 {page50:7.1f} ms  p99 {page99:7.1f} ms")
        print(f"  reference, GET /healthz:                   p50 {bare50:7.1f} ms  p99 {bare99:7.1f} ms")
    finally:
        process.terminate()
        process.wait()


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
