#!/usr/bin/env python3
"""Many open event streams on one instance: memory per stream, and write-to-event latency.

Groups of 5 players (science-centre) are made through the API, and every member opens the
group's event stream (`GET /api/v1/groups/{id}/events`, bearer header): N streams in all,
read continuously by one asyncio client in this process (heartbeats included).

Printed:
- the server's resident memory (VmRSS) with no stream open, then with all N open and idle
  for a few seconds, and the difference per stream (target under 20 KiB); again after the
  timed part;
- renames (`PATCH /api/v1/me`) by one member of each of 50 measured groups, one write at a
  time: the time from sending the request to the `member-renamed` event on the streams of
  each of the group's 4 other members (p50, p99, max over those arrivals; target p99 under
  20 ms), and how many of them arrived. Meanwhile 20 other groups (with streams open) get
  photo uploads (a fixture JPEG for a task) and task choices at a steady rate. The same
  renames run first with only the measured groups' streams open, for reference.

Every request must succeed and every event arrive within a few seconds, or it exits non-zero.
The file limit is raised here (soft to hard, hard to 65536 when allowed) so that this client
and the server it starts can both hold N sockets.

Usage: streams.py path/to/groupie [--streams N] [--server-log FILE]   (N: 10000 by default;
the log file gets the server's stderr at log level info, for finding out why streams end)
"""
import argparse
import asyncio
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
import time

import benchlib
from groupie_harness import aio
from groupie_harness.checks import Failure, percentile
from groupie_harness.photos import FIXTURES, read

MEMBERS = 5                  # the venue's largest group
MEASURED_GROUPS = 50
BACKGROUND_GROUPS = 20
WRITES = 500
UPLOADS_PER_SECOND, CHOICES_PER_SECOND = 2, 20
IDLE_SECONDS = 5
DELIVERY_TIMEOUT = 5.0       # seconds for an event to reach every stream it is for
SETUP_CONNECTIONS = 32
OPENING_AT_ONCE = 128        # streams being opened at a time (the server's accept backlog)
MISSION, TASKS = "shark-tunnel", ("shark-from-below", "ray", "tunnel-selfie")
PHOTO = FIXTURES / "chelsea.jpg"
NAME = re.compile(r'"name":"(bench-[a-z]-\d+)"')


def raise_file_limit(wanted):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 65536:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (65536, 65536))
            soft, hard = 65536, 65536
        except (ValueError, OSError):
            pass
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raise Failure(f"the file limit is {soft}, {wanted} are needed for the streams; raise it with ulimit -Hn")
    return soft


# MARK: - Event streams

class Streams:
    """The open event streams and what they received; waits for a rename to reach its streams."""

    def __init__(self, port):
        self.port = port
        self.open = []
        self.closed_early = []
        self.heartbeats = 0
        self.waiting = {}   # name -> [streams expected, arrival times, future]
        self.ending = False

    async def add(self, group, member, token):
        reader, writer = await aio.open_stream(self.port, f"/api/v1/groups/{group['id']}/events", token)
        # The subscription is made before `retry:` is written: from then on no event is missed.
        first = asyncio.get_running_loop().create_future()
        stream = (group["id"], member, writer)
        reading = asyncio.get_running_loop().create_task(self.read(stream, reader, first))
        await asyncio.wait({first, reading}, return_when=asyncio.FIRST_COMPLETED)
        if not first.done() or "retry" not in first.result():
            writer.close()
            raise Failure(f"an event stream began with {first.result() if first.done() else 'its end'}, not retry:")
        self.open.append(stream)

    async def read(self, stream, reader, first):
        group_id, member, _ = stream
        now = [0.0]

        def arrived():
            now[0] = time.perf_counter()

        def heartbeat(text):
            if text.startswith("heartbeat"):
                self.heartbeats += 1

        def event(fields):
            if not first.done():
                first.set_result(fields)
                return
            data = fields.get("data", "")
            if member != 0 and "bench-" in data:
                match = NAME.search(data)
                entry = match and self.waiting.get(match.group(1))
                if entry and entry[3] == group_id:
                    entry[1].append(now[0])
                    if len(entry[1]) == entry[0] and not entry[2].done():
                        entry[2].set_result(None)

        try:
            await aio.read_stream(reader, event, heartbeat, arrived)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        if not self.ending and first.done():
            self.closed_early.append((group_id, member, time.monotonic()))

    def close(self):
        self.ending = True
        for _, _, writer in self.open:
            writer.close()


async def open_streams(streams, members):
    """Opens a stream for each (group, member, token), a bounded number at a time."""
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def one(group, member, token):
        async with gate:
            await streams.add(group, member, token)

    await asyncio.gather(*(one(*entry) for entry in members))


# MARK: - Load

async def make_group(pool, index):
    creator = (await pool.call("POST", "/api/v1/players", {"name": f"Bench {index}"}))["token"]
    group = (await pool.call("POST", "/api/v1/groups", {"venueId": "science-centre"}, creator))["group"]
    tokens = [creator]
    for member in range(1, MEMBERS):
        token = (await pool.call("POST", "/api/v1/players", {"name": f"Mate {index}.{member}"}))["token"]
        await pool.call("POST", "/api/v1/groups/join", {"code": group["joinCode"]}, token)
        tokens.append(token)
    return group, tokens


async def upload(pool, group, token, photo, task):
    path = f"/api/v1/groups/{group['id']}/photos?mission={MISSION}&task={task}"
    return (await pool.call("POST", path, photo, token, "image/jpeg"))["photo"]["id"]


async def choose(pool, group, token, photo_id):
    path = f"/api/v1/groups/{group['id']}/missions/{MISSION}/tasks/{TASKS[0]}/choice"
    await pool.call("PUT", path, {"photoId": photo_id}, token)


class Background:
    """Uploads and choices in the background groups at a steady rate, until stopped."""

    def __init__(self, pool, groups, photo):
        self.pool, self.groups, self.photo = pool, groups, photo
        self.uploads = self.choices = 0
        self.failures = []

    async def seed(self):
        """Two photos of the first task in each group, for the choices to go between."""
        self.choosable = []
        for group, tokens in self.groups:
            first = await upload(self.pool, group, tokens[0], self.photo, TASKS[0])
            second = await upload(self.pool, group, tokens[1], self.photo, TASKS[0])
            self.choosable.append((first, second))

    async def run(self, stop):
        await asyncio.gather(self.every(1 / UPLOADS_PER_SECOND, self.one_upload, stop),
                             self.every(1 / CHOICES_PER_SECOND, self.one_choice, stop))

    async def every(self, interval, action, stop):
        in_flight, next_at, count = set(), time.perf_counter(), 0
        while not stop.is_set():
            if len(in_flight) < 8:
                task = asyncio.get_running_loop().create_task(self.guard(action(count)))
                in_flight.add(task)
                task.add_done_callback(in_flight.discard)
            count += 1
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        await asyncio.gather(*in_flight)

    async def guard(self, action):
        try:
            await action
        except Exception as error:  # noqa: BLE001 - counted, reported, and the run fails
            self.failures.append(f"{type(error).__name__}: {error}")

    async def one_upload(self, count):
        group, tokens = self.groups[count % len(self.groups)]
        await upload(self.pool, group, tokens[count % MEMBERS], self.photo, TASKS[count % len(TASKS)])
        self.uploads += 1

    async def one_choice(self, count):
        index = count % len(self.groups)
        group, tokens = self.groups[index]
        await choose(self.pool, group, tokens[2], self.choosable[index][(count // len(self.groups)) % 2])
        self.choices += 1


async def renames(streams, writer, measured, background, label, tag):
    """WRITES renames, one at a time, by member 0 of the measured groups, with the background
    load running; the latency of each arrival on the other members' streams."""
    counts = {}
    for group_id, member, _ in streams.open:
        if member != 0:
            counts[group_id] = counts.get(group_id, 0) + 1
    stop = asyncio.Event()
    before = (background.uploads, background.choices)
    load = asyncio.get_running_loop().create_task(background.run(stop))
    latencies, expected, started = [], 0, time.perf_counter()
    try:
        for index in range(WRITES):
            group, tokens = measured[index % len(measured)]
            name = f"bench-{tag}-{index}"
            entry = [counts.get(group["id"], 0), [], asyncio.get_running_loop().create_future(), group["id"]]
            streams.waiting[name] = entry
            expected += entry[0]
            sent = time.perf_counter()
            await writer.request("PATCH", "/api/v1/me", {"name": name}, tokens[0])
            try:
                await asyncio.wait_for(asyncio.shield(entry[2]), DELIVERY_TIMEOUT)
            except asyncio.TimeoutError:
                pass
            latencies += [(arrived - sent) * 1000 for arrived in entry[1]]
            del streams.waiting[name]
    finally:
        stop.set()
        await load
    elapsed = time.perf_counter() - started
    uploads, choices = background.uploads - before[0], background.choices - before[1]
    print(f"  {label:<44} write to event p50 {percentile(latencies, 0.5):5.1f} ms  p99 {percentile(latencies, 0.99):5.1f} ms"
          f"  max {max(latencies, default=float('nan')):6.1f} ms   delivered {len(latencies)}/{expected}", flush=True)
    print(f"  {'':<44} meanwhile {uploads} uploads ({uploads / elapsed:.1f}/s), {choices} choices ({choices / elapsed:.1f}/s)"
          f" in {len(background.groups)} other groups, {elapsed:.1f} s", flush=True)
    return latencies, expected


def rss_line(label, server, baseline=None, streams=0):
    rss = server.memory_mib("VmRSS")
    text = f"  {label:<44} server RSS {rss:7.1f} MiB"
    if baseline is not None and streams:
        text += f"   {(rss - baseline) * 1024 / streams:5.1f} KiB per stream (target < 20)"
    print(text, flush=True)
    return rss


async def bench(server, count):
    photo = read(PHOTO)
    groups_needed = -(-count // MEMBERS)
    measured_count = min(MEASURED_GROUPS, max(1, groups_needed // 4))
    background_count = min(BACKGROUND_GROUPS, max(1, groups_needed // 4))
    pool = aio.Pool(server.port, SETUP_CONNECTIONS)
    writer = aio.Connection(server.port)
    streams = Streams(server.port)
    print(f"Event streams: {count} streams in {groups_needed} groups of {MEMBERS}, one instance on SQLite;"
          f" {WRITES} renames in {measured_count} groups, one at a time", flush=True)
    try:
        started = time.perf_counter()
        gate = asyncio.Semaphore(SETUP_CONNECTIONS)

        async def group(index):
            async with gate:
                return await make_group(pool, index)

        groups = await asyncio.gather(*(group(index) for index in range(groups_needed)))
        measured, background_groups = groups[:measured_count], groups[-background_count:]
        background = Background(pool, background_groups, photo)
        await background.seed()
        print(f"  {'set-up through the API':<44} {groups_needed * (2 * MEMBERS)} requests in {time.perf_counter() - started:.1f} s", flush=True)
        # Warm up: the background load once, so that the baseline already holds what it needs.
        stop = asyncio.Event()
        warm = asyncio.get_running_loop().create_task(background.run(stop))
        await asyncio.sleep(3)
        stop.set()
        await warm
        await asyncio.sleep(1)
        baseline = rss_line("no stream open", server)

        members = [(g, m, tokens[m]) for g, tokens in groups for m in range(MEMBERS)][:count]
        first = [entry for entry in members if any(entry[0] is g for g, _ in measured)]
        rest = [entry for entry in members if not any(entry[0] is g for g, _ in measured)]
        await open_streams(streams, first)
        await asyncio.sleep(0.5)
        reference, reference_expected = await renames(
            streams, writer, measured, background, f"reference: {len(first)} streams open", "r")

        started = time.perf_counter()
        await open_streams(streams, rest)
        opened = time.perf_counter() - started
        await asyncio.sleep(IDLE_SECONDS)
        rss_line(f"{len(streams.open)} streams open, idle {IDLE_SECONDS} s", server, baseline, len(streams.open))
        print(f"  {'':<44} ({len(rest)} of them opened in {opened:.1f} s)", flush=True)
        latencies, expected = await renames(
            streams, writer, measured, background, f"{len(streams.open)} streams open (target p99 < 20 ms)", "f")
        await asyncio.sleep(1)
        rss_line(f"{len(streams.open)} streams open, after the renames", server, baseline, len(streams.open))
        print(f"  {'streams ended early':<44} {len(streams.closed_early)}; heartbeats received {streams.heartbeats}", flush=True)

        problems = []
        if len(reference) < reference_expected or len(latencies) < expected:
            problems.append(f"events not delivered within {DELIVERY_TIMEOUT:.0f} s: "
                            f"{reference_expected - len(reference)} (reference), {expected - len(latencies)} (all streams)")
        if streams.closed_early:
            problems.append(f"{len(streams.closed_early)} streams ended early")
        if background.failures:
            problems.append(f"{len(background.failures)} background requests failed, first: {background.failures[0]}")
        if problems:
            raise Failure("; ".join(problems))
    finally:
        streams.close()
        pool.close()
        writer.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--server-log", help="file for the server's stderr, at log level info")
    arguments = parser.parse_args()
    count = arguments.streams
    if count < 2 * MEMBERS:
        parser.error(f"--streams must be at least {2 * MEMBERS}")
    raise_file_limit(count + 1024)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # The idle timeout applies between requests, never to a stream being written; raised here
    # only so that the set-up's kept-alive connections are not closed under a slow start.
    extra = ("--max-connections", str(count + 1024), "--idle-timeout", "3600")
    work = tempfile.mkdtemp(prefix="groupie-bench-streams-")
    server = None
    try:
        server = benchlib.server(os.path.abspath(arguments.binary), work, options=extra,
                                 log_level="info" if arguments.server_log else "error",
                                 log_name=os.path.abspath(arguments.server_log or os.path.join(work, "server.log")))
        asyncio.run(bench(server, count))
    except Failure as error:
        print(f"streams.py: {error}", file=sys.stderr)
        sys.exit(1)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
