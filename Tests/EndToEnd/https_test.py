#!/usr/bin/env python3
"""HTTPS in `groupie serve` itself (docs/operating.md, "HTTPS"), with a private certificate authority made
by the test with openssl:

  - with --tls-certificate and --tls-key the server answers over TLS with the chain given, and
    join links start with the https:// public URL;
  - --http-redirect-port answers every plain-HTTP request with a redirect to the same path and
    query at the public URL (301 for GET, 308 for a POST), and serves nothing else;
  - SIGHUP, and a change of the files without one, make new connections get the new
    certificate, while a connection opened before keeps working with the old one, and an
    event stream opened before keeps its certificate and goes on carrying the group's events;
  - a renewal that fails a check (an expired certificate) is logged and not used;
  - an expired certificate, one not valid yet, one naming no host in its subjectAltName, a key
    of another certificate or one with a passphrase, a certificate for another host than the
    public URL's, or one file without the other stops `serve` at start with a sentence;
  - without --public-url, join links use https:// and the certificate's first name;
  - on plain HTTP at a non-loopback address `serve` logs once that offline play and staff
    sign-in need HTTPS; on 127.0.0.1 it does not;
  - the staff sign-in page reached over plain HTTP by another name says that the console needs
    HTTPS, before and instead of "the form had expired"; on 127.0.0.1, or behind a proxy that
    says it took HTTPS, it says nothing of it.

Usage: https_test.py path/to/groupie   (openssl, which scripts/bootstrap installs). Exits 1 on
any failure.
"""
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO  # noqa: E402
from groupie_harness.checks import Failure, check, logger  # noqa: E402
from groupie_harness.client import Api  # noqa: E402
from groupie_harness.events import EventStream  # noqa: E402
from groupie_harness.server import Server, free_port  # noqa: E402
from groupie_harness.staff import login_form  # noqa: E402
from groupie_harness.tls import Authority, serial_of  # noqa: E402

log = logger("https")
NAMES = ["museum.test", "127.0.0.1"]
NEEDS_HTTPS = "The staff console needs HTTPS"
PLAIN_WARNING = "serving plain HTTP to other machines"


def replace(authority, label, certificate, key, days=2, names=NAMES):
    """Issues a new certificate and puts it in place of the served files, as a renewal does:
    written beside them and renamed over them. Returns its serial number."""
    chain, new_key = authority.issue(label, names, days=days)
    for source, target in ((chain, certificate), (new_key, key)):
        shutil.copyfile(source, str(target) + ".new")
        os.replace(str(target) + ".new", target)
    return authority.serial


def served_serial(server, authority):
    """The serial number of the certificate a new connection gets."""
    connection = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=10, context=authority.context())
    try:
        connection.connect()
        return serial_of(connection.sock.getpeercert(True))
    finally:
        connection.close()


def wait_for_serial(server, authority, serial, what):
    deadline = time.monotonic() + 20
    while served_serial(server, authority) != serial:
        check(time.monotonic() < deadline, f"new connections get the certificate {what} within 20 s")
        time.sleep(0.1)


def start_fails(binary, work, options, public_url):
    """`serve` with `options` that must stop it at start: its exit status and standard error."""
    port = free_port()
    result = subprocess.run(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(work / "data-refused"),
         "--missions", str(REPO / "missions"), "--assets", str(REPO / "assets"), "--public-url", public_url, *map(str, options)],
        capture_output=True, text=True, timeout=60)
    return result.returncode, result.stderr


def tls_server(binary, work, authority):
    certificate, key = work / "served.pem", work / "served.key"
    chain, first_key = authority.issue("first", NAMES)
    shutil.copyfile(chain, certificate)
    shutil.copyfile(first_key, key)
    redirect = free_port()
    port = free_port()
    # It stops in a few hundredths of a second (logged at the end); the grace is only a deadline
    # for a machine busy with other work, past which the stop counts as failed.
    server = Server(binary, work, port=port, tls=(certificate, key, authority.context()), log_level="info",
                    public_url=f"https://museum.test:{port}", options=("--http-redirect-port", str(redirect)),
                    name="HTTPS server", grace=30)
    return server, certificate, key, redirect


def check_serving(server, redirect):
    player = server.api.new_player("Ada", "en")
    group = server.api.new_group(player["token"])
    check(group["joinUrl"].startswith(f"https://museum.test:{server.port}/j/"), f"the join link is the https public URL: {group['joinUrl']}")
    plain = Api(f"http://127.0.0.1:{redirect}", name="redirect port")
    moved = plain.request("GET", "/j/ABCD?lang=sv", expect=(301,))
    check(moved.headers["Location"] == f"https://museum.test:{server.port}/j/ABCD?lang=sv", f"GET is sent to the public URL: {moved.headers['Location']}")
    posted = plain.request("POST", "/api/v1/players", {"name": "Bo"}, expect=(308,))
    check(posted.headers["Location"] == f"https://museum.test:{server.port}/api/v1/players", f"POST is sent on as a POST: {posted.headers['Location']}")
    check(plain.request("GET", "/healthz", expect=(301,)).body == b"", "the redirect port serves nothing else")
    log("HTTPS with the chain given; join links on the https public URL; the plain port redirects")


def check_reloads(server, authority, certificate, key):
    kept = Api(server.base, context=authority.context(), keep_alive=True, name="kept-alive connection")
    kept.request("GET", "/healthz")
    first = serial_of(kept.kept.sock.getpeercert(True))
    check(served_serial(server, authority) == first, "new connections get the first certificate")
    # A member's event stream, open across the reload: it must keep its connection and its events.
    ada, bo = server.api.new_player("Ada", "en"), server.api.new_player("Bo", "en")
    group = server.api.new_group(ada["token"])
    stream = EventStream(server.api, f"/api/v1/groups/{group['id']}/events", ada["token"], name="Ada's HTTPS")
    stream.start()
    check(stream.opened.wait(30) and stream.status == 200, f"the event stream opens over HTTPS ({stream.status})")
    check(serial_of(stream.connection.sock.getpeercert(True)) == first, "the stream has the first certificate")

    second = replace(authority, "second", certificate, key)
    server.process.send_signal(signal.SIGHUP)
    wait_for_serial(server, authority, second, "read again on SIGHUP")
    kept.request("GET", "/healthz")
    check(serial_of(kept.kept.sock.getpeercert(True)) == first, "the connection opened before keeps its certificate and still answers")
    server.api.join(bo["token"], group["joinCode"])
    stream.wait_for(lambda e: e[2] == "member-joined" and bo["player"]["id"] in e[3], "Bo's join, after the reload", timeout=60)
    check(serial_of(stream.connection.sock.getpeercert(True)) == first, "the stream keeps the certificate it opened with")
    stream.close()
    log("SIGHUP: new connections get the new certificate; an open connection and an open event stream go on")

    third = replace(authority, "third", certificate, key)
    wait_for_serial(server, authority, third, "read again when the files change")
    log("a change of the files, without a signal, is taken up too")

    replace(authority, "expired", certificate, key, days=-1)
    server.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 20
    while "expired on" not in server.log_path.read_text():
        check(time.monotonic() < deadline, "an expired renewal is logged within 20 s")
        time.sleep(0.1)
    check(served_serial(server, authority) == third, "an expired renewal is not used")
    logged = server.log_path.read_text()
    check("reads the renewed files as soon as they change" in logged and "start again" not in logged,
          "an expired renewal asks for a renewal, not a restart, while the server serves on")
    kept.request("GET", "/healthz")
    kept.close()
    log("an expired renewal is logged and the last good certificate stays")


def check_refusals(binary, work, authority):
    expired = authority.issue("old", NAMES, days=-1)
    other = authority.issue("other", NAMES)
    valid = authority.issue("valid", NAMES)
    later = authority.issue("later", NAMES, starts_in_days=3)
    nameless = authority.issue("nameless", NAMES, alternative_names=False)
    cases = [
        ("an expired certificate", ["--tls-certificate", expired[0], "--tls-key", expired[1]], "https://museum.test", "expired on"),
        ("the key of another certificate", ["--tls-certificate", valid[0], "--tls-key", other[1]], "https://museum.test", "does not belong to the certificate"),
        ("a certificate for other names", ["--tls-certificate", valid[0], "--tls-key", valid[1]], "https://groupie.example", "not to groupie.example"),
        ("a certificate without its key", ["--tls-certificate", valid[0]], "https://museum.test", "--tls-certificate and --tls-key go together"),
        ("a file that is no certificate", ["--tls-certificate", valid[1], "--tls-key", valid[1]], "https://museum.test", "holds no certificate in PEM form"),
        ("a key with a passphrase", ["--tls-certificate", valid[0], "--tls-key", authority.with_passphrase(valid[1])], "https://museum.test",
         "holds no private key in PEM form (text that begins with -----BEGIN PRIVATE KEY----- (without a passphrase))"),
        ("a certificate not valid yet", ["--tls-certificate", later[0], "--tls-key", later[1]], "https://museum.test",
         "is valid only from 20"),
        ("a certificate naming no host", ["--tls-certificate", nameless[0], "--tls-key", nameless[1]], "https://museum.test",
         "names no host (browsers read only its subjectAltName)"),
    ]
    for what, options, public_url, sentence in cases:
        status, errors = start_fails(binary, work, options, public_url)
        check(status != 0 and sentence in errors, f"{what} stops serve at start with a sentence ({status}): {errors.strip()[-400:]}")
    log("an expired, not yet valid, nameless or mismatched certificate, or a key with a passphrase, stops serve at start with one sentence")


def check_default_url(binary, work, authority):
    chain, key = authority.issue("named", NAMES)
    server = Server(binary, work / "default-url", tls=(chain, key, authority.context()), public_url=None, log_level="info",
                    name="HTTPS server without a public URL", grace=5)
    try:
        group = server.api.new_group(server.api.new_player("Cy", "en")["token"])
    finally:
        server.stop()
    expected = f"https://museum.test:{server.port}"
    check(group["joinUrl"].startswith(expected + "/j/"), f"without --public-url, join links use the certificate's first name: {group['joinUrl']}")
    check(f"phones join at {expected}" in server.log_path.read_text(), "serve says where phones join")
    log("without --public-url, the public URL is https:// and the certificate's first name")


def check_plain_http(binary, work):
    port = free_port()
    lan = Server(binary, work / "lan", port=port, host="0.0.0.0", public_url=f"http://museum.lan:{port}", log_level="info",
                 name="plain server on 0.0.0.0", grace=5)
    try:
        text = lan.log_path.read_text()
        check(text.count(PLAIN_WARNING) == 1, f"serve on 0.0.0.0 over plain HTTP says once that HTTPS is needed: {text[-600:]}")
        other = {"Host": f"museum.lan:{port}"}
        page = lan.api.request("GET", "/staff/login", headers=other, expect=(200,))
        check(NEEDS_HTTPS in page.body.decode(), "the sign-in page reached by another name over plain HTTP says it needs HTTPS")
        # The browser dropped the form's Secure cookie: the form comes back without it.
        _, csrf = login_form(lan.api)
        refused = lan.api.request("POST", "/staff/login", form={"csrf": csrf, "email": "a@b.example", "password": "x"},
                                  headers=other, expect=(403,))
        body = refused.body.decode()
        check(NEEDS_HTTPS in body and "had expired" not in body, "signing in from another computer says HTTPS, not that the form expired")
        local = lan.api.request("GET", "/staff/login", expect=(200,))
        check(NEEDS_HTTPS not in local.body.decode(), "on 127.0.0.1 the sign-in page says nothing of HTTPS")
        proxied = lan.api.request("GET", "/staff/login", headers={**other, "X-Forwarded-Proto": "https"}, expect=(200,))
        check(NEEDS_HTTPS not in proxied.body.decode(), "behind a proxy that took HTTPS the sign-in page says nothing of it")
    finally:
        lan.stop()
    loopback = Server(binary, work / "loopback", log_level="info", name="plain server on 127.0.0.1", grace=5)
    loopback.stop()
    check(PLAIN_WARNING not in loopback.log_path.read_text(), "serve on 127.0.0.1 does not warn about plain HTTP")
    log("plain HTTP: serve warns once at a LAN address; the staff page says the console needs HTTPS")


def main():
    binary = os.path.abspath(sys.argv[1])
    work = Path(tempfile.mkdtemp(prefix="groupie-https-"))
    server, passed = None, False
    try:
        for folder in ("lan", "loopback", "default-url"):
            (work / folder).mkdir()
        authority = Authority(work / "authority")
        server, certificate, key, redirect = tls_server(binary, work, authority)
        check_serving(server, redirect)
        check_reloads(server, authority, certificate, key)
        stopped = server.stop()
        check(stopped.status == 0, f"the HTTPS server stops cleanly on SIGTERM: {stopped}")
        log(f"the HTTPS server stopped {stopped.seconds:.2f} s after SIGTERM")
        check_refusals(binary, work, authority)
        check_default_url(binary, work, authority)
        check_plain_http(binary, work)
        passed = True
        log("PASS")
    except Failure as failure:
        log(f"FAILED: {failure}")
    finally:
        if server:
            server.stop()
        if passed:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}", file=sys.stderr)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
