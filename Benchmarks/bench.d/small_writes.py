"""Small writes under load: joins and task choices, half and half, on SQLite and PostgreSQL.

Target (issue: small writes): on SQLite with `synchronous=FULL` in force, at least 1,500
requests per second at 16 connections with p99 under 10 ms, on 2 cores. Every request is a
write that succeeds (any answer but 2xx fails the run):

- a join: each of 256 joiners created two groups of its own and is in the second; its requests
  alternate between joining the first and the second (joining one's own group writes nothing,
  so it is never asked). Each joiner's consecutive requests are 128 requests of its wrk thread
  apart, so never concurrent, and each group has one member, so no size limit is reached;
- a task choice: each of 64 groups has two photos on the first task of a mission with more
  tasks, so the mission never completes and no collage is drawn; its choices alternate
  between the two photos.

Measured with wrk from Debian (installed when missing), 2 threads, on the same 2 cores as the
server, its Lua script handing each thread its own disjoint share of the prepared writes.
Beside it: `GET /healthz` on the same server (a bare route), and the data folder's file
system's own fsync rate (4 KiB appended and fsynced in a loop): were every write to pay for
one flush, that would be its ceiling. The CPU each side used during a run (server, wrk,
PostgreSQL, idle, waiting on the disk) says where the time went.

With GROUPIE_TEST_POSTGRES (as `scripts/with-postgres` gives it), the same load on one instance
on PostgreSQL, then on two instances sharing one database and data folder, each driven by its
own wrk at 8 connections at the same time; beside `pgbench -N` (update-only) at 16 clients,
the database's own ceiling on this machine, and a member's GET of their group on the same
server, which asks PostgreSQL one statement: what a request that touches it at all reaches.
Last, PostgreSQL's own CPU per write beside its CPU per pgbench transaction: on the machine's
cores, that alone bounds the writes per second, whatever Groupie and wrk were to take.

Usage: small_writes.py path/to/groupie   (BENCH_DURATION: wrk's duration, 10s unless set)
"""
import concurrent.futures
import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

import benchlib
from cpu_watch import CPU, PostgresWatch, settle
from groupie_harness import postgres as pg
from groupie_harness.photos import FIXTURES, read
from wrk_lua import PLAIN_LUA, finish_wrk, start_wrk, write_script

BINARY = os.path.abspath(sys.argv[1])
DURATION = os.environ.get("BENCH_DURATION", "10s")
JOINERS, CHOOSERS, CONNECTIONS, THREADS = 256, 64, 16, 2
VENUE = "science-centre"
# The players and groups made from the one address the load comes from, beyond the 300 a client may make.
CREATIONS = ("--creations-per-address", "5000")
PHOTO = FIXTURES / "chelsea.jpg"  # the smallest fixture: uploads are slow (both derivatives, the subject found)


def parallel(function, items, workers=8):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, items))


# MARK: - The writes


def prepare_joiners(server, count):
    """Players each in the second of two groups they created: (token, code of A, code of B)."""

    def one(index):
        token = server.api.new_player(f"Joiner {index}")["token"]
        first = server.api.new_group(token, VENUE)
        second = server.api.new_group(token, VENUE)
        return token, first["joinCode"], second["joinCode"]

    return parallel(one, range(count))


def choice_task(server):
    """An unlocked mission of the venue with at least two tasks, and its first task."""
    venue = server.api.get(f"/api/v1/venues/{VENUE}")
    mission = next(m for m in venue["missions"] if not m.get("after") and len(m["tasks"]) >= 2)
    return mission["id"], mission["tasks"][0]["id"]


def prepare_choosers(server, count, mission, task):
    """Groups with two photos on one task: [token, group id, photo ids]."""
    photo = read(PHOTO)

    def group(index):
        token = server.api.new_player(f"Chooser {index}")["token"]
        return token, server.api.new_group(token, VENUE)["id"]

    def upload(pair):
        token, group_id = pair
        return server.api.upload_photo(group_id, photo, token, mission=mission, task=task)["id"]

    groups = parallel(group, range(count))
    photos = parallel(upload, groups + groups, workers=4)
    return [[token, group_id, [photos[index], photos[index + count]]] for index, (token, group_id) in enumerate(groups)]


def next_choice_first(server, choosers, mission, task):
    """Orders each group's two photos so that its first choice is the one not chosen now."""
    for chooser in choosers:
        token, group_id, photos = chooser
        document = server.api.get(f"/api/v1/groups/{group_id}", token)["group"]
        chosen = next(t.get("chosenPhoto") for m in document["missions"] if m["id"] == mission for t in m["tasks"] if t["id"] == task)
        if chosen and chosen["id"] == photos[0]:
            chooser[2] = [photos[1], photos[0]]


def run(label, pairs, target="", path="/", postgres=None, database=None, what="write"):
    """Runs one wrk per (server, script, connections) at the same time; prints its line and the CPU's,
    and with `database` (a PostgreSQL URL) where the database's part of the time went, per `what`."""
    servers = [server for server, _, _ in pairs]
    settle(servers)
    cpu = CPU(servers, postgres=postgres)
    cpu.start()
    watch = PostgresWatch(database, seconds_of(DURATION)) if database else None
    if watch:
        watch.start()
    processes = []
    try:
        for server, script, connections in pairs:
            processes.append(start_wrk(server, script, connections, THREADS, DURATION, path))
        results = [finish_wrk(process, label) for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    usage = cpu.stop()
    rps = sum(r["rps"] for r in results)
    p50 = max(r["p50"] for r in results)
    p99 = max(r["p99"] for r in results)
    each = ""
    if len(results) > 1:
        each = "   p99 per instance " + " / ".join(f"{r['p99']:.2f}" for r in results) + " ms (the worse shown)"
    print(f"  {label:<52} {rps:7.0f} req/s  p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  non-2xx 0{target}{each}", flush=True)
    print(f"  {'':<52} {usage}", flush=True)
    if watch:
        for line in watch.stop(sum(r["requests"] for r in results), what):
            print(f"  {'':<52} {line}", flush=True)
    return rps, cpu.cores


# MARK: - References


def fsync_ceiling(folder, seconds=2.0):
    path = f"{folder}/fsync-probe-{uuid.uuid4().hex[:8]}"
    block, count = b"\0" * 4096, 0
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            os.write(descriptor, block)
            os.fsync(descriptor)
            count += 1
    finally:
        os.close(descriptor)
        os.remove(path)
    return count / seconds


def file_system(path):
    best, kind = "", "?"
    with open("/proc/mounts") as mounts:
        for line in mounts:
            _, point, fstype = line.split()[:3]
            if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
                best, kind = point, fstype
    return kind


def seconds_of(duration):
    found = re.fullmatch(r"(\d+)([smh]?)", duration)
    if not found:
        return 10
    return int(found.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[found.group(2)]


# MARK: -


def sqlite_part(work):
    """One instance on SQLite, beside /healthz and fsync; returns the mission and task chosen in."""
    server = benchlib.server(BINARY, work, options=CREATIONS)
    try:
        mission, task = choice_task(server)
        started = time.monotonic()
        joiners = prepare_joiners(server, JOINERS)
        choosers = prepare_choosers(server, CHOOSERS, mission, task)
        next_choice_first(server, choosers, mission, task)
        print(f"Small writes, half joins ({JOINERS} players, each between its two groups), half task choices ({CHOOSERS} groups,\n"
              f"each between two photos of {mission}/{task}); wrk, {THREADS} threads, {DURATION}, on the server's 2 cores"
              f" (prepared in {time.monotonic() - started:.0f} s)", flush=True)
        script = write_script(work, "sqlite", joiners, choosers, mission, task, THREADS)
        run(f"one instance, SQLite, {CONNECTIONS} connections", [(server, script, CONNECTIONS)],
            "   (target >= 1500/s, p99 < 10 ms)")
        plain = f"{work}/healthz.lua"
        with open(plain, "w") as file:
            file.write(PLAIN_LUA)
        run(f"reference GET /healthz, same server, {CONNECTIONS} connections", [(server, plain, CONNECTIONS)], path="/healthz")
        with contextlib.closing(sqlite3.connect(f"{server.data}/groupie.sqlite")) as database:
            journal = database.execute("PRAGMA journal_mode").fetchone()[0]
        ceiling = fsync_ceiling(server.data)
        print(f"  {f'reference fsync, 4 KiB appended ({file_system(str(server.data))})':<52} {ceiling:7.0f} fsyncs/s"
              f"   one commit each would cap writes at this", flush=True)
        print(f"  database journal mode {journal}; the writer's synchronous=FULL is read back at every start"
              f" (the server refuses to start without it)", flush=True)
    finally:
        server.stop()
    return mission, task


def postgres_part(work, mission, task):
    if not os.environ.get("GROUPIE_TEST_POSTGRES"):
        print("  PostgreSQL: skipped (GROUPIE_TEST_POSTGRES is not set; run under scripts/with-postgres)", flush=True)
        return
    server_url = pg.server_url()
    port = urllib.parse.urlsplit(server_url).port
    with pg.database("groupie_bench") as database:
        first = second = None
        one = two = 0
        used = None

        def instance(name):
            return benchlib.server(BINARY, work, data=f"{work}/shared", options=("--database", database, *CREATIONS), log_name=f"server-{name}.log")

        try:
            first = instance("A")
            joiners = prepare_joiners(first, JOINERS)
            choosers = prepare_choosers(first, CHOOSERS, mission, task)
            next_choice_first(first, choosers, mission, task)
            script = write_script(work, "postgres-one", joiners, choosers, mission, task, THREADS)
            one, used = run(f"one instance, PostgreSQL, {CONNECTIONS} connections", [(first, script, CONNECTIONS)], postgres=port, database=database)
            # What one statement a request costs on this machine, Groupie's side and PostgreSQL's:
            # a member's read of their group, its document cached, asks only for the membership.
            token, group_id, _ = choosers[0]
            reader = f"{work}/group-read.lua"
            with open(reader, "w") as file:
                file.write(f'wrk.headers["Authorization"] = "Bearer {token}"\n' + PLAIN_LUA)
            run(f"reference GET of a group, same server, {CONNECTIONS} connections", [(first, reader, CONNECTIONS)],
                path=f"/api/v1/groups/{group_id}", postgres=port, database=database, what="read")

            second = instance("B")
            joiners = prepare_joiners(first, JOINERS)  # fresh: each is in its second group again
            next_choice_first(first, choosers, mission, task)
            half, quarter = JOINERS // 2, CHOOSERS // 2
            scripts = [write_script(work, "postgres-a", joiners[:half], choosers[:quarter], mission, task, THREADS),
                       write_script(work, "postgres-b", joiners[half:], choosers[quarter:], mission, task, THREADS)]
            two, _ = run(f"two instances, one PostgreSQL, {CONNECTIONS // 2} + {CONNECTIONS // 2} connections",
                [(first, scripts[0], CONNECTIONS // 2), (second, scripts[1], CONNECTIONS // 2)], postgres=port, database=database)
        finally:
            for server in (first, second):
                if server:
                    server.stop()

    bench = "groupie_pgbench_" + uuid.uuid4().hex[:8]
    pg.psql(server_url, f"CREATE DATABASE {bench}")
    bench_url = pg.with_database(server_url, bench)
    subprocess.run(["pgbench", "-q", "-i", "-s", "1", bench_url], check=True, capture_output=True)
    cpu = CPU([], client="pgbench", postgres=port)
    cpu.start()
    result = subprocess.run(["pgbench", "-N", "-c", str(CONNECTIONS), "-j", str(THREADS), "-T", str(seconds_of(DURATION)), bench_url],
                            capture_output=True, text=True)
    usage = cpu.stop()
    tps = re.search(r"^tps = ([\d.]+)", result.stdout, re.MULTILINE)
    latency = re.search(r"^latency average = ([\d.]+) ms", result.stdout, re.MULTILINE)
    if result.returncode != 0 or not tps:
        raise RuntimeError(f"pgbench failed: {result.stderr.strip() or result.stdout.strip()}")
    print(f"  {f'reference pgbench -N (update-only), {CONNECTIONS} clients':<52} {float(tps.group(1)):7.0f} tps"
          f"    latency average {float(latency.group(1)):.2f} ms", flush=True)
    print(f"  {'':<52} {usage}", flush=True)
    ceiling = float(tps.group(1))
    print(f"  {'small writes against pgbench -N':<52} one instance {one / ceiling:.2f}x, two instances {two / ceiling:.2f}x"
          f"   (target: one instance >= 0.5x)", flush=True)
    if one and used:
        # The CPU PostgreSQL itself spent per write, against per pgbench transaction: on this machine's
        # cores, that alone bounds the rate, however little Groupie and wrk were to take.
        cores = os.cpu_count()
        write_ms, transaction_ms = (1000 * c["postgres"] / rate for c, rate in ((used, one), (cpu.cores, ceiling)))
        groupie_ms = 1000 * used["groupie"] / one
        bound = cores * 1000 / write_ms
        print(f"  {'PostgreSQL CPU per write (one instance)':<52} {write_ms:7.2f} ms   per pgbench -N transaction {transaction_ms:.2f} ms;"
              f" Groupie's per write {groupie_ms:.2f} ms", flush=True)
        print(f"  {'':<52} on {cores} cores PostgreSQL alone allows at most {bound:.0f} writes/s, {bound / ceiling:.2f}x pgbench -N,"
              f" with no CPU left for Groupie or wrk", flush=True)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    benchlib.require_tools("wrk")
    work = tempfile.mkdtemp(prefix="groupie-bench-small-writes-")
    try:
        postgres_part(work, *sqlite_part(work))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
