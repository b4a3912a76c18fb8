"""A throw-away PostgreSQL cluster for tests and benchmarks, in a folder of its own, and
databases of a test's own on it. `scripts/postgres-cluster` and `scripts/with-postgres` are
this module's command line:

  postgres-cluster start DIR [--tls]   initdb (if needed) and start; prints the URL
  postgres-cluster stop DIR            stop it (quietly succeeds when it is not running)
  with-postgres COMMAND...             runs COMMAND, from the repository, with a cluster of its
                                       own in a temporary folder (its URL in
                                       GROUPIE_TEST_POSTGRES), stopped and removed however it ends

With --tls the server also takes TLS connections, with a certificate for the name localhost
(not for the address 127.0.0.1) signed by an authority of the cluster's own,
DIR/tls/authority.crt (made with openssl), as an operator's own authority would sign theirs.

It listens on 127.0.0.1 on a free port and on a Unix socket in DIR, trusts local connections
(nothing but this machine reaches it), and keeps fsync on, like a real server. PostgreSQL
refuses to run as root: as root, it runs as the `postgres` system user of Debian's package.
The Swift tests start and stop clusters of their own through `scripts/postgres-cluster`
(Tests/GroupieTestSupport/TestPostgres.swift), and restart one with `pg_ctl restart`, which
takes this start's options from DIR/data/postmaster.opts.
"""
import contextlib
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.parse
import uuid
from pathlib import Path

from . import REPO
from .checks import Failure
from .server import free_port

USAGE = "usage: postgres-cluster start DIR [--tls] | stop DIR"


def bindir():
    """PostgreSQL 15's programs, which scripts/bootstrap installs (Debian 12's own), when they are
    there; else pg_config's, else the newest Debian has."""
    candidates = ["/usr/lib/postgresql/15/bin"]
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        candidates.append(found.stdout.strip())
    newest = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in Path(p).parent.name.split(".") if x.isdigit()])
    candidates += newest[-1:]
    for folder in candidates:
        if folder and os.access(os.path.join(folder, "initdb"), os.X_OK):
            return folder
    raise Failure("PostgreSQL is not installed (Debian: postgresql-15); run scripts/bootstrap, which installs it")


def as_root():
    return os.getuid() == 0


def owner_command(command):
    """The command as the cluster's owner: as root, the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if as_root() else command


def run_logged(command, log, **options):
    """Runs a command with its output in `log`; on failure, prints the log and raises Failure."""
    with open(log, "w") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, **options)
    if done.returncode != 0:
        sys.stderr.write(Path(log).read_text(errors="replace"))
        raise Failure(f"{os.path.basename(command[0])} failed (status {done.returncode}); see {log}")


def make_certificates(folder):
    tls = folder / "tls"
    tls.mkdir(exist_ok=True)
    if (tls / "server.crt").exists():
        return
    script = """
    openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=Groupie test authority" \\
      -keyout authority.key -out authority.crt
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
    printf 'subjectAltName = DNS:localhost\\nbasicConstraints = CA:FALSE\\n' > server.ext
    openssl x509 -req -days 7 -in server.csr -CA authority.crt -CAkey authority.key -CAcreateserial \\
      -extfile server.ext -out server.crt
    # An authority that signed nothing here: what a check against the wrong one meets.
    openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=Groupie test, another authority" \\
      -keyout other-authority.key -out other-authority.crt
    """
    run_logged(["bash", "-euc", script], folder / "tls.log", cwd=tls)
    os.chmod(tls / "server.key", 0o600)
    if as_root():
        subprocess.run(["chown", "-R", "postgres:", str(tls)], check=True)
    for name in ("authority.crt", "other-authority.crt"):
        os.chmod(tls / name, 0o644)


def start(folder, tls=False):
    """Starts the cluster in `folder` (made with initdb the first time); returns its URL."""
    programs = bindir()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()
    user = "postgres" if as_root() else subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    if as_root():
        subprocess.run(["chown", "postgres:", str(folder)], check=True)
    if not (folder / "data" / "PG_VERSION").exists():
        run_logged(owner_command([f"{programs}/initdb", "-D", str(folder / "data"), "-U", user, "--auth=trust",
                                  "--encoding=UTF8", "--locale=C"]), folder / "initdb.log")
    settings = ["-c listen_addresses=127.0.0.1", f"-c unix_socket_directories={folder}", "-c fsync=on", "-c max_connections=200"]
    # pg_stat_statements (part of Debian's server package) lets `make bench` say where
    # PostgreSQL's time goes: statements a write, planning and running them.
    if os.path.exists(f"{programs}/../lib/pg_stat_statements.so"):
        settings += ["-c shared_preload_libraries=pg_stat_statements", "-c pg_stat_statements.track_planning=on"]
    if tls:
        make_certificates(folder)
        settings += ["-c ssl=on", f"-c ssl_cert_file={folder}/tls/server.crt", f"-c ssl_key_file={folder}/tls/server.key"]
    # A free port below Linux's ephemeral range, as the tests' servers take theirs: an outage
    # test starts the cluster again on the same port.
    port = free_port()
    # Standard output to nothing: the server pg_ctl leaves running must hold no pipe of the
    # caller's (its own output goes to server.log).
    started = subprocess.run(owner_command([f"{programs}/pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "server.log"),
                                            "-w", "-t", "60", "-o", " ".join([f"-p {port}", *settings]), "start"]),
                             stdout=subprocess.DEVNULL)
    if started.returncode != 0:
        log = folder / "server.log"
        sys.stderr.write(log.read_text(errors="replace") if log.exists() else "")
        raise Failure(f"pg_ctl could not start the cluster in {folder}; see {log}")
    (folder / "port").write_text(f"{port}\n")
    return f"postgres://{user}@127.0.0.1:{port}/postgres"


def stop(folder):
    """Stops the cluster in `folder` (`-m fast`: its connections are ended), if it runs."""
    folder = Path(folder)
    if (folder / "data" / "postmaster.pid").exists():
        subprocess.run(owner_command([f"{bindir()}/pg_ctl", "-D", str(folder / "data"), "-m", "fast", "-w", "stop"]),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def with_cluster(command):
    """Runs `command` from the repository with a cluster of its own; returns its exit status.
    The cluster is stopped and its folder removed however the command ends (SIGTERM and SIGINT
    are passed on to it)."""
    folder = Path(tempfile.mkdtemp(prefix="groupie-postgres."))
    os.chmod(folder, 0o755)
    child = None

    def forward(number, _):
        if child is not None and child.poll() is None:
            child.send_signal(number)

    try:
        url = start(folder / "cluster")
        previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            child = subprocess.Popen(command, cwd=REPO, env={**os.environ, "GROUPIE_TEST_POSTGRES": url})
            status = child.wait()
            return status if status >= 0 else 128 - status   # as a shell says a signal's end
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
    finally:
        stop(folder / "cluster")
        shutil.rmtree(folder, ignore_errors=True)


def server_url():
    """The URL of the cluster that `scripts/with-postgres` started (GROUPIE_TEST_POSTGRES)."""
    url = os.environ.get("GROUPIE_TEST_POSTGRES")
    if not url:
        raise Failure("GROUPIE_TEST_POSTGRES is not set; run this under scripts/with-postgres")
    return url


def psql(url, sql, **options):
    """Runs SQL with psql; raises Failure when it fails. Returns its output."""
    done = subprocess.run(["psql", "-X", "-q", url, "-c", sql], capture_output=True, text=True, **options)
    if done.returncode != 0:
        raise Failure(f"psql: {done.stderr.strip()}")
    return done.stdout


def with_database(url, name, query=""):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, query, ""))


@contextlib.contextmanager
def database(prefix, tls=False):
    """A new database on the cluster of GROUPIE_TEST_POSTGRES, dropped afterwards: its URL,
    without TLS (`sslmode=disable`) unless `tls`. Raises Failure without the variable."""
    url = server_url()
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    psql(url, f"CREATE DATABASE {name}")
    try:
        yield with_database(url, name, "" if tls else "sslmode=disable")
    finally:
        subprocess.run(["psql", "-X", "-q", url, "-c", f"DROP DATABASE IF EXISTS {name}"], capture_output=True)


def main(arguments):
    """The command line of scripts/postgres-cluster (`cluster ...`) and scripts/with-postgres (`run ...`)."""
    try:
        if arguments[:1] == ["run"] and len(arguments) > 1:
            return with_cluster(arguments[1:])
        if arguments[:1] == ["cluster"]:
            command, rest = (arguments[1], arguments[2:]) if len(arguments) > 1 else (None, [])
            if command == "start" and len(rest) in (1, 2) and rest[1:] in ([], ["--tls"]):
                print(start(rest[0], tls=rest[1:] == ["--tls"]), flush=True)
                return 0
            if command == "stop" and len(rest) == 1:
                stop(rest[0])
                return 0
        print(USAGE if arguments[:1] != ["run"] else "usage: with-postgres COMMAND...", file=sys.stderr)
        return 2
    except Failure as failure:
        print(f"postgres-cluster: {failure}", file=sys.stderr)
        return 1
