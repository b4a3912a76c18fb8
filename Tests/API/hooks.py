"""Schemathesis hooks for the Groupie API test (loaded by Tests/API/schemathesis_test.py).

- Photo uploads: besides the random bytes schemathesis makes (which must get 415/422), some
  uploads carry a real JPEG, so that photos exist and the stateful phase can follow the
  links from an upload to the photo's image, its deletion and the task's choice.
- `group_event_data`: the document describes each event of `GET /groups/{groupId}/events`
  (`GroupEvent`: `event`, `id`, and `data` whose `contentSchema` says what JSON it holds);
  schemathesis checks `event` and `id` against it, this check also parses `data` and checks
  it against the `contentSchema` of its type.
- Names: a JSON Schema cannot say "1-32 characters as a person counts them, no invisible
  characters", so a valid name (as the document's schema sees it) may be refused with 422.
  Valid cases get a name the server must accept instead, so that "valid data is accepted"
  can be checked strictly for the other fields (`lang`).
- The staff run (`GROUPIE_API_TEST_STAFF`, a JSON object of what its setup made): every request
  goes with the signed-in admin's session (`staff_session`), and there valid data must be
  accepted, as in the fixed run. Valid forms carry the session's form token, so that they reach
  the handlers instead of stopping at the CSRF check, and what a JSON Schema cannot say: a sign-in
  with the sign-in form's cookie and a real account's password, an e-mail address and a venue
  id not taken yet, passwords of 10 to 72 bytes, the venues a role needs, a mission file
  without errors and the hash of the file on disk, visible text in messages, names and labels.
  What a valid request used up is made again (a photo of H to delete, an account to remove, the
  session and form token a new password ended). Table cards are capped at two a request (each
  is drawn). `staff_message_limit` checks that a valid message is refused 429 only past the
  limit of messages a minute.
- The fixed run (`GROUPIE_API_TEST_FIXED`, a JSON object of ids and tokens): there valid data
  must be accepted (2xx or 3xx), so valid cases name real objects in their bodies as well as
  their paths (the venue, group G's code, a photo of the task), and what a valid request used
  up is made again before the next one (member D back in G for the creator to remove, a new
  photo to delete, a stream token that has not expired for `?token=`). Invalid cases are sent
  as generated.
"""

import hashlib
import json
import os
import sys
import time
import unicodedata
from pathlib import Path

import jsonschema
import schemathesis
from hypothesis import strategies as st
from schemathesis import Case, Response
from schemathesis.transport.serialization import Binary

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness.client import Api  # noqa: E402
from groupie_harness.events import parse_events  # noqa: E402
from groupie_harness.staff import add_account, cookie_named, form_token  # noqa: E402

PHOTOS = [Path(p) for p in os.environ.get("GROUPIE_API_TEST_PHOTOS", "").split(os.pathsep) if p]
REAL_IMAGES = [p.read_bytes() for p in PHOTOS]


@schemathesis.hook("flatmap_body").apply_to(operation_id="uploadPhoto")
def real_photo_sometimes(context, body):
    """Raw bodies and form files are `Binary` (the bytes in `.data`): sometimes a real photo instead."""
    if not REAL_IMAGES:
        return st.just(body)
    if isinstance(body, (Binary, bytes)):
        return st.one_of(st.just(body), st.sampled_from([Binary(image) for image in REAL_IMAGES]))
    if isinstance(body, dict) and isinstance(body.get("photo"), (Binary, bytes)):
        return st.one_of(st.just(body), st.sampled_from([{**body, "photo": Binary(image)} for image in REAL_IMAGES]))
    return st.just(body)


NAME_LIMITS = {"createPlayer": (32, 128), "updateMe": (32, 128), "createGroup": (40, 160)}
NAME_LIMITS_BY_LABEL = {"POST /api/v1/players": NAME_LIMITS["createPlayer"], "PATCH /api/v1/me": NAME_LIMITS["updateMe"],
                        "POST /api/v1/groups": NAME_LIMITS["createGroup"]}
FORBIDDEN_CATEGORIES = {"Cc", "Zl", "Zp", "Cs", "Co", "Cn", "Cf"}


def surely_valid_name(name, characters, utf8_bytes):
    """Whether the server's name rules accept `name`; a conservative reading (code points for characters)."""
    if not isinstance(name, str):
        return False
    name = unicodedata.normalize("NFC", name).strip()
    if not name or len(name) > characters:
        return False
    try:
        if len(name.encode("utf-8")) > utf8_bytes:
            return False
    except UnicodeEncodeError:    # lone surrogates
        return False
    for char in name:
        if char != "\u200d" and unicodedata.category(char) in FORBIDDEN_CATEGORIES:
            return False
        if char.isspace() and char != " ":
            return False
    return True


@schemathesis.hook("map_case").apply_to(operation_id=list(NAME_LIMITS))
def valid_names_in_valid_cases(context, case):
    meta = case.meta
    # The stateful phase draws valid data only, and its cases may come without metadata.
    if (meta is not None and not meta.generation.mode.is_positive) or not isinstance(case.body, dict):
        return case
    name = case.body.get("name")
    if name is not None and not surely_valid_name(name, *NAME_LIMITS_BY_LABEL[case.operation.label]):
        case.body = {**case.body, "name": "Ada Lovelace"}
    return case


def _inline(node, document, seen=()):
    """The schema with its local `$ref`s replaced by what they point at (the document has no cycles there)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            if ref in seen:
                return {}
            target = document
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            merged = {**_inline(target, document, seen + (ref,)), **{k: v for k, v in node.items() if k != "$ref"}}
            return _inline(merged, document, seen + (ref,))
        return {key: _inline(value, document, seen) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, document, seen) for item in node]
    return node


_DATA_SCHEMAS = {}


def _data_schemas(document):
    """`event` type -> the `contentSchema` of its `data`, from the document's `GroupEvent`."""
    key = id(document)
    if key not in _DATA_SCHEMAS:
        schemas = document["components"]["schemas"]
        mapping = schemas["GroupEvent"]["discriminator"]["mapping"]
        result = {}
        for event_type, ref in mapping.items():
            variant = _inline({"$ref": ref}, document)
            result[event_type] = variant["properties"]["data"].get("contentSchema", {})
        _DATA_SCHEMAS[key] = result
    return _DATA_SCHEMAS[key]


@schemathesis.check
def group_event_data(ctx, response: Response, case: Case):
    # The staff console's stream (`staffVenueEvents`) tells only which group changed.
    if case.operation.definition.raw.get("operationId") != "groupEvents":
        return None
    content_type = response.headers.get("content-type", [""])
    content_type = content_type[0] if isinstance(content_type, list) else content_type
    if response.status_code != 200 or not content_type.startswith("text/event-stream"):
        return None
    schemas = _data_schemas(case.operation.schema.raw_schema)
    for event in _events(response.content):
        event_type = event.get("event", "message")
        if event_type not in schemas:
            raise AssertionError(f"The stream sent an event of type {event_type!r}, which the document does not describe")
        try:
            data = json.loads(event.get("data", ""))
        except ValueError as error:
            raise AssertionError(f"The data of a {event_type!r} event is not JSON: {event.get('data')!r} ({error})")
        try:
            jsonschema.validate(data, schemas[event_type], cls=jsonschema.Draft202012Validator)
        except jsonschema.ValidationError as error:
            raise AssertionError(f"The data of a {event_type!r} event does not match its contentSchema: {error.message}\n{data}")
    return None


def _events(content: bytes):
    """The events of a (possibly cut short) SSE body that carry data: dicts of their fields."""
    return [event for event in parse_events(content) if "data" in event]


STAFF = json.loads(os.environ["GROUPIE_API_TEST_STAFF"]) if os.environ.get("GROUPIE_API_TEST_STAFF") else None
STAFF_FORMS = ["staffTableCards", "staffCloseGroup", "staffReopenGroup", "staffHidePhoto", "staffRestorePhoto", "staffDeletePhoto",
               "staffAddAccount", "staffChangeRole", "staffUnlockAccount", "staffRemoveAccount", "staffSendMessage",
               "staffMissionCheck", "staffMissionSave", "staffMissionRestore", "staffMissionPictureUpload", "staffNewVenueCreate"]


def _staff_positive(case):
    """Whether `case` is a valid one of the staff run."""
    return STAFF is not None and case.meta is not None and case.meta.generation.mode.is_positive


# The fields of the picture form, which the server reads among the form's first 8 parts.
PICTURE_FIELDS = ("csrf", "kind", "name", "file")


@schemathesis.hook("map_case").apply_to(operation_id=STAFF_FORMS)
def staff_form_token(context, case):
    """Valid forms carry the session's token, so that they reach the handlers instead of stopping
    at the check of the token (403); table cards are capped at two a request (each is drawn).
    The picture form's own fields come first, as a browser sends them: the server reads the
    first 8 parts of a multipart form, and schemathesis adds fields of its own."""
    if not _staff_positive(case) or not isinstance(case.body, dict):
        return case
    body = {**case.body, "csrf": STAFF["csrf"]}
    if isinstance(body.get("count"), int) and body["count"] > 2:
        body["count"] = 2
    if case.operation.definition.raw.get("operationId") == "staffMissionPictureUpload":
        body = {**{k: body[k] for k in PICTURE_FIELDS if k in body}, **{k: v for k, v in body.items() if k not in PICTURE_FIELDS}}
    case.body = body
    return case


def _staff_call(method, path, session=None, form=None, expect=(303,)):
    """A request of the test's own to the server, as the admin (or `session`); anything but
    `expect` is an error of the hook."""
    return Api(STAFF["base"], timeout=30, name="hook").request(method, path, form=form, headers={"Cookie": session or STAFF["session"]},
                                                               expect=expect)


# The password form's account: its session, form token and password change with each new password.
OWN_PASSWORD = dict(STAFF["own-password"]) if STAFF else None


@schemathesis.hook("before_call")
def staff_session(context, case, kwargs):
    """The staff run's cookie: the admin's session, the password form's own account's, and for a
    valid sign-in, the sign-in form's cookie (its token in the body, a real account's address
    and password)."""
    if STAFF is None:
        return
    operation = case.operation.definition.raw.get("operationId")
    cookie = STAFF["session"]
    if operation == "staffChangePassword":
        cookie = OWN_PASSWORD["session"]
    elif operation == "staffLogin" and _staff_positive(case) and isinstance(case.body, dict):
        form = Api(STAFF["base"], timeout=30, name="hook").request("GET", "/staff/login", expect=(200,))
        cookie = "groupie_staff_login=" + cookie_named(form.headers, "groupie_staff_login")
        case.body = {**case.body, "csrf": form_token(form.body), "email": STAFF["signin"]["email"],
                     "password": STAFF["signin"]["password"]}
    case.headers = {**(case.headers or {}), "Cookie": cookie}


def _password(value):
    """`value` when the server surely takes it as a password (10 to 72 characters as a person
    counts them, at most 72 bytes: printable ASCII, where each character is one), else one it takes."""
    if isinstance(value, str) and 10 <= len(value) <= 72 and all(" " <= c <= "~" for c in value):
        return value
    return "a password of forty characters or so here"


def _encodable(text):
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:    # lone surrogates
        return False


@schemathesis.hook("before_call").apply_to(operation_id="staffChangePassword")
def staff_own_password(context, case, kwargs):
    """A valid change gives the account's current password and the new one twice (a JSON Schema
    cannot say "the one you have" or "the same again")."""
    if _staff_positive(case) and isinstance(case.body, dict):
        new = _password(case.body.get("newPassword"))
        case.body = {**case.body, "csrf": OWN_PASSWORD["csrf"], "currentPassword": OWN_PASSWORD["password"],
                     "newPassword": new, "repeatPassword": new}


@schemathesis.hook("after_call").apply_to(operation_id="staffChangePassword")
def staff_own_password_changed(context, case, response):
    """A new password ends the account's other sessions and starts one for this browser: the
    next request goes with that one, and with its form token."""
    if not _staff_positive(case) or response.status_code != 303:
        return
    cookies = response.headers.get("set-cookie", [])
    cookies = cookies if isinstance(cookies, list) else [cookies]
    session = next((c.split(";")[0] for c in cookies if c.startswith("groupie_staff=")), None)
    if session is None:
        raise AssertionError(f"a new password answered 303 without a new session: {cookies}")
    OWN_PASSWORD.update(session=session, password=case.body["newPassword"],
                        csrf=form_token(_staff_call("GET", "/staff", session=session, expect=(200,)).body))


def _unique(prefix):
    """A name no other valid case of this run has used."""
    _unique.count = getattr(_unique, "count", 0) + 1
    return f"{prefix}{_unique.count}"


def _venues_for(role):
    """The venues an account of `role` has: none for an admin, at least one for the others."""
    return [] if role == "admin" else [STAFF["venue"]]


@schemathesis.hook("before_call").apply_to(operation_id="staffAddAccount")
def staff_account_to_add(context, case, kwargs):
    """A valid new account: an address no account has (a JSON Schema cannot say "an e-mail
    address" and "not taken"), a password the server takes, and venues as its role needs them."""
    if _staff_positive(case) and isinstance(case.body, dict):
        case.body = {**case.body, "email": _unique("added-") + "@example.org", "password": _password(case.body.get("password")),
                     "venue[]": _venues_for(case.body.get("role"))}


@schemathesis.hook("before_call").apply_to(operation_id="staffChangeRole")
def staff_role_venues(context, case, kwargs):
    """A valid role comes with the venues it needs."""
    if _staff_positive(case) and isinstance(case.body, dict):
        case.body = {**case.body, "venue[]": _venues_for(case.body.get("role"))}


@schemathesis.hook("before_call").apply_to(operation_id="staffRemoveAccount")
def staff_account_to_remove(context, case, kwargs):
    """A new account for each valid removal: the one before is gone."""
    if _staff_positive(case):
        email = _unique("removed-") + "@example.org"
        staff_id = add_account(Api(STAFF["base"], timeout=30, name="hook"), STAFF["session"], STAFF["csrf"], email,
                               "a password to remove", venues=[STAFF["venue"]])
        case.path_parameters = {**case.path_parameters, "staffId": staff_id}


@schemathesis.hook("before_call").apply_to(operation_id="staffDeletePhoto")
def staff_photo_to_delete(context, case, kwargs):
    """A new photo of group H for each valid deletion (H reopened first: the run also closes it)."""
    if _staff_positive(case):
        closable = STAFF["closable"]
        _staff_call("POST", f"/staff/groups/{closable}/reopen", form={"csrf": STAFF["csrf"]})
        photo = Path(STAFF["photo"]).read_bytes()
        created = Api(STAFF["base"], timeout=30, name="hook").call("POST", f"/api/v1/groups/{closable}/photos", photo,
                                                                     token=STAFF["f"], content_type="image/jpeg")
        case.path_parameters = {**case.path_parameters, "photoId": created["photo"]["id"]}


def _file_now():
    """The editor's venue's file as it is on disk: (its text, its SHA-256 in hex)."""
    data = Path(STAFF["editor-file"]).read_bytes()
    return data.decode("utf-8"), hashlib.sha256(data).hexdigest()


@schemathesis.hook("before_call").apply_to(operation_id=["staffMissionSave", "staffMissionRestore"])
def staff_file_saved(context, case, kwargs):
    """A valid save is of a file without errors over the version on disk (a JSON Schema cannot
    say "a mission file" or "the hash of the file now"): the file as it is, and its hash."""
    if _staff_positive(case) and isinstance(case.body, dict):
        text, digest = _file_now()
        body = {**case.body, "base": digest}
        if case.operation.definition.raw["operationId"] == "staffMissionSave":
            body["text"] = text
        case.body = body


@schemathesis.hook("before_call").apply_to(operation_id="staffNewVenueCreate")
def staff_new_venue(context, case, kwargs):
    """A valid new venue: an id no file declares yet, a time zone and languages the server knows
    of, and a name that is not blank (what a JSON Schema cannot say)."""
    if _staff_positive(case) and isinstance(case.body, dict):
        name = case.body.get("name")
        case.body = {**case.body, "id": _unique("new-venue-"), "timezone": "Europe/Stockholm", "languages": "en",
                     "name": name if surely_valid_name(name, 100, 400) else "A new venue"}


# Letters and symbols that show nothing (Hangul fillers, the blank Braille pattern).
INVISIBLE = set("\u115f\u1160\u3164\uffa0\u2800")


def _visible(text, most):
    """Whether `text` surely shows something and has at most `most` characters: a conservative
    reading of the server's rule (a letter, digit, punctuation or symbol that shows)."""
    return (isinstance(text, str) and _encodable(text) and len(text) <= most
            and any(unicodedata.category(c)[0] in "LNPS" and not c.isspace() and c not in INVISIBLE for c in text))


@schemathesis.hook("before_call").apply_to(operation_id="staffSendMessage")
def staff_message(context, case, kwargs):
    """A valid message shows something (a text of blanks and control characters is empty) and goes
    to every group or to a group of the venue (G)."""
    if _staff_positive(case) and isinstance(case.body, dict):
        body = dict(case.body)
        if not _visible(body.get("text"), 200):
            body["text"] = "We close in fifteen minutes"
        if body.get("group"):
            body["group"] = STAFF["group"]
        case.body = body


# When the valid messages of this run were sent (monotonic seconds), for `staff_message_limit`.
MESSAGES_SENT = []


@schemathesis.hook("after_call").apply_to(operation_id="staffSendMessage")
def staff_message_sent(context, case, response):
    if _staff_positive(case) and response.status_code == 303:
        MESSAGES_SENT.append(time.monotonic())


@schemathesis.check
def staff_message_limit(ctx, response: Response, case: Case):
    """A member of staff sends at most 6 messages a minute to a venue's groups (60 an hour), and
    the run sends more: 429 is the right answer to a valid message then, and only then."""
    if STAFF is None or case.operation.definition.raw.get("operationId") != "staffSendMessage" or response.status_code != 429:
        return None
    now = time.monotonic()
    minute = sum(1 for sent in MESSAGES_SENT if now - sent < 60)
    if minute < 6 and len(MESSAGES_SENT) < 60:
        raise AssertionError(f"A message was refused with 429 after {minute} message(s) in the last minute "
                             f"({len(MESSAGES_SENT)} in all): the limit is 6 a minute, 60 an hour")
    if "too-many-messages" not in response.text or not response.headers.get("retry-after"):
        raise AssertionError("A message refused with 429 is not `too-many-messages` with Retry-After")
    return None


@schemathesis.hook("before_call").apply_to(operation_id="staffTableCards")
def staff_cards(context, case, kwargs):
    """Valid cards' names and label follow the rules of names (visible characters, no control
    characters), which a JSON Schema cannot say."""
    if _staff_positive(case) and isinstance(case.body, dict):
        body = dict(case.body)
        if "name" in body and not surely_valid_name(body["name"], 30, 120):
            body["name"] = "Table"
        if "label" in body and not surely_valid_name(body["label"], 60, 240):
            body["label"] = "Class 4B, 09:10"
        case.body = body


@schemathesis.hook("before_call").apply_to(operation_id="staffVenuePhotos")
def staff_class_download(context, case, kwargs):
    """A valid class's download names a class of the venue (the batch of its table cards)."""
    if _staff_positive(case) and case.query and "batch" in case.query:
        case.query = {**case.query, "batch": STAFF["batch"]}


@schemathesis.hook("flatmap_body").apply_to(operation_id="staffMissionPictureUpload")
def real_picture_sometimes(context, body):
    """Besides the random bytes (422: not a PNG, JPEG or WebP picture), sometimes a real picture."""
    if STAFF is None or not isinstance(body, dict) or not isinstance(body.get("file"), (Binary, bytes)):
        return st.just(body)
    return st.one_of(st.just(body), st.just({**body, "file": Binary(Path(STAFF["image"]).read_bytes())}))


FIXED = json.loads(os.environ["GROUPIE_API_TEST_FIXED"]) if os.environ.get("GROUPIE_API_TEST_FIXED") else None


def _positive(case):
    """Whether `case` is a valid one of the fixed run (the stateful phase, off there, has no metadata)."""
    return FIXED is not None and case.meta is not None and case.meta.generation.mode.is_positive


def _fixed_call(method, path, token, body=None, content_type="application/json"):
    """A request of the test's own to the server; anything but 2xx is an error of the hook."""
    return Api(FIXED["base"], timeout=30, name="hook").call(method, path, body, token=token, content_type=content_type)


@schemathesis.hook("before_call").apply_to(operation_id=["createGroup", "joinGroup", "choosePhoto"])
def fixed_real_ids_in_bodies(context, case, kwargs):
    """A venue that exists, G's code, a photo of the pinned task: what only the test can know.
    (Before the call, as the other `fixed_` hooks: every phase's cases pass here.)"""
    if _positive(case) and isinstance(case.body, dict):
        field, value = {"createGroup": ("venueId", FIXED["venue"]), "joinGroup": ("code", FIXED["code"]),
                        "choosePhoto": ("photoId", FIXED["task-photo"])}[case.operation.definition.raw["operationId"]]
        case.body = {**case.body, field: value}


@schemathesis.hook("before_call").apply_to(operation_id="removeMember")
def fixed_member_to_remove(context, case, kwargs):
    """D joins G again (a no-op while D is in it), so that every valid removal has D to remove."""
    if _positive(case):
        _fixed_call("POST", "/api/v1/groups/join", FIXED["d"], {"code": FIXED["code"]})


@schemathesis.hook("before_call").apply_to(operation_id="deletePhoto")
def fixed_photo_to_delete(context, case, kwargs):
    """A new free photo of A's in G for each valid deletion: the pinned one is gone after the first."""
    if _positive(case):
        photo = Path(FIXED["photo"]).read_bytes()
        created = _fixed_call("POST", f"/api/v1/groups/{FIXED['group']}/photos", FIXED["a"], photo, "image/jpeg")
        case.path_parameters = {**case.path_parameters, "photoId": created["photo"]["id"]}


@schemathesis.hook("before_call").apply_to(operation_id="hidePhoto")
def fixed_photo_to_hide(context, case, kwargs):
    """A new photo of D's (back in G first) for each valid hide by the creator: the one before is hidden."""
    if _positive(case):
        _fixed_call("POST", "/api/v1/groups/join", FIXED["d"], {"code": FIXED["code"]})
        photo = Path(FIXED["photo"]).read_bytes()
        created = _fixed_call("POST", f"/api/v1/groups/{FIXED['group']}/photos", FIXED["d"], photo, "image/jpeg")
        case.path_parameters = {**case.path_parameters, "photoId": created["photo"]["id"]}


@schemathesis.hook("before_call").apply_to(operation_id=["groupEvents", "albumZip", "recapPdf", "recapPng"])
def fixed_stream_token(context, case, kwargs):
    """A `?token=` that is valid now: any string fits the schema, but only a stream token that
    the server gave out (and that has not expired) is accepted."""
    if _positive(case) and case.query and "token" in case.query:
        made = _fixed_call("POST", f"/api/v1/groups/{FIXED['group']}/events/token", FIXED["a"])
        case.query = {**case.query, "token": made["token"]}
