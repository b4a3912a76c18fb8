#!/usr/bin/env python3
"""Browser test of the kinds of task beside photos: a question and a found-it code.

Drives Debian's headless Chromium (chromium-driver, selenium) against `groupie serve`, with two
phones at 390 px in one group, on the sample art museum's "art-detective" mission (a
multiple-choice question, a code and a 30-minute limit):

  - The mission shows its time limit, and neither phone's venue document holds the right
    answer or the code.
  - Ada picks a wrong choice: her phone says so, and Bo's phone shows her wrong answer live.
    She picks the right one: the fact shows on both phones, and the question is done.
  - Bo types the sticker's code in lower case with a space: it is found, and the mission
    completes on both phones.

Screenshots go to .build/browser-screenshots/ (prefixed "kinds-").

Usage:  python3 Tests/Browser/task_kinds_test.py .build/debug/groupie
"""

import sys

from browser_support import Browser, check, join_group, log, run_scenario, start_group, start_server

VENUE, MISSION, QUESTION, CODE = "art-museum", "art-detective", "unicorn-colour", "tapestry-code"
FACT = "Unicorns in medieval tapestries are almost always white"


def plain(text):
    """Text without the marks that isolate a visitor's name from the sentence around it."""
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def shown(b, css):
    return plain(b.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css))


def mission_of(server, token, group_id):
    g = server.api.get(f"/api/v1/groups/{group_id}", token)["group"]
    return next(m for m in g["missions"] if m["id"] == MISSION)


def scenario(binary, work, started):
    server = start_server(binary, work)
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
    a.shot("question")

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
