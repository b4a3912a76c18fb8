#!/usr/bin/env python3
"""Browser test of the visitor's path on a phone: the places where a visitor used to stumble.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve` with the
sample venues and a German one with long words:

  - a venue's poster link (/?venue=ID) shows the venue, its missions and "start a group";
  - two members with the same name are told apart (a number, a colour) on every screen;
  - a photo taken and not yet used survives a reload of the page, and uploads once;
  - a teammate's second photo joins the album without replacing the chosen one; ticking
    "instead" replaces it, and the first member is told who changed it;
  - a one-task sticker mission's reward is called a photo with a sticker, not a collage;
  - the venue's floor plan shows a pin per mission (done, open, locked), each opening its
    mission with its hint;
  - a German phone on a 320 px screen at a German-only venue gets German mission texts marked
    lang="de" (the interface, which speaks no German, falls back to English), hyphenated,
    and no horizontal scroll;
  - axe-core (axe-selenium-python) finds nothing serious or critical on any of these screens.

Screenshots go to .build/browser-screenshots/ (prefixed "path-").

Usage:  python3 Tests/Browser/visitor_path_test.py .build/debug/groupie
"""

import shutil
import sys

from browser_support import REPO, Browser, accessibility_problems, check, log, make_photo, run_scenario, start_server

VENUE, MISSION, TASK = "science-centre", "poison-frogs", "brightest-frog"
STICKER_MISSION = "heartbeat"

GERMAN_VENUE = """\
# German only: the interface speaks no German, so a German phone's buttons fall back to
# English while the texts, which have no other language, stay German.
id: technikmuseum
name: Technikmuseum
languages: [de]
timezone: Europe/Berlin
theme:
  color: "#35506b"
missions:
  - id: dampf
    title: Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichen
    icon: icons/rocket.svg
    tasks:
      - id: kessel
        prompt: Fotografiert den Hochdruckdampfkesselsicherheitsventilprüfstand im Maschinenraum.
"""


# How many photos the page keeps for a reload (IndexedDB 'groupie', store 'taken'), for
# execute_async_script.
KEPT_PHOTOS = """const done = arguments[arguments.length - 1]; const q = indexedDB.open('groupie');
q.onerror = () => done(-1);
q.onsuccess = () => { try { const t = q.result.transaction('taken').objectStore('taken').count();
  t.onsuccess = () => { q.result.close(); done(t.result); }; t.onerror = () => done(-1); } catch (e) { done(-1); } };"""


def join(b, url, name):
    b.d.get(url)
    b.type("#name", name)
    b.click("#join-group")
    b.el(".mission-card")


def record_toasts(b):
    """Every message shown from now on, in window.toldTexts: a later one replaces an earlier one."""
    b.js("window.toldTexts = []; const box = document.getElementById('toast');"
         "new MutationObserver(() => { if (box.innerText) window.toldTexts.push(box.innerText); })"
         ".observe(box, {childList: true, subtree: true, characterData: true});")


def chosen_by(server, token, group_id):
    g = server.api.get(f"/api/v1/groups/{group_id}", token)["group"]
    task = next(t for m in g["missions"] if m["id"] == MISSION for t in m["tasks"] if t["id"] == TASK)
    return (task.get("chosenPhoto") or {}).get("photographerId")


def take_photo(b, photo):
    b.d.get(b.d.current_url.split("#")[0] + f"#/m/{MISSION}")
    b.send_file(f"#take-{MISSION}-{TASK}", photo)
    b.el("#accept-photo")


def accessible(b, screen):
    """No serious or critical axe-core finding on the screen shown."""
    problems = accessibility_problems(b)
    check(not problems, f"accessibility of {screen}: {problems}")


def scenario(binary, work, started):
    missions = work / "missions"
    missions.mkdir()
    for f in (REPO / "missions").glob("*.yaml"):
        shutil.copy(f, missions / f.name)
    (missions / "technikmuseum.yaml").write_text(GERMAN_VENUE, encoding="utf-8")
    photos = [make_photo(work / f"p{i}.jpg", c) for i, c in enumerate([(200, 40, 40), (40, 160, 60), (40, 70, 200), (220, 180, 30)])]
    server = start_server(binary, work, missions)
    started.append(server)
    browsers = []
    log(f"server on {server.base}")

    # ------------------------------------------------------------ a venue's poster link
    a = Browser("path-A", work)
    browsers.append(a)
    started.append(a)
    a.d.get(server.base + f"/?venue={VENUE}")
    name = a.el("#venue-name").text
    check(name == "House of Science", f"the venue's name is shown: {name!r}")
    items = a.wait(lambda d: a.js("return document.querySelectorAll('.venue-mission-list li').length"), "the venue's missions")
    check(items >= 5, f"the venue's missions are listed ({items})")
    check(a.el("#create").is_displayed(), "'start a group' is on the venue's page")
    a.shot("venue-page")
    accessible(a, "the venue's page")
    log(f"/?venue= shows {name!r} with {items} missions and 'start a group'")

    # ------------------------------------------------------------ two members called Ada
    a.type("#name", "Ada")
    a.click("#create")
    a.click("#create-group")
    join_url = a.el("#join-link").get_attribute("value")
    a.click("#to-missions")
    b = Browser("path-B", work)
    browsers.append(b)
    started.append(b)
    join(b, join_url, "Ada")
    group_id = server.api.get("/api/v1/me", a.token())["group"]["id"]
    a.d.get(server.base + "/#/group")
    a.wait(lambda d: a.js("return document.querySelectorAll('.members li').length") == 2, "both members")
    names = a.js("return [...document.querySelectorAll('.members li .who strong')].map(e => e.textContent)")
    check(sorted(n.replace("\u2068", "").replace("\u2069", "") for n in names) == ["Ada (1)", "Ada (2)"], f"same names are numbered: {names}")
    colours = a.js("return [...document.querySelectorAll('.members .avatar')].map(e => getComputedStyle(e).backgroundColor)")
    check(len(set(colours)) == 2, f"each member has a colour of their own: {colours}")
    a.shot("two-adas")
    accessible(a, "the group's members")
    log(f"two members called Ada: {names}, colours {colours}")

    # ------------------------------------------------------------ a photo survives a reload
    take_photo(a, photos[0])
    # The photo is written to IndexedDB while its screen opens: kept before the reload.
    a.wait(lambda d: a.d.execute_async_script(KEPT_PHOTOS) == 1, "the photo kept in IndexedDB for a reload")
    a.d.refresh()
    a.el("#photo-kept")
    check(a.js("return location.hash") == "#/photo", "the kept photo's screen comes back after the reload")
    a.shot("photo-kept")
    accessible(a, "the kept photo")
    a.click("#accept-photo")
    a.wait(lambda d: chosen_by(server, a.token(), group_id) is not None, "the kept photo uploaded", timeout=30)
    first = chosen_by(server, a.token(), group_id)
    # A reload offers the photo kept in IndexedDB ('taken'), if any: once used it must be gone.
    a.wait(lambda d: a.d.execute_async_script(KEPT_PHOTOS) == 0, "the used photo to be let go")
    a.d.refresh()
    a.el("main .screen.mission .task")
    check(a.js("return location.hash") != "#/photo" and not a.js("return !!document.getElementById('photo-kept')"),
          "a used photo is not offered again")
    count = len(server.api.get(f"/api/v1/groups/{group_id}/photos?mission={MISSION}", a.token())["photos"])
    check(count == 1, f"the kept photo arrived once ({count})")
    log("a photo taken before a reload is offered again and uploads once")

    # ------------------------------------------------------------ a retake keeps the choice
    take_photo(b, photos[1])
    check(b.el("#choose-photo", visible=False) is not None, "B is asked whether the new photo replaces the chosen one")
    b.shot("replace-question")
    accessible(b, "the question whether a photo replaces the chosen one")
    b.click("#accept-photo")
    b.wait(lambda d: len(server.api.get(f"/api/v1/groups/{group_id}/photos?mission={MISSION}", b.token())["photos"]) == 2, "B's photo in the album", timeout=30)
    check(chosen_by(server, b.token(), group_id) == first, "B's photo joined the album without replacing A's")
    a.d.get(server.base + f"/#/m/{MISSION}")
    a.el(".task")
    record_toasts(a)
    take_photo(b, photos[2])
    b.click("label[for=choose-photo]")
    b.click("#accept-photo")
    b.wait(lambda d: chosen_by(server, b.token(), group_id) not in (None, first), "B's ticked photo chosen", timeout=30)
    told = a.wait(lambda d: [t for t in a.js("return window.toldTexts") if "chose another photo" in t], "A told who changed the photo")
    check("Ada (2)" in told[0].replace("\u2068", "").replace("\u2069", ""), f"A is told which Ada chose: {told}")
    a.shot("told-who-chose")
    accessible(a, "a mission with its chosen photo")
    a.d.get(server.base + "/#/album")
    a.wait(lambda d: a.img_loaded(".thumbs img"), "the album")
    accessible(a, "the album")
    log("a teammate's second photo joins the album; replacing the chosen one is asked, and told")

    # ------------------------------------------------------------ the sticker reward's words
    b.d.get(server.base + f"/#/m/{STICKER_MISSION}")
    b.send_file(f"#take-{STICKER_MISSION}-group-heart", photos[3])
    b.click("#accept-photo")

    def sticker_done(d):
        g = server.api.get(f"/api/v1/groups/{group_id}", b.token())["group"]
        return any(m["id"] == STICKER_MISSION and m.get("complete") for m in g["missions"])
    b.wait(sticker_done, "the sticker mission complete", timeout=30)
    b.d.get(server.base + f"/#/done/{STICKER_MISSION}")
    b.el(".screen.done h1")
    text = b.js("return document.querySelector('main').innerText")
    check("sticker" in text.lower() and "collage" not in text.lower(), f"a sticker reward is not called a collage: {text[:200]!r}")
    b.shot("sticker-reward")
    accessible(b, "the sticker reward")
    log("the sticker reward speaks of a sticker, not a collage")

    # ------------------------------------------------------------ the venue's map
    b.d.get(server.base + "/#/missions")
    b.click("#venue-map summary")
    b.wait(lambda d: b.js("return document.querySelectorAll('.venue-map .pin').length") == 9, "a pin for each mission")
    b.wait(lambda d: b.img_loaded(".venue-map .map-canvas > img"), "the floor plan")
    states = b.js("return Object.fromEntries([...document.querySelectorAll('.venue-map .pin')].map(p => [p.dataset.mission, p.className]))")
    check("is-done" in states[STICKER_MISSION], f"a completed mission's pin is done: {states}")
    check("is-locked" in states["canopy"] and "is-open" in states["shark-tunnel"], f"locked and open pins: {states}")
    inside = b.js("""const m = document.querySelector('.venue-map .map-canvas').getBoundingClientRect();
        return [...document.querySelectorAll('.venue-map .pin')].every(p => { const r = p.getBoundingClientRect();
          const x = r.left + r.width / 2, y = r.top + r.height / 2; return x >= m.left && x <= m.right && y >= m.top && y <= m.bottom; })""")
    check(inside, "every pin lies on the map")
    b.shot("venue-map")
    accessible(b, "the venue's map")
    b.click(".venue-map .pin[data-mission=shark-tunnel]")
    hint = b.text(".where-hint")
    check("tunnel" in hint.lower(), f"the mission tells how to find it: {hint!r}")
    check(b.js("return document.querySelectorAll('.venue-map.one .pin').length") == 1, "the mission shows its own pin")
    log(f"the map shows 9 pins (done, open, locked) and a pin opens its mission with its hint {hint!r}")

    # ------------------------------------------------------------ a German phone, 320 px
    c = Browser("path-C", work, width=320, height=640, lang="de-DE")
    browsers.append(c)
    started.append(c)
    c.d.get(server.base + "/?venue=technikmuseum")
    c.type("#name", "Jürgen")
    c.click("#create")
    c.click("#create-group")
    c.click("#to-missions")
    # Read in one go: a live event may draw the screen again between two reads.
    c.el(".mission-card .title")
    lang, text, hyphens = c.js("const t = document.querySelector('.mission-card .title');"
                               "return [t.getAttribute('lang'), t.textContent, getComputedStyle(t).hyphens]")
    check(lang == "de", f"the mission's title says its language: {lang!r}")
    check("Donaudampf" in text, f"German texts for a German phone: {text!r}")
    check(hyphens == "auto", "titles are hyphenated")
    c.click(".mission-card")
    c.el(".task h2 [lang]")
    check(c.js("return document.querySelector('.task h2 [lang]').getAttribute('lang')") == "de", "the task's prompt says its language")
    # Each screen's own content (only the hash changes: the last screen's heading is still there
    # until the new one is drawn), then its pictures and fonts loaded (lazy ones hold their size
    # in width and height), before the width counts.
    for screen, content in (("#/missions", ".screen.missions .mission-card"), ("#/m/dampf", ".screen.mission .task"),
                            ("#/group", ".screen.group .members li"), ("#/album", ".screen.album h2")):
        c.d.get(server.base + "/" + screen)
        c.el("main " + content)
        c.wait(lambda d: c.js("return document.fonts.status === 'loaded'"
                              " && [...document.images].every((i) => i.complete || i.loading === 'lazy')"),
               f"the pictures and fonts of {screen}")
        wide = c.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        check(wide[0] <= wide[1], f"no horizontal scroll at 320 px on {screen}: {wide}")
    c.shot("german-320")
    accessible(c, "a German phone's album at 320 px")
    log("a German phone at 320 px: lang=de, hyphens: auto, no horizontal scroll")

    for br in browsers:
        errs = [e for e in br.errors() if "favicon" not in e["message"]]
        check(not errs, f"browser {br.name} logged errors: {errs[:3]}")


def main():
    return run_scenario(__doc__, "groupie-path-", scenario)


if __name__ == "__main__":
    sys.exit(main())
