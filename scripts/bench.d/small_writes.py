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
the database's own ceiling on this machine.

Usage: small_writes.py path/to/groupie   (BENCH_DURATION: wrk's duration, 10s unless set)
"""
import concurrent.futures
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import benchlib

BINARY = os.path.abspath(sys.argv[1])
REPOSITORY = benchlib.REPOSITORY
DURATION = os.environ.get("BENCH_DURATION", "10s")
JOINERS, CHOOSERS, CONNECTIONS, THREADS = 256, 64, 16, 2
VENUE = "science-centre"
PHOTO = "chelsea.jpg"  # the smallest fixture: uploads are slow (both derivatives, the subject found)
TICKS = os.sysconf("SC_CLK_TCK")


def parallel(function, items, workers=8):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, items))


# MARK: - The writes


def prepare_joiners(server, count):
    """Players each in the second of two groups they created: (token, code of A, code of B)."""

    def one(index):
        token = server.call("POST", "/api/v1/players", {"name": f"Joiner {index}"})["token"]
        first = server.call("POST", "/api/v1/groups", {"venueId": VENUE}, token)["group"]
        second = server.call("POST", "/api/v1/groups", {"venueId": VENUE}, token)["group"]
        return token, first["joinCode"], second["joinCode"]

    return parallel(one, range(count))


def choice_task(server):
    """An unlocked mission of the venue with at least two tasks, and its first task."""
    venue = server.call("GET", f"/api/v1/venues/{VENUE}")
    mission = next(m for m in venue["missions"] if not m.get("after") and len(m["tasks"]) >= 2)
    return mission["id"], mission["tasks"][0]["id"]


def prepare_choosers(server, count, mission, task):
    """Groups with two photos on one task: [token, group id, photo ids]."""
    with open(os.path.join(REPOSITORY, "Tests/Fixtures/Photos", PHOTO), "rb") as file:
        photo = file.read()

    def group(index):
        token = server.call("POST", "/api/v1/players", {"name": f"Chooser {index}"})["token"]
        return token, server.call("POST", "/api/v1/groups", {"venueId": VENUE}, token)["group"]["id"]

    def upload(pair):
        token, group_id = pair
        path = f"/api/v1/groups/{group_id}/photos?mission={mission}&task={task}"
        return server.call("POST", path, photo, token, content_type="image/jpeg")["photo"]["id"]

    groups = parallel(group, range(count))
    photos = parallel(upload, groups + groups, workers=4)
    return [[token, group_id, [photos[index], photos[index + count]]] for index, (token, group_id) in enumerate(groups)]


def next_choice_first(server, choosers, mission, task):
    """Orders each group's two photos so that its first choice is the one not chosen now."""
    for chooser in choosers:
        token, group_id, photos = chooser
        document = server.call("GET", f"/api/v1/groups/{group_id}", token=token)["group"]
        chosen = next(t.get("chosenPhoto") for m in document["missions"] if m["id"] == mission for t in m["tasks"] if t["id"] == task)
        if chosen and chosen["id"] == photos[0]:
            chooser[2] = [photos[1], photos[0]]


def lua_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


LUA = """
-- Generated by scripts/bench.d/small_writes.py: joins and task choices, half and half.
local joiners = {%(joiners)s}
local choosers = {%(choosers)s}
local threads, counter = {}, 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  -- This thread's share: the joiners and choosers whose place modulo %(threads)d is its id, with
  -- two requests ready for each, sent in turn.
  joins, choices, sent, failures, failure = {}, {}, 0, 0, ""
  for i, j in ipairs(joiners) do
    if (i - 1) %% %(threads)d == id then
      local headers = {["Authorization"] = "Bearer " .. j[1], ["Content-Type"] = "application/json"}
      table.insert(joins, {n = 0,
        wrk.format("POST", "/api/v1/groups/join", headers, '{"code":"' .. j[2] .. '"}'),
        wrk.format("POST", "/api/v1/groups/join", headers, '{"code":"' .. j[3] .. '"}')})
    end
  end
  for i, c in ipairs(choosers) do
    if (i - 1) %% %(threads)d == id then
      local headers = {["Authorization"] = "Bearer " .. c[1], ["Content-Type"] = "application/json"}
      table.insert(choices, {n = 0,
        wrk.format("PUT", c[2], headers, '{"photoId":"' .. c[3] .. '"}'),
        wrk.format("PUT", c[2], headers, '{"photoId":"' .. c[4] .. '"}')})
    end
  end
end

function request()
  -- wrk calls thread 0's request() once before sending, to count the requests it returns and
  -- never sends that one: it gets a bare GET, so that no player's turn is taken by it (a join
  -- of the group one is in would then come first, and write nothing).
  if id == 0 and not verified then
    verified = true
    return wrk.format("GET", "/healthz")
  end
  sent = sent + 1
  local list = (sent %% 2 == 1) and joins or choices
  local item = list[math.floor((sent - 1) / 2) %% #list + 1]
  item.n = item.n + 1
  return item[(item.n - 1) %% 2 + 1]
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    failures = failures + 1
    if failure == "" then failure = status .. " " .. string.gsub(string.sub(body or "", 1, 300), '[%%c"\\\\]', " ") end
  end
end

function done(summary, latency, requests)
  local failures, failure = 0, ""
  for _, thread in ipairs(threads) do
    failures = failures + thread:get("failures")
    if failure == "" then failure = thread:get("failure") end
  end
  local e = summary.errors
  io.write(string.format('BENCH {"requests": %%d, "seconds": %%.6f, "p50": %%.3f, "p99": %%.3f, "non2xx": %%d, "socket": {"connect": %%d, "read": %%d, "write": %%d, "timeout": %%d}, "failure": "%%s"}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    failures, e.connect, e.read, e.write, e.timeout, failure))
end
"""

PLAIN_LUA = """
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH {"requests": %d, "seconds": %.6f, "p50": %.3f, "p99": %.3f, "non2xx": %d, "socket": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, "failure": ""}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect, e.read, e.write, e.timeout))
end
"""


def write_script(work, name, joiners, choosers, mission, task):
    def choice(group_id):
        return f"/api/v1/groups/{group_id}/missions/{mission}/tasks/{task}/choice"

    text = LUA % {
        "threads": THREADS,
        "joiners": ",\n  ".join("{" + ", ".join(map(lua_string, j)) + "}" for j in joiners),
        "choosers": ",\n  ".join(
            "{" + ", ".join(map(lua_string, [token, choice(g), p[0], p[1]])) + "}" for token, g, p in choosers),
    }
    path = f"{work}/{name}.lua"
    with open(path, "w") as file:
        file.write(text)
    return path


# MARK: - Running wrk and watching the CPU


def start_wrk(server, script, connections, path="/"):
    return subprocess.Popen(
        ["wrk", f"-t{THREADS}", f"-c{connections}", f"-d{DURATION}", "--latency", "-s", script, f"http://127.0.0.1:{server.port}{path}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_wrk(process, label):
    output, errors = process.communicate()
    found = re.search(r"^BENCH (.*)$", output, re.MULTILINE)
    if process.returncode != 0 or not found:
        raise RuntimeError(f"{label}: wrk failed ({process.returncode}): {errors.strip() or output.strip()}")
    result = json.loads(found.group(1))
    result["rps"] = result["requests"] / result["seconds"]
    socket = {kind: count for kind, count in result["socket"].items() if count}
    if result["non2xx"] or socket:
        raise RuntimeError(f"{label}: among {result['requests']} requests, {result['non2xx']} answers were not 2xx"
                           f" (first: {result['failure'] or '-'}) and socket errors {socket or 0}"
                           f" (a timeout is a request unanswered after wrk's 2 s)")
    return result


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, IndexError):
        return 0


def postgres_pids(port):
    """The PostgreSQL server listening on `port` and its children (backends, WAL writer...)."""
    processes = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as comm, open(f"/proc/{entry}/stat") as stat, open(f"/proc/{entry}/cmdline", "rb") as line:
                    if comm.read().strip() == "postgres":
                        processes[int(entry)] = (int(stat.read().rsplit(")", 1)[1].split()[1]), line.read().split(b"\0"))
            except (OSError, IndexError, ValueError):
                pass
    masters = [pid for pid, (_, arguments) in processes.items()
               if any(a == b"-p" and b == str(port).encode() for a, b in zip(arguments, arguments[1:]))
               or any(a.startswith(b"-p ") and str(port).encode() in a.split() for a in arguments)]
    return masters + [pid for pid, (parent, _) in processes.items() if parent in masters]


def machine_ticks():
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return fields[3], fields[4]  # idle, iowait (all CPUs)


class CPU:
    """CPU used between `start` and `stop`, in cores: the servers, the load client (the children
    reaped meanwhile: wrk, pgbench), PostgreSQL's processes, and the machine idle or waiting on I/O."""

    def __init__(self, servers, client="wrk", postgres=None):
        """`postgres`: the port of the PostgreSQL server to count, if any."""
        self.servers, self.client, self.port = servers, client, postgres

    def postgres_pids(self):
        return postgres_pids(self.port) if self.port else []

    def start(self):
        self.began = time.monotonic()
        self.server_ticks = sum(cpu_ticks(s.process.pid) for s in self.servers)
        self.postgres = {pid: cpu_ticks(pid) for pid in self.postgres_pids()}
        self.seen = dict(self.postgres)
        self.children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.machine = machine_ticks()
        # PostgreSQL's backends may end before `stop` (pgbench's do): their last ticks are kept.
        self.stopping = threading.Event()
        self.sampler = threading.Thread(target=self.sample, daemon=True)
        self.sampler.start()

    def sample(self):
        while not self.stopping.wait(0.25):
            for pid in self.postgres_pids():
                self.seen[pid] = max(self.seen.get(pid, 0), cpu_ticks(pid))

    def stop(self):
        self.stopping.set()
        self.sampler.join()
        for pid in self.postgres_pids():
            self.seen[pid] = max(self.seen.get(pid, 0), cpu_ticks(pid))
        elapsed = time.monotonic() - self.began
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        machine = machine_ticks()
        postgres = sum(ticks - self.postgres.get(pid, 0) for pid, ticks in self.seen.items())
        cores = {
            "groupie": (sum(cpu_ticks(s.process.pid) for s in self.servers) - self.server_ticks) / TICKS / elapsed,
            self.client: (children.ru_utime + children.ru_stime - self.children.ru_utime - self.children.ru_stime) / elapsed,
            "postgres": postgres / TICKS / elapsed,
        }
        idle, iowait = ((machine[i] - self.machine[i]) / TICKS / elapsed for i in (0, 1))
        # Everything else the machine ran meanwhile: this script, the kernel's threads, other work.
        cores["rest"] = max(0.0, os.cpu_count() - idle - iowait - sum(cores.values()))
        cores["idle"], cores["iowait"] = idle, iowait
        if not self.servers:
            del cores["groupie"]
        if not self.port:
            del cores["postgres"]
        return "CPU in cores: " + ", ".join(f"{name} {value:.2f}" for name, value in cores.items())


class PostgresWatch:
    """Where PostgreSQL's part of a run goes, from the server's own statistics: statements a write
    and the time planning and running them (pg_stat_statements, which `scripts/postgres-cluster`
    loads), and what its connections in a transaction were doing, sampled from pg_stat_activity
    every 20 ms: waiting for Groupie's next statement, working, waiting on a lock or on the WAL."""

    OWN = ("query NOT LIKE '%pg_stat%' AND query NOT LIKE 'DO %' AND query NOT LIKE 'CREATE TEMP%'"
           " AND query NOT LIKE 'SELECT pg_sleep%' AND query NOT LIKE '%FROM sample%'")
    SAMPLE = """
        CREATE TEMP TABLE sample (state text, wait text);
        DO $$ BEGIN FOR i IN 1..%d LOOP
            PERFORM pg_stat_clear_snapshot();
            INSERT INTO sample SELECT state, COALESCE(wait_event_type, '') FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
              AND state IN ('active', 'idle in transaction');
            PERFORM pg_sleep(0.02);
        END LOOP; END $$;
        SELECT state, wait, COUNT(*) FROM sample GROUP BY state, wait;
        """

    def __init__(self, url, seconds):
        self.url, self.seconds = url, seconds

    def psql(self, sql):
        return subprocess.run(["psql", "-X", "-q", "-At", "-F", "|", self.url, "-c", sql], capture_output=True, text=True)

    def start(self):
        self.statements = self.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()").returncode == 0
        # Samples for the middle of the run: wrk's first and last moments are left out.
        count = max(1, int((self.seconds - 1) / 0.022))
        self.sampler = subprocess.Popen(["psql", "-X", "-q", "-At", "-F", "|", self.url], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.sampler.stdin.write("SELECT pg_sleep(0.5);\n" + self.SAMPLE % count)
        self.sampler.stdin.close()

    def stop(self, writes):
        output = self.sampler.stdout.read()
        self.sampler.wait()
        lines = []
        if self.statements and writes:
            found = self.psql(f"""
                SELECT SUM(calls), SUM(total_plan_time), SUM(total_exec_time) FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND {self.OWN}""")
            calls, planning, running = (float(v or 0) for v in found.stdout.strip().split("|"))
            lines.append(f"PostgreSQL per write: {calls / writes:.1f} statements, planning them {planning / writes:.2f} ms,"
                         f" running them {running / writes:.2f} ms (locks waited for included)")
        kinds = {"Groupie's next statement": 0, "working": 0, "a lock": 0, "the WAL or the disk": 0, "other": 0}
        for line in output.splitlines():
            parts = line.split("|")
            if len(parts) != 3 or not parts[2].isdigit():
                continue
            state, wait, count = parts[0], parts[1], int(parts[2])
            if state == "idle in transaction" or wait == "Client":
                kinds["Groupie's next statement"] += count
            elif wait == "":
                kinds["working"] += count
            elif wait in ("Lock", "LWLock"):
                kinds["a lock"] += count
            elif wait == "IO":
                kinds["the WAL or the disk"] += count
            else:
                kinds["other"] += count
        total = sum(kinds.values())
        if total:
            lines.append("its connections in a transaction were waiting for " + ", ".join(
                f"{name} {count * 100 / total:.0f} %" for name, count in kinds.items() if count and name not in ("working", "other"))
                + f"; working {kinds['working'] * 100 / total:.0f} %" + (f", other {kinds['other'] * 100 / total:.0f} %" if kinds["other"] else "")
                + f" ({total} samples)")
        return lines


def settle(servers, limit=60):
    """Waits until the servers' background work (each photo's subject, found after its answer) is done."""
    deadline = time.monotonic() + limit
    before = sum(cpu_ticks(s.process.pid) for s in servers)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = sum(cpu_ticks(s.process.pid) for s in servers)
        if (now - before) / TICKS < 0.02:
            return
        before = now


def run(label, pairs, target="", path="/", postgres=None, database=None):
    """Runs one wrk per (server, script, connections) at the same time; prints its line and the CPU's,
    and with `database` (a PostgreSQL URL) where the database's part of the time went."""
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
            processes.append(start_wrk(server, script, connections, path))
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
        for line in watch.stop(sum(r["requests"] for r in results)):
            print(f"  {'':<52} {line}", flush=True)
    return rps, p99


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
    server = benchlib.Server(BINARY, work)
    try:
        mission, task = choice_task(server)
        started = time.monotonic()
        joiners = prepare_joiners(server, JOINERS)
        choosers = prepare_choosers(server, CHOOSERS, mission, task)
        next_choice_first(server, choosers, mission, task)
        print(f"Small writes, half joins ({JOINERS} players, each between its two groups), half task choices ({CHOOSERS} groups,\n"
              f"each between two photos of {mission}/{task}); wrk, {THREADS} threads, {DURATION}, on the server's 2 cores"
              f" (prepared in {time.monotonic() - started:.0f} s)", flush=True)
        script = write_script(work, "sqlite", joiners, choosers, mission, task)
        run(f"one instance, SQLite, {CONNECTIONS} connections", [(server, script, CONNECTIONS)],
            "   (target >= 1500/s, p99 < 10 ms)")
        plain = f"{work}/healthz.lua"
        with open(plain, "w") as file:
            file.write(PLAIN_LUA)
        run(f"reference GET /healthz, same server, {CONNECTIONS} connections", [(server, plain, CONNECTIONS)], path="/healthz")
        with contextlib.closing(sqlite3.connect(f"{server.data}/groupie.sqlite")) as database:
            journal = database.execute("PRAGMA journal_mode").fetchone()[0]
        ceiling = fsync_ceiling(server.data)
        print(f"  {f'reference fsync, 4 KiB appended ({file_system(server.data)})':<52} {ceiling:7.0f} fsyncs/s"
              f"   one commit each would cap writes at this", flush=True)
        print(f"  database journal mode {journal}; the writer's synchronous=FULL is read back at every start"
              f" (the server refuses to start without it)", flush=True)
    finally:
        server.stop()
    return mission, task


def postgres_part(work, mission, task):
    server_url = os.environ.get("GROUPIE_TEST_POSTGRES")
    if not server_url:
        print("  PostgreSQL: skipped (GROUPIE_TEST_POSTGRES is not set; run under scripts/with-postgres)", flush=True)
        return
    name = "groupie_bench_" + uuid.uuid4().hex[:8]
    subprocess.run(["psql", "-X", "-q", server_url, "-c", f"CREATE DATABASE {name}"], check=True)
    parts = urllib.parse.urlsplit(server_url)
    database = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, "sslmode=disable", ""))
    first = second = None
    try:
        first = benchlib.Server(BINARY, work, data=f"{work}/shared", extra=("--database", database))
        joiners = prepare_joiners(first, JOINERS)
        choosers = prepare_choosers(first, CHOOSERS, mission, task)
        next_choice_first(first, choosers, mission, task)
        script = write_script(work, "postgres-one", joiners, choosers, mission, task)
        run(f"one instance, PostgreSQL, {CONNECTIONS} connections", [(first, script, CONNECTIONS)], postgres=parts.port, database=database)

        second = benchlib.Server(BINARY, work, data=f"{work}/shared", extra=("--database", database))
        joiners = prepare_joiners(first, JOINERS)  # fresh: each is in its second group again
        next_choice_first(first, choosers, mission, task)
        half, quarter = JOINERS // 2, CHOOSERS // 2
        scripts = [write_script(work, "postgres-a", joiners[:half], choosers[:quarter], mission, task),
                   write_script(work, "postgres-b", joiners[half:], choosers[quarter:], mission, task)]
        run(f"two instances, one PostgreSQL, {CONNECTIONS // 2} + {CONNECTIONS // 2} connections",
            [(first, scripts[0], CONNECTIONS // 2), (second, scripts[1], CONNECTIONS // 2)], postgres=parts.port, database=database)
    finally:
        for server in (first, second):
            if server:
                server.stop()

    bench = "groupie_pgbench_" + uuid.uuid4().hex[:8]
    subprocess.run(["psql", "-X", "-q", server_url, "-c", f"CREATE DATABASE {bench}"], check=True)
    bench_url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + bench, "", ""))
    subprocess.run(["pgbench", "-q", "-i", "-s", "1", bench_url], check=True, capture_output=True)
    cpu = CPU([], client="pgbench", postgres=parts.port)
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


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    benchlib.ensure_wrk()
    work = tempfile.mkdtemp(prefix="groupie-bench-small-writes-")
    try:
        postgres_part(work, *sqlite_part(work))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
