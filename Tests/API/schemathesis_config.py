"""The schemathesis configuration of the API test (Tests/API/schemathesis_test.py): the checks each
run applies, the answers valid data may still get, and a small TOML writer for the config file."""
import json
from pathlib import Path

REPORTS = Path(__file__).resolve().parents[2] / ".build" / "api-test"
HOOKS = Path(__file__).resolve().parent / "hooks.py"
# What a path answers to a method it does not have is checked for these (QUERY is left out:
# HTTP parsers do not all know it).
UNEXPECTED_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "PATCH", "TRACE"]


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
# Where every id names a real object the player may use (the fixed and staff runs), valid data is
# accepted.
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
    # A part's range is a string of the right shape to the schema; that it starts where the
    # server's bytes end (409), holds as many bytes as the body (400), fits the limit (413) and
    # the room for uploads in progress (507), and completes an image (415, 422) is the server's.
    ("putUploadPart", ["400", "409", "413", "415", "422", "507"]),
    # An upload key of the right shape that the server holds no bytes of.
    ("getUploadProgress", ["404"]),
    # A photo id of the right shape that is not one of the task's photos.
    ("choosePhoto", ["422"]),
    # An answer that does not fit its task (see FIXED_POSITIVE_EXCEPTIONS).
    ("answerTask", ["409", "422"]),
    # A feed entry id that is not a photo or a completed mission of the group.
    ("addReaction", ["404"]),
    ("removeReaction", ["404"]),
]

# The same for the fixed run, where the hooks give valid cases real ids (a photo of the task for
# choosePhoto). The staff pages keep STAFF_SIGNED_OUT's checks there: without a session their ids
# are not the test's concern, and the sign-in form takes made-up credentials.
FIXED_POSITIVE_EXCEPTIONS = [
    # Any bytes are a valid body, but only an image is a photo: random bytes are 415, and an
    # image under 64 pixels a side or unreadable is 422. (413 only over 25 MiB; mission and task
    # are pinned to a real task, and the Idempotency-Key's mission and task with them.)
    ("uploadPhoto", ["413", "415", "422"]),
    # Parts of resumable uploads: see POSITIVE_EXCEPTIONS.
    ("putUploadPart", ["400", "409", "413", "415", "422", "507"]),
    ("getUploadProgress", ["404"]),
    # Whether an answer fits its task (a choice for a multiple-choice question, text otherwise,
    # no answer for a photo task) and comes within the mission's time is the venue's to say.
    ("answerTask", ["409", "422"]),
    # An entry id of the right shape that is not one of the group's photos or completed missions;
    # and a member switches claims and reactions at most 60 times a minute (429), which the
    # generated cases, all by A, pass.
    ("addReaction", ["404", "429"]),
    ("removeReaction", ["404", "429"]),
    ("claimTask", ["429"]),
    ("releaseTask", ["429"]),
]


# The same for the staff run, signed in as an admin, where the hooks give valid forms the
# session's token and what only the test can know (real accounts, passwords and files, an e-mail
# address not taken yet, Tests/API/hooks.py `staff_*`): each valid request is accepted but these.
STAFF_POSITIVE_EXCEPTIONS = [
    # Any bytes are a valid file, but only a PNG, JPEG or WebP picture is a picture (the hooks send
    # a real one now and then).
    ("staffMissionPictureUpload", ["422"]),
    # A member of staff sends at most 6 messages a minute to a venue's groups, and the run sends
    # more: the check `staff_message_limit` takes 429 only past that limit.
    ("staffSendMessage", ["429"]),
]


# Cases for an operation whose request has little left to vary once its ids are pinned, or whose
# answer does not depend on it, and that costs the server a drawing or a password hash each time.
FEW_EXAMPLES = 5

# Without a staff session, a staff page sends the browser to the sign-in form before it looks
# at the request: 303 is its answer to valid and invalid requests alike, and a few cases of each
# page show it (the staff run, signed in, sends the full number).
STAFF_SIGNED_OUT = {"include-path-regex": "^/staff", "checks": checks_config(), "generation": {"max-examples": FEW_EXAMPLES}}
STAFF_SIGNED_OUT["checks"]["negative_data_rejection"]["expected-statuses"].append("303")

def base_config(server, args, token, run, positive=LENIENT_POSITIVE, exceptions=POSITIVE_EXCEPTIONS):
    return {
        "base-url": server.base,
        # One worker: with two, Python 3.11's parser (which hypothesis calls to describe its
        # strategies) sometimes fails with "AST constructor recursion depth mismatch", its state
        # being shared between threads.
        "workers": 1,
        "seed": args.seed,
        "hooks": str(HOOKS),
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
