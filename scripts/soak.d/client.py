"""HTTP for the soak test: one phone's keep-alive connection, every request counted in STATS."""

import http.client
import json
import random
import socket
import time
import urllib.parse

from stats import STATS, Unexpected

REQUEST_TIMEOUT = 120        # seconds; a debug build draws collages slowly


class Client:
    """One phone's keep-alive HTTP/1.1 connection to the server, with accounting."""

    def __init__(self, port, address=None):
        self.port = port
        self.conn = None
        # The address a proxy the server trusts gives: the attacker's own, or for the game a
        # phone's of a museum's many (one a request, as a worker plays many phones in turn).
        self.address = address

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, route, method, path, expect, body=None, token=None, headers=None, content_type=None):
        """`expect`: the statuses that are right. Returns (status, headers, bytes); raises Unexpected."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            content_type = content_type or "application/json"
        address = self.address or f"10.{random.randrange(1, 60)}.{random.randrange(256)}.{random.randrange(1, 255)}"
        hdrs = {"Host": f"127.0.0.1:{self.port}", "X-Forwarded-For": address}
        if content_type:
            hdrs["Content-Type"] = content_type
        if token:
            hdrs["Authorization"] = "Bearer " + token
        if headers:
            hdrs.update(headers)
        start = time.monotonic()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
            self.conn.request(method, path, body=body, headers=hdrs)
            response = self.conn.getresponse()
            data = response.read()
            status, rheaders = response.status, response.headers
            if response.will_close:
                self.close()
        except (OSError, http.client.HTTPException) as failure:
            self.close()
            seconds = time.monotonic() - start
            kind = "timeout" if isinstance(failure, (socket.timeout, TimeoutError)) else "connection error"
            STATS.request(route, kind, seconds)
            STATS.error(kind, f"{method} {route}: {type(failure).__name__}: {failure} after {seconds:.1f} s")
            raise Unexpected() from None
        seconds = time.monotonic() - start
        STATS.request(route, status, seconds)
        if status not in expect:
            kind = "5xx" if status >= 500 else "unexpected 4xx" if status >= 400 else "unexpected status"
            STATS.error(kind, f"{method} {route} -> {status} (expected {sorted(expect)}), "
                              f"request id {rheaders.get('X-Request-Id')}: {data[:200]!r}")
            raise Unexpected()
        return status, rheaders, data

    def json(self, route, method, path, expect, **kw):
        status, _, data = self.call(route, method, path, expect, **kw)
        if not data:
            return None
        try:
            return json.loads(data)
        except ValueError:
            STATS.error("bad response", f"{method} {route}: not JSON: {data[:200]!r}")
            raise Unexpected() from None


def path_of(url):
    """A signed URL from a document, absolute or not, as the path and query to ask for."""
    parts = urllib.parse.urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")
