"""Groupie's Python harness: what the end-to-end, browser and API tests, the benchmarks and the
soak share. Each part is a module of its own:

- `checks`: `Failure`, `check`, a timed `logger`, `require` (a tool that `scripts/bootstrap`
  installs), `percentile` and `median`;
- `server`: `free_port`, and `Server`, a `groupie serve` on a free port, ready at `/readyz`,
  its log in a file, stopped with SIGTERM and its exit status kept;
- `client`: `Api`, the one HTTP client of the API (JSON, bearer tokens, problem documents,
  photo uploads raw or as a form), and the raw HTTP/1.1 pieces the streaming clients use;
- `events`: the event-stream (SSE) reader: an incremental parser, chunked transfer coding, and
  `EventStream`, a stream read in a thread of its own;
- `aio`: the same client and reader over asyncio, for thousands of connections at once;
- `photos`: the fixture photos and JPEGs made with the vips command line;
- `staff`: staff accounts (`groupie staff add`) and signing in through the form;
- `tls`: a private certificate authority made with openssl, and the server certificates it
  issues (valid, expired, for other names), for the HTTPS tests;
- `postgres`: a throw-away PostgreSQL cluster (`scripts/postgres-cluster`,
  `scripts/with-postgres`) and databases of a test's own on it.

A script finds the package by putting `Tests/harness` on `sys.path`.
"""
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
