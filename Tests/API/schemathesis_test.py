#!/usr/bin/env python3
"""Attacks the Groupie API from its own OpenAPI document with schemathesis.

Starts the server on a free port with a fresh data folder, makes the players, a group and
photos that the generated requests can name, and runs `st run` against the document the
server serves (/api/v1/openapi.yaml) with every check that applies: no 5xx, only the status
codes, content types, headers and bodies the document gives, invalid data rejected, valid
data accepted, 405 with `Allow` for methods a path does not have, authentication enforced,
and the data of each event of the event stream as the document describes it.

Five runs, so that side effects do not spoil the others, each with players, groups and photos
of its own, so that they may run side by side (`STAGES`: the stateful run first, with a core to
itself but for the two small runs; then the fixed run beside the staff run):

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
             (an account made with `groupie staff add`), ids pinned to what exists: group H
             (F's) to close, reopen and moderate, G's collage, other accounts, a venue the
             run makes for the mission editor, a class's batch of table cards. The hooks give
             valid forms the session's token and what only the test can know (a password
             that is the account's, an address not taken yet, the file on disk and its hash)
             and make again what a valid request used up (a photo to delete, an account to
             remove, the session a new password ended), so valid data must be accepted here
             too (see STAFF_POSITIVE_EXCEPTIONS). In the other runs, without a session, the
             staff pages send the browser to the sign-in form whatever the request: 303.
  erase      DELETE /me, as player E, whose token stops working after the first success.

The server runs on copies of missions/ and assets/: the staff run saves mission files and
uploads pictures. Tests/API/hooks.py adds real photos and pictures to the generated uploads,
valid names and what else a valid case needs, and checks of the events' data and of the staff
messages' rate limit.

Fails (exit 1) on any schemathesis failure, on the server dying, or on an error in its log.
Reports (JUnit, and HAR with every request and response) go to .build/api-test/, each run's
output to the work folder (printed whole once the run ends). The seed is fixed, so a run
repeats; about 2 to 3 minutes on 2 cores with the defaults.

Usage:  python3 Tests/API/schemathesis_test.py .build/debug/groupie
            [--max-examples N] [--stateful-seconds S] [--seed N] [--runs fixed,staff,...] [--keep]
"""

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from schemathesis_config import (FEW_EXAMPLES, FIXED_POSITIVE_EXCEPTIONS, REPORTS, STAFF_POSITIVE_EXCEPTIONS, STAFF_SIGNED_OUT,
                                 STRICT_POSITIVE, base_config, toml)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO  # noqa: E402
from groupie_harness.checks import Failure, logger  # noqa: E402
from groupie_harness.client import Api  # noqa: E402
from groupie_harness.photos import FIXTURES  # noqa: E402
from groupie_harness.server import Server  # noqa: E402
from groupie_harness.staff import add_account, add_staff, sign_in  # noqa: E402

VENUE = "science-centre"
MISSION, TASKS = "poison-frogs", ("brightest-frog", "frog-pose")   # 2 tasks, no after:
OPEN_TASK = ("stripes-and-spots", "striped-fish")   # a task no run takes a photo for
FIXTURE_PHOTOS = [FIXTURES / "chelsea.jpg", FIXTURES / "coffee.jpg"]
PHOTOS = list(FIXTURE_PHOTOS)   # small copies made by `small_photos`, when vips is there
STAFF_EMAIL, STAFF_PASSWORD = "curator@example.org", "correct horse battery"
# The venue the staff run edits, made by the console's template, and that template's mission.
EDITOR_VENUE, EDITOR_MISSION = "editors-venue", "first-mission"
log = logger()
# The runs' outputs are printed whole, one at a time.
PRINTING = threading.Lock()


def start_server(binary, workdir):
    """The server, on copies of the sample venues and the assets: the staff run saves mission
    files and uploads pictures, as an editor would."""
    shutil.copytree(REPO / "missions", workdir / "missions")
    shutil.copytree(REPO / "assets", workdir / "assets")
    # Schemathesis makes hundreds of players and groups from this one address, more than a
    # class would: the limit on what one address makes has its own test (SecondAttackTests).
    return Server(binary, workdir, missions=workdir / "missions", assets=workdir / "assets", log_level="notice", wait=30,
                  grace=3, options=("--creations-per-address", "100000"))


def staff_sign_in(server, binary, workdir):
    """An admin account made by the command line, signed in through the form as a browser does:
    returns the session cookie and the session's form token."""
    add_staff(binary, server.data, STAFF_EMAIL, STAFF_PASSWORD, role="admin", missions=workdir / "missions")
    return sign_in(server.api, STAFF_EMAIL, STAFF_PASSWORD)


def run_schemathesis(run, server, workdir):
    """Runs `st run` for `run` (a `Run`), its output into `<name>.log` in `workdir`; True when it passed."""
    path = workdir / f"{run.name}.toml"
    path.write_text(toml(run.config))
    command = ["st", "--config-file", str(path), "run", server.base + "/api/v1/openapi.yaml",
               "--checks", "all", "--no-color", *run.filters]
    log(f"run '{run.name}' started: {' '.join(command[3:])}")
    env = {**os.environ, "GROUPIE_API_TEST_PHOTOS": os.pathsep.join(str(p) for p in PHOTOS), **run.env}
    started = time.monotonic()
    with open(workdir / f"{run.name}.log", "w+") as output:
        result = subprocess.run(command, env=env, cwd=workdir, stdout=output, stderr=subprocess.STDOUT)
        output.seek(0)
        text = output.read()
    with PRINTING:
        print(f"\n---------------- run '{run.name}' ----------------\n{text}", end="", flush=True)
        log(f"run '{run.name}' ended with status {result.returncode} after {time.monotonic() - started:.0f} s")
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
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "j": j}, ids


def staff_setup(server, binary, workdir, tokens, ids):
    """What the staff run's valid requests name, made as the console makes it: an admin signed in
    (the run's session); accounts to sign in as, to change the role of, and to change the password
    of (signed in too: a new password ends the account's sessions); a venue of the run's own for
    the mission editor, with two versions and a checked draft; a class's batch of table cards.
    Returns what the hooks need (`GROUPIE_API_TEST_STAFF`)."""
    api = Api(server.base, name="staff setup")
    session, csrf = staff_sign_in(server, binary, workdir)
    staff = {"base": server.base, "session": session, "csrf": csrf, "venue": VENUE, "group": ids["group"],
             "closable": ids["closable"], "f": tokens["f"], "photo": str(PHOTOS[0]), "image": str(FIXTURE_PHOTOS[0]),
             "editor-venue": EDITOR_VENUE, "editor-file": str(workdir / "missions" / f"{EDITOR_VENUE}.yaml")}
    staff["signin"] = {"email": "signin@example.org", "password": "a sign-in password"}
    add_account(api, session, csrf, staff["signin"]["email"], staff["signin"]["password"], venues=[VENUE])
    staff["role-account"] = add_account(api, session, csrf, "role@example.org", "a role-changing password", venues=[VENUE])
    own = {"email": "password@example.org", "password": "the first password"}
    add_account(api, session, csrf, own["email"], own["password"], venues=[VENUE])
    own["session"], own["csrf"] = sign_in(api, own["email"], own["password"])
    staff["own-password"] = own
    # The editor's venue: made from the console's template (version 1), saved with a line more
    # (version 2; a save that changes nothing keeps no version).
    api.request("POST", "/staff/missions/new", form={"csrf": csrf, "id": EDITOR_VENUE, "name": "Editor's venue",
                                                      "timezone": "Europe/Stockholm", "languages": "en"},
                headers={"Cookie": session}, expect=(303,))
    first = Path(staff["editor-file"]).read_text()
    text = first + "# Saved again from the console.\n"
    api.request("POST", f"/staff/venues/{EDITOR_VENUE}/missions/save",
                form={"csrf": csrf, "text": text, "base": hashlib.sha256(first.encode()).hexdigest()},
                headers={"Cookie": session}, expect=(303,))
    # A draft of the text, checked with the cursor on its mission: its reward can be drawn.
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.strip() == f"- id: {EDITOR_MISSION}")
    checked = api.request("POST", f"/staff/venues/{EDITOR_VENUE}/missions/check", form={"csrf": csrf, "text": text, "line": line},
                          headers={"Cookie": session}, expect=(200,)).data
    staff["draft"] = checked["hash"]
    if (checked.get("mission") or {}).get("id") != EDITOR_MISSION:
        raise Failure(f"staff setup: the check of the editor's venue shows no mission {EDITOR_MISSION}: {checked}")
    # A class: one table card, and its batch as the wall offers it.
    api.request("POST", f"/staff/venues/{VENUE}/cards", form={"csrf": csrf, "count": 1, "label": "Class 4B"},
                headers={"Cookie": session}, expect=(200,))
    wall = api.request("GET", f"/staff/venues/{VENUE}/wall", headers={"Cookie": session}, expect=(200,)).body.decode()
    choices = re.search(r'<select id="wall-batch".*?</select>', wall, re.S)
    batches = [value for value in re.findall(r'<option value="([^"]*)"', choices.group(0) if choices else "") if value]
    if len(batches) != 1:
        raise Failure(f"staff setup: the wall offers {len(batches)} classes, not the one made: {batches}")
    staff["batch"] = batches[0]
    return staff


Run = collections.namedtuple("Run", "name config filters env")
Run.__doc__ = "One `st run`: its name (and its reports'), its configuration, its command-line filters and its environment."

# The runs in stages, one stage after another. A stage's lanes go side by side, each lane's runs
# one after another. Each run has players, groups and photos of its own (see the top of this
# file), so that they may overlap: schemathesis spends most of a run in Python making cases, and
# the workers of one process share one core (Python's lock), where two processes use two. The
# stateful run has a core to itself (the two small runs beside it take a few seconds): it follows
# links for a set time, and so follows as many as when it ran alone.
STAGES = ((("stateful",), ("wrong-codes", "erase")), (("fixed",), ("staff",)))
RUNS = [name for stage in STAGES for lane in stage for name in lane]


def stateful_run(server, args, tokens, ids):
    """1. Links between operations, as player B."""
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
    return Run("stateful", config, ["--exclude-operation-id", "eraseMe", "--exclude-checks", "ensure_resource_availability"], {})


def fixed_run(server, args, tokens, ids):
    """2. Every operation on group G as its creator A, ids pinned to what exists: valid data is
    accepted."""
    config = base_config(server, args, tokens["a"], "fixed", STRICT_POSITIVE, FIXED_POSITIVE_EXCEPTIONS)
    config["phases"]["stateful"] = {"enabled": False}
    # Schemathesis takes each option (e.g. `parameters`) from the first entry that matches
    # an operation: the narrow entries come first.
    g = ids["group"]
    config["operations"] = [
        # Creating or joining a group would take A out of G.
        {"include-operation-id": ["createGroup", "joinGroup"], "headers": {"Authorization": "Bearer " + tokens["c"]}},
        # Valid joins only: the invalid ones (run 3) would make C's valid joins 429. The hook gives
        # each G's code, so that they are all alike: a few of them show it.
        {"include-operation-id": "joinGroup", "generation": {"mode": "positive", "max-examples": FEW_EXAMPLES}},
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
        # The recap is drawn anew for each request (0.1 to 0.3 s in a debug build), and with the
        # group pinned only its language and stream token are left to vary: a few cases cover them.
        {"include-operation-id": ["recapPdf", "recapPng"], "parameters": {"path.groupId": g},
         "generation": {"max-examples": FEW_EXAMPLES}},
        {"include-operation-id": "choosePhoto",
         "parameters": {"path.groupId": g, "path.missionId": MISSION, "path.taskId": TASKS[0]}},
        # Photos for a task of G: the hooks send real images as well as random bytes.
        {"include-operation-id": "uploadPhoto",
         "parameters": {"path.groupId": g, "query.mission": MISSION, "query.task": TASKS[1]}},
        {"include-operation-id": "getVenue", "parameters": {"path.venueId": VENUE}},
        # G's join page: with its code pinned, nothing is left to vary.
        {"include-operation-id": "joinPage", "parameters": {"path.code": ids["code"]}, "generation": {"max-examples": FEW_EXAMPLES}},
        {"include-path-regex": r"^/api/v1/groups/\{groupId\}", "parameters": {"path.groupId": g}},
        *config["operations"],
    ]
    # What the hooks put into valid cases (Tests/API/hooks.py, `fixed_*`).
    fixed = {"base": server.base, "group": g, "venue": VENUE, "code": ids["code"], "task-photo": ids["photo"],
             "a": tokens["a"], "d": tokens["d"], "photo": str(PHOTOS[0])}
    return Run("fixed", config, ["--exclude-operation-id", "eraseMe"], {"GROUPIE_API_TEST_FIXED": json.dumps(fixed)})


def wrong_codes_run(server, args, tokens, ids):
    """3. Invalid joins, as J, so that the wrong codes count against J, not C."""
    config = base_config(server, args, tokens["j"], "wrong-codes")
    config["phases"]["stateful"] = {"enabled": False}
    config["generation"]["mode"] = "negative"
    return Run("wrong-codes", config, ["--include-operation-id", "joinGroup"], {})


def staff_run(server, args, tokens, ids):
    """4. The staff console, as a signed-in admin, ids pinned to what exists: valid data is
    accepted, as in the fixed run."""
    staff = ids["staff"]
    config = base_config(server, args, tokens["a"], "staff", STRICT_POSITIVE, STAFF_POSITIVE_EXCEPTIONS)
    config["phases"]["stateful"] = {"enabled": False}
    # The session's cookie comes from the hooks (`staff_session`): the sign-in form and the
    # password form carry cookies of their own.
    config["headers"] = {}
    config["output"]["sanitization"]["keys-to-sanitize"].append("cookie")
    editor = {"path.venueId": EDITOR_VENUE}
    config["operations"] = [
        # The console's live stream never ends either. It follows the editor's venue, where no one
        # plays: the document describes the stream's events in words only (its schema says
        # `type: string`), and the fixed run, beside this one, makes events at the science centre.
        {"include-operation-id": "staffVenueEvents", "parameters": editor, "request-timeout": 2, "max-stream-events": 5},
        # One mission, one language: each picture is drawn anew (0.7 s in a debug build), and
        # only the query's cache key `v` is left to vary.
        {"include-operation-id": "staffMissionReward",
         "parameters": {"path.venueId": VENUE, "path.missionId": MISSION, "query.lang": "en"},
         "generation": {"max-examples": FEW_EXAMPLES}},
        {"include-operation-id": "staffMissionDraftReward",
         "parameters": {**editor, "path.hash": staff["draft"], "path.missionId": EDITOR_MISSION, "query.lang": "en"},
         "generation": {"max-examples": FEW_EXAMPLES}},
        {"include-operation-id": "staffMissionVersionsDiff", "parameters": {**editor, "query.from": 1, "query.to": 2}},
        {"include-operation-id": "staffMissionRestore", "parameters": {**editor, "path.number": 1}},
        # The mission editor saves the files of its own venue (on a copy of the missions folder).
        {"include-operation-id": ["staffMissionEditor", "staffMissionCheck", "staffMissionSave", "staffMissionVersions",
                                  "staffMissionPictures", "staffMissionPictureUpload"], "parameters": editor},
        # Each valid request costs a password hash (a quarter of a second in a debug build), and the
        # hooks make them alike but for a role or a new password; the posters differ by their paper
        # alone, and each is drawn.
        {"include-operation-id": ["staffLogin", "staffAddAccount", "staffRemoveAccount", "staffChangePassword", "staffPosterPDF",
                                  "staffPosterPNG"], "generation": {"max-examples": FEW_EXAMPLES}},
        # The art museum's missions have a found-it code; the science centre's have none.
        {"include-operation-id": "staffCodeStickers", "parameters": {"path.venueId": "art-museum"}},
        {"include-operation-id": ["staffVenue", "staffNumbers", "staffNumbersCSV", "staffPosterPDF", "staffPosterPNG",
                                  "staffMissions", "staffTableCards", "staffReviewQueue", "staffMessages", "staffSendMessage",
                                  "staffWall", "staffWallItems", "staffVenuePhotos", "staffPhotoFeed"],
         "parameters": {"path.venueId": VENUE}},
        # G's collage: its mission stays complete whatever the fixed run does.
        {"include-operation-id": "staffCollage", "parameters": {"path.groupId": ids["group"], "path.missionId": MISSION}},
        {"include-operation-id": ["staffGroup", "staffCloseGroup", "staffGroupPhotos", "staffReopenGroup"], "parameters": {"path.groupId": ids["closable"]}},
        {"include-operation-id": ["staffPhotoThumb", "staffPhotoDisplay", "staffHidePhoto", "staffRestorePhoto"],
         "parameters": {"path.photoId": ids["staff-photo"]}},
        # Valid deletions each get a new photo of H (`staff_photo_to_delete`).
        {"include-operation-id": "staffDeletePhoto", "parameters": {"path.photoId": ids["staff-photo-2"]}},
        # Another account than the admin's own (which it may not change or remove); valid removals
        # each get an account of their own (`staff_account_to_remove`).
        {"include-operation-id": ["staffChangeRole", "staffUnlockAccount", "staffRemoveAccount"],
         "parameters": {"path.staffId": staff["role-account"]}},
        # Signed in, 303 is no longer an answer to an invalid request.
        *(entry for entry in config["operations"] if entry is not STAFF_SIGNED_OUT),
    ]
    return Run("staff", config, ["--include-path-regex", "^/staff", "--exclude-operation-id", "staffLogout"],
               {"GROUPIE_API_TEST_STAFF": json.dumps(staff)})


def erase_run(server, args, tokens, ids):
    """5. Erasing a player, as E."""
    config = base_config(server, args, tokens["e"], "erase")
    config["phases"]["stateful"] = {"enabled": False}
    return Run("erase", config, ["--include-operation-id", "eraseMe"], {})


MAKE_RUN = {"stateful": stateful_run, "fixed": fixed_run, "wrong-codes": wrong_codes_run, "staff": staff_run, "erase": erase_run}


def run_stages(runs, server, workdir):
    """Runs `runs` (by name) by `STAGES`; True when every one passed."""
    results = {}

    def lane(names):
        for name in names:
            if name in runs:
                results[name] = run_schemathesis(runs[name], server, workdir)

    for stage in STAGES:
        threads = [threading.Thread(target=lane, args=(names,)) for names in stage]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return all(results.get(name, False) for name in runs)


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
    parser.add_argument("--runs", default=",".join(RUNS),
                        help=f"the runs to make, separated by commas (default all: {','.join(RUNS)})")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (server log, configs)")
    args = parser.parse_args()
    if shutil.which("st") is None:
        print("schemathesis (st) is not installed; run scripts/bootstrap", file=sys.stderr)
        return 2
    chosen = [name.strip() for name in args.runs.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in MAKE_RUN]
    if unknown or not chosen:
        print(f"--runs: unknown run(s) {unknown}; the runs are {', '.join(RUNS)}", file=sys.stderr)
        return 2

    workdir = Path(tempfile.mkdtemp(prefix="groupie-api-"))
    REPORTS.mkdir(parents=True, exist_ok=True)
    server = None
    ok = True
    try:
        small_photos(workdir)
        binary = os.path.abspath(args.binary)
        server = start_server(binary, workdir)
        log(f"server on {server.base}, data in {workdir}")
        tokens, ids = setup(server)
        ids["staff"] = staff_setup(server, binary, workdir, tokens, ids)
        log(f"group {ids['group']} with photos {ids['photo']} and {ids['free-photo']}")
        runs = {name: MAKE_RUN[name](server, args, tokens, ids) for name in chosen}
        ok = run_stages(runs, server, workdir)
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
