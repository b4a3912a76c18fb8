#!/usr/bin/env python3
"""Browser test of the kinds of task beside photos: a question and a found-it code.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`, with
phones at 390 px in one group, on the sample art museum's "art-detective" mission (a
multiple-choice question, a code and a 30-minute limit):

  - The mission shows its time limit, and neither phone's venue document holds the right
    answer or the code.
  - The code's form, on an English phone and on an Arabic one (right to left, in a venue of
    the test's own that speaks Arabic and has a code to find), on a browser that cannot scan
    (Chromium on Linux has no BarcodeDetector): its label, its field and its button, in the
    page's own type and spacing, and nothing else (no scan button).
  - Ada picks a wrong choice: her phone says so, and Bo's phone shows her wrong answer live.
    She picks the right one: the fact shows on both phones, and the question is done.
  - Bo types the sticker's code in lower case with a space: it is found, and the mission
    completes on both phones.
  - On the Arabic phone, the venue's only mission has a one-minute limit: a wrong code starts
    it, the time left counts down in seconds, and at zero the phone opens the finale by itself
    ("time is up", in Arabic) with no one touching it; back on the mission, the form is gone
    and the line says the time is up, and the server refuses a late code (409 time-up).

Screenshots go to .build/browser-screenshots/ (prefixed "kinds-").

Usage:  python3 Tests/Browser/task_kinds_test.py .build/debug/groupie
"""

import shutil
import sys

from browser_support import REPO, Browser, check, join_group, log, run_scenario, start_group, start_server

VENUE, MISSION, QUESTION, CODE = "art-museum", "art-detective", "unicorn-colour", "tapestry-code"
FACT = "Unicorns in medieval tapestries are almost always white"

# A venue that speaks Arabic, with a code to find: every text in both its languages.
ARABIC_VENUE, ARABIC_MISSION, ARABIC_CODE = "reading-room", "sticker-hunt", "door-code"
ARABIC_VENUE_FILE = """
id: reading-room
name:
  en: Reading Room
  ar: قاعة القراءة
languages: [en, ar]
timezone: Asia/Dubai
theme:
  color: "#5a3d8a"
missions:
  - id: sticker-hunt
    title:
      en: Sticker hunt
      ar: البحث عن الملصق
    icon: icons/magnifier.svg
    time_limit: 1
    tasks:
      - id: door-code
        kind: code
        prompt:
          en: Find the sticker by the door and type its code.
          ar: ابحث عن الملصق بجانب الباب واكتب رمزه.
        code: OWL-7
"""


def plain(text):
    """Text without the marks that isolate a visitor's name from the sentence around it."""
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def shown(b, css):
    return plain(b.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css))


def code_form(p, task=CODE):
    """Checks the found-it code's form of `task` on `p`'s mission screen (see the module's docstring)."""
    form = f".task[data-task={task}] form[data-answer={task}]"
    p.el(form + " input")
    seen = p.js("""const f = document.querySelector(arguments[0]), family = (e) => getComputedStyle(e).fontFamily;
      const label = f.querySelector('label'), button = f.querySelector('button[type=submit]');
      return {lines: f.innerText.split('\\n').map((l) => l.trim()).filter(Boolean), label: label.innerText.trim(),
              button: button.innerText.trim(), scan: !!f.querySelector('button[type=button]'),
              canScan: 'BarcodeDetector' in window, body: family(document.body), labelFont: family(label),
              buttonFont: family(button), spacing: getComputedStyle(label).letterSpacing}""", form)
    check(not seen["canScan"] and not seen["scan"], f"{p.name}: a browser without BarcodeDetector has no scan button: {seen}")
    check(seen["lines"] == [seen["label"], seen["button"]], f"{p.name}: the code's form shows its label and its button, nothing else: {seen['lines']}")
    check(seen["labelFont"] == seen["body"] and seen["buttonFont"] == seen["body"] and seen["spacing"] == "normal",
          f"{p.name}: the code's label and button are in the page's type ({seen['body']}), not {seen['labelFont']} / {seen['buttonFont']} "
          f"(letter spacing {seen['spacing']})")
    p.shot("code-task")


AR_TIME_UP = "انتهى وقت هذه المهمة."
AR_LEAD_TIME_UP = "انتهى الوقت! هذا ما صنعتموه معًا، لتحتفظوا به."


def countdown(ar, server):
    """The Arabic phone's one-minute mission: see the module's docstring."""
    timer = f"#time-{ARABIC_MISSION}"
    ar.type(f"#code-{ARABIC_CODE}", "XYZ-1")
    ar.click(f".task[data-task={ARABIC_CODE}] button[type=submit]")
    ar.wait(lambda d: ar.js("return !!document.querySelector(arguments[0] + '[data-end]')", timer), "the clock running once the mission started")
    first = shown(ar, timer)
    check("ثاني" in first or "ثوان" in first, f"the last minute is counted in seconds, in Arabic: {first!r}")
    ar.wait(lambda d: shown(ar, timer) not in ("", first), f"the time left ticking on from {first!r}")
    ar.shot("countdown")
    # Nobody touches the phone: at zero it opens the finale by itself (the minute, and the server's second).
    ar.wait(lambda d: ar.js("return location.hash") == "#/recap", "the finale opening by itself when the time is up", timeout=150)
    ar.wait(lambda d: AR_LEAD_TIME_UP in plain(ar.js("return document.body.innerText")), "the finale saying that the time is up, in Arabic")
    ar.shot("finale-time-up")
    group_id = server.api.get("/api/v1/me", ar.token())["group"]["id"]
    check(server.api.get(f"/api/v1/groups/{group_id}", ar.token())["group"].get("visitEnd") == "missions-over",
          "the server says the visit is over: every mission done or out of time")
    ar.d.get(server.base + f"/#/m/{ARABIC_MISSION}")
    ar.wait(lambda d: AR_TIME_UP in shown(ar, timer), "the mission's line says the time is up")
    check(not ar.js("return !!document.querySelector('form[data-answer]')"), "the code's form is closed at zero")
    late = server.api.request("POST", f"/api/v1/groups/{group_id}/missions/{ARABIC_MISSION}/tasks/{ARABIC_CODE}/answer",
                              {"text": "OWL-7"}, token=ar.token(), expect=None)
    check(late.status == 409 and (late.data or {}).get("code") == "time-up", f"a late code is refused: {late.status} {late.body[:200]!r}")
    ar.shot("mission-time-up")
    log("a one-minute mission counts down in seconds, closes its form at zero and opens the finale by itself, in Arabic")


def mission_of(server, token, group_id):
    g = server.api.get(f"/api/v1/groups/{group_id}", token)["group"]
    return next(m for m in g["missions"] if m["id"] == MISSION)


def scenario(binary, work, started):
    missions = work / "missions"
    missions.mkdir()
    for f in (REPO / "missions").glob("*.yaml"):
        shutil.copy(f, missions / f.name)
    shutil.copy(REPO / "missions" / "venue.schema.json", missions / "venue.schema.json")
    (missions / f"{ARABIC_VENUE}.yaml").write_text(ARABIC_VENUE_FILE, encoding="utf-8")
    server = start_server(binary, work, missions=missions)
    started.append(server)
    log(f"server on {server.base}")
    a, b = Browser("kinds-A", work), Browser("kinds-B", work)
    started += [a, b]
    join_group(b, start_group(a, server.base, VENUE, "Ada"), "Bo")
    group_id = server.api.get("/api/v1/me", a.token())["group"]["id"]

    venue = server.api.get(f"/api/v1/venues/{VENUE}?lang=en", a.token())
    detective = next(m for m in venue["missions"] if m["id"] == MISSION)
    document = str(detective)
    check(detective["timeLimit"] == 30, "the mission's time limit is in the venue document")
    check([t["kind"] for t in detective["tasks"]] == ["question", "code"], "the tasks' kinds are in the venue document")
    check("LION" not in document and "answer" not in detective["tasks"][0], f"no code nor right answer reaches phones: {document}")

    for p in (a, b):
        p.d.get(server.base + f"/#/m/{MISSION}")
        p.el(f".task[data-task={QUESTION}] .choice")
    check("30 min" in shown(a, f"#time-{MISSION}"), "the time limit is shown before the mission starts")
    check(shown(a, ".mission .count") == "0 of 2 tasks", f"a mission of a question and a code counts tasks: {shown(a, '.mission .count')!r}")
    a.shot("question")
    code_form(a)
    ar = Browser("kinds-ar", work, lang="ar")
    started.append(ar)
    start_group(ar, server.base, ARABIC_VENUE, "ليلى")
    ar.d.get(server.base + f"/#/m/{ARABIC_MISSION}")
    ar.wait(lambda d: ar.js("return document.documentElement.dir") == "rtl", "the Arabic phone right to left")
    code_form(ar, ARABIC_CODE)
    check(shown(ar, ".mission .count") == "0 من مهمة واحدة", f"a mission of a code counts its task, not photos: {shown(ar, '.mission .count')!r}")
    log("the code's form is a label, a field and a button, in English and in Arabic")
    countdown(ar, server)
    ar.check_console("on the Arabic phone")
    ar.quit()

    # ------------------------------------------------------------ a wrong answer, then the right one
    a.click(f".task[data-task={QUESTION}] .choice[data-choice='2']")
    b.wait(lambda d: "Ada: Gold (not right)" in shown(b, f".task[data-task={QUESTION}] .answers"), "Bo sees Ada's wrong answer live")
    a.wait(lambda d: "Gold (not right)" in shown(a, f".task[data-task={QUESTION}] .answers"), "Ada's wrong answer on her own phone")
    check(a.js(f"return !!document.querySelector('.task[data-task={QUESTION}] .choice')"), "a wrong answer may be tried again")
    a.wait(lambda d: "min left" in shown(a, f"#time-{MISSION}"), "the time left shown once the mission started")
    log("a wrong answer is shown to the whole group, and the question stays open")

    a.click(f".task[data-task={QUESTION}] .choice[data-choice='1']")
    for p in (a, b):
        p.wait(lambda d, p=p: FACT in shown(p, f".task[data-task={QUESTION}] .task-fact"), f"the fact shown on {p.name}")
        p.wait(lambda d, p=p: p.js(f"return document.querySelector('.task[data-task={QUESTION}]').classList.contains('done')"), f"the question done on {p.name}")
    check(not b.js(f"return !!document.querySelector('.task[data-task={QUESTION}] .choice')"), "a question answered right takes no more answers")
    b.shot("fact")
    log("the right answer makes the question done, with its fact, on both phones")

    # ------------------------------------------------------------ the found-it code
    b.type(f"#code-{CODE}", "lion 42")
    b.click(f".task[data-task={CODE}] button[type=submit]")
    for p in (a, b):
        p.wait(lambda d, p=p: p.js(f"return location.hash === '#/done/{MISSION}' || !!document.querySelector('.callout.done')"),
               f"the mission complete on {p.name}")
    check(mission_of(server, a.token(), group_id)["complete"], "the server says the mission is complete")
    answers = server.api.get(f"/api/v1/groups/{group_id}/answers", b.token())
    check([(x["name"], x["answer"], x["right"]) for x in answers["answers"]] == [("Ada", "2", False), ("Ada", "1", True), ("Bo", "lion 42", True)],
          f"every attempt kept: {answers['answers']}")
    a.shot("complete")
    log("a typed code completes the mission on both phones")
    for p in (a, b):
        p.check_console(f"{p.name}'s console")


if __name__ == "__main__":
    sys.exit(run_scenario(__doc__, "groupie-kinds-", scenario))
