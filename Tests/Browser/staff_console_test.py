#!/usr/bin/env python3
"""Browser test of the staff console: a moderator hides a photo and a visitor's screen loses it.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`:

  A moderator's account is made with `groupie staff add` (password on standard input). A
  visitor starts a group and uploads a photo in one browser; the moderator signs in at /staff in
  a second browser (a tablet-sized window), opens the venue, sees the group with the visitor's
  name and the photo, hides it with a reason, and the photo disappears from the visitor's open
  album without a reload; a photo taken while the group's page is open appears on it without a
  reload. The audit log shows the hiding with its reason; the venue's photo feed shows the
  shown photos and says when a search finds none; a wrong password is refused; the console's
  pages pass axe's accessibility checks.

  An admin's accounts page lists the staff and passes axe.

  A form sent after signing in again in another tab (its token is stale) answers a page of the
  console, not JSON, with what was typed and the session's token: sent again, it works. At 390
  px wide, no page of the console scrolls sideways, and the error page passes axe too.

  Review before sharing, on a second server whose science centre says `review: before_sharing`:
  a visitor's two photos wait (the visitor's album lists them as waiting, the group sees none);
  the moderator opens the review queue and clears it by keyboard, S sharing the first photo
  (it reaches the visitor's album as a photo of the group) and H keeping the second hidden.

Screenshots go to .build/browser-screenshots/ (prefixed "staff-"); docs/staff.md shows them.

Usage:  python3 Tests/Browser/staff_console_test.py .build/debug/groupie
"""

import shutil
import sys

from selenium.webdriver.common.action_chains import ActionChains

from browser_support import REPO, Browser, accessibility_problems, add_staff, check, log, make_photo, run_scenario, start_server
VENUE, MISSION, TASK, SECOND_TASK = "science-centre", "poison-frogs", "brightest-frog", "frog-pose"
EMAIL, PASSWORD = "moderator@museum.example", "a long moderator password"
ADMIN, ADMIN_PASSWORD = "admin@museum.example", "a long admin password"


def sign_in(b, base, password, email=EMAIL):
    b.d.get(base + "/staff/login")
    b.type("#email", email)
    b.type("#password", password)
    b.click("button[type=submit]")


def visitor(name, work, started, server, player):
    """A visitor's phone that has started a group at the venue and opened its missions."""
    v = Browser(name, work)
    started.append(v)
    v.d.get(server.base + f"/?venue={VENUE}")
    v.type("#name", player)
    v.click("#create")
    v.click("#create-group")
    v.click("#to-missions")
    return v


def take(v, task, picture):
    v.js(f"location.hash = '#/m/{MISSION}'")
    v.send_file(f"#take-{MISSION}-{task}", picture)
    v.click("#accept-photo")


def scenario(binary, work, started):
    photo = make_photo(work / "frog.jpg", (30, 160, 60))
    second = make_photo(work / "pose.jpg", (200, 60, 40))
    third = make_photo(work / "again.jpg", (40, 60, 200))
    server = start_server(binary, work)
    started.append(server)
    added = add_staff(binary, server.data, EMAIL, PASSWORD, role="moderator", venue=VENUE)
    log(f"server on {server.base}; {added.strip()}")

    # The visitor: a group and a photo, the album open.
    v = visitor("staff-visitor", work, started, server, "Ada")
    take(v, TASK, photo)
    token = v.token()
    group_id = server.api.get("/api/v1/me", token)["group"]["id"]
    uploaded = lambda n: len(server.api.get(f"/api/v1/groups/{group_id}/photos", token)["photos"]) == n  # noqa: E731
    v.wait(lambda d: uploaded(1), "the first photo uploaded", timeout=30)
    v.js("location.hash = '#/album'")
    v.wait(lambda d: v.img_loaded(".thumbs img"), "the visitor's photo in the album", timeout=30)

    # The moderator, on a tablet.
    s = Browser("staff-console", work, width=1024, height=768)
    started.append(s)
    sign_in(s, server.base, "not the password at all")
    check("Wrong e-mail address or password" in s.text("[role=alert]"), "a wrong password is refused")
    # The 401 of that page is in the browser's log (perhaps a moment after the page shows it);
    # what follows must add nothing.
    s.check_console("refusing a wrong password", expected=[r".*/staff/\S* - Failed to load resource: the server responded with a status of 401 \(Unauthorized\)"])
    sign_in(s, server.base, PASSWORD)
    s.wait(lambda d: s.text("main h1") == "Your venues", "the venues page")
    check(not accessibility_problems(s), f"axe on the venues page: {accessibility_problems(s)}")
    s.shot("venues")
    s.click(f"a[href='/staff/venues/{VENUE}']")
    s.wait(lambda d: "Ada" in s.text("main table"), "the group playing, with its member")
    s.wait(lambda d: s.js("return document.querySelectorAll('.latest img').length") == 1, "the first photo among the latest")

    # A photo taken now reaches the open venue page by itself.
    take(v, SECOND_TASK, second)
    v.wait(lambda d: uploaded(2), "the second photo uploaded", timeout=30)
    s.wait(lambda d: s.js("return document.querySelectorAll('.latest img').length") == 2, "the new photo on the venue page, without a reload", timeout=20)
    s.wait(lambda d: s.img_loaded(".latest img"), "the new photo shown")
    log("the visitor's second photo appeared on the open venue page")
    s.shot("venue")
    v.js("location.hash = '#/album'")
    v.wait(lambda d: v.js("return document.querySelectorAll('.thumbs:not(.collages):not(.waiting) img').length") == 2, "both photos in the visitor's album", timeout=20)
    s.click("main table a")
    s.wait(lambda d: s.img_loaded(".photos img"), "the photo in the console")
    check(not accessibility_problems(s), f"axe on the group page: {accessibility_problems(s)}")
    s.shot("group")

    # A photo taken now reaches the open group page by itself.
    take(v, TASK, third)
    v.wait(lambda d: uploaded(3), "the third photo uploaded", timeout=30)
    s.wait(lambda d: s.js("return document.querySelectorAll('.photos > li').length") == 3, "the new photo on the group page, without a reload", timeout=20)
    log("the visitor's third photo appeared on the open group page")
    v.js("location.hash = '#/album'")

    s.type(".photo input[name=reason]", "a classmate's face")
    s.click(".photo form[action$='/hide'] button")
    s.wait(lambda d: "a classmate's face" in s.text("main"), "the photo listed as hidden, with why")
    v.wait(lambda d: v.js("return document.querySelectorAll('.thumbs:not(.collages):not(.waiting) img').length") == 2, "the photo gone from the visitor's album", timeout=10)
    log("hidden by the moderator: gone from the visitor's open album without a reload")
    v.shot("album-after-hiding")

    s.d.get(server.base + "/staff/audit")
    s.wait(lambda d: "photo hidden" in s.text("main table"), "the audit log")
    check(EMAIL in s.text("main table") and "a classmate's face" in s.text("main table"), "the audit log says who and why")
    s.shot("audit")
    s.d.get(server.base + f"/staff/venues/{VENUE}/feed")
    s.wait(lambda d: s.img_loaded(".feed img"), "the photo feed")
    check(s.js("return document.querySelectorAll('.feed > li').length") == 2, "the feed shows the shown photos, not the hidden one")
    s.type("#feed-group", "no such group")
    s.click("form[role=search] button[type=submit]")
    s.wait(lambda d: "No photos here." in s.text("main"), "a search that finds nothing says so")
    check(not accessibility_problems(s), f"axe on the photo feed: {accessibility_problems(s)}")
    s.d.get(server.base + f"/staff/venues/{VENUE}/feed")
    s.wait(lambda d: s.img_loaded(".feed img"), "the photo feed again")
    s.shot("feed")
    check(not s.errors(), f"no errors in the console's browser log: {s.errors()}")
    stale_form(s, server, group_id)
    narrow_screen(server, work, started, group_id)
    accounts(binary, server, work, started)
    review_queue(binary, work, started, photo, second)


def accounts(binary, server, work, started):
    """An admin's accounts page: the members of staff, their roles and venues."""
    add_staff(binary, server.data, ADMIN, ADMIN_PASSWORD, role="admin")
    a = Browser("staff-admin", work, width=1024, height=768)
    started.append(a)
    sign_in(a, server.base, ADMIN_PASSWORD, email=ADMIN)
    a.wait(lambda d: a.text("main h1") == "Your venues", "the admin's venues page")
    a.d.get(server.base + "/staff/accounts")
    a.wait(lambda d: EMAIL in a.text("main") and ADMIN in a.text("main"), "the accounts page lists both members of staff")
    check(not accessibility_problems(a), f"axe on the accounts page: {accessibility_problems(a)}")
    a.shot("accounts")
    check(not a.errors(), f"no errors in the admin's browser log: {a.errors()}")
    log("the admin's accounts page lists the staff")


def stale_form(s, server, group_id):
    """The group page open in one tab; in another, the member signs out and in again; the first
    tab's form now carries the old session's token."""
    s.d.get(server.base + f"/staff/groups/{group_id}")
    s.wait(lambda d: s.img_loaded(".photos img"), "the group page")
    first = s.d.current_window_handle
    s.d.switch_to.new_window("tab")
    s.d.get(server.base + "/staff")
    s.click(".bar form button")
    s.wait(lambda d: "/staff/login" in s.d.current_url, "signed out in the other tab")
    sign_in(s, server.base, PASSWORD)
    s.wait(lambda d: s.text("main h1") == "Your venues", "signed in again in the other tab")
    s.d.close()
    s.d.switch_to.window(first)
    s.type(".photos > li:not(.hidden) form[action$='/hide'] input[name=reason]", "blurry, taken again")
    s.click(".photos > li:not(.hidden) form[action$='/hide'] button")
    s.wait(lambda d: s.text("main h1") == "This form was out of date", "a page of the console, not JSON")
    check('"code"' not in s.d.page_source and "csrf-token-mismatch" in s.text("main"), "no problem document in the page")
    check(s.js("return document.querySelector('main form input[name=reason]').value") == "blurry, taken again", "what was typed is kept")
    check(not accessibility_problems(s), f"axe on the error page: {accessibility_problems(s)}")
    s.shot("stale-form")
    s.click("main form button[type=submit]")
    s.wait(lambda d: "blurry, taken again" in s.text("main"), "sent again from the page, the photo is hidden")
    s.errors()  # the 403 of the stale form is in the browser's log
    log("a stale form gave a page of the console with what was typed; sent again, it worked")


def narrow_screen(server, work, started, group_id):
    """A phone of 390 px: every page of the console fits its width."""
    p = Browser("staff-narrow", work, width=390, height=844)
    started.append(p)
    sign_in(p, server.base, PASSWORD)
    p.wait(lambda d: p.text("main h1") == "Your venues", "signed in on the phone")
    for path in ["/staff", f"/staff/venues/{VENUE}", f"/staff/groups/{group_id}", f"/staff/venues/{VENUE}/numbers",
                 f"/staff/venues/{VENUE}/review", f"/staff/venues/{VENUE}/feed", "/staff/audit", "/staff/password", "/staff/nowhere"]:
        p.d.get(server.base + path)
        p.wait(lambda d: p.js("return document.readyState") == "complete", f"{path} loaded")
        widths = p.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        check(widths[0] <= widths[1], f"{path} is {widths[0]} px wide on a {widths[1]} px screen")
    p.d.get(server.base + f"/staff/groups/{group_id}")
    p.shot("group-390px")
    p.errors()  # the 404 of /staff/nowhere
    log("every page of the console fits a 390 px screen")


def review_queue(binary, work, started, photo, second):
    folder = work / "review"
    missions = folder / "missions"
    shutil.copytree(REPO / "missions", missions)
    venue_file = missions / f"{VENUE}.yaml"
    text = venue_file.read_text()
    check("\nmissions:\n" in text, "the science centre's file has its missions at the top level")
    venue_file.write_text(text.replace("\nmissions:\n", "\nreview: before_sharing\nmissions:\n", 1))
    server = start_server(binary, folder, missions=missions)
    started.append(server)
    add_staff(binary, server.data, EMAIL, PASSWORD, role="moderator", venue=VENUE, missions=missions)

    v = visitor("staff-review-visitor", folder, started, server, "Bo")
    token = v.token()
    group_id = server.api.get("/api/v1/me", token)["group"]["id"]
    album = lambda: server.api.get(f"/api/v1/groups/{group_id}/photos", token)  # noqa: E731
    take(v, TASK, photo)
    v.wait(lambda d: len(album()["waitingForReview"]) == 1, "the first photo held for review", timeout=30)

    # The venue page, open while the second photo is held, counts it without a reload (a held
    # photo tells its group nothing; the staff's feed hears of it all the same).
    s = Browser("staff-review", folder, width=1024, height=768)
    started.append(s)
    sign_in(s, server.base, PASSWORD)
    s.wait(lambda d: s.text("main h1") == "Your venues", "the venues page")
    s.d.get(server.base + f"/staff/venues/{VENUE}")
    s.wait(lambda d: "1 photo waits" in s.text("main"), "the venue page counts the waiting photo")
    take(v, SECOND_TASK, second)
    v.wait(lambda d: len(album()["waitingForReview"]) == 2, "both photos held for review", timeout=30)
    check(album()["photos"] == [], "the group sees no held photo")
    s.wait(lambda d: "2 photos wait" in s.text("main"), "the open venue page counts the second held photo without a reload", timeout=10)
    v.js("location.hash = '#/album'")
    v.wait(lambda d: v.js("return document.querySelectorAll('.thumbs.waiting img').length") == 2, "the visitor's album lists both as waiting")
    v.wait(lambda d: v.img_loaded(".thumbs.waiting img"), "the waiting photos shown to their photographer")
    v.shot("album-waiting")

    s.click(f"a[href='/staff/venues/{VENUE}/review']")
    s.wait(lambda d: s.js("return document.querySelectorAll('#queue li.held').length") == 2, "the queue with both photos")
    s.wait(lambda d: s.img_loaded("#queue img"), "the photos in the queue")
    check(not accessibility_problems(s), f"axe on the review queue: {accessibility_problems(s)}")
    s.shot("review")
    first_id = s.js("return document.querySelector('#queue li.current').id")
    check(first_id == "held-" + album()["waitingForReview"][0]["id"], "the oldest photo is the current one")

    ActionChains(s.d).send_keys("s").perform()
    s.wait(lambda d: s.js("return document.querySelectorAll('#queue li.held').length") == 1, "S shares the current photo")
    s.wait(lambda d: "1 photo waits" in s.text("#queue-count"), "the count follows")
    v.wait(lambda d: v.js("return document.querySelectorAll('.thumbs:not(.collages):not(.waiting) img').length") == 1,
           "the shared photo reaches the visitor's album as the group's", timeout=15)
    check(len(album()["photos"]) == 1 and len(album()["waitingForReview"]) == 1, "one shared, one waiting")

    ActionChains(s.d).send_keys("h").perform()
    s.wait(lambda d: s.js("return document.querySelectorAll('#queue li.held').length") == 0, "H keeps the other hidden")
    s.wait(lambda d: "No photo waits" in s.text("#queue-count"), "the queue is empty")
    check(len(album()["photos"]) == 1 and album()["waitingForReview"] == [], "the hidden photo never reaches the group")
    log("the review queue was cleared by keyboard: one photo shared, one kept hidden")
    s.d.get(server.base + "/staff/audit")
    audit = s.text("main table")
    check("photo shared after review" in audit and "photo not shared after review" in audit, "the audit log records both")
    errors = s.errors()
    check(not errors, f"no errors in the review queue's browser log: {errors}")
    phone_preview(s, server)


def phone_preview(b, server):
    """The mission page's phone preview: the client's own mission screen in Swedish, from the
    venue's texts alone, with nothing to send and nothing kept."""
    b.d.get(server.base + "/staff/audit")   # the origin's storage, as the console leaves it
    stored = b.js("return localStorage.getItem('groupie.player')")
    b.d.get(server.base + f"/?preview={VENUE}&lang=sv#/m/{MISSION}")
    b.wait(lambda d: b.text("main h1") == "Små men giftiga", "the mission's Swedish title on the phone's own screen")
    check(b.js(f"return document.getElementById('take-{MISSION}-{TASK}').disabled") is True, "the camera button sends nothing")
    check(b.js("return document.getElementById('tabs').offsetParent") is None, "no tabs to other screens")
    check(b.js("return localStorage.getItem('groupie.player')") == stored, "no player kept")
    b.shot("phone-preview")
    errors = b.errors()
    check(not errors, f"no errors in the preview's browser log: {errors}")
    log("the phone preview shows the mission as a phone does, in Swedish")


def main():
    return run_scenario(__doc__, "groupie-staff-", scenario)


if __name__ == "__main__":
    sys.exit(main())
