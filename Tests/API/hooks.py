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
"""

import json
import unicodedata
import os
from pathlib import Path

import jsonschema
import schemathesis
from hypothesis import strategies as st
from schemathesis import Case, Response
from schemathesis.transport.serialization import Binary

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
    """The events of a (possibly cut short) SSE body: dicts of their fields, data lines joined."""
    text = content.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    for block in text.split("\n\n"):
        fields, data = {}, []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            else:
                fields[name] = value
        if data:
            fields["data"] = "\n".join(data)
            yield fields


STAFF_CSRF = os.environ.get("GROUPIE_API_TEST_STAFF_CSRF")
STAFF_FORMS = ["staffTableCards", "staffCloseGroup", "staffHidePhoto", "staffRestorePhoto", "staffDeletePhoto"]


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
