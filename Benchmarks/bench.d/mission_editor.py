"""The mission editor: from Save in the staff console to the new mission on an open phone.

200 groups play the science centre (a member each, their event streams open, photos being
taken in the background). An admin saves the venue's file from the editor again and again,
each time with a mission's title changed; for each save, the time from sending Save to the
`venue-updated` event on each of the 200 phones' streams, and to the first phone having the
venue with the new title (the event, then `GET /api/v1/venues/<id>`, as the web client does).
Beside it, the reference: the same change written to the file on disk directly (a temporary
file renamed over it, as a deploy or a git pull does), to the event on the last phone: what the
reload alone costs, without the editor's checks, history and atomic save.
Prints the figures (p50, p99); no target is asserted.
"""
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time

import benchlib
from groupie_harness import REPO
from groupie_harness.events import EventStream
from groupie_harness.photos import black_jpeg, read
from groupie_harness.staff import add_staff, sign_in

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="groupie-bench-editor-")
VENUE, GROUPS = "science-centre", int(os.environ.get("BENCH_EDITOR_GROUPS", "200"))
SAVES = int(os.environ.get("BENCH_EDITOR_SAVES", "30"))
EMAIL, PASSWORD = "bench@museum.example", "a bench password"
TITLE = "en: In the shark tunnel"


class Phones:
    """Every group's stream: when each `venue-updated` arrived."""

    def __init__(self, api, players):
        self.arrived, self.lock = [], threading.Condition()
        self.streams = []
        for token, group in players:
            stream = EventStream(api, f"/api/v1/groups/{group}/events", token, on_event=self.on_event, timeout=300)
            stream.start()
            self.streams.append(stream)
        for stream in self.streams:
            stream.opened.wait(120)
            assert stream.status == 200, stream.status

    def on_event(self, at, _, kind, __):
        if kind == "venue-updated":
            with self.lock:
                self.arrived.append(at)
                self.lock.notify_all()

    def wait_for(self, count, after, timeout=30):
        with self.lock:
            self.lock.wait_for(lambda: sum(1 for at in self.arrived if at >= after) >= count, timeout)
            return sorted(at for at in self.arrived if at >= after)


def main():
    missions = f"{WORK}/missions"
    shutil.copytree(REPO / "missions", missions)
    server = benchlib.server(BINARY, WORK, missions=missions)
    api = server.api
    api.timeout = 120
    stop = threading.Event()
    try:
        add_staff(BINARY, server.data, EMAIL, PASSWORD, role="admin", missions=missions)
        cookie, csrf = sign_in(api, EMAIL, PASSWORD)
        session = {"Cookie": cookie}
        players = []
        for n in range(GROUPS):
            token = api.new_player(f"Player {n}")["token"]
            players.append((token, api.new_group(token, VENUE)["id"]))
        phones = Phones(api, players)
        photo = read(black_jpeg(f"{WORK}/small.jpg", 320, 240))

        def play():
            rng = random.Random(11)
            while not stop.is_set():
                token, group = rng.choice(players)
                api.upload_photo(group, photo, token, mission="shark-tunnel", task="ray")
                stop.wait(0.2)
        playing = threading.Thread(target=play, daemon=True)
        playing.start()

        to_phone, to_last, to_venue = [], [], []
        for n in range(SAVES):
            page = api.request("GET", f"/staff/venues/{VENUE}/missions/edit", headers=session).body.decode()
            base = re.search(r'name="base" value="([0-9a-f]*)"', page).group(1)
            text = read(f"{missions}/{VENUE}.yaml").decode()
            title = f"In the shark tunnel ({n})"
            text = re.sub(r"en: In the shark tunnel( \(\d+\))?", "en: " + title, text, count=1)
            sent = time.monotonic()
            answer = api.request("POST", f"/staff/venues/{VENUE}/missions/save", form={"csrf": csrf, "text": text, "base": base},
                                 headers=session, expect=None)
            assert answer.status == 303, answer.status
            arrived = phones.wait_for(GROUPS, sent)
            assert len(arrived) >= GROUPS, f"{len(arrived)} of {GROUPS} phones heard of the save"
            venue = api.get(f"/api/v1/venues/{VENUE}?lang=en", players[0][0])
            assert title in str(venue), "the venue read after the event has the new title"
            to_venue.append((time.monotonic() - sent) * 1000)
            to_phone.extend((at - sent) * 1000 for at in arrived[:GROUPS])
            to_last.append((arrived[GROUPS - 1] - sent) * 1000)
            time.sleep(0.2)
        # The reference: the file renamed into place by hand, no editor.
        by_hand = []
        for n in range(SAVES):
            path = f"{missions}/{VENUE}.yaml"
            text = re.sub(r"en: In the shark tunnel( \(\d+\))?", f"en: In the shark tunnel (by hand {n})", read(path).decode(), count=1)
            with open(path + ".tmp", "w") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            sent = time.monotonic()
            os.replace(path + ".tmp", path)
            arrived = phones.wait_for(GROUPS, sent)
            assert len(arrived) >= GROUPS, f"{len(arrived)} of {GROUPS} phones heard of the change on disk"
            by_hand.append((arrived[GROUPS - 1] - sent) * 1000)
            time.sleep(0.2)
        for label, values in (("Save sent to the event, every phone", to_phone), ("Save sent to the event on the last phone", to_last),
                              ("Save sent to the new venue on a phone", to_venue),
                              ("reference: file renamed on disk, last phone", by_hand)):
            values.sort()
            print(f"  {label + ':':44} p50 {statistics.median(values):7.1f} ms  p99 {values[max(0, int(len(values) * 0.99) - 1)]:7.1f} ms")
    finally:
        stop.set()
        server.stop()
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    print(f"Mission editor: from Save to the new mission on {GROUPS} open phones")
    main()
