#!/usr/bin/env python3
"""Browser test of HTTPS in Groupie itself, under a host name that is not this machine's own
(Chromium maps museum.test and museum.lan to 127.0.0.1), as tablets on a museum's network see it.

  HTTPS: the museum's own authority and Groupie's certificate are made with docs/operating.md's
  commands ("A network without a domain"), and the authority is put into a fresh NSS database,
  as docs/operating.md tells operators to put it on tablets; `serve` gets the certificate. In Chromium
  the page is a secure context, the service worker takes charge of it, and a reload without
  network still shows the group; a member of staff signs in to the console (its Secure cookies
  kept) and sees the venues.

  Plain HTTP at museum.lan: the visitor's page is no secure context and has no service worker;
  the visitor still starts a group, with no error in the console and no warning on the screen.
  The staff sign-in page says that the console needs HTTPS, and signing in says so again
  instead of "the form had expired".

Usage:  python3 Tests/Browser/secure_context_test.py .build/debug/groupie
"""

import re
import ssl
import subprocess
import sys

from browser_support import REPO, Browser, add_staff, check, log, run_scenario
from groupie_harness.server import Server, free_port

VENUE = "science-centre"
EMAIL, PASSWORD = "curator@museum.example", "a long curator password"
NEEDS_HTTPS = "The staff console needs HTTPS"


def readme_authority(work):
    """docs/operating.md's commands for the museum's own authority, run in `work` for museum.test:
    (the authority's certificate, the chain, the key)."""
    readme = (REPO / "docs" / "operating.md").read_text()
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", readme, re.S) if "openssl req -x509" in b and "authority.crt" in b]
    check(len(blocks) == 1, f"docs/operating.md has one block of commands for the museum's own authority ({len(blocks)})")
    script = blocks[0]
    check(script.count("NAME=groupie.museum.lan") == 1 and "/etc/groupie/tls" in script, "docs/operating.md's block names NAME and /etc/groupie/tls")
    script = script.replace("NAME=groupie.museum.lan", "NAME=museum.test").replace("/etc/groupie/tls", str(work))
    subprocess.run(["bash", "-e", "-c", script], check=True, capture_output=True)
    return work / "authority.crt", work / "groupie-chain.pem", work / "groupie.key"


def trusting_home(work, authority):
    """A HOME whose NSS database (what Chromium on Linux trusts besides the system) trusts
    `authority` for web sites, as a tablet does once the authority is installed on it."""
    database = work / ".pki" / "nssdb"
    database.mkdir(parents=True)
    subprocess.run(["certutil", "-d", f"sql:{database}", "-N", "--empty-password"], check=True, capture_output=True)
    subprocess.run(["certutil", "-d", f"sql:{database}", "-A", "-t", "C,,", "-n", "Museum authority", "-i", str(authority)],
                   check=True, capture_output=True)
    return {"HOME": str(work), "PATH": "/usr/bin:/bin"}


def start_group(b, base, name):
    b.d.get(base + f"/?venue={VENUE}")
    b.type("#name", name)
    b.click("#create")
    b.click("#create-group")
    b.click("#to-missions")
    b.el(".mission-card", timeout=20)


def sign_in(b, base):
    b.d.get(base + "/staff/login")
    b.type("#email", EMAIL)
    b.type("#password", PASSWORD)
    b.click("button[type=submit]")


def over_https(binary, work, started):
    folder = work / "tls"
    folder.mkdir()
    authority, chain, key = readme_authority(folder)
    client = ssl.create_default_context(cafile=str(authority))
    client.check_hostname = False  # the harness asks 127.0.0.1; the chain is still checked
    port = free_port()
    base = f"https://museum.test:{port}"
    # Its public URL on the certificate's name, which serve checks at start.
    server = Server(binary, work / "https", port=port, tls=(chain, key, client), public_url=base, log_level="warning",
                    wait=20, grace=3, name="HTTPS server")
    started.append(server)
    add_staff(binary, server.data, EMAIL, PASSWORD, role="admin")
    home = trusting_home(work / "home", authority)
    rules = ["--host-resolver-rules=MAP museum.test 127.0.0.1"]

    b = Browser("https-visitor", work, arguments=rules, environment=home)
    started.append(b)
    start_group(b, base, "Ada")
    check(b.js("return window.isSecureContext") is True, "the page at https://museum.test is a secure context")
    b.wait(lambda d: b.js("return !!navigator.serviceWorker.controller"), "the service worker to take charge", timeout=20)
    b.check_console("over HTTPS")
    title = b.text("main h1")
    b.set_offline(True)
    b.d.refresh()
    b.el(".mission-card", timeout=20)
    check(b.text("main h1") == title, "a reload without network still shows the group")
    b.set_offline(False)
    b.shot("offline-over-https")
    log("HTTPS: secure context, service worker in charge, the group shown without network")

    s = Browser("https-staff", work, width=1024, height=768, arguments=rules, environment=home)
    started.append(s)
    sign_in(s, base)
    s.wait(lambda d: d.current_url.rstrip("/").endswith("/staff"), "the console after signing in", timeout=20)
    check(s.text("main h1") == "Your venues", f"staff see their venues: {s.text('main h1')!r}")
    s.shot("signed-in-over-https")
    log("HTTPS: staff sign in to the console from another name than localhost")


def over_plain_http(binary, work, started):
    server = Server(binary, work / "plain", log_level="warning", wait=20, grace=3, name="plain server")
    started.append(server)
    base = f"http://museum.lan:{server.port}"
    add_staff(binary, server.data, EMAIL, PASSWORD, role="admin")
    rules = ["--host-resolver-rules=MAP museum.lan 127.0.0.1"]

    b = Browser("plain-visitor", work, arguments=rules)
    started.append(b)
    start_group(b, base, "Bo")
    check(b.js("return window.isSecureContext") is False, "the page at http://museum.lan is no secure context")
    check(b.js("return typeof navigator.serviceWorker") == "undefined", "no service worker over plain HTTP")
    check(not b.js("return [...document.querySelectorAll('[role=alert], .alert, .error')].some(e => e.offsetParent && e.innerText.trim())"),
          "the visitor's screen shows no warning")
    b.check_console("over plain HTTP")
    b.shot("plain-http")
    log("plain HTTP: the visitor plays without offline support, and nothing alarming is said")

    s = Browser("plain-staff", work, width=1024, height=768, arguments=rules)
    started.append(s)
    s.d.get(base + "/staff/login")
    check(NEEDS_HTTPS in s.text("[role=alert]"), "the sign-in page says the console needs HTTPS")
    # The sign-in page says the same before the form is sent: the answer is a page of its own.
    s.type("#email", EMAIL)
    s.type("#password", PASSWORD)
    s.js("document.documentElement.dataset.old = '1'")
    s.click("button[type=submit]")
    alert = s.wait(lambda d: s.js("return !document.documentElement.dataset.old && (document.querySelector('[role=alert]') || {}).innerText"),
                   "the answer to signing in")
    check(NEEDS_HTTPS in alert and "expired" not in alert, f"signing in says HTTPS is needed, not that the form expired: {alert!r}")
    s.shot("staff-plain-http")
    log("plain HTTP: the staff sign-in page says the console needs HTTPS, and why")


def scenario(binary, work, started):
    for folder in ("https", "plain", "home"):
        (work / folder).mkdir()
    over_https(binary, work, started)
    over_plain_http(binary, work, started)


def main():
    return run_scenario(__doc__, "groupie-secure-context-", scenario, tools=("certutil", "openssl"))


if __name__ == "__main__":
    sys.exit(main())
