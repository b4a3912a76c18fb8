"""Reading an event stream from a socket under the selector: the request, the response head,
and the events (the harness's chunk decoder and SSE parser), with event ids checked to be
consecutive per stream and each staff message checked to be one the venue's staff sent."""

import json
import os
import random
import selectors
import socket
import time
import urllib.parse

from groupie_harness.client import parse_head, request_bytes
from groupie_harness.events import ChunkDecoder, SSEParser
from model import MESSAGES
from stats import STATS


class EventReading:
    """The reading half of StreamManager (streams.py), kept apart to keep each file short. Uses its
    `port`, `sel`, `_failed`, `_ended` and `_lost`."""

    def _reset(self, s):
        """A new connection's reading state."""
        s.buf, s.decoder, s.resync = b"", None, False
        s.parser = SSEParser(lambda event: self._dispatch(s, event), lambda _: STATS.count("heartbeats"))

    def _request(self, s):
        target = f"/api/v1/groups/{s.m.group_id}/events"
        query = []
        headers = [("Host", f"127.0.0.1:{self.port}"), ("Accept", "text/event-stream"), ("Cache-Control", "no-cache")]
        if s.token:
            query.append("token=" + urllib.parse.quote(s.token))
        else:
            headers.append(("Authorization", "Bearer " + s.m.player.token))
        if s.seen_any:
            if random.random() < 0.8:
                headers.append(("Last-Event-ID", str(s.last_id)))
            else:
                query.append(f"lastEventId={s.last_id}")
        if query:
            target += "?" + "&".join(query)
        return request_bytes("GET", target, headers)

    def _ready(self, s, mask):
        if s.sock is None:
            return
        if s.state == "connecting":
            code = s.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if code:
                self._failed(s, f"connect: {os.strerror(code)}")
                return
            try:
                s.sock.sendall(self._request(s))   # small: fits the empty send buffer
            except OSError as failure:
                self._failed(s, f"send: {failure}")
                return
            s.state = "headers"
            self.sel.modify(s.sock, selectors.EVENT_READ, s)
            return
        try:
            data = s.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError as failure:
            self._failed(s, f"recv: {failure}")
            return
        if not data:
            self._ended(s, "the server closed the connection")
            return
        s.last_byte = time.monotonic()
        STATS.count("stream bytes", len(data))
        if s.state == "headers":
            s.buf += data
            try:
                head = parse_head(s.buf)
            except ValueError as failure:
                self._failed(s, str(failure))
                return
            if head is None:
                return
            status, fields, rest = head
            s.buf = b""
            STATS.request("GET /groups/{id}/events", status, 0.0)
            if status != 200:
                kind = "5xx" if status >= 500 else "unexpected 4xx" if status >= 400 else "unexpected status"
                STATS.error(kind, f"GET /groups/{{id}}/events -> {status}: {rest[:200]!r}")
                self._lost(s, count_reconnect=False)
                return
            s.decoder = ChunkDecoder() if "chunked" in fields.get("transfer-encoding", "").lower() else None
            s.state = "body"
            if s.reconnecting:
                s.reconnecting = False
                STATS.count("streams reconnected")
            data = rest
        if s.decoder is None:
            s.parser.feed(data)
            return
        try:
            s.parser.feed(s.decoder.feed(data))
        except ValueError as failure:
            self._failed(s, str(failure))
            return
        if s.decoder.ended and s.sock is not None:
            self._ended(s, "the server ended the response")

    def _dispatch(self, s, event):
        kind = event.get("event", "message")
        if kind == "resync":
            s.resync = True
            return
        if "id" not in event:
            return      # `retry:` alone
        try:
            seq = int(event["id"])
            data = json.loads(event.get("data", ""))
        except ValueError:
            STATS.error("bad event", f"group {s.m.group_id}: {event!r}")
            return
        if kind == "staff-message" and seq > s.last_id:
            # A message the venue's staff sent to this group or to all of the venue's (soak.d/staff.py).
            if not MESSAGES.sent(s.m.venue_id, s.m.group_id, data.get("text")):
                STATS.error("inconsistent answer", f"group {s.m.group_id}: a staff-message the staff did not send: {data!r}")
            STATS.count("staff messages seen on phones")
        if seq != s.last_id + 1:
            kind_ = "event id gap" if seq > s.last_id + 1 else "event id repeated"
            STATS.error(kind_, f"group {s.m.group_id}: event {seq} ({kind}) after {s.last_id} "
                               f"{'(after a reconnect)' if s.seen_any else ''}")
        s.last_id = max(s.last_id, seq)
        s.seen_any = True
        STATS.count("events")
        STATS.count("event " + kind)
