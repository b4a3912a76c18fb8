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
- Staff forms: in the run with a signed-in member of staff, valid cases carry the session's
  form token (`GROUPIE_API_TEST_STAFF_CSRF`), so that they reach the handlers instead of
  stopping at the CSRF check; table cards are capped at two a request (each is drawn).
- The fixed run (`GROUPIE_API_TEST_FIXED`, a JSON object of ids and tokens): there valid data
  must be accepted (2xx or 3xx), so valid cases name real objects in their bodies as well as
  their paths (the venue, group G's code, a photo of the task), and what a valid request used
  up is made again before the next one (member D back in G for the creator to remove, a new
  photo to delete, a stream token that has not expired for `?token=`). Invalid cases are sent
  as generated.
"""

import json
import os
import sys
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


STAFF_CSRF = os.environ.get("GROUPIE_API_TEST_STAFF_CSRF")
STAFF_FORMS = ["staffTableCards", "staffCloseGroup", "staffReopenGroup", "staffHidePhoto", "staffRestorePhoto", "staffDeletePhoto",
               "staffAddAccount", "staffChangeRole", "staffUnlockAccount", "staffRemoveAccount", "staffChangePassword",
               "staffSendMessage"]


@schemathesis.hook("map_case").apply_to(operation_id=STAFF_FORMS)
def staff_form_token(context, case):
    meta = case.meta
    if STAFF_CSRF is None or (meta is not None and not meta.generation.mode.is_positive) or not isinstance(case.body, dict):
        return case
    body = {**case.body, "csrf": STAFF_CSRF}
    if isinstance(body.get("count"), int) and body["count"] > 2:
        body["count"] = 2
    case.body = body
    return case


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
