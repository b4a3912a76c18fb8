#!/usr/bin/env python3
"""Browser test of the staff console: a moderator hides a photo and a visitor's screen loses it.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`:

  A moderator's account is made with `groupie staff add` (password on standard input). A
  visitor starts a group and uploads a photo in one browser; the moderator signs in at /staff in
  a second browser (a tablet-sized window), opens the venue, sees the group with the visitor's
  name and the photo, hides it with a reason, and the photo disappears from the visitor's open
  album without a reload. The audit log shows the hiding with its reason; a wrong password is
  refused; the console's pages pass axe's accessibility checks.

Screenshots go to .build/browser-screenshots/ (prefixed "staff-"); docs/staff.md shows them.

Usage:  python3 Tests/Browser/staff_console_test.py .build/debug/groupie
"""

import subprocess
import sys

from browser_support import Browser, Server, accessibility_problems, check, log, make_photo, run_scenario

VENUE, MISSION, TASK, SECOND_TASK = "science-centre", "poison-frogs", "brightest-frog", "frog-pose"
EMAIL, PASSWORD = "moderator@museum.example", "a long moderator password"


def sign_in(b, base, password):
    b.d.get(base + "/staff/login")
    b.type("#email", EMAIL)
    b.type("#password", password)
    b.click("button[type=submit]")


def scenario(binary, work, started):
    photo = make_photo(work / "frog.jpg", (30, 160, 60))
    second = make_photo(work / "pose.jpg", (200, 60, 40))
    server = Server(binary, work)
    started.append(server)
    added = subprocess.run([binary, "staff", "add", EMAIL, "--venue", VENUE, "--role", "moderator", "--data", str(server.data)],
                           input=PASSWORD + "\n", capture_output=True, text=True, timeout=60)
    check(added.returncode == 0, f"groupie staff add: {added.stderr}")
    log(f"server on {server.base}; {added.stdout.strip()}")

    # The visitor: a group and a photo, the album open.
    v = Browser("staff-visitor", work)
    started.append(v)
    v.d.get(server.base + f"/?venue={VENUE}")
    v.type("#name", "Ada")
    v.click("#create")
    v.click("#create-group")
    v.click("#to-missions")
    v.js(f"location.hash = '#/m/{MISSION}'")
    v.send_file(f"#take-{MISSION}-{TASK}", photo)
    v.click("#accept-photo")
    token = v.token()
    group_id = server.api("/me", token)["group"]["id"]
    uploaded = lambda n: len(server.api(f"/groups/{group_id}/photos", token)["photos"]) == n  # noqa: E731
    v.wait(lambda d: uploaded(1), "the first photo uploaded", timeout=30)
    v.js("location.hash = '#/album'")
    v.wait(lambda d: v.img_loaded(".thumbs img"), "the visitor's photo in the album", timeout=30)

    # The moderator, on a tablet.
    s = Browser("staff-console", work, width=1024, height=768)
    started.append(s)
    sign_in(s, server.base, "not the password at all")
    check("Wrong e-mail address or password" in s.text("[role=alert]"), "a wrong password is refused")
    s.errors()  # the 401 of that page is in the browser's log; what follows must add nothing
    sign_in(s, server.base, PASSWORD)
    s.wait(lambda d: s.text("main h1") == "Your venues", "the venues page")
    check(not accessibility_problems(s), f"axe on the venues page: {accessibility_problems(s)}")
    s.shot("venues")
    s.click(f"a[href='/staff/venues/{VENUE}']")
    s.wait(lambda d: "Ada" in s.text("main table"), "the group playing, with its member")
    s.wait(lambda d: s.js("return document.querySelectorAll('.latest img').length") == 1, "the first photo among the latest")

    # A photo taken now reaches the open venue page by itself.
    v.js(f"location.hash = '#/m/{MISSION}'")
    v.send_file(f"#take-{MISSION}-{SECOND_TASK}", second)
    v.click("#accept-photo")
    v.wait(lambda d: uploaded(2), "the second photo uploaded", timeout=30)
    s.wait(lambda d: s.js("return document.querySelectorAll('.latest img').length") == 2, "the new photo on the venue page, without a reload", timeout=20)
    s.wait(lambda d: s.img_loaded(".latest img"), "the new photo shown")
    log("the visitor's second photo appeared on the open venue page")
    s.shot("venue")
    v.js("location.hash = '#/album'")
    v.wait(lambda d: v.js("return document.querySelectorAll('.thumbs img').length") == 2, "both photos in the visitor's album", timeout=20)
    s.click("main table a")
    s.wait(lambda d: s.img_loaded(".photos img"), "the photo in the console")
    check(not accessibility_problems(s), f"axe on the group page: {accessibility_problems(s)}")
    s.shot("group")

    s.type(".photo input[name=reason]", "a classmate's face")
    s.click(".photo form[action$='/hide'] button")
    s.wait(lambda d: "a classmate's face" in s.text("main"), "the photo listed as hidden, with why")
    v.wait(lambda d: v.js("return document.querySelectorAll('.thumbs img').length") == 1, "the photo gone from the visitor's album", timeout=10)
    log("hidden by the moderator: gone from the visitor's open album without a reload")
    v.shot("album-after-hiding")

    s.d.get(server.base + "/staff/audit")
    s.wait(lambda d: "photo hidden" in s.text("main table"), "the audit log")
    check(EMAIL in s.text("main table") and "a classmate's face" in s.text("main table"), "the audit log says who and why")
    s.shot("audit")
    check(not s.errors(), f"no errors in the console's browser log: {s.errors()}")


def main():
    return run_scenario(__doc__, "groupie-staff-", scenario)


if __name__ == "__main__":
    sys.exit(main())
