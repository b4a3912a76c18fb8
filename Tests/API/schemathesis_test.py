#!/usr/bin/env python3
"""Attacks the Groupie API from its own OpenAPI document with schemathesis.

Starts the server on a free port with a fresh data folder, makes the players, a group and
photos that the generated requests can name, and runs `st run` against the document the
server serves (/api/v1/openapi.yaml) with every check that applies: no 5xx, only the status
codes, content types, headers and bodies the document gives, invalid data rejected, valid
data accepted, 405 with `Allow` for methods a path does not have, authentication enforced,
and the data of each event of the event stream as the document describes it.

Five runs, so that side effects do not spoil the others:

  stateful   player B follows the document's links: venue -> group -> photos, choice,
             album, stream token -> events, ... (groups B makes and leaves are B's own).
  fixed      player A, the creator of group G with a finished mission and photos: ids in
             paths are pinned to G, its photos and its members, so that requests reach the
             handlers instead of stopping at 404. Creating and joining groups would take A
             out of G: those go as player C. The hooks give valid cases real ids in their
             bodies too (G's code, the venue, a photo of the task), and make again what a
             valid request used up (D back in G, a new photo to delete, a fresh stream
             token), so valid data must be accepted: 2xx or 3xx, nothing else (uploads
             excepted, see FIXED_POSITIVE_EXCEPTIONS; the staff pages, signed out, keep
             STAFF_SIGNED_OUT's checks).
  wrong-codes
             joinGroup with invalid data only, as player J: wrong codes count against the
             player (429 after ten), and in the fixed run they would make C's valid joins 429.
  staff      the staff console's routes, as an admin signed in through the sign-in form
             (an account made with `groupie staff add`), ids pinned to G and its photos, forms
             carrying the session's token. (In the other runs, without a session, the staff
             pages send the browser to the sign-in form whatever the request: 303.)
  erase      DELETE /me, as player E, whose token stops working after the first success.

Tests/API/hooks.py adds real photos to the generated uploads, valid names to valid cases,
and a check of the events' data.

Fails (exit 1) on any schemathesis failure, on the server dying, or on an error in its log.
Reports (JUnit, and HAR with every request and response) go to .build/api-test/. The seed is
fixed, so a run repeats; about 2 minutes on 2 cores with the defaults.

Usage:  python3 Tests/API/schemathesis_test.py .build/debug/groupie
            [--max-examples N] [--stateful-seconds S] [--seed N] [--keep]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import groupie_server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
REPORTS = REPO / ".build" / "api-test"
VENUE = "science-centre"
MISSION, TASKS = "poison-frogs", ("brightest-frog", "frog-pose")   # 2 tasks, no after:
FIXTURE_PHOTOS = [REPO / "Tests/Fixtures/Photos/chelsea.jpg", REPO / "Tests/Fixtures/Photos/coffee.jpg"]
PHOTOS = list(FIXTURE_PHOTOS)   # small copies made by `small_photos`, when vips is there
# What a path answers to a method it does not have is checked for these (QUERY is left out:
# HTTP parsers do not all know it).
UNEXPECTED_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "PATCH", "TRACE"]

started = time.monotonic()


class Failure(Exception):
    pass


def log(msg):
    print(f"[{time.monotonic() - started:6.1f}s] {msg}", flush=True)


class Server:
    def __init__(self, binary, workdir):
        # Schemathesis makes hundreds of players and groups from this one address, more than a
        # class would: the limit on what one address makes has its own test (SecondAttackTests).
        self.proc, self.port, self.base, self.logpath, self.logfile = groupie_server.start(
            binary, workdir, "notice", 30, Failure, extra=("--creations-per-address", "100000"))
        self.data = workdir / "data"

    def call(self, method, path, token=None, body=None, content_type="application/json", expect=(200, 201, 204)):
        headers = {}
        if token:
            headers["Authorization"] = "Bearer " + token
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status, text = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read()
        if status not in expect:
            raise Failure(f"setup: {method} {path} answered {status}: {text[:300]!r}")
        return json.loads(text) if text else None

    def stop(self):
        groupie_server.stop(self.proc, self.logfile)


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def toml(config):
    """A small TOML writer: scalars and inline tables at the top, then tables, then arrays of tables."""
    lines = []

    def table(prefix, data):
        scalars = {k: v for k, v in data.items() if not (isinstance(v, dict) and k != "headers" and k != "parameters")
                   and not (isinstance(v, list) and v and isinstance(v[0], dict))}
        if prefix:
            lines.append(f"\n[{prefix}]")
        for key, value in scalars.items():
            lines.append(f"{json.dumps(key)} = {toml_value(value)}")
        for key, value in data.items():
            if key in scalars:
                continue
            if isinstance(value, dict):
                table(f"{prefix}.{json.dumps(key)}" if prefix else json.dumps(key), value)
        for key, value in data.items():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                for item in value:
                    lines.append(f"\n[[{json.dumps(key)}]]")
                    for k, v in item.items():
                        lines.append(f"{json.dumps(k)} = {toml_value(v)}")

    table("", config)
    return "\n".join(lines) + "\n"


# Where ids are made up (the stateful and erase runs, staff pages without a session), valid
# data may name what does not exist or is not the player's.
LENIENT_POSITIVE = ["2xx", "3xx", "401", "403", "404", "409", "429"]
# Where every id names a real object the player may use (the fixed run), valid data is accepted.
STRICT_POSITIVE = ["2xx", "3xx"]


def checks_config(positive=LENIENT_POSITIVE, extra_positive=()):
    return {
        "positive_data_acceptance": {"expected-statuses": [*positive, *extra_positive]},
        # 413: a JSON body over 64 KiB.
        "negative_data_rejection": {"expected-statuses": ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]},
    }


# Valid data that the server may still refuse for reasons a JSON Schema cannot say (with made-up ids).
POSITIVE_EXCEPTIONS = [
    # Any bytes are a valid body; only an image is a photo (415, or 422 for an image too small
    # or unreadable, or a mission or task the venue does not have).
    ("uploadPhoto", ["413", "415", "422"]),
    # A photo id of the right shape that is not one of the task's photos.
    ("choosePhoto", ["422"]),
    # A name prefix of the right length made of characters a name may not have (invisible ones).
    ("staffTableCards", ["422"]),
]

# The same for the fixed run, where the hooks give valid cases real ids (a photo of the task for
# choosePhoto). The staff pages keep STAFF_SIGNED_OUT's checks there: without a session their ids
# are not the test's concern, and the sign-in form takes made-up credentials.
FIXED_POSITIVE_EXCEPTIONS = [
    # Any bytes are a valid body, but only an image is a photo: random bytes are 415, and an
    # image under 64 pixels a side or unreadable is 422. (413 only over 25 MiB; mission and task
    # are pinned to a real task, and the Idempotency-Key's mission and task with them.)
    ("uploadPhoto", ["413", "415", "422"]),
]


# Without a staff session, a staff page sends the browser to the sign-in form before it looks
# at the request: 303 is its answer to valid and invalid requests alike.
STAFF_SIGNED_OUT = {"include-path-regex": "^/staff", "checks": checks_config()}
STAFF_SIGNED_OUT["checks"]["negative_data_rejection"]["expected-statuses"].append("303")

STAFF_EMAIL, STAFF_PASSWORD = "curator@example.org", "correct horse battery"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def staff_sign_in(server, binary):
    """An admin account made by the command line, signed in through the form as a browser does:
    returns the session cookie and the session's form token."""
    added = subprocess.run([binary, "staff", "add", STAFF_EMAIL, "--role", "admin", "--data", str(server.data)],
                           input=STAFF_PASSWORD + "\n", capture_output=True, text=True, timeout=60)
    if added.returncode != 0:
        raise Failure(f"groupie staff add: {added.stderr.strip()}")
    opener = urllib.request.build_opener(NoRedirect)

    def fetch(path, data=None, cookie=None):
        headers = {"Cookie": cookie} if cookie else {}
        if data is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        req = urllib.request.Request(server.base + path, data=data, headers=headers)
        try:
            with opener.open(req, timeout=30) as r:
                return r.status, r.headers, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode(errors="replace")

    def cookie_named(headers, name):
        for header in headers.get_all("Set-Cookie") or []:
            key, _, rest = header.partition("=")
            if key.strip() == name:
                return rest.split(";")[0]
        raise Failure(f"staff sign-in: no {name} cookie in {headers.get_all('Set-Cookie')}")

    def form_token(html):
        found = re.search(r'name="csrf" value="([^"]+)"', html)
        if not found:
            raise Failure("staff sign-in: no form token on the page")
        return found.group(1)

    status, headers, html = fetch("/staff/login")
    login_cookie = cookie_named(headers, "groupie_staff_login")
    form = urllib.parse.urlencode({"csrf": form_token(html), "email": STAFF_EMAIL, "password": STAFF_PASSWORD})
    status, headers, _ = fetch("/staff/login", form.encode(), "groupie_staff_login=" + login_cookie)
    if status != 303:
        raise Failure(f"staff sign-in answered {status}")
    session = "groupie_staff=" + cookie_named(headers, "groupie_staff")
    status, _, html = fetch("/staff", cookie=session)
    if status != 200:
        raise Failure(f"GET /staff with the session answered {status}")
    return session, form_token(html)


def base_config(server, args, token, run, positive=LENIENT_POSITIVE, exceptions=POSITIVE_EXCEPTIONS):
    return {
        "base-url": server.base,
        # One worker: with two, Python 3.11's parser (which hypothesis calls to describe its
        # strategies) sometimes fails with "AST constructor recursion depth mismatch", its state
        # being shared between threads.
        "workers": 1,
        "seed": args.seed,
        "hooks": str(HERE / "hooks.py"),
        "request-timeout": 30,
        "continue-on-failure": True,
        # Show what was sent (the Idempotency-Key, stream tokens), but not the bearer tokens.
        "output": {"sanitization": {"keys-to-sanitize": ["authorization"], "sensitive-markers": ["authorization"]}},
        "suppress-health-check": ["too_slow", "filter_too_much", "data_too_large"],
        "headers": {"Authorization": "Bearer " + token},
        "generation": {"max-examples": args.max_examples, "database": "none"},
        "checks": checks_config(positive),
        "phases": {"coverage": {"unexpected-methods": UNEXPECTED_METHODS}},
        "reports": {"junit": {"enabled": True, "path": str(REPORTS / f"{run}.xml")}, "har": {"enabled": True, "path": str(REPORTS / f"{run}.har")}},
        "operations": [
            STAFF_SIGNED_OUT,
            # The stream never ends: read what is stored (or wait 2 s) and hang up.
            {"include-operation-id": "groupEvents", "request-timeout": 2, "max-stream-events": 5},
            *({"include-operation-id": op, "checks": checks_config(positive, statuses)} for op, statuses in exceptions),
        ],
    }


def run_schemathesis(name, server, config, filters, workdir, env=None):
    path = workdir / f"{name}.toml"
    path.write_text(toml(config))
    command = ["st", "--config-file", str(path), "run", server.base + "/api/v1/openapi.yaml",
               "--checks", "all", "--no-color", *filters]
    log(f"run '{name}': {' '.join(command[3:])}")
    env = {**os.environ, "GROUPIE_API_TEST_PHOTOS": os.pathsep.join(str(p) for p in PHOTOS), **(env or {})}
    result = subprocess.run(command, env=env, cwd=workdir)
    log(f"run '{name}' ended with status {result.returncode}")
    return result.returncode == 0


def small_photos(workdir):
    """Copies of the fixture photos 96 pixels wide (a few KB each): quick to process, and short in
    the `curl` lines of a failure report."""
    global PHOTOS
    if shutil.which("vips") is None:
        return
    small = []
    for photo in FIXTURE_PHOTOS:
        out = workdir / ("small-" + photo.name)
        result = subprocess.run(["vips", "thumbnail", str(photo), f"{out}[Q=80,strip]", "96"], capture_output=True)
        if result.returncode != 0:
            return
        small.append(out)
    PHOTOS = small


def setup(server):
    """Players A (group G's creator), B, C, D (a member of G), E, F (group H's creator) and J; G with
    a finished mission, its collage made, and photos, H with a photo."""
    def player(name):
        created = server.call("POST", "/api/v1/players", body={"name": name, "lang": "en"})
        return created["token"], created["player"]["id"]

    ids = {}
    (a, ids["a"]), (b, _), (c, _), (d, ids["d"]), (e, _), (f, _), (j, _) = (
        player(n) for n in ("Ada", "Bo", "Cy", "Di", "Ed", "Fi", "Jo"))
    # F's group H, with a photo, is the one the staff run may close and whose photo it may hide and delete.
    ids["closable"] = server.call("POST", "/api/v1/groups", f, {"venueId": VENUE, "name": "Closable"})["group"]["id"]
    ids["staff-photo"] = server.call("POST", f"/api/v1/groups/{ids['closable']}/photos", f, PHOTOS[0].read_bytes(),
                                     "image/jpeg")["photo"]["id"]
    ids["staff-photo-2"] = server.call("POST", f"/api/v1/groups/{ids['closable']}/photos", f, PHOTOS[-1].read_bytes(),
                                       "image/jpeg")["photo"]["id"]
    # B starts in a group of its own, so that the links from GET /me lead somewhere.
    server.call("POST", "/api/v1/groups", b, {"venueId": VENUE})
    group = server.call("POST", "/api/v1/groups", a, {"venueId": VENUE, "name": "Schemathesis"})["group"]
    ids["group"], ids["code"] = group["id"], group["joinCode"]
    server.call("POST", "/api/v1/groups/join", d, {"code": ids["code"]})
    photos = []
    for task, photo in zip(TASKS, PHOTOS):
        uploaded = server.call("POST", f"/api/v1/groups/{ids['group']}/photos?mission={MISSION}&task={task}", a,
                               photo.read_bytes(), "image/jpeg")
        photos.append(uploaded["photo"]["id"])
    ids["photo"] = photos[0]
    ids["free-photo"] = server.call("POST", f"/api/v1/groups/{ids['group']}/photos", a, PHOTOS[0].read_bytes(),
                                    "image/jpeg")["photo"]["id"]
    # The collage is made in the background once the mission is complete.
    deadline, collage = time.monotonic() + 60, {}
    while time.monotonic() < deadline:
        missions = server.call("GET", f"/api/v1/groups/{ids['group']}", a)["group"]["missions"]
        collage = next(m for m in missions if m["id"] == MISSION).get("collage", {})
        if collage.get("status") == "ready":
            break
        time.sleep(0.5)
    else:
        # The fixed run asks for the collage as valid data that must be accepted.
        raise Failure(f"setup: the collage of {MISSION} was not ready within 60 s: {collage!r}")
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "j": j}, ids


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--max-examples", type=int, default=int(os.environ.get("GROUPIE_API_TEST_EXAMPLES", "50")),
                        help="test cases per operation and phase (default 50)")
    parser.add_argument("--stateful-examples", type=int,
                        default=int(os.environ.get("GROUPIE_API_TEST_STATEFUL_EXAMPLES", "60")),
                        help="scenarios of the stateful phase (default 60)")
    parser.add_argument("--stateful-seconds", type=int,
                        default=int(os.environ.get("GROUPIE_API_TEST_STATEFUL_SECONDS", "60")),
                        help="time given to the stateful phase (default 60)")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("GROUPIE_API_TEST_SEED", "20251123")))
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (server log, configs)")
    args = parser.parse_args()
    if shutil.which("st") is None:
        print("schemathesis (st) is not installed; run scripts/bootstrap", file=sys.stderr)
        return 2

    workdir = Path(tempfile.mkdtemp(prefix="groupie-api-"))
    REPORTS.mkdir(parents=True, exist_ok=True)
    server = None
    ok = True
    try:
        small_photos(workdir)
        server = Server(os.path.abspath(args.binary), workdir)
        log(f"server on {server.base}, data in {workdir}")
        tokens, ids = setup(server)
        log(f"group {ids['group']} with photos {ids['photo']} and {ids['free-photo']}")

        # 1. Links between operations, as player B.
        config = base_config(server, args, tokens["b"], "stateful")
        config["phases"] = {"examples": {"enabled": False}, "coverage": {"enabled": False},
                            "fuzzing": {"enabled": False},
                            "stateful": {"enabled": True, "max-steps": 6,
                                         "generation": {"max-examples": args.stateful_examples}}}
        # The state machine stops after a few dozen scenarios by itself; it repeats them for
        # this many seconds (`max-time`), so that more chains of links are followed.
        config["max-time"] = args.stateful_seconds
        # One player: two scenarios at once would take B out of each other's groups.
        config["workers"] = 1
        # A player is in one group at a time: after creating or joining another group, or
        # leaving, the former group is 404 for them, which `ensure_resource_availability`
        # takes for a lost resource.
        ok &= run_schemathesis("stateful", server, config, ["--exclude-operation-id", "eraseMe",
                                                             "--exclude-checks", "ensure_resource_availability"], workdir)

        # 2. Every operation on group G as its creator A, ids pinned to what exists: valid data is
        # accepted.
        config = base_config(server, args, tokens["a"], "fixed", STRICT_POSITIVE, FIXED_POSITIVE_EXCEPTIONS)
        config["phases"]["stateful"] = {"enabled": False}
        # Schemathesis takes each option (e.g. `parameters`) from the first entry that matches
        # an operation: the narrow entries come first.
        g = ids["group"]
        config["operations"] = [
            # Creating or joining a group would take A out of G.
            {"include-operation-id": ["createGroup", "joinGroup"], "headers": {"Authorization": "Bearer " + tokens["c"]}},
            # Valid joins only: the invalid ones (run 3) would make C's valid joins 429.
            {"include-operation-id": "joinGroup", "generation": {"mode": "positive"}},
            {"include-operation-id": "removeMember", "parameters": {"path.groupId": g, "path.playerId": ids["d"]}},
            {"include-operation-id": "photoImage", "parameters": {"path.photoId": ids["photo"]}},
            {"include-operation-id": "deletePhoto", "parameters": {"path.photoId": ids["free-photo"]}},
            # One size: each size is drawn anew, up to 20 s for 4096 pixels in a debug build (the
            # stateful run tries the others, where they are checked before anything is drawn).
            {"include-operation-id": ["collageJpeg", "collagePng"],
             "parameters": {"path.groupId": g, "path.missionId": MISSION, "query.size": 512}},
            {"include-operation-id": "choosePhoto",
             "parameters": {"path.groupId": g, "path.missionId": MISSION, "path.taskId": TASKS[0]}},
            # Photos for a task of G: the hooks send real images as well as random bytes.
            {"include-operation-id": "uploadPhoto",
             "parameters": {"path.groupId": g, "query.mission": MISSION, "query.task": TASKS[1]}},
            {"include-operation-id": "getVenue", "parameters": {"path.venueId": VENUE}},
            {"include-operation-id": "joinPage", "parameters": {"path.code": ids["code"]}},
            {"include-path-regex": r"^/api/v1/groups/\{groupId\}", "parameters": {"path.groupId": g}},
            *config["operations"],
        ]
        # What the hooks put into valid cases (Tests/API/hooks.py, `fixed_*`).
        fixed = {"base": server.base, "group": g, "venue": VENUE, "code": ids["code"], "task-photo": ids["photo"],
                 "a": tokens["a"], "d": tokens["d"], "photo": str(PHOTOS[0])}
        ok &= run_schemathesis("fixed", server, config, ["--exclude-operation-id", "eraseMe"], workdir,
                               {"GROUPIE_API_TEST_FIXED": json.dumps(fixed)})

        # 3. Invalid joins, as J, so that the wrong codes count against J, not C.
        config = base_config(server, args, tokens["j"], "wrong-codes")
        config["phases"]["stateful"] = {"enabled": False}
        config["generation"]["mode"] = "negative"
        ok &= run_schemathesis("wrong-codes", server, config, ["--include-operation-id", "joinGroup"], workdir)

        # 4. The staff console, as a signed-in admin.
        session, csrf = staff_sign_in(server, os.path.abspath(args.binary))
        config = base_config(server, args, tokens["a"], "staff")
        config["phases"]["stateful"] = {"enabled": False}
        config["headers"] = {"Cookie": session}
        config["output"]["sanitization"]["keys-to-sanitize"].append("cookie")
        config["operations"] = [
            # The console's live stream never ends either.
            {"include-operation-id": "staffVenueEvents", "parameters": {"path.venueId": VENUE}, "request-timeout": 2,
             "max-stream-events": 5},
            {"include-operation-id": ["staffVenue", "staffNumbers", "staffNumbersCSV", "staffPosterPDF", "staffPosterPNG",
                                      "staffMissions", "staffTableCards", "staffReviewQueue"],
             "parameters": {"path.venueId": VENUE}},
            # One mission, one language: each picture is drawn anew.
            {"include-operation-id": "staffMissionReward",
             "parameters": {"path.venueId": VENUE, "path.missionId": MISSION, "query.lang": "en"}},
            {"include-operation-id": ["staffGroup", "staffCloseGroup"], "parameters": {"path.groupId": ids["closable"]}},
            {"include-operation-id": ["staffPhotoThumb", "staffPhotoDisplay", "staffHidePhoto", "staffRestorePhoto"],
             "parameters": {"path.photoId": ids["staff-photo"]}},
            # Another photo to delete, so that hiding and restoring have one to work on.
            {"include-operation-id": "staffDeletePhoto", "parameters": {"path.photoId": ids["staff-photo-2"]}},
            # Signed in, 303 is no longer an answer to an invalid request.
            *(entry for entry in config["operations"] if entry is not STAFF_SIGNED_OUT),
        ]
        env = {"GROUPIE_API_TEST_STAFF_CSRF": csrf}
        ok &= run_schemathesis("staff", server, config, ["--include-path-regex", "^/staff", "--exclude-operation-id", "staffLogout"],
                               workdir, env)

        # 5. Erasing a player, as E.
        config = base_config(server, args, tokens["e"], "erase")
        config["phases"]["stateful"] = {"enabled": False}
        ok &= run_schemathesis("erase", server, config, ["--include-operation-id", "eraseMe"], workdir)

        if server.proc.poll() is not None:
            log(f"the server died (status {server.proc.returncode})")
            ok = False
    except Failure as failure:
        log(f"FAILED: {failure}")
        ok = False
    finally:
        if server:
            server.stop()
    errors = []
    if server and server.logpath.exists():
        # Log lines are `<time> <level> <label>: ...`; error and critical are server faults.
        errors = [line for line in server.logpath.read_text(errors="replace").splitlines()
                  if re.match(r"^\S+ (error|critical) ", line) or "Fatal error" in line]
    if errors:
        log(f"the server logged {len(errors)} error(s):")
        for line in errors[:20]:
            print("   " + line[:400])
        ok = False
    if ok and not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        log(f"server log and configs kept in {workdir}")
    log("API test " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
