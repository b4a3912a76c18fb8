"""The API client and the event-stream reader over asyncio, for the benchmarks that hold
thousands of connections at once in one thread: kept-alive connections (one request at a
time each), a pool of them, and event streams read through `events.SSEParser`."""
import asyncio
import json

from .checks import Failure
from .client import request_bytes
from .events import ChunkDecoder, SSEParser


async def read_head(reader):
    """The status and the headers (lower-cased names) of a response."""
    line = await reader.readline()
    if not line:
        raise ConnectionError("the server closed the connection")
    status = int(line.split(b" ", 2)[1])
    headers = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            return status, headers
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()


def encode(method, path, body=None, token=None, content_type="application/json", headers=()):
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else (body or b"")
    pairs = [("Host", "127.0.0.1"), ("Content-Length", str(len(data)))]
    if data:
        pairs.append(("Content-Type", content_type))
    if token:
        pairs.append(("Authorization", f"Bearer {token}"))
    return request_bytes(method, path, [*pairs, *headers]) + data


class Connection:
    """One kept-alive connection to 127.0.0.1:`port`; one request at a time."""

    def __init__(self, port):
        self.port = port
        self.reader = self.writer = None

    async def request(self, method, path, body=None, token=None, content_type="application/json"):
        """The answer's JSON (None when empty); raises Failure for a status of 300 or more."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write(encode(method, path, body, token, content_type))
        status, headers = await read_head(self.reader)
        if headers.get("transfer-encoding", "").lower() == "chunked":
            text = b""
            while size := int((await self.reader.readline()).split(b";")[0], 16):
                text += (await self.reader.readexactly(size + 2))[:-2]
            await self.reader.readline()
        else:
            text = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            self.close()
        if status >= 300:
            raise Failure(f"{method} {path.split('?')[0]} answered {status}: {text[:300].decode(errors='replace')}")
        return json.loads(text) if text else None

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Pool:
    """`size` kept-alive connections; each request takes a free one."""

    def __init__(self, port, size):
        self.connections = [Connection(port) for _ in range(size)]
        self.free = asyncio.Queue()
        for connection in self.connections:
            self.free.put_nowait(connection)

    async def call(self, *arguments, **options):
        connection = await self.free.get()
        try:
            return await connection.request(*arguments, **options)
        except BaseException:
            connection.close()
            raise
        finally:
            self.free.put_nowait(connection)

    def close(self):
        for connection in self.connections:
            connection.close()


async def open_stream(port, path, token=None):
    """Opens an event stream (bearer `token`, or a `?token=` in `path`): (reader, writer) once it
    was answered 200 with chunked transfer coding, as Groupie's streams are; raises Failure else."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request_bytes("GET", path, [("Accept", "text/event-stream"),
                                             *([("Authorization", f"Bearer {token}")] if token else [])]))
    status, headers = await read_head(reader)
    if status != 200 or headers.get("transfer-encoding", "").lower() != "chunked":
        writer.close()
        raise Failure(f"an event stream was answered {status}, {headers}")
    return reader, writer


async def read_stream(reader, on_event, on_comment=None, on_bytes=None):
    """Reads an opened stream until it ends (the last chunk, or the connection closed), passing
    its events and comments to `on_event(fields)` and `on_comment(text)`; `on_bytes()` is called
    as each read returns, before its events (for the time they arrived). Returns True when the
    server ended the response, False when the connection ended first."""
    decoder, parser = ChunkDecoder(), SSEParser(on_event, on_comment)
    while not decoder.ended:
        data = await reader.read(65536)
        if not data:
            return False
        if on_bytes:
            on_bytes()
        parser.feed(decoder.feed(data))
    return True
