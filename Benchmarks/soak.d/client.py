"""HTTP for the soak test: one phone's keep-alive connection (the harness's client), every
request counted in STATS."""

import http.client
import json
import random
import select
import socket
import time

from groupie_harness.client import Api
from stats import STATS, Unexpected

REQUEST_TIMEOUT = 120        # seconds; a debug build draws collages slowly


class Client:
    """One phone's keep-alive HTTP/1.1 connection to the server, with accounting."""

    def __init__(self, port, address=None):
        self.port = port
        self.api = Api(f"http://127.0.0.1:{port}", timeout=REQUEST_TIMEOUT, keep_alive=True)
        # The address a proxy the server trusts gives: the attacker's own, or for the game a
        # phone's of a museum's many (one a request, as a worker plays many phones in turn).
        self.address = address

    def close(self):
        self.api.close()

    def call(self, route, method, path, expect, body=None, token=None, headers=None, content_type=None):
        """`expect`: the statuses that are right. Returns (status, headers, bytes); raises Unexpected."""
        kept = self.api.kept
        if kept is not None and kept.sock is not None and select.select([kept.sock], [], [], 0)[0]:
            # The server closed the connection while it was idle (its keep-alive timeout): like a
            # browser, open another instead of sending on it.
            self.api.close()
        address = self.address or f"10.{random.randrange(1, 60)}.{random.randrange(256)}.{random.randrange(1, 255)}"
        sent = {"Host": f"127.0.0.1:{self.port}", "X-Forwarded-For": address, **(headers or {})}
        start = time.monotonic()
        try:
            answer = self.api.request(method, path, body, token=token, content_type=content_type, headers=sent, expect=None)
        except (OSError, http.client.HTTPException) as failure:
            seconds = time.monotonic() - start
            kind = "timeout" if isinstance(failure, (socket.timeout, TimeoutError)) else "connection error"
            STATS.request(route, kind, seconds)
            STATS.error(kind, f"{method} {route}: {type(failure).__name__}: {failure} after {seconds:.1f} s")
            raise Unexpected() from None
        seconds = time.monotonic() - start
        status, data = answer.status, answer.body
        STATS.request(route, status, seconds)
        if status not in expect:
            kind = "5xx" if status >= 500 else "unexpected 4xx" if status >= 400 else "unexpected status"
            STATS.error(kind, f"{method} {route} -> {status} (expected {sorted(expect)}), "
                              f"request id {answer.headers.get('X-Request-Id')}: {data[:200]!r}")
            raise Unexpected()
        return status, answer.headers, data

    def json(self, route, method, path, expect, **kw):
        _, _, data = self.call(route, method, path, expect, **kw)
        if not data:
            return None
        try:
            return json.loads(data)
        except ValueError:
            STATS.error("bad response", f"{method} {route}: not JSON: {data[:200]!r}")
            raise Unexpected() from None
