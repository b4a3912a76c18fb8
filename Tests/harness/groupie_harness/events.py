"""The event-stream (Server-Sent Events) reader: an incremental parser of the events, chunked
transfer coding taken apart, and `EventStream`, a group's stream read in a thread of its own.
Every reader of Groupie's streams uses these, whatever brings it the bytes (http.client, a
socket under a selector, asyncio)."""
import queue
import socket
import threading
import time

from .checks import Failure


class SSEParser:
    """Takes a stream's bytes as they come (`feed`) and calls `on_event(fields)` for each event,
    a dict of its fields (`event`, `id`, `data`, `retry`; data lines joined with newlines), and
    `on_comment(text)` for each comment line (Groupie's heartbeats)."""

    def __init__(self, on_event, on_comment=None):
        self.on_event, self.on_comment = on_event, on_comment
        self.pending = b""
        self.fields = {}

    def feed(self, data):
        self.pending += data
        *lines, self.pending = self.pending.split(b"\n")
        for raw in lines:
            self.line(raw.rstrip(b"\r").decode("utf-8", "replace"))

    def line(self, line):
        if line == "":
            fields, self.fields = self.fields, {}
            if fields:
                self.on_event(fields)
        elif line.startswith(":"):
            if self.on_comment:
                self.on_comment(line[1:].lstrip(" "))
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data" and "data" in self.fields:
                self.fields["data"] += "\n" + value
            else:
                self.fields[name] = value

    def close(self):
        """The stream ended: what was read of an event it cut short is passed on too."""
        if self.pending:
            self.line(self.pending.rstrip(b"\r").decode("utf-8", "replace"))
            self.pending = b""
        self.line("")


class ChunkDecoder:
    """Takes chunked transfer coding apart: `feed(bytes)` returns the payload that came whole
    so far; `ended` once the last (empty) chunk arrived. Raises ValueError on a bad size line."""

    def __init__(self):
        self.buffer = b""
        self.left = None    # bytes left of the current chunk; None while reading a size line
        self.ended = False

    def feed(self, data):
        self.buffer += data
        out = []
        while not self.ended:
            if self.left is None:
                end = self.buffer.find(b"\r\n")
                if end < 0:
                    break
                try:
                    size = int(self.buffer[:end].split(b";")[0], 16)
                except ValueError:
                    raise ValueError(f"bad chunk size {self.buffer[:end][:40]!r}") from None
                self.buffer = self.buffer[end + 2:]
                if size == 0:
                    self.ended = True
                    break
                self.left = size
            take = self.buffer[:self.left]
            if take:
                self.buffer = self.buffer[len(take):]
                self.left -= len(take)
                out.append(take)
            if self.left > 0 or len(self.buffer) < 2:
                break
            self.buffer = self.buffer[2:]
            self.left = None
        return b"".join(out)


def read_events(response, on_event):
    """Reads the events of an `http.client` response until the stream ends, calling
    `on_event(id, event, data)` for each event with a type (id 0 when it has none). Comments
    (heartbeats) are skipped; a chunked stream, as a proxy sends it, is read through the
    response."""
    parser = SSEParser(lambda f: on_event(int(f.get("id", 0)), f["event"], f.get("data", "")) if "event" in f else None)
    while True:
        try:
            line = response.readline()
        except OSError:
            return
        if not line:
            return
        parser.feed(line)


def parse_events(body):
    """The events of a whole (possibly cut short) stream body, as dicts of their fields."""
    events = []
    parser = SSEParser(events.append)
    parser.feed(body.replace(b"\r\n", b"\n").replace(b"\r", b"\n"))
    parser.close()
    return events


class EventStream(threading.Thread):
    """A group's event stream (or any other), read in a thread of its own: each event with a
    type goes with its arrival time, (time, id, event, data), into `events` (a queue), or to
    `on_event(time, id, event, data)` when given. `opened` is set once the answer's head is in;
    `status` is its status."""

    def __init__(self, api, path, token=None, *, headers=None, last_event_id=None, on_event=None, timeout=120, name="the"):
        super().__init__(daemon=True)
        self.api, self.path, self.token, self.timeout, self.name_ = api, path, token, timeout, name
        self.headers = dict(headers or {})
        if last_event_id is not None:
            self.headers["Last-Event-ID"] = str(last_event_id)
        self.events = queue.Queue()
        self.on_event = on_event or (lambda *event: self.events.put(event))
        self.opened = threading.Event()
        self.connection = None
        self.status = None

    def run(self):
        self.connection = connection = self.api.connection(self.timeout)
        headers = dict(self.headers)
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        connection.request("GET", self.path, headers=headers)
        response = connection.getresponse()
        self.status = response.status
        self.opened.set()
        read_events(response, lambda id, event, data: self.on_event(time.monotonic(), id, event, data))

    def close(self):
        """Drops the connection, as a phone losing its Wi-Fi does."""
        if self.connection is not None and self.connection.sock is not None:
            try:
                self.connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.join(10)

    def wait_for(self, predicate, what, timeout=20):
        """The first event from now on for which `predicate((time, id, event, data))` holds, and
        every event seen meanwhile; raises Failure when none comes within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(event)
            if predicate(event):
                return event, seen
        raise Failure(f"{self.name_}'s stream did not show {what} within {timeout} s; it showed {[(e[1], e[2]) for e in seen]}")

    def drain(self):
        """The events that arrived and were not yet taken."""
        taken = []
        while not self.events.empty():
            taken.append(self.events.get())
        return taken
