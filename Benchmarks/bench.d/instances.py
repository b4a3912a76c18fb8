#!/usr/bin/env python3
"""Events and small writes across instances: one Groupie on SQLite beside two on one PostgreSQL.

In each setup, 20 groups have a member whose event stream is open on the first instance and a
teammate who renames themselves on the second (the same instance on SQLite): one write at a
time, then from 8 threads at once. Printed: writes per second, and the time from a write's
request to the event on the other member's stream (p50, p99; target under 50 ms across
instances on PostgreSQL), all events delivered, and of it the write's own answer and the time
from the answer to the event. The load client is Python: with 8 writers
its own threads take part of the time measured. pgbench's own update-only run at 8 clients
gives PostgreSQL's ceiling on this machine for comparison.

Usage: instances.py path/to/groupie   (GROUPIE_TEST_POSTGRES: a PostgreSQL server, as
`scripts/with-postgres` gives it)
"""
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import benchlib
from groupie_harness import postgres
from groupie_harness.checks import percentile
from groupie_harness.events import EventStream

GROUPS, THREADS, WRITES = 20, 8, 60


def listen(server, group_id, token, arrivals):
    """The group's stream, noting when each rename to a `bench-` name arrived."""
    def on_event(at, _, event, data):
        if "bench-" in data:
            arrivals[json.loads(data).get("name", "")] = at

    stream = EventStream(server.api, f"/api/v1/groups/{group_id}/events", token, on_event=on_event, timeout=300)
    stream.start()
    return stream


def run(label, reader, writer, threads, target=""):
    arrivals, sent, answered, streams = {}, {}, {}, []
    teammates = []
    for _ in range(GROUPS):
        token, group = reader.api.player_in_group()
        mate = writer.api.new_player("Mate")["token"]
        writer.api.join(mate, group["joinCode"])
        streams.append(listen(reader, group["id"], token, arrivals))
        teammates.append(mate)
    for stream in streams:
        stream.opened.wait()
    time.sleep(0.5)

    def write(index):
        for round in range(WRITES):
            mate = teammates[(index + round * threads) % GROUPS]
            name = f"bench-{uuid.uuid4().hex[:8]}-{index}-{round}"
            sent[name] = time.monotonic()
            writer.api.call("PATCH", "/api/v1/me", {"name": name}, token=mate)
            answered[name] = time.monotonic()

    started = time.monotonic()
    writers = [threading.Thread(target=write, args=(index,)) for index in range(threads)]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    elapsed = time.monotonic() - started
    deadline = time.monotonic() + 10
    while len([n for n in sent if n in arrivals]) < len(sent) and time.monotonic() < deadline:
        time.sleep(0.05)
    latencies = [(arrivals[n] - sent[n]) * 1000 for n in sent if n in arrivals]
    delivered = len(latencies)
    # Where the time went: the write's own answer, and from the answer to the event.
    writes = [(answered[n] - sent[n]) * 1000 for n in sent]
    after = [(arrivals[n] - answered[n]) * 1000 for n in sent if n in arrivals]
    print(f"  {label + f', {threads} writer' + ('s' if threads > 1 else ''):<56} {len(sent) / elapsed:6.0f} writes/s   write to event p50 {percentile(latencies, 0.5):6.1f} ms"
          f"  p99 {percentile(latencies, 0.99):6.1f} ms   delivered {delivered}/{len(sent)}{target}", flush=True)
    print(f"  {'':<56} of which the write's answer p50 {percentile(writes, 0.5):.1f} ms, p99 {percentile(writes, 0.99):.1f} ms;"
          f" its answer to the event p99 {percentile(after, 0.99):.1f} ms", flush=True)


def main():
    binary = sys.argv[1]
    server_url = postgres.server_url()
    work = tempfile.mkdtemp(prefix="groupie-bench-instances-")
    print(f"Events and small writes: {GROUPS} groups, {THREADS} writers, renames on one instance seen on another's streams")

    try:
        sqlite = benchlib.server(binary, work)
        try:
            for threads in (1, THREADS):
                run("one instance, SQLite", sqlite, sqlite, threads)
        finally:
            sqlite.stop()

        with postgres.database("groupie_bench") as database:
            first, second = (benchlib.server(binary, work, data=f"{work}/shared", options=("--database", database),
                                             log_name=f"server-{name}.log") for name in "AB")
            try:
                for threads in (1, THREADS):
                    run("one instance, PostgreSQL", first, first, threads)
                    run("two on PostgreSQL, A's streams, B's writes", first, second, threads, target="   (target p99 < 50 ms)")
            finally:
                first.stop()
                second.stop()

        bench = "groupie_pgbench_" + uuid.uuid4().hex[:8]
        postgres.psql(server_url, f"CREATE DATABASE {bench}")
        bench_url = postgres.with_database(server_url, bench)
        subprocess.run(["pgbench", "-q", "-i", "-s", "1", bench_url], check=True, capture_output=True)
        result = subprocess.run(["pgbench", "-N", "-c", "8", "-j", "2", "-T", "10", bench_url], capture_output=True, text=True)
        tps = next((line for line in result.stdout.splitlines() if line.startswith("tps")), "tps = ?")
        print(f"  {'reference: pgbench -N (update-only), 8 clients':<56} {tps}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
