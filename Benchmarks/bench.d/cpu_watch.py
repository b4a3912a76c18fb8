"""Where the CPU went during a benchmark's run (small_writes.py): the servers, the load client,
PostgreSQL's processes, the machine idle or waiting on the disk; and, from PostgreSQL's own
statistics, what its part of the time was."""
import os
import resource
import subprocess
import threading
import time

from groupie_harness.server import cpu_ticks

TICKS = os.sysconf("SC_CLK_TCK")


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
        self.server_ticks = sum(s.cpu_ticks() for s in self.servers)
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
            "groupie": (sum(s.cpu_ticks() for s in self.servers) - self.server_ticks) / TICKS / elapsed,
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
        self.cores = cores
        return "CPU in cores: " + ", ".join(f"{name} {value:.2f}" for name, value in cores.items())


class PostgresWatch:
    """Where PostgreSQL's part of a run goes, from the server's own statistics: statements a write
    and the time planning and running them (pg_stat_statements, which `scripts/postgres-cluster`
    loads), and what its connections in a transaction were doing, sampled from pg_stat_activity
    every 20 ms: waiting for Groupie's next statement, working, waiting on a lock or on the WAL."""

    OWN = ("query NOT LIKE '%pg_stat%' AND query NOT LIKE 'DO %' AND query NOT LIKE 'CREATE TEMP%'"
           " AND query NOT LIKE 'SELECT pg_sleep%' AND query NOT LIKE '%FROM sample%'")
    SAMPLE = """
        CREATE TEMP TABLE sample (state text, wait text, event text);
        DO $$ BEGIN FOR i IN 1..%d LOOP
            PERFORM pg_stat_clear_snapshot();
            INSERT INTO sample SELECT state, COALESCE(wait_event_type, ''), COALESCE(wait_event, '') FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
              AND state IN ('active', 'idle in transaction');
            PERFORM pg_sleep(0.02);
        END LOOP; END $$;
        SELECT state, wait, COUNT(*), string_agg(DISTINCT event, ',') FROM sample GROUP BY state, wait;
        SELECT 'event', wait || ':' || event, COUNT(*) FROM sample WHERE event <> '' GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 8;
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

    def stop(self, writes, what="write"):
        output = self.sampler.stdout.read()
        self.sampler.wait()
        lines = []
        if self.statements and writes:
            found = self.psql(f"""
                SELECT SUM(calls), SUM(total_plan_time), SUM(total_exec_time) FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND {self.OWN}""")
            calls, planning, running = (float(v or 0) for v in found.stdout.strip().split("|"))
            lines.append(f"PostgreSQL per {what}: {calls / writes:.1f} statements, planning them {planning / writes:.2f} ms,"
                         f" running them {running / writes:.2f} ms (locks waited for included)")
            if os.environ.get("BENCH_STATEMENTS"):
                top = self.psql(f"""
                    SELECT calls, round(total_exec_time::numeric, 1), plans, round(total_plan_time::numeric, 1),
                           left(regexp_replace(query, '\\s+', ' ', 'g'), 110) FROM pg_stat_statements
                    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND {self.OWN}
                    ORDER BY calls DESC LIMIT 25""")
                lines.append("  calls|ms running|plans made|ms planning|statement")
                lines += [f"  {line}" for line in top.stdout.splitlines()]
        kinds = {"Groupie's next statement": 0, "working": 0, "a lock": 0, "the WAL or the disk": 0, "other": 0}
        for line in output.splitlines():
            parts = line.split("|")
            if parts[0] == "event" and os.environ.get("BENCH_STATEMENTS"):
                lines.append(f"  waited on {parts[1]}: {parts[2]} samples")
                continue
            parts = parts[:3]
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
    before = sum(s.cpu_ticks() for s in servers)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = sum(s.cpu_ticks() for s in servers)
        if (now - before) / TICKS < 0.02:
            return
        before = now
