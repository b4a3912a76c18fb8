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
             excepted, see schemathesis_config.py; the staff pages, signed out, keep
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
from pathlib import Path

from schemathesis_config import FIXED_POSITIVE_EXCEPTIONS, REPORTS, STAFF_SIGNED_OUT, STRICT_POSITIVE, base_config, toml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness.checks import Failure, logger  # noqa: E402
from groupie_harness.client import Api  # noqa: E402
from groupie_harness.photos import FIXTURES  # noqa: E402
from groupie_harness.server import Server  # noqa: E402
from groupie_harness.staff import add_staff, sign_in  # noqa: E402

VENUE = "science-centre"
MISSION, TASKS = "poison-frogs", ("brightest-frog", "frog-pose")   # 2 tasks, no after:
OPEN_TASK = ("stripes-and-spots", "striped-fish")   # a task no run takes a photo for
FIXTURE_PHOTOS = [FIXTURES / "chelsea.jpg", FIXTURES / "coffee.jpg"]
PHOTOS = list(FIXTURE_PHOTOS)   # small copies made by `small_photos`, when vips is there
STAFF_EMAIL, STAFF_PASSWORD = "curator@example.org", "correct horse battery"
log = logger()


def start_server(binary, workdir):
    # Schemathesis makes hundreds of players and groups from this one address, more than a
    # class would: the limit on what one address makes has its own test (SecondAttackTests).
    return Server(binary, workdir, log_level="notice", wait=30, grace=3, options=("--creations-per-address", "100000"))


def staff_sign_in(server, binary):
    """An admin account made by the command line, signed in through the form as a browser does:
    returns the session cookie and the session's form token."""
    add_staff(binary, server.data, STAFF_EMAIL, STAFF_PASSWORD, role="admin")
    return sign_in(server.api, STAFF_EMAIL, STAFF_PASSWORD)


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
    api = Api(server.base, name="setup")

    def player(name):
        created = api.new_player(name, "en")
        return created["token"], created["player"]["id"]

    ids = {}
    (a, ids["a"]), (b, _), (c, _), (d, ids["d"]), (e, _), (f, _), (j, _) = (
        player(n) for n in ("Ada", "Bo", "Cy", "Di", "Ed", "Fi", "Jo"))
    # F's group H, with a photo, is the one the staff run may close and whose photo it may hide and delete.
    ids["closable"] = api.new_group(f, VENUE, "Closable")["id"]
    ids["staff-photo"] = api.upload_photo(ids["closable"], PHOTOS[0].read_bytes(), f)["id"]
    ids["staff-photo-2"] = api.upload_photo(ids["closable"], PHOTOS[-1].read_bytes(), f)["id"]
    # B starts in a group of its own, so that the links from GET /me lead somewhere.
    api.new_group(b, VENUE)
    group = api.new_group(a, VENUE, "Schemathesis")
    ids["group"], ids["code"] = group["id"], group["joinCode"]
    api.join(d, ids["code"])
    photos = []
    for task, photo in zip(TASKS, PHOTOS):
        photos.append(api.upload_photo(ids["group"], photo.read_bytes(), a, mission=MISSION, task=task)["id"])
    ids["photo"] = photos[0]
    ids["free-photo"] = api.upload_photo(ids["group"], PHOTOS[0].read_bytes(), a)["id"]
    # The collage is made in the background once the mission is complete.
    deadline, collage = time.monotonic() + 60, {}
    while time.monotonic() < deadline:
        missions = api.get(f"/api/v1/groups/{ids['group']}", a)["group"]["missions"]
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
        server = start_server(os.path.abspath(args.binary), workdir)
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
            # A teammate's photo for the creator to hide (the hook uploads a new one as D each time).
            {"include-operation-id": "hidePhoto", "parameters": {"path.photoId": ids["free-photo"]}},
            # A task of G that stays open: A claims it again and gives it back.
            {"include-operation-id": ["claimTask", "releaseTask"],
             "parameters": {"path.groupId": g, "path.missionId": OPEN_TASK[0], "path.taskId": OPEN_TASK[1]}},
            # Reactions, valid ones only here: the group is fixed, so a case made invalid by its group
            # id would go to G as a valid one (the other runs send invalid ones with made-up ids).
            {"include-operation-id": ["addReaction", "removeReaction"], "generation": {"mode": "positive"},
             "parameters": {"path.groupId": g}},
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
                                      "staffMissions", "staffTableCards", "staffReviewQueue", "staffMessages", "staffSendMessage",
                                      "staffWall", "staffWallItems", "staffVenuePhotos"],
             "parameters": {"path.venueId": VENUE}},
            # One mission, one language: each picture is drawn anew.
            {"include-operation-id": "staffMissionReward",
             "parameters": {"path.venueId": VENUE, "path.missionId": MISSION, "query.lang": "en"}},
            {"include-operation-id": ["staffGroup", "staffCloseGroup", "staffGroupPhotos", "staffReopenGroup"], "parameters": {"path.groupId": ids["closable"]}},
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

        if not server.running():
            log(f"the server died (status {server.process.returncode})")
            ok = False
    except Failure as failure:
        log(f"FAILED: {failure}")
        ok = False
    finally:
        if server:
            server.stop()
    errors = []
    if server and server.log_path.exists():
        # Log lines are `<time> <level> <label>: ...`; error and critical are server faults.
        errors = [line for line in server.log_path.read_text(errors="replace").splitlines()
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
