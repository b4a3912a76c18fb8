"""Questions and found-it codes: a member answers by a choice or a text, or types the code
(sometimes wrong first, or mistyped); every attempt is stored and the task stays open until one
is right. Timed missions: a group that lets one run out tries once more, which must be refused
with 409 time-up. The group's answers (`GET …/answers`) are checked against every attempt."""

import json
import time
from datetime import datetime

from actions import problem_code
from stats import STATS
from venues import right_text, wrong_text

WRONG_FIRST = 0.35           # attempts that are wrong (a wrong choice, a wrong text, a mistyped code)
ROUTE = "POST /groups/{id}/missions/{m}/tasks/{t}/answer"


class AnswerActions:
    """Part of Load (game.py), kept apart to keep each file short. Uses MemberActions'
    `judge_time`, `expect_for`, `mission_completed` and `upload`."""

    def answer(self, client, g, member, rng, key=None):
        if key is None:
            candidates = g.open_tasks(("question", "code"))
            if not candidates:
                return self.read_answers(client, g, member)
            key = rng.choice(candidates)
        rules = g.rules[key]
        wrong = rng.random() < WRONG_FIRST
        if rules.multiple_choice:
            wrong_ones = [c for c in range(1, rules.choices + 1) if c not in rules.right_choices]
            choice = rng.choice(wrong_ones if wrong and wrong_ones else sorted(rules.right_choices))
            body, stored, right = {"choice": choice}, str(choice), rules.right(choice=choice)
            how = "choice"
        else:
            text = wrong_text(rules, rng) if wrong else right_text(rules, rng)
            body, stored, right = {"text": text}, text.strip(), rules.right(text=text)
            how = "code" if rules.kind == "code" else "text"
        sent = time.time()
        status, _, data = client.call(ROUTE, "POST", f"/api/v1/groups/{g.id}/missions/{key[0]}/tasks/{key[1]}/answer",
                                      self.expect_for(g, key[0], {200}), body=body, token=member.token)
        answered = time.time()
        if not self.judge_time(g, key[0], sent, answered, status, data, f"an answer ({how})"):
            return
        outcome = json.loads(data)
        where = f"{g.id}/{key[0]}/{key[1]}"
        if outcome.get("right") is not right:
            STATS.error("inconsistent answer", f"answer {body} to {where} ({rules.kind}): right={outcome.get('right')}, expected {right}")
        fact = outcome.get("fact")
        if (fact is not None) != (right and bool(rules.facts)) or (fact is not None and fact not in rules.facts):
            STATS.error("inconsistent answer", f"answer {body} to {where}: fact {fact!r}, expected one of {sorted(rules.facts)} "
                                               f"only when right")
        g.attempts.append((key[0], key[1], member.id, stored, right))
        STATS.count(f"{rules.kind}s {'right' if right else 'wrong'} ({how})")
        if right:
            was_complete = g.complete(key[0])
            g.answered.add(key)
            STATS.count(f"tasks done ({rules.kind})")
            if g.complete(key[0]) and not was_complete:
                self.mission_completed(g, key[0])

    def late_attempt(self, client, g, rng):
        """A timed mission the group let run out: one more photo or answer, to be refused."""
        key = rng.choice(g.late_tasks())
        timer = g.timers[key[0]]
        timer.late_tried = True
        STATS.count("late attempts")
        member = rng.choice(g.members)
        # Nobody may say they are on a task of a mission whose time is over.
        status, _, data = client.call("PUT /groups/{id}/missions/{m}/tasks/{t}/claim", "PUT",
                                      f"/api/v1/groups/{g.id}/missions/{key[0]}/tasks/{key[1]}/claim", {409}, token=member.token)
        if problem_code(data) == "time-up":
            STATS.count("late claims refused (time-up)")
        else:
            STATS.error("unexpected 4xx", f"a claim in {g.id}/{key[0]} after its time: 409 {data[:200]!r}")
        if g.kind(*key) == "photo":
            self.upload(client, g, member, rng, key=key)
        else:
            self.answer(client, g, member, rng, key=key)

    def read_answers(self, client, g, member):
        """GET …/answers: every attempt, the facts of the tasks answered right, and the end of
        each timed mission started, against the model; each end narrows the model's."""
        doc = client.json("GET /groups/{id}/answers", "GET", f"/api/v1/groups/{g.id}/answers", {200}, token=member.token)
        problems = []
        seen = [(a["missionId"], a["taskId"], a.get("playerId"), a["answer"], a["right"]) for a in doc["answers"]]
        if seen != g.attempts:
            problems.append(f"{len(seen)} attempts, expected {len(g.attempts)}; first difference "
                            f"{next(((s, e) for s, e in zip(seen + [None] * 99, g.attempts + [None] * 99) if s != e), None)}")
        facts = {(f["missionId"], f["taskId"]): f["fact"] for f in doc["facts"]}
        expected = {k for k in g.answered if g.rules[k].facts}
        if set(facts) != expected or any(text not in g.rules[k].facts for k, text in facts.items() if k in g.rules):
            problems.append(f"facts for {sorted(facts)}, expected for {sorted(expected)}")
        ends = {d["missionId"]: datetime.fromisoformat(d["endsAt"].replace("Z", "+00:00")).timestamp() for d in doc["deadlines"]}
        started = {m for m, t in g.timers.items() if t.started}
        if set(ends) != started:
            problems.append(f"deadlines for {sorted(ends)}, expected for the missions started {sorted(started)}")
        for mission, end in ends.items():
            timer = g.timers.get(mission)
            if timer is None or not timer.started:
                continue
            # Times are written in whole seconds: the end lies within a second of the one written.
            if not timer.end_lo - 1 <= end <= timer.end_hi + 1:
                problems.append(f"mission {mission} ends at {end:.3f}, expected between {timer.end_lo:.3f} and {timer.end_hi:.3f}")
            else:
                timer.end_lo, timer.end_hi = max(timer.end_lo, end - 1), min(timer.end_hi, end + 1)
        if problems:
            STATS.error("inconsistent answer", f"GET /groups/{g.id}/answers: " + "; ".join(problems[:3]))
        STATS.count("answers read")
