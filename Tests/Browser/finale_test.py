#!/usr/bin/env python3
"""Browser test of the finale: a group's recap when its visit is over.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`, with
phones at 390 px, on the sample art museum:

  - Ada and Bo are a group. Every task but the last is photographed through the API as Ada;
    Bo waits on the album. Ada photographs the last task on her phone: both phones open the
    finale by themselves, the points and a medal for each badge first, in the venue's colours,
    with one big button to keep the visit; calm (no turning rays) on a phone that asks for
    reduced motion.
  - The recap tells every completed mission in the venue's order with its collage, the facts
    and who did what, and passes axe-core.
  - Ada downloads the page as PDF: `pdfimages -list` finds one image per collage, and
    `pdftotext` the facts and the group's names.
  - The album leads to the recap too.

Screenshots go to .build/browser-screenshots/ (prefixed "finale-").

Usage:  python3 Tests/Browser/finale_test.py .build/debug/groupie
"""

import pathlib
import subprocess
import sys

import yaml

from browser_support import Browser, accessibility_problems, check, join_group, log, make_photo, run_scenario, start_group, start_server

VENUE = "art-museum"
MISSIONS = pathlib.Path(__file__).resolve().parents[2] / "missions"


def pdf_images(path):
    """The rows of `pdfimages -list` after its two header lines: one per image in the file."""
    out = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[2:]


def downloaded(b, suffix, timeout=60):
    """The file ending in `suffix` once Chromium has finished saving it in the browser's
    downloads folder (named by the server: the group's name, else "Groupie recap")."""
    def done(d):
        files = [p for p in b.downloads.glob("*" + suffix) if p.stat().st_size > 0]
        return files[0] if files and not list(b.downloads.glob("*.crdownload")) else None
    return b.wait(done, f"the {suffix} downloaded", timeout=timeout)


def scenario(binary, work, started):
    photos = [make_photo(work / f"p{i}.jpg", c) for i, c in enumerate([(200, 40, 40), (40, 160, 60), (40, 70, 200), (220, 180, 30)])]
    server = start_server(binary, work)
    started.append(server)
    log(f"server on {server.base}")
    a, b = Browser("finale-A", work), Browser("finale-B", work)
    started += [a, b]

    join_group(b, start_group(a, server.base, VENUE, "Ada"), "Bo")
    token = a.token()
    group_id = server.api.get("/api/v1/me", token)["group"]["id"]
    venue = server.api.get(f"/api/v1/venues/{VENUE}?lang=en", token)
    missions = venue["missions"]
    # Missions of photos have a collage; one of questions and codes alone has none.
    collaged = [m for m in missions if any(t.get("kind", "photo") == "photo" for t in m["tasks"])]
    tasks = [(m["id"], t["id"], t.get("kind", "photo")) for m in missions for t in m["tasks"]]
    photo_tasks = [x for x in tasks if x[2] == "photo"]
    last_mission, last_task, _ = photo_tasks[-1]
    # Every task but the last photo's, through the API as Ada or Bo, in the venue's order (so that
    # `after:` opens): photos uploaded, questions answered (each choice in turn until one is
    # right) and codes typed, as the venue's file gives them.
    codes = {t["id"]: t["code"] for m in yaml.safe_load(open(MISSIONS / f"{VENUE}.yaml"))["missions"] for t in m["tasks"] if "code" in t}
    tokens = [token, b.token()]
    for i, (mission, task, kind) in enumerate(tasks):
        answer = f"/api/v1/groups/{group_id}/missions/{mission}/tasks/{task}/answer"
        if (mission, task) == (last_mission, last_task):
            continue
        if kind == "photo":
            server.api.upload(group_id, photos[i % len(photos)].read_bytes(), tokens[i % 2], mission=mission, task=task)
        elif kind == "code":
            check(server.api.request("POST", answer, {"text": codes[task]}, token=tokens[i % 2]).data["right"], f"the code of {task}")
        else:
            choices = next(t for m in missions if m["id"] == mission for t in m["tasks"] if t["id"] == task)["choices"]
            check(any(server.api.request("POST", answer, {"choice": n + 1}, token=tokens[i % 2]).data["right"] for n in range(len(choices))),
                  f"a right choice for {task}")
    check(server.api.get(f"/api/v1/groups/{group_id}", token)["group"].get("visitEnd") is None, "the visit goes on while a task is open")
    log(f"{len(tasks) - 1} of {len(tasks)} tasks done through the API")

    b.js("location.hash = '#/album'")
    b.el("#open-recap")
    a.d.get(server.base + f"/#/m/{last_mission}")
    a.send_file(f"#take-{last_mission}-{last_task}", photos[0])
    a.click("#accept-photo")
    # Every phone opens the finale by itself: the one that took the last photo too.
    for p in (a, b):
        p.wait(lambda d, p=p: d.current_url.endswith("#/recap") and p.js("return !!document.querySelector('.finale #keep-visit')"),
               f"{p.name}'s phone opens the finale by itself", timeout=30)
    standing = server.api.get(f"/api/v1/groups/{group_id}", token)["group"]["standing"]
    for p in (a, b):
        finale = p.text(".finale")
        check("You did it!" in finale and f"{standing['points']} points" in finale, f"{p.name}: the finale's title and points: {finale!r}")
        medals = p.js("return [...document.querySelectorAll('.finale .badge-medal')].map((b) => b.textContent)")
        check(len(medals) == len(standing["badges"]) and all(m.strip() for m in medals), f"{p.name}: a medal for each badge: {medals}")
        check("null" not in p.text("main") and "undefined" not in p.text("main"), f"{p.name}: nothing on the finale says null")
        # In the venue's colours: the finale's background is drawn from the theme's accent.
        accent = p.js("return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
        check(accent and p.js("return getComputedStyle(document.querySelector('.finale')).backgroundImage").startswith("linear-gradient"),
              f"{p.name}: the finale in the venue's colours ({accent})")
    # Calm for those who ask for less motion: Bo's phone asks.
    b.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    check(b.js("return getComputedStyle(document.querySelector('.finale .rays')).animationName") == "none", "no turning rays with reduced motion")
    check(a.js("return getComputedStyle(document.querySelector('.finale .rays')).animationName") == "turn", "the rays turn for Ada")
    a.shot("finale")
    log("the last photo ends the visit: both phones open the finale, points and badges first, in the venue's colours")
    a.el(".screen.recap")
    order = a.js("return [...document.querySelectorAll('.story > li')].map((li) => li.dataset.mission)")
    check(order == [m["id"] for m in missions], f"the story tells every mission in the venue's order: {order}")
    # The collages load as they come into view: each is scrolled to in turn.
    a.wait(lambda d: a.js("const imgs = [...document.querySelectorAll('.story img')];"
                          "const waiting = imgs.find((i) => !(i.complete && i.naturalWidth > 0));"
                          "if (waiting) waiting.scrollIntoView();"
                          "return imgs.length - (waiting ? 1 : 0)") == len(collaged), "every collage shown", timeout=120)
    facts = [m["fact"] for m in missions if m.get("fact")]
    shown_facts = a.text(".recap .fact")
    check(facts and all(f in shown_facts for f in facts), f"the facts: {shown_facts!r}")
    # The facts of the question and the code answered right come beside the missions' own.
    answered = [t["fact"] for m in yaml.safe_load(open(MISSIONS / f"{VENUE}.yaml"))["missions"] for t in m["tasks"]
                if t.get("kind") in ("question", "code") and t.get("fact")]
    a.wait(lambda d: all(f["en"] in a.text(".recap .fact") for f in answered), "the facts of the question and the code in the recap")
    people = a.text(".recap .people")
    check("Ada" in people and "Bo" in people, f"who did what: {people!r}")
    problems = accessibility_problems(a)
    check(not problems, f"axe on the recap: {problems}")
    a.shot("recap")
    log("the recap tells every mission with its collage, the facts and who did what")

    a.click("#recap-pdf")
    pdf = downloaded(a, ".pdf", timeout=120)
    images = pdf_images(pdf)
    check(len(images) == len(collaged), f"the PDF holds every collage: {len(images)} images for {len(collaged)} missions of photos")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    flat = " ".join(text.split())
    check(all(" ".join(f.split())[:40] in flat for f in facts), "the PDF has the facts")
    check("Ada" in flat and "Bo" in flat, "the PDF says who did what")
    log(f"the downloaded PDF opens and holds all {len(images)} collages")

    a.js("location.hash = '#/album'")
    a.click("#open-recap")
    a.el(".screen.recap")
    log("the album leads to the recap")
    a.check_console("on the finale")


if __name__ == "__main__":
    sys.exit(run_scenario(__doc__, "groupie-finale-", scenario, tools=("pdfimages", "pdftotext")))
