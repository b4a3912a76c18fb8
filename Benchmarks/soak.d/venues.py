"""The venues the soak serves and what it knows of their tasks: the kinds of task it plays, the
right answers and codes (read from the mission files, as a test would: the venue document sent
to phones never carries them), and the copy of missions/ whose time limits run out within a run."""

import os
import re
import shutil
import subprocess
import unicodedata

import yaml

from groupie_harness import REPO

# The kinds of task the soak plays; a venue document with another stops the soak at once.
KINDS = ("photo", "question", "code")

# A mission of the soak's own, added to the science centre's copy: a question answered in words
# (the sample venues ask only multiple-choice ones), a found-it code and a photo, under a time
# limit, so that every kind of task and a photo's `time-up` are played.
SOAK_MISSION = """
  # Added by the soak (Benchmarks/soak.d/venues.py): every kind of task under a time limit.
  - id: soak-quiz
    title: Quick quiz
    icon: icons/planet.svg
    time_limit: {minutes}
    tasks:
      - id: biggest-animal
        kind: question
        question: What is the largest animal that has ever lived?
        answers: [blåval, blue whale, blue-whale]
        fact: A blue whale can be more than 30 metres long.
      - id: planet-code
        kind: code
        prompt: Find the planet sticker by the meteorites and type its code.
        code: SATURN-6
        fact: Saturn has more than a hundred moons.
      - id: under-the-planets
        prompt: Take a photo of your group under the planets.
"""
SOAK_MISSION_VENUE = "science-centre"


def prepare_missions(binary, work, minutes):
    """The missions folder the server runs on: with `minutes` 0 the repository's missions/ as
    they are; else a copy in `work` whose every `time_limit` is `minutes` (a group's visit in the
    soak lasts minutes, not hours) and whose science centre has the soak's own mission. The copy
    is checked with `groupie missions validate`."""
    source = os.path.join(REPO, "missions")
    if not minutes:
        return source
    folder = os.path.join(work, "missions")
    shutil.copytree(source, folder)
    for name in os.listdir(folder):
        if not name.endswith(".yaml"):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"(?m)^(\s*time_limit:)\s*\d+", rf"\g<1> {minutes}", text)
        if name == SOAK_MISSION_VENUE + ".yaml":
            if list(yaml.safe_load(text))[-1] != "missions":
                raise SystemExit(f"soak: {name} does not end with its missions; the soak cannot add its own")
            text = text.rstrip("\n") + "\n" + SOAK_MISSION.format(minutes=minutes)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    checked = subprocess.run([binary, "missions", "validate", folder, "--assets", os.path.join(REPO, "assets")],
                             capture_output=True, text=True, timeout=120)
    if checked.returncode != 0:
        raise SystemExit(f"soak: the soak's copy of missions/ is not valid:\n{checked.stdout}{checked.stderr}")
    return folder


def texts(value):
    """Every translation of a mission file's text (a string, or a map of language to string)."""
    if value is None:
        return set()
    return set(value.values()) if isinstance(value, dict) else {value}


class TaskRules:
    """What the mission file says of one task that is answered: how to get it right."""

    def __init__(self, kind, spec):
        self.kind = kind
        self.choices = len(spec.get("choices") or [])
        right = spec.get("answer")
        self.right_choices = set(right if isinstance(right, list) else [right] if right is not None else [])
        accepted = spec.get("answers")
        self.accepted = [str(a) for a in (accepted if isinstance(accepted, list) else [accepted] if accepted is not None else [])]
        self.code = spec.get("code")
        self.facts = texts(spec.get("fact"))

    @property
    def multiple_choice(self):
        return self.choices > 0

    def right(self, choice=None, text=None):
        """Whether an attempt is right by the rules in missions/README.md."""
        if self.kind == "code":
            return text is not None and code_form(text) == code_form(self.code)
        if self.multiple_choice:
            return choice in self.right_choices
        given = answer_form(text or "")
        return given != "" and any(answer_form(a) == given for a in self.accepted)


def read_rules(folder):
    """venue id -> {(mission id, task id): TaskRules} for the tasks answered, from the files."""
    rules = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            venue = yaml.safe_load(f)
        tasks = rules.setdefault(venue["id"], {})
        for mission in venue.get("missions") or []:
            for task in mission.get("tasks") or []:
                kind = task.get("kind", "photo")
                if kind != "photo":
                    tasks[(mission["id"], task["id"])] = TaskRules(kind, task)
    return rules


def check_kinds(venue_docs, rules):
    """Stops the soak with one line when a venue document has a task whose kind it does not play,
    or one that its mission file does not answer as the document says."""
    for venue_id, venue in venue_docs.items():
        for mission in venue["missions"]:
            for task in mission["tasks"]:
                where = f"{venue_id}/{mission['id']}/{task['id']}"
                kind = task.get("kind")
                if kind not in KINDS:
                    raise SystemExit(f"soak: task {where} is of kind {kind!r}, which the soak does not play "
                                     f"(it plays {', '.join(KINDS)}); teach Benchmarks/soak.d/ its rules first")
                spec = rules.get(venue_id, {}).get((mission["id"], task["id"]))
                if kind != "photo" and (spec is None or spec.kind != kind or spec.choices != len(task.get("choices") or [])):
                    raise SystemExit(f"soak: task {where} is a {kind} in the venue document but not so in the mission file the soak reads")


# --- how answers compare (missions/README.md): the soak's own reading of the rules
def answer_form(text):
    """A short answer as compared: case, accents and spaces do not count, nor punctuation at either end."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()
    kept = "".join(c for c in folded if not c.isspace())
    start, end = 0, len(kept)
    while start < end and unicodedata.category(kept[start]).startswith("P"):
        start += 1
    while end > start and unicodedata.category(kept[end - 1]).startswith("P"):
        end -= 1
    return kept[start:end]


def code_form(text):
    """A code as compared: case, spaces and dashes do not count."""
    return "".join(c for c in text.upper() if not c.isspace() and c != "-")


def right_text(rules, rng):
    """A right answer or code as a visitor types it: in other case, with spaces, without accents or dashes."""
    if rules.kind == "code":
        code = rules.code
        return rng.choice([code, code.lower(), code.replace("-", ""), code.replace("-", " "), " " + code.lower() + " "])
    answer = rng.choice(rules.accepted)
    plain = "".join(c for c in unicodedata.normalize("NFKD", answer) if not unicodedata.combining(c))
    return rng.choice([answer, answer.upper(), answer.capitalize() + "!", plain, " " + answer + ". "])


def wrong_text(rules, rng):
    """A wrong answer, or a mistyped code (one character changed), that is surely wrong."""
    for _ in range(50):
        if rules.kind == "code":
            code = list(rules.code)
            i = rng.choice([i for i, c in enumerate(code) if c != "-"])
            code[i] = rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789".replace(code[i].upper(), ""))
            typed = "".join(code)
        else:
            typed = rng.choice(["a shark", "No idea", "dinosaur", "elephant!", "Giraffe", "the moon", "42"])
        if not rules.right(text=typed):
            return typed
    raise AssertionError(f"no wrong answer found for {rules.kind}")
