"""The one HTTP client of Groupie's API for the tests, the benchmarks and the soak: JSON bodies,
bearer tokens, problem documents, photo uploads (the bytes, or an HTML form's multipart body),
over a connection of its own for each request or one kept alive. Also the raw HTTP/1.1 pieces
the streaming readers share (a request's bytes, a response's head)."""
import http.client
import json
import ssl
import urllib.parse
import uuid

from .checks import Failure

OK = (200, 201, 204)


class Answer:
    """A response: `status`, `headers` (an http.client.HTTPMessage), `body` (bytes)."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def content_type(self):
        return self.headers.get("Content-Type", "")

    @property
    def data(self):
        """The body as JSON when it is an object or an array, None when empty, else the bytes."""
        if not self.body:
            return None
        return json.loads(self.body) if self.body[:1] in b"[{" else self.body

    @property
    def problem(self):
        """The RFC 9457 problem document the server answered with, or None."""
        if self.content_type.startswith("application/problem+json"):
            return json.loads(self.body)
        return None


class Problem(Failure):
    """An answer with a status the caller did not expect; `answer` is the answer."""

    def __init__(self, who, method, path, answer):
        self.answer, self.status = answer, answer.status
        self.code = (answer.problem or {}).get("code")
        super().__init__(f"{who + ': ' if who else ''}{method} {path} answered {answer.status}: {answer.body[:300]!r}")


def multipart(fields, files):
    """An HTML form's `multipart/form-data` body: (content type, bytes). `files`: name -> (file
    name, content type, bytes)."""
    boundary = "groupie-" + uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, kind, data) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                     f"Content-Type: {kind}\r\n\r\n".encode() + data + b"\r\n")
    return f"multipart/form-data; boundary={boundary}", b"".join(parts) + f"--{boundary}--\r\n".encode()


class Api:
    """Requests to one server (`base`: http://host:port or https://…, with `context` for TLS).
    With `keep_alive`, one connection is kept between requests (one request at a time)."""

    def __init__(self, base, *, token=None, timeout=60, context=None, headers=None, keep_alive=False, name=None):
        parts = urllib.parse.urlsplit(base)
        self.base, self.host, self.port = base.rstrip("/"), parts.hostname, parts.port
        self.https = parts.scheme == "https"
        self.context = context or (ssl.create_default_context() if self.https else None)
        self.token, self.timeout, self.headers, self.keep_alive, self.name = token, timeout, headers or {}, keep_alive, name
        self.kept = None

    def connection(self, timeout=None):
        """A new connection to the server, for a caller that reads the response itself (a stream)."""
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout or self.timeout, context=self.context)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout or self.timeout)

    def close(self):
        if self.kept is not None:
            self.kept.close()
            self.kept = None

    def request(self, method, path, body=None, *, token=None, content_type=None, headers=None, form=None,
                expect=OK, timeout=None):
        """Sends a request and reads the whole answer. `body`: a dict or list (sent as JSON),
        bytes (sent as `content_type`) or None; `form`: fields sent as an urlencoded form;
        `token`: the bearer token (the client's own by default); `expect`: the statuses that are
        right (None: any), anything else raises Problem. Returns an Answer."""
        sent = dict(self.headers)
        if isinstance(body, (dict, list)):
            body, content_type = json.dumps(body).encode(), content_type or "application/json"
        elif form is not None:
            body, content_type = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
        if body is not None:
            sent["Content-Type"] = content_type or "application/octet-stream"
        token = token or self.token
        if token:
            sent["Authorization"] = "Bearer " + token
        sent.update(headers or {})
        connection = self.kept if self.keep_alive and self.kept is not None else self.connection(timeout)
        try:
            if timeout and connection.sock is not None:
                connection.sock.settimeout(timeout)
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            answer = Answer(response.status, response.headers, response.read())
            closing = response.will_close
        except BaseException:
            connection.close()
            self.kept = None
            raise
        if self.keep_alive and not closing:
            self.kept = connection
        else:
            connection.close()
            self.kept = None
        if expect is not None and answer.status not in expect:
            raise Problem(self.name, method, path, answer)
        return answer

    def call(self, method, path, body=None, **options):
        """`request`, and the answer's `data` (JSON, None, or bytes)."""
        return self.request(method, path, body, **options).data

    def get(self, path, token=None, **options):
        """GET's answer's `data`, as the player of `token`."""
        return self.call("GET", path, token=token, **options)

    # --- what most tests and benchmarks do first
    def new_player(self, name="Player", lang=None, **options):
        """POST /players: the answer, {"token", "player"}."""
        return self.call("POST", "/api/v1/players", {"name": name, **({"lang": lang} if lang else {})}, **options)

    def new_group(self, token, venue="science-centre", name=None, **options):
        """POST /groups as the player of `token`: the group document."""
        body = {"venueId": venue, **({"name": name} if name else {})}
        return self.call("POST", "/api/v1/groups", body, token=token, **options)["group"]

    def join(self, token, code, **options):
        return self.call("POST", "/api/v1/groups/join", {"code": code}, token=token, **options)

    def player_in_group(self, venue="science-centre", name="Bench"):
        """A new player in a new group of their own: (token, group document)."""
        token = self.new_player(name)["token"]
        return token, self.new_group(token, venue)

    def upload(self, group_id, photo, token=None, *, mission=None, task=None, form=False, choose=None,
               idempotency_key=None, content_type="image/jpeg", expect=(201,), **options):
        """POST /groups/{id}/photos: the image's bytes as the body, or with `form` as the file
        field of a multipart form. Returns the Answer (its data's "photo" is the photo)."""
        query = {k: v for k, v in (("mission", mission), ("task", task), ("choose", choose)) if v is not None}
        path = f"/api/v1/groups/{group_id}/photos" + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = dict(options.pop("headers", None) or {})
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        if form:
            content_type, photo = multipart({}, {"photo": ("photo.jpg", content_type, photo)})
        return self.request("POST", path, photo, token=token, content_type=content_type, headers=headers,
                            expect=expect, **options)

    def upload_photo(self, group_id, photo, token=None, **options):
        """`upload`, and the stored photo's document."""
        return self.upload(group_id, photo, token, **options).data["photo"]


def request_bytes(method, target, headers=(), body=b"", host="127.0.0.1"):
    """An HTTP/1.1 request as bytes, for a client that writes to a socket itself. `headers`:
    (name, value) pairs or a dict."""
    pairs = list(headers.items()) if isinstance(headers, dict) else list(headers)
    if not any(name.lower() == "host" for name, _ in pairs):
        pairs.insert(0, ("Host", host))
    if body:
        pairs.append(("Content-Length", str(len(body))))
    return (f"{method} {target} HTTP/1.1\r\n" + "".join(f"{n}: {v}\r\n" for n, v in pairs) + "\r\n").encode() + body


def parse_head(buffer):
    """A response's status line and headers at the start of `buffer`: (status, headers with
    lower-cased names, the bytes after the head), or None while the head is incomplete. Raises
    ValueError for a status line that is not HTTP's."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = buffer[:end].decode("latin-1").split("\r\n")
    parts = lines[0].split()
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ValueError(f"bad status line {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers, buffer[end + 4:]


def path_of(url):
    """A URL from a document, absolute or not, as the path and query to ask for."""
    parts = urllib.parse.urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")
