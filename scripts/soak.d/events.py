"""Reading an event stream: the request, the response head, chunked transfer coding and the
server-sent events, with event ids checked to be consecutive per stream."""

import json
import os
import random
import selectors
import socket
import time
import urllib.parse

from stats import STATS


class EventReading:
    """The reading half of StreamManager (streams.py), kept apart to keep each file short. Uses its
    `port`, `sel`, `_failed`, `_ended` and `_lost`."""

    def _request(self, s):
        target = f"/api/v1/groups/{s.m.group_id}/events"
        query = []
        headers = [f"Host: 127.0.0.1:{self.port}", "Accept: text/event-stream", "Cache-Control: no-cache"]
        if s.token:
            query.append("token=" + urllib.parse.quote(s.token))
        else:
            headers.append("Authorization: Bearer " + s.m.player.token)
        if s.seen_any:
            if random.random() < 0.8:
                headers.append(f"Last-Event-ID: {s.last_id}")
            else:
                query.append(f"lastEventId={s.last_id}")
        if query:
            target += "?" + "&".join(query)
        return (f"GET {target} HTTP/1.1\r\n" + "\r\n".join(headers) + "\r\n\r\n").encode()

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
            end = s.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head, rest = s.buf[:end].decode("latin-1"), s.buf[end + 4:]
            s.buf = b""
            lines = head.split("\r\n")
            try:
                status = int(lines[0].split()[1])
            except (IndexError, ValueError):
                self._failed(s, f"bad status line {lines[0]!r}")
                return
            STATS.request("GET /groups/{id}/events", status, 0.0)
            if status != 200:
                kind = "5xx" if status >= 500 else "unexpected 4xx" if status >= 400 else "unexpected status"
                STATS.error(kind, f"GET /groups/{{id}}/events -> {status}: {rest[:200]!r}")
                self._lost(s, count_reconnect=False)
                return
            fields = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
            s.chunked = "chunked" in fields.get("transfer-encoding", "").lower()
            s.state = "body"
            if s.reconnecting:
                s.reconnecting = False
                STATS.count("streams reconnected")
            data = rest
        if s.chunked:
            self._dechunk(s, data)
        else:
            self._sse(s, data)

    def _dechunk(self, s, data):
        s.buf += data
        while s.sock is not None:
            if s.chunk_left is None:
                end = s.buf.find(b"\r\n")
                if end < 0:
                    return
                try:
                    size = int(s.buf[:end].split(b";")[0], 16)
                except ValueError:
                    self._failed(s, f"bad chunk size {s.buf[:end][:40]!r}")
                    return
                s.buf = s.buf[end + 2:]
                if size == 0:
                    self._ended(s, "the server ended the response")
                    return
                s.chunk_left = size
            take = s.buf[:s.chunk_left]
            if take:
                s.buf = s.buf[len(take):]
                s.chunk_left -= len(take)
                self._sse(s, take)
            if s.chunk_left > 0:
                return
            if len(s.buf) < 2:
                return
            s.buf = s.buf[2:]
            s.chunk_left = None

    def _sse(self, s, data):
        s.lines += data
        *complete, s.lines = s.lines.split(b"\n")
        for raw in complete:
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            if line == "":
                if s.event:
                    self._dispatch(s, s.event)
                s.event = {}
            elif line.startswith(":"):
                STATS.count("heartbeats")
            else:
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data" and "data" in s.event:
                    s.event["data"] += "\n" + value
                else:
                    s.event[name] = value

    def _dispatch(self, s, event):
        kind = event.get("event", "message")
        if kind == "resync":
            s.resync = True
            return
        if "id" not in event:
            return      # `retry:` alone
        try:
            seq = int(event["id"])
            json.loads(event.get("data", ""))
        except ValueError:
            STATS.error("bad event", f"group {s.m.group_id}: {event!r}")
            return
        if seq != s.last_id + 1:
            kind_ = "event id gap" if seq > s.last_id + 1 else "event id repeated"
            STATS.error(kind_, f"group {s.m.group_id}: event {seq} ({kind}) after {s.last_id} "
                               f"{'(after a reconnect)' if s.seen_any else ''}")
        s.last_id = max(s.last_id, seq)
        s.seen_any = True
        STATS.count("events")
        STATS.count("event " + kind)
