#!/usr/bin/env python3
"""Events and small writes across instances: one Groupie on SQLite beside two on one PostgreSQL.

In each setup, 20 groups have a member whose event stream is open on the first instance and a
teammate who renames themselves on the second (the same instance on SQLite): one write at a
time, then from 8 threads at once. Printed: writes per second, and the time from a write's
request to the event on the other member's stream (p50, p99; target under 50 ms across
instances on PostgreSQL), all events delivered. The load client is Python: with 8 writers
its own threads take part of the time measured. pgbench's own update-only run at 8 clients
gives PostgreSQL's ceiling on this machine for comparison.

Usage: instances.py path/to/groupie   (GROUPIE_TEST_POSTGRES: a PostgreSQL server, as
`scripts/with-postgres` gives it)
"""
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import Server, percentile  # noqa: E402

GROUPS, THREADS, WRITES = 20, 8, 60


def listen(server, group_id, token, arrivals, opened):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
    connection.request("GET", f"/api/v1/groups/{group_id}/events", headers={"Authorization": "Bearer " + token})
    response = connection.getresponse()
    opened.release()
    while True:
        line = response.fp.readline()
        if not line:
            return
        if line.startswith(b"data: ") and b"bench-" in line:
            name = json.loads(line[6:]).get("name", "")
            arrivals[name] = time.monotonic()


def run(label, reader, writer, threads, target=""):
    arrivals, sent, opened = {}, {}, threading.Semaphore(0)
    teammates = []
    for _ in range(GROUPS):
        token, group = reader.player_in_group()
        mate = writer.call("POST", "/api/v1/players", {"name": "Mate"})["token"]
        writer.call("POST", "/api/v1/groups/join", {"code": group["joinCode"]}, mate)
        threading.Thread(target=listen, args=(reader, group["id"], token, arrivals, opened), daemon=True).start()
        teammates.append(mate)
    for _ in range(GROUPS):
        opened.acquire()
    time.sleep(0.5)

    def write(index):
        for round in range(WRITES):
            mate = teammates[(index + round * threads) % GROUPS]
            name = f"bench-{uuid.uuid4().hex[:8]}-{index}-{round}"
            sent[name] = time.monotonic()
            writer.call("PATCH", "/api/v1/me", {"name": name}, mate)

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
    print(f"  {label + f', {threads} writer' + ('s' if threads > 1 else ''):<56} {len(sent) / elapsed:6.0f} writes/s   write to event p50 {percentile(latencies, 0.5):6.1f} ms"
          f"  p99 {percentile(latencies, 0.99):6.1f} ms   delivered {delivered}/{len(sent)}{target}", flush=True)


def main():
    binary = sys.argv[1]
    server_url = os.environ["GROUPIE_TEST_POSTGRES"]
    work = tempfile.mkdtemp(prefix="groupie-bench-instances-")
    print(f"Events and small writes: {GROUPS} groups, {THREADS} writers, renames on one instance seen on another's streams")

    sqlite = Server(binary, work)
    try:
        for threads in (1, THREADS):
            run("one instance, SQLite", sqlite, sqlite, threads)
    finally:
        sqlite.stop()

    name = "groupie_bench_" + uuid.uuid4().hex[:8]
    subprocess.run(["psql", "-X", "-q", server_url, "-c", f"CREATE DATABASE {name}"], check=True)
    parts = urllib.parse.urlsplit(server_url)
    database = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, "sslmode=disable", ""))
    first = Server(binary, work, data=f"{work}/shared", extra=("--database", database))
    second = Server(binary, work, data=f"{work}/shared", extra=("--database", database))
    try:
        for threads in (1, THREADS):
            run("one instance, PostgreSQL", first, first, threads)
            run("two on PostgreSQL, A's streams, B's writes", first, second, threads, target="   (target p99 < 50 ms)")
    finally:
        first.stop()
        second.stop()

    bench = "groupie_pgbench_" + uuid.uuid4().hex[:8]
    subprocess.run(["psql", "-X", "-q", server_url, "-c", f"CREATE DATABASE {bench}"], check=True)
    bench_url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + bench, "", ""))
    subprocess.run(["pgbench", "-q", "-i", "-s", "1", bench_url], check=True, capture_output=True)
    result = subprocess.run(["pgbench", "-N", "-c", "8", "-j", "2", "-T", "10", bench_url], capture_output=True, text=True)
    tps = next((line for line in result.stdout.splitlines() if line.startswith("tps")), "tps = ?")
    print(f"  {'reference: pgbench -N (update-only), 8 clients':<56} {tps}")


if __name__ == "__main__":
    main()
