"""The live event streams: one selector thread holds `target` streams open on the members of the
active groups, reconnects a stream that ends, and moves streams to members without one."""

import errno
import os
import queue
import random
import selectors
import socket
import threading
import time

from client import REQUEST_TIMEOUT, Client
from events import EventReading
from stats import STATS, Unexpected

STREAM_SILENCE = 45          # seconds without a byte (heartbeats come every 15 s)


class Stream:
    def __init__(self, membership):
        self.m = membership
        self.sock = None
        self.state = "idle"        # idle, token, connecting, headers, body, closed
        self.buf = b""
        self.last_id = 0
        self.seen_any = False
        self.reconnect_at = 0.0
        self.reconnecting = False
        self.token = None
        self.last_byte = 0.0
        self.decoder = self.parser = None   # the reading state (events.py)
        self.resync = False


STREAMS_PER_PLAYER = 4      # the server's --streams-per-player


class StreamManager(EventReading, threading.Thread):
    """Keeps `target` event streams open on the active memberships, in one selector loop."""

    def __init__(self, port, target):
        super().__init__(daemon=True, name="streams")
        self.port, self.target = port, target
        self.sel = selectors.DefaultSelector()
        self.commands = queue.Queue()
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.sel.register(self.wake_r, selectors.EVENT_READ, None)
        self.memberships = []
        self.streams = []
        self.shutting_down = False
        self.stopped = False
        self.tokens = queue.Queue()
        self.open_samples = []
        threading.Thread(target=self._token_loop, daemon=True, name="stream-tokens").start()

    # --- called from other threads
    def _send(self, command):
        self.commands.put(command)
        try:
            self.wake_w.send(b"x")
        except OSError:
            pass

    def attach(self, membership):
        self._send(("attach", membership, None))

    def detach(self, membership):
        """The phone leaves: no token request runs for it after this, and its streams are closed."""
        with membership.lock:
            membership.detached = True
        done = threading.Event()
        self._send(("detach", membership, done))
        done.wait(10)

    def begin_shutdown(self):
        self._send(("shutdown", None, None))

    def stop(self):
        self._send(("stop", None, None))

    def open_count(self):
        return sum(1 for s in self.streams if s.state == "body")

    # --- stream tokens, fetched by a helper thread so the selector never blocks
    def _token_loop(self):
        client = Client(self.port)
        while True:
            stream = self.tokens.get()
            if stream is None:
                return
            token = None
            with stream.m.lock:
                if not stream.m.detached:
                    try:
                        token = client.json("POST /groups/{id}/events/token", "POST",
                                            f"/api/v1/groups/{stream.m.group_id}/events/token", {200},
                                            token=stream.m.player.token)["token"]
                    except Unexpected:
                        pass
            self._send(("token", stream, token))

    # --- the selector loop
    def run(self):
        next_balance = 0.0
        while not self.stopped:
            now = time.monotonic()
            timeout = 0.5
            for key, mask in self.sel.select(timeout):
                if key.data is None:
                    try:
                        while self.wake_r.recv(4096):
                            pass
                    except BlockingIOError:
                        pass
                    continue
                self._ready(key.data, mask)
            while True:
                try:
                    command = self.commands.get_nowait()
                except queue.Empty:
                    break
                self._command(*command)
            now = time.monotonic()
            if now >= next_balance:
                next_balance = now + 0.25
                self._balance(now)

    def _command(self, kind, arg, extra):
        if kind == "attach":
            if not arg.detached:
                self.memberships.append(arg)
        elif kind == "detach":
            if arg in self.memberships:
                self.memberships.remove(arg)
            for s in [s for s in self.streams if s.m is arg]:
                self._close(s)
                self.streams.remove(s)
                STATS.count("streams closed by the script")
            arg.streams = 0
            extra.set()
        elif kind == "token":
            stream = arg
            if stream in self.streams and stream.state == "token":
                if extra is None:
                    # The request was counted as an error; try again later with the bearer header.
                    stream.state = "idle"
                    stream.reconnect_at = time.monotonic() + 2
                else:
                    stream.token = extra
                    self._connect(stream)
        elif kind == "shutdown":
            self.shutting_down = True
        elif kind == "stop":
            self.stopped = True
            self.tokens.put(None)
            for s in self.streams:
                self._close(s)

    def _balance(self, now):
        if self.shutting_down:
            return
        for s in self.streams:
            if s.state == "idle" and now >= s.reconnect_at:
                self._start(s)
            elif s.state == "body" and now - s.last_byte > STREAM_SILENCE:
                STATS.error("event stream silent", f"group {s.m.group_id}: nothing for {STREAM_SILENCE} s, "
                                                   f"not even a heartbeat; reconnecting")
                self._lost(s)
            elif s.state in ("connecting", "headers") and now - s.last_byte > REQUEST_TIMEOUT:
                STATS.error("event stream timeout", f"group {s.m.group_id}: no answer in {REQUEST_TIMEOUT} s")
                self._lost(s)
        # No member holds more streams than the server lets one player keep (phones and tabs):
        # a newer one would end their oldest.
        while len(self.streams) < self.target and any(m.streams < STREAMS_PER_PLAYER for m in self.memberships):
            fewest = min(m.streams for m in self.memberships)
            self._open(random.choice([m for m in self.memberships if m.streams == fewest]))
        # A member's second phone gives way to a member without one (at the start, the first
        # groups get every stream).
        for _ in range(20):
            bare = [m for m in self.memberships if m.streams == 0]
            doubled = [s for s in self.streams if s.m.streams > 1]
            if not bare or not doubled:
                break
            s = random.choice(doubled)
            self._close(s)
            self.streams.remove(s)
            s.m.streams -= 1
            STATS.count("streams moved to another member")
            self._open(random.choice(bare))

    def _open(self, m):
        m.streams += 1
        s = Stream(m)
        self.streams.append(s)
        self._start(s)

    def _start(self, s):
        """Connect (or reconnect): like the web client, mostly with a stream token."""
        s.token = None
        if random.random() < 0.6:
            s.state = "token"
            s.last_byte = time.monotonic()
            self.tokens.put(s)
        else:
            self._connect(s)

    def _connect(self, s):
        self._reset(s)
        s.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.sock.setblocking(False)
        code = s.sock.connect_ex(("127.0.0.1", self.port))
        if code not in (0, errno.EINPROGRESS):
            self._failed(s, f"connect: {os.strerror(code)}")
            return
        s.state = "connecting"
        s.last_byte = time.monotonic()
        self.sel.register(s.sock, selectors.EVENT_WRITE, s)
        STATS.count("stream connections")

    def _close(self, s):
        if s.sock is not None:
            try:
                self.sel.unregister(s.sock)
            except (KeyError, ValueError):
                pass
            s.sock.close()
            s.sock = None
        s.state = "closed"

    def _ended(self, s, why):
        if self.shutting_down:
            STATS.count("streams ended by the server at shutdown")
            self._close(s)
            return
        if s.resync:
            STATS.error("event stream resync", f"group {s.m.group_id}: told to resync after event {s.last_id}")
        else:
            STATS.error("event stream ended", f"group {s.m.group_id}: {why} after event {s.last_id}")
        self._lost(s)

    def _failed(self, s, why):
        if self.shutting_down:
            self._close(s)
            return
        STATS.error("event stream connection error", f"group {s.m.group_id}: {why}")
        self._lost(s)

    def _lost(self, s, count_reconnect=True):
        self._close(s)
        s.state = "idle"
        s.reconnecting = count_reconnect
        s.reconnect_at = time.monotonic() + 2.0     # the server's `retry: 2000`
