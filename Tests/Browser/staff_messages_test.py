#!/usr/bin/env python3
"""Browser test of the staff console's messages to groups and the class's wall.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`:

  A visitor starts a group on a phone-sized window and opens the missions. A moderator signs in
  on a phone-sized window too (390 px), opens the venue's messages page, writes a message with
  markup in it and sends it to every group by the keyboard. The message reaches the visitor's
  open page at once, as text, stays after a reload, and goes when the visitor closes it by the
  keyboard (and stays gone after another reload). The messages page lists the message sent;
  the pages pass axe's accessibility checks.

  "Every group playing" is every group someone is in: a class's table-card group nobody has
  joined yet, and a group whose members all left, get no `staff-message` event. Each is joined
  afterwards and its events replayed from the first up to that joining (stored after the
  message): none is the message, where the same replay of the visitor's group holds it.

  The wall, open in the moderator's window: the visitor completes a mission, and the first
  list of pictures the wall reads with its collage in it shows that collage at once (the wall
  reads its list again when the venue's live feed says a group's pictures changed); Space
  pauses the wall and the arrow keys move through the pictures; without names, no group's name
  shows.

Screenshots go to .build/browser-screenshots/ (prefixed "staff-messages-").

Usage:  python3 Tests/Browser/staff_messages_test.py .build/debug/groupie
"""

import json
import re
import subprocess
import sys

from selenium.webdriver.common.keys import Keys

from browser_support import Browser, accessibility_problems, add_staff, check, log, make_photo, run_scenario, start_server
from groupie_harness.events import EventStream
from staff_console_test import EMAIL, PASSWORD, VENUE, sign_in as console_sign_in, take, visitor as console_visitor

MESSAGE = "The <b>frog room</b> closes in 15 minutes"


def sign_in(b, base):
    console_sign_in(b, base, PASSWORD)
    b.wait(lambda d: b.text("main h1") == "Your venues", "the venues page")


def visitor(name, work, started, server, player):
    """A visitor's phone that has started a group at the venue, its missions open, live."""
    v = console_visitor(name, work, started, server, player)
    v.wait(lambda d: v.js("return document.querySelector('#bar .live.is-live') !== null"), "the visitor's live connection", timeout=20)
    return v


def notices(v):
    return v.js("return [...document.querySelectorAll('#notices .notice-text')].map(e => e.textContent)")


def scenario(binary, work, started):
    server = start_server(binary, work)
    started.append(server)
    log(add_staff(binary, server.data, EMAIL, PASSWORD, role="moderator", venue=VENUE).strip())
    v = visitor("staff-messages-visitor", work, started, server, "Ada")
    check(notices(v) == [], "no message before staff send one")

    s = Browser("staff-messages-console", work)
    started.append(s)
    sign_in(s, server.base)
    s.d.get(server.base + f"/staff/venues/{VENUE}")
    # Groups nobody is in when the message goes: a class's table cards, and a group its only member left.
    unjoined = table_cards(s, server, work, "Class 4B, 09:10")
    check(len(unjoined) == 2, f"the two table cards' join codes: {unjoined}")
    cy = server.api.new_player("Cy")
    left = server.api.new_group(cy["token"], VENUE)
    server.api.request("DELETE", f"/api/v1/groups/{left['id']}/members/{cy['player']['id']}", token=cy["token"], expect=(204,))
    s.click(f"a[href='/staff/venues/{VENUE}/messages']")
    s.wait(lambda d: s.text("main h1") == "Messages to groups", "the messages page")
    check("No message has been sent yet." in s.text("main"), "nothing sent yet")
    check(not accessibility_problems(s), f"axe on the messages page: {accessibility_problems(s)}")
    check(s.js("return document.documentElement.scrollWidth <= 390"), "the messages page fits 390 px")
    s.el("#message-text").send_keys(MESSAGE)
    s.el("#message-text").send_keys(Keys.ENTER)
    s.wait(lambda d: MESSAGE in s.text("main table"), "the message listed as sent")
    check("every group playing" in s.text("main table"), "sent to every group playing")
    check(s.js("return document.documentElement.scrollWidth <= 390"), "the messages sent fit 390 px")
    check(not accessibility_problems(s), f"axe on the messages sent: {accessibility_problems(s)}")
    s.shot("sent")

    v.wait(lambda d: notices(v) == [MESSAGE], "the message on the visitor's open page", timeout=10)
    check(v.js("return document.querySelector('#notices b') === null"), "the message's markup shown as text")
    check(not accessibility_problems(v), f"axe on the visitor's page with the message: {accessibility_problems(v)}")
    v.shot("banner")
    log("the message reached the visitor's open page")
    messages = lambda code: [json.loads(data)["text"] for event, data in replayed(server, code) if event == "staff-message"]  # noqa: E731
    got = messages(server.api.get("/api/v1/me", v.token())["group"]["joinCode"])
    check(got == [MESSAGE], f"the visitor's group's events, replayed, hold the message once: {got}")
    for code in unjoined + [left["joinCode"]]:
        got = messages(code)
        check(got == [], f"the group {code}, which nobody was in, got the message: {got}")
    log("groups nobody was in (a table card's, one its member left) got no message")

    v.d.refresh()
    v.wait(lambda d: notices(v) == [MESSAGE], "the message again after a reload", timeout=20)
    close = v.el("#notices .notice-close")
    v.js("arguments[0].focus()", close)
    close.send_keys(Keys.ENTER)
    v.wait(lambda d: notices(v) == [], "the message closed by the keyboard")
    v.d.refresh()
    v.wait(lambda d: v.js("return document.querySelector('#bar .live.is-live') !== null"), "the visitor live again", timeout=20)
    check(notices(v) == [], "a closed message stays closed after a reload")
    log("the message stayed until the visitor closed it")
    check(not v.errors(), f"no errors in the visitor's browser log: {v.errors()}")
    wall(s, v, server, work)
    check(not s.errors(), f"no errors in the console's browser log: {s.errors()}")


def staff_cookie(s):
    return "groupie_staff=" + s.d.get_cookie("groupie_staff")["value"]


def table_cards(s, server, work, label):
    """A class's two table cards made with the venue page's form, sent with the browser's
    session: the join codes of their groups, as the cards print them to be typed."""
    csrf = s.js("return document.querySelector('form.card input[name=csrf]').value")
    cards = server.api.request("POST", f"/staff/venues/{VENUE}/cards", headers={"Cookie": staff_cookie(s)},
                               form={"csrf": csrf, "count": "2", "name": "Table", "label": label}, expect=(200,))
    (work / "cards.pdf").write_bytes(cards.body)
    text = subprocess.run(["pdftotext", str(work / "cards.pdf"), "-"], capture_output=True, text=True, check=True).stdout
    return sorted(set(re.findall(r"(?m)^([0-9A-Z]{6})$", text)))


def replayed(server, code):
    """The events of the group of join code `code`, as (event, data), replayed from its first:
    a new player joins it and reads its stream from the start up to their own joining, the
    latest event stored, so that every event before it has come."""
    player = server.api.new_player("Reader")
    group = server.api.join(player["token"], code)["group"]
    stream = EventStream(server.api, f"/api/v1/groups/{group['id']}/events", player["token"], last_event_id=0, name=f"group {code}")
    stream.start()
    try:
        _, seen = stream.wait_for(lambda e: e[2] == "member-joined" and json.loads(e[3]).get("playerId") == player["player"]["id"],
                                  "the reader's own joining")
    finally:
        stream.close()
    return [(event, data) for _, _, event, data in seen]


# Each text the wall's status takes from now on, with the picture shown at that moment.
RECORD_WALL = """window.wallSeen = [];
  const status = document.getElementById('wall-status'), picture = document.getElementById('wall-picture');
  new MutationObserver(() => window.wallSeen.push([status.textContent, picture.getAttribute('data-item')]))
    .observe(status, {childList: true, characterData: true, subtree: true});"""


def wall(s, v, server, work):
    s.d.get(server.base + f"/staff/venues/{VENUE}")
    s.click(f"a[href='/staff/venues/{VENUE}/wall']")
    s.wait(lambda d: s.text("main h1").startswith("Wall"), "the wall")
    classes = s.js("return [...document.querySelectorAll('main select option')].map(o => o.textContent)")
    check(any(c.startswith("Class 4B, 09:10: Table 1 to Table 2, made ") for c in classes), f"the wall offers the class by its label: {classes}")
    s.wait(lambda d: "Waiting for the first" in s.text("#wall-status"), "the wall waiting for pictures")
    check(not accessibility_problems(s), f"axe on the wall: {accessibility_problems(s)}")
    check(s.js("return document.documentElement.scrollWidth <= 390"), "the wall fits 390 px")

    token = v.token()
    group_id = server.api.get("/api/v1/me", token)["group"]["id"]
    album = lambda: server.api.get(f"/api/v1/groups/{group_id}/photos", token)  # noqa: E731
    take(v, "brightest-frog", make_photo(work / "frog.jpg", (30, 160, 60)))
    v.wait(lambda d: len(album()["photos"]) == 1, "the first photo uploaded", timeout=30)
    s.wait(lambda d: (s.js("return document.getElementById('wall-picture').getAttribute('data-item')") or "").startswith("photo-"),
           "the first photo on the wall", timeout=30)
    s.js(RECORD_WALL)
    take(v, "frog-pose", make_photo(work / "pose.jpg", (200, 60, 40)))
    v.wait(lambda d: len(album()["collages"]) == 1, "the mission's collage made", timeout=60)
    # The wall's list once the collage exists, as the server has it: the first time the wall
    # counts that many pictures, it has read the list with the collage, and shows the collage.
    items = server.api.call("GET", s.js("return document.getElementById('wall').getAttribute('data-items')"),
                            headers={"Cookie": staff_cookie(s), "Accept": "application/json"})["items"]
    check([i["kind"] for i in items].count("collage") == 1, f"the wall's list holds the collage: {items}")
    counted = re.compile(rf"\b of {len(items)}\b")
    first = lambda: next((item for text, item in s.js("return window.wallSeen") if counted.search(text)), None)  # noqa: E731
    shown_first = s.wait(lambda d: first(), f"the wall reading its list with the collage ({len(items)} pictures)", timeout=30)
    check(shown_first.startswith("collage-"), f"the list that brought the collage shows it at once, not {shown_first}")
    # Its picture loads; the wall moves on every 8 s and comes back to it, so this waits long.
    caption = s.wait(lambda d: s.js("const p = document.getElementById('wall-picture');"
                                    "return (p.getAttribute('data-item') || '').startsWith('collage-') && p.complete && p.naturalWidth > 0"
                                    " && document.getElementById('wall-caption').innerText"), "the collage's picture on the wall", timeout=60)
    check(caption.endswith(" · Tiny but toxic"), f"the collage's group and mission: {caption}")
    log(f"the collage reached the wall: {caption}")
    s.shot("wall")

    shown = lambda: s.js("return document.getElementById('wall-picture').getAttribute('data-item')")  # noqa: E731
    s.js("document.getElementById('wall').focus()")
    s.el("#wall").send_keys(" ")
    s.wait(lambda d: s.el("#wall-pause").get_attribute("aria-pressed") == "true", "Space pauses the wall")
    before = shown()
    s.el("#wall").send_keys(Keys.ARROW_RIGHT)
    s.wait(lambda d: shown() != before, "→ shows the next picture")
    s.el("#wall").send_keys(Keys.ARROW_LEFT)
    s.wait(lambda d: shown() == before, "← goes back")

    s.d.get(server.base + f"/staff/venues/{VENUE}/wall?names=0")
    s.wait(lambda d: s.js("return document.getElementById('wall-picture').getAttribute('data-item')"), "the wall without names")
    check(" · " not in s.text("#wall-caption"), f"no group's name on the wall: {s.text('#wall-caption')}")
    log("the wall is paused and moved with the keyboard, with or without names")


def main():
    return run_scenario(__doc__, "groupie-staff-messages-", scenario, tools=("pdftotext",))


if __name__ == "__main__":
    sys.exit(main())
