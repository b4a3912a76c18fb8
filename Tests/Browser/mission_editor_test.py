#!/usr/bin/env python3
"""Browser test of the mission editor: an editor edits a venue's file in the console.

Drives Debian's headless Chromium against `groupie serve` on a copy of the missions folder:

  A visitor starts a group at the science centre and opens its missions. An editor signs in on
  a phone-sized window (390 px), opens the venue's file in the editor, breaks it with a key
  press, sees the problem listed at its line, moves the cursor there with the problem's button,
  fixes it, renames a mission's title and saves: the visitor's open page shows the new title
  without a reload (the server runs on copies of the missions and assets folders). The file is then changed on disk while the editor has it open: the save is
  refused, and both versions are shown. The first version is restored from the versions page,
  and the file on disk is the original again. Last, a picture is uploaded through the pictures
  form into the venue's own folder. axe checks the editor, versions and pictures pages.

Screenshots go to .build/browser-screenshots/ (prefixed "editor-").

Usage:  python3 Tests/Browser/mission_editor_test.py .build/debug/groupie
"""

import shutil
import sys

from selenium.webdriver.common.keys import Keys

from browser_support import REPO, Browser, accessibility_problems, add_staff, check, log, make_photo, run_scenario, start_server
VENUE, FILE = "science-centre", "science-centre.yaml"
EMAIL, PASSWORD = "editor@museum.example", "a long editor password"
OLD_TITLE, NEW_TITLE = "In the shark tunnel", "Under the shark tunnel"


def set_text(b, text, cursor=0):
    """Puts `text` into the editor as a paste would, the cursor at `cursor`: the page hears an
    input event."""
    b.js("const t = document.getElementById('mission-text'); t.value = arguments[0]; t.focus(); t.setSelectionRange(arguments[1], arguments[1]);"
         "t.dispatchEvent(new Event('input', {bubbles: true}))", text, cursor)


def problem_lines(b):
    return b.js("return Array.from(document.querySelectorAll('#problems button.goto')).map(e => Number(e.dataset.line))")


def scenario(binary, work, started):
    missions = work / "missions"
    assets = work / "assets"
    shutil.copytree(REPO / "missions", missions)
    shutil.copytree(REPO / "assets", assets)
    original = (missions / FILE).read_text()
    server = start_server(binary, work, missions=missions, assets=assets)
    started.append(server)
    log(f"server on {server.base}; " + add_staff(binary, server.data, EMAIL, PASSWORD, role="editor", venue=VENUE, missions=missions).strip())

    v = Browser("editor-visitor", work)
    started.append(v)
    v.d.get(server.base + f"/?venue={VENUE}")
    v.type("#name", "Ada")
    v.click("#create")
    v.click("#create-group")
    v.click("#to-missions")
    v.wait(lambda d: OLD_TITLE in v.text("main"), "the mission's title on the visitor's phone")

    e = Browser("editor-staff", work)  # 390 px wide, as the other phones
    started.append(e)
    e.d.get(server.base + "/staff/login")
    e.type("#email", EMAIL)
    e.type("#password", PASSWORD)
    e.click("button[type=submit]")
    e.wait(lambda d: e.text("main h1") == "Your venues", "the venues page")
    e.d.get(server.base + f"/staff/venues/{VENUE}/missions")
    e.click("a[href$='/missions/edit']")
    e.wait(lambda d: e.text("#problems") == "No problems.", "the file opened without problems")
    check(e.js("return document.documentElement.scrollWidth") <= 390, "the editor fits 390 px")
    check(not accessibility_problems(e), f"axe on the editor: {accessibility_problems(e)}")

    # Break it with a key press at the start of the first mission's `title:` line.
    lines = original.split("\n")
    title_line = next(i for i, line in enumerate(lines) if line.strip() == "title:") + 1
    offset = sum(len(line) + 1 for line in lines[:title_line - 1]) + lines[title_line - 1].index("title:")
    e.js("const t = document.getElementById('mission-text'); t.focus(); t.setSelectionRange(arguments[0], arguments[0])", offset)
    e.el("#mission-text").send_keys("x")
    e.wait(lambda d: title_line in problem_lines(e), f"the problem listed at line {title_line}")
    check("xtitle" in e.text("#problems"), "the problem names the key typed")
    e.js("document.getElementById('mission-text').setSelectionRange(0, 0)")
    e.click(f"#problems button.goto[data-line='{title_line}']")
    e.wait(lambda d: e.text("#cursor-place").startswith(f"Line {title_line},"), "the cursor moved to the problem's line")
    check(e.js("return document.activeElement.id") == "mission-text", "the text has the focus after the click")
    e.shot("problem")
    e.el("#mission-text").send_keys(Keys.DELETE)
    e.wait(lambda d: e.text("#problems") == "No problems.", "the problem gone once fixed")

    # Rename the mission and save: the visitor's open page shows it without a reload.
    set_text(e, e.js("return document.getElementById('mission-text').value").replace("en: " + OLD_TITLE, "en: " + NEW_TITLE, 1), offset)
    e.wait(lambda d: NEW_TITLE in e.text("#mission-preview"), "the mission at the cursor shown as edited", timeout=20)
    e.click("#save")
    e.wait(lambda d: "Saved as version 2" in e.text("main"), "the save confirmed")
    check(NEW_TITLE in (missions / FILE).read_text(), "the file on disk has the new title")
    v.wait(lambda d: NEW_TITLE in v.text("main"), "the new title on the visitor's open page, without a reload", timeout=20)
    log("saved: the visitor's open page shows the new title")
    e.shot("saved")

    # The file changes on disk while the editor has it open: the save is refused, both shown.
    on_disk = (missions / FILE).read_text().replace(NEW_TITLE, "Changed on disk")
    (missions / FILE).write_text(on_disk)
    set_text(e, e.js("return document.getElementById('mission-text').value").replace(NEW_TITLE, "Mine"))
    e.click("#save")
    e.wait(lambda d: "changed on disk" in e.text("#conflict-title"), "the save over a changed file refused")
    check("Changed on disk" in e.js("return document.querySelector('pre.disk').textContent"), "the version on disk shown")
    check("Mine" in e.js("return document.getElementById('mission-text').value"), "the editor's own text kept")
    check((missions / FILE).read_text() == on_disk, "the file on disk untouched")
    check(not accessibility_problems(e), f"axe on the refused save: {accessibility_problems(e)}")
    e.shot("conflict")

    # Restore the first version: the file as it was before any save.
    e.click("a[href$='/missions/versions']")
    e.wait(lambda d: "editor@museum.example" in e.text("main table"), "the versions with who saved them")
    check(not accessibility_problems(e), f"axe on the versions: {accessibility_problems(e)}")
    e.shot("versions")
    # The disk changed since version 2: reload so that the restore is over the version on disk now.
    e.d.refresh()
    e.click("button[aria-label='Restore version 1']")
    e.wait(lambda d: "Saved as version" in e.text("main"), "the restore saved")
    check((missions / FILE).read_text() == original, "the file on disk is the first version again")
    v.wait(lambda d: OLD_TITLE in v.text("main"), "the old title back on the visitor's page", timeout=20)
    log("restored: the first version is the file again")

    # A picture for the file, uploaded through the form into the venue's own folder.
    e.click("a[href$='/missions/pictures']")
    e.el("#picture-file", visible=False)
    check(not accessibility_problems(e), f"axe on the pictures page: {accessibility_problems(e)}")
    e.send_file("#picture-file", make_photo(work / "Shark_Icon.jpg", (20, 90, 160), size=(128, 128)))
    e.js("document.getElementById('kind').value = 'icons'")
    e.click("form[enctype] button[type=submit]")
    e.wait(lambda d: "icons/science-centre/shark-icon.jpg" in e.text("[role=status]"), "the picture's path to write in the file")
    check((assets / "icons" / VENUE / "shark-icon.jpg").exists(), "the picture stored under the venue's own folder")
    log("a picture uploaded: " + e.text("[role=status]"))


if __name__ == "__main__":
    sys.exit(run_scenario(__doc__, "groupie-editor-", scenario))
