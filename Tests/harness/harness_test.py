#!/usr/bin/env python3
"""The harness's own test: what every Python test and benchmark leans on, checked against a real
server, so that a harness that stopped seeing a failure shows here first.

  - the event-stream parser and the chunk decoder on streams cut at every byte;
  - a server starts on a free port, answers /readyz, and exits 0 on SIGTERM;
  - the client sends JSON with a bearer token, and raises Problem with the problem document's
    code for an answer it did not expect;
  - a photo uploads as the body and as an HTML form's file field, and both reach a teammate's
    event stream.

Usage: harness_test.py path/to/groupie. Exits 1 on any failure.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from groupie_harness.checks import Failure, check, logger  # noqa: E402
from groupie_harness.client import Problem  # noqa: E402
from groupie_harness.events import ChunkDecoder, EventStream, SSEParser, parse_events  # noqa: E402
from groupie_harness.photos import FIXTURES  # noqa: E402
from groupie_harness.server import Server  # noqa: E402

log = logger("harness")
STREAM = b"retry: 2000\n\n: heartbeat\n\nid: 1\nevent: member-joined\ndata: {\"a\":\ndata: 1}\n\nid: 2\r\nevent: x\r\ndata: y\r\n\r\n"


def parsing():
    """Every split of a stream gives the same events, chunked or not."""
    expected = [{"retry": "2000"}, {"id": "1", "event": "member-joined", "data": "{\"a\":\n1}"}, {"id": "2", "event": "x", "data": "y"}]
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (STREAM[:7], STREAM[7:40], STREAM[40:])) + b"0\r\n\r\n"
    for cut in range(len(chunked)):
        events, comments = [], []
        decoder, parser = ChunkDecoder(), SSEParser(events.append, comments.append)
        for piece in (chunked[:cut], chunked[cut:]):
            parser.feed(decoder.feed(piece))
        check(events == expected and comments == ["heartbeat"] and decoder.ended, f"cut at {cut}: {events} {comments}")
    check(parse_events(STREAM[:-4]) == expected, f"a stream cut short: {parse_events(STREAM[:-4])}")
    try:
        ChunkDecoder().feed(b"zz\r\n")
        raise Failure("a bad chunk size is taken")
    except ValueError:
        pass
    log("the event-stream parser and the chunk decoder read a stream cut anywhere")


def serving(binary, work):
    server = Server(binary, work, grace=10)
    stream = None
    try:
        api = server.api
        check(api.get("/readyz")["status"] == "ready", "the server is ready")
        ada = api.new_player("Ada", "en")
        group = api.new_group(ada["token"], "science-centre", "Harness")
        bo = api.new_player("Bo")
        api.join(bo["token"], group["joinCode"])
        me = api.get("/api/v1/me", ada["token"])
        check(me["group"]["id"] == group["id"], f"the bearer token is sent: {me}")
        try:
            api.call("POST", "/api/v1/groups/join", {"code": "ZZZZZZ"}, token=bo["token"])
            raise Failure("a wrong code is taken")
        except Problem as problem:
            check(problem.status == 404 and problem.code and problem.answer.problem["status"] == 404,
                  f"a wrong code's problem document: {problem.status} {problem.answer.problem}")
        stream = EventStream(api, f"/api/v1/groups/{group['id']}/events", bo["token"])
        stream.start()
        check(stream.opened.wait(10) and stream.status == 200, f"the event stream opens: {stream.status}")
        photo = (FIXTURES / "chelsea.jpg").read_bytes()
        raw = api.upload_photo(group["id"], photo, ada["token"], mission="poison-frogs", task="brightest-frog")
        form = api.upload_photo(group["id"], photo, ada["token"], mission="poison-frogs", task="frog-pose", form=True)
        for uploaded in (raw, form):
            stream.wait_for(lambda e, p=uploaded["id"]: e[2] == "photo-added" and p in e[3], f"the photo {uploaded['id']}")
        check(raw["taskId"] == "brightest-frog" and form["taskId"] == "frog-pose", f"each photo for its task: {raw} {form}")
        log("JSON, bearer tokens, problem documents, raw and form uploads, and the event stream work")
    finally:
        stopped = server.stop()      # with the stream open: the server ends it
        if stream:
            stream.close()
    check(stopped.status == 0 and not stopped.killed, f"the server exits 0 on SIGTERM: {stopped}")
    log(f"the server exited 0 {stopped.seconds:.1f} s after SIGTERM")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    work = Path(tempfile.mkdtemp(prefix="groupie-harness-"))
    try:
        parsing()
        serving(os.path.abspath(sys.argv[1]), work)
    except Failure as failure:
        log(f"FAILED: {failure}; work folder {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    log("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
