"""Start-up with 100 venues of 20 missions, and validation of one 2,000-mission file.

Targets (issue: foundation): first answered request under 500 ms after process start;
a 2,000-mission file validated in under 200 ms. Each figure is printed beside a
reference: the same binary starting on one tiny venue, and PyYAML's C loader parsing
the same file (parsing alone, without any of Groupie's checks).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib
import yaml

BINARY = os.path.abspath(sys.argv[1])
RUNS = 7


def venue_yaml(venue_id, missions):
    lines = [
        f"id: {venue_id}",
        "name:",
        f"  sv: Museum {venue_id}",
        f"  en: Museum {venue_id}",
        "languages: [sv, en]",
        "timezone: Europe/Stockholm",
        "theme:",
        '  color: "#0b6e4f"',
        "missions:",
    ]
    for m in range(missions):
        lines += [
            f"  - id: mission-{m}",
            "    title:",
            f"      sv: Uppdrag {m}",
            f"      en: Mission {m}",
            "    icon: icons/icon.svg",
            f"    area: Floor {m % 4}",
            "    fact:",
            "      sv: Visste du att det här är ett faktum?",
            "      en: Did you know this is a fact?",
        ]
        if m > 0 and m % 5 == 0:
            lines.append(f"    after: [mission-{m - 1}]")
        lines.append("    tasks:")
        for t in range(1 + m % 3):
            lines += [
                f"      - id: task-{t}",
                "        prompt:",
                f"          sv: Fota sak {t}",
                f"          en: Photograph thing {t}",
                "        hint: Look around",
            ]
    return "\n".join(lines) + "\n"


def make_folder(venues, missions):
    root = tempfile.mkdtemp(prefix="groupie-bench-")
    os.makedirs(f"{root}/missions")
    os.makedirs(f"{root}/assets/icons")
    with open(f"{root}/assets/icons/icon.svg", "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg"/>')
    for v in range(venues):
        with open(f"{root}/missions/venue-{v}.yaml", "w") as f:
            f.write(venue_yaml(f"venue-{v}", missions))
    return root


def time_to_first_answer(root):
    shutil.rmtree(f"{root}/data", ignore_errors=True)
    server = benchlib.server(BINARY, root, missions=f"{root}/missions", assets=f"{root}/assets", ready=None)
    try:
        while True:
            try:
                if server.api.request("GET", "/api/v1/venues/venue-0", expect=None, timeout=1).status == 200:
                    return time.perf_counter() - server.started
            except OSError:
                time.sleep(0.002)
            if time.perf_counter() - server.started > 30:
                raise RuntimeError("the server did not answer within 30 s")
    finally:
        server.stop()


def median_ms(samples):
    return statistics.median(samples) * 1000


def main():
    big = make_folder(100, 20)
    small = make_folder(1, 1)
    startup = [time_to_first_answer(big) for _ in range(RUNS)]
    reference = [time_to_first_answer(small) for _ in range(RUNS)]
    print("start-up: process start to first answered GET /api/v1/venues/{id}")
    print(f"  100 venues x 20 missions: {median_ms(startup):7.1f} ms (median of {RUNS}; target < 500 ms)")
    print(f"  reference, 1 venue x 1:   {median_ms(reference):7.1f} ms  ratio {median_ms(startup) / median_ms(reference):.2f}x")

    one = make_folder(1, 2000)
    path = f"{one}/missions/venue-0.yaml"
    size = os.path.getsize(path)
    validate = []
    for _ in range(RUNS):
        start = time.perf_counter()
        result = subprocess.run([BINARY, "missions", "validate", "--assets", f"{one}/assets", path],
                                capture_output=True)
        validate.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise RuntimeError(result.stdout.decode() + result.stderr.decode())
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    parse = []
    for _ in range(RUNS):
        start = time.perf_counter()
        with open(path, encoding="utf-8") as f:
            yaml.load(f, Loader=loader)
        parse.append(time.perf_counter() - start)
    print(f"validation: one 2,000-mission file ({size / 1e6:.1f} MB)")
    print(f"  groupie missions validate: {median_ms(validate):7.1f} ms (whole process, median of {RUNS}; target < 200 ms)")
    print(f"  reference, PyYAML {loader.__name__} parse only: {median_ms(parse):7.1f} ms  ratio {median_ms(validate) / median_ms(parse):.2f}x")
    for folder in (big, small, one):
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
