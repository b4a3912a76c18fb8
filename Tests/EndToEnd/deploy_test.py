#!/usr/bin/env python3
"""The files in deploy/ as docs/operating.md shows them:

  - each Caddyfile in deploy/ is in docs/operating.md word for word (and it shows no other),
    and `caddy validate` accepts it (Debian's caddy, with a HOME of its own: its internal
    authority is made there);
  - deploy/groupie.service passes `systemd-analyze verify` (its ExecStart pointed at the binary
    under test, which must exist), and `systemd-analyze security` rates its exposure as
    docs/operating.md says;
  - docs/operating.md's steps install that very file, and the config file they write for it uses
    only settings that `groupie serve --help` lists;
  - deploy/groupie-backup.service and its nightly deploy/groupie-backup.timer pass `systemd-analyze
    verify` together, the service backing up the data folder the config file names, and
    docs/operating.md installs and enables them;
  - deploy/grafana-dashboard.json is a Grafana dashboard (schema 39, its data source the
    `DS_PROMETHEUS` input) that docs/operating.md names, and every panel's PromQL reads what a real
    server serves: a server is started (missions copied, so that one is edited and reloaded),
    visitors join, open an event stream and complete a mission, whose collage is drawn; then in
    its /metrics each metric a panel or variable names must be there (`x_bucket`, `x_sum`,
    `x_count` of a histogram `x`), with each label it matches or groups by and each route it
    names; rate() and increase() only of counters and histograms, histogram_quantile() of
    buckets grouped by `le`, functions PromQL has. The same check is run on broken copies of
    the dashboard, each of which it must refuse.

Usage: deploy_test.py path/to/groupie   (caddy and systemd, which scripts/bootstrap installs).
Exits 1 on any failure.
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO  # noqa: E402
from groupie_harness.checks import Failure, check, logger, require  # noqa: E402
from groupie_harness.events import EventStream  # noqa: E402
from groupie_harness.photos import FIXTURES  # noqa: E402
from groupie_harness.server import Server  # noqa: E402

log = logger("deploy")
DEPLOY = REPO / "deploy"
UNIT = DEPLOY / "groupie.service"
DASHBOARD = DEPLOY / "grafana-dashboard.json"
DATASOURCE = "${DS_PROMETHEUS}"
# Labels Prometheus gives every series it scrapes, not in /metrics itself.
TARGET_LABELS = {"instance", "job"}
# PromQL's functions and aggregations: a name called that is not here is a typo.
FUNCTIONS = set("""abs absent absent_over_time acos acosh asin asinh atan atanh avg avg_over_time bottomk ceil changes clamp
    clamp_max clamp_min count count_over_time count_values cos cosh day_of_month day_of_week day_of_year days_in_month deg
    delta deriv exp floor group histogram_quantile holt_winters hour idelta increase irate label_join label_replace last_over_time
    ln log10 log2 max max_over_time min min_over_time minute month pi predict_linear present_over_time quantile quantile_over_time
    rad rate resets round scalar sgn sin sinh sort sort_desc sqrt stddev stddev_over_time stdvar stdvar_over_time sum
    sum_over_time tan tanh time timestamp topk vector year""".split())
COUNTER_FUNCTIONS = {"rate", "irate", "increase", "resets"}
RANGE_FUNCTIONS = COUNTER_FUNCTIONS | {"delta", "idelta", "deriv", "changes", "predict_linear", "holt_winters"} | {
    name for name in FUNCTIONS if name.endswith("_over_time")}
AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile"}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
KEYWORDS = {"bool", "offset", "and", "or", "unless", "inf", "nan"}
HISTOGRAM_PARTS = ("_bucket", "_sum", "_count")
TOKEN = re.compile(r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<range>\[[^\]]*\])|(?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)'
                   r'|(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)|(?P<operator>=~|!~|!=|==|<=|>=|[=(){},+\-*/%^<>]))')


def check_caddyfiles(caddy, readme, work):
    shown = re.findall(r"```caddyfile\n(.*?)```", readme, re.S)
    files = sorted(DEPLOY.glob("Caddyfile*"))
    check(files, "deploy/ holds a Caddyfile")
    check(len(shown) == len(files), f"docs/operating.md shows each Caddyfile of deploy/ once ({len(shown)} blocks, {len(files)} files)")
    environment = {**os.environ, "HOME": str(work), "XDG_DATA_HOME": str(work / "data"), "XDG_CONFIG_HOME": str(work / "config")}
    for path in files:
        check(path.read_text() in shown, f"docs/operating.md shows {path.relative_to(REPO)} as it is")
        validated = subprocess.run([caddy, "validate", "--config", str(path), "--adapter", "caddyfile"], capture_output=True,
                                   text=True, timeout=60, env=environment)
        check(validated.returncode == 0, f"caddy validate accepts {path.relative_to(REPO)}: {validated.stderr.strip()[-500:]}")
    log(f"caddy validate accepts {', '.join(p.name for p in files)}, as docs/operating.md shows them")


def check_unit(analyze, binary, readme, work):
    unit = UNIT.read_text()
    check(unit.count("ExecStart=/opt/groupie/groupie serve") == 1, "the unit starts /opt/groupie/groupie serve")
    copy = work / "groupie.service"
    copy.write_text(unit.replace("ExecStart=/opt/groupie/groupie ", f"ExecStart={binary} "))
    verified = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True, timeout=60)
    check(verified.returncode == 0 and not verified.stderr.strip(), f"systemd-analyze verify accepts the unit: {verified.stderr.strip()}")
    rated = subprocess.run([analyze, "security", "--offline=true", "--no-pager", str(UNIT)], capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for groupie\.service: (\d+\.\d) (\w+)", rated.stdout)
    check(found, f"systemd-analyze security rates the unit: {rated.stdout[-300:]} {rated.stderr[-300:]}")
    score, verdict = found.groups()
    said = re.findall(r"`systemd-analyze security groupie` rates its exposure (\d+\.\d) \((\w+)\)", readme)
    check(said == [(score, verdict)], f"docs/operating.md gives the unit's exposure as measured, {score} ({verdict}): it says {said}")
    check("deploy/groupie.service /etc/systemd/system/groupie.service" in readme, "docs/operating.md installs deploy/groupie.service")
    settings = re.findall(r"/etc/groupie/groupie\.json >/dev/null <<'JSON'\n(.*?)\nJSON\n", readme, re.S)
    check(len(settings) == 1 and "--config /etc/groupie/groupie.json" in unit, "docs/operating.md writes the config file the unit names")
    keys = json.loads(settings[0]).keys()
    known = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=60).stdout
    unknown = [key for key in keys if f'"{key}" in the file' not in " ".join(known.split())]
    check(not unknown, f"docs/operating.md's config file uses settings serve knows: not {unknown}")
    log(f"systemd-analyze verify accepts deploy/groupie.service; its exposure is {score} ({verdict}), as docs/operating.md says")


def check_backup_units(analyze, binary, readme, work):
    service, timer = DEPLOY / "groupie-backup.service", DEPLOY / "groupie-backup.timer"
    unit = service.read_text()
    data = json.loads(re.findall(r"/etc/groupie/groupie\.json >/dev/null <<'JSON'\n(.*?)\nJSON\n", readme, re.S)[0])["data"]
    check(f"ExecStart=/opt/groupie/groupie backup /var/backups/groupie --data {data}\n" in unit,
          f"the backup service backs up the service's data folder {data} into /var/backups/groupie")
    folder = work / "backup-units"
    folder.mkdir()
    (folder / service.name).write_text(unit.replace("ExecStart=/opt/groupie/groupie ", f"ExecStart={binary} "))
    shutil.copy(timer, folder / timer.name)
    verified = subprocess.run([analyze, "verify", str(folder / service.name), str(folder / timer.name)], capture_output=True, text=True, timeout=60)
    check(verified.returncode == 0 and not verified.stderr.strip(), f"systemd-analyze verify accepts the backup units: {verified.stderr.strip()}")
    check("OnCalendar=" in timer.read_text() and "Persistent=true" in timer.read_text(), "the timer runs on a calendar and catches up after a night off")
    for step in ("deploy/groupie-backup.service deploy/groupie-backup.timer /etc/systemd/system/", "systemctl enable --now groupie-backup.timer"):
        check(step in readme, f"docs/operating.md says: {step}")
    log("systemd-analyze verify accepts deploy/groupie-backup.service with its nightly timer, as docs/operating.md installs them")


def read_scrape(text):
    """What /metrics serves: {sample name: (type, {label: values seen})}; a histogram's samples
    `x_bucket`, `x_sum` and `x_count` have the type "histogram" when `x` is declared one."""
    types = dict(line.split()[2:4] for line in text.splitlines() if line.startswith("# TYPE "))
    samples = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        found = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+\S+", line)
        check(found, f"/metrics has a line that is not a sample: {line!r}")
        labels = samples.setdefault(found.group(1), {})
        for label, value in re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"', found.group(2) or ""):
            labels.setdefault(label, set()).add(value)
    typed = {}
    for name, labels in samples.items():
        base = next((name[:-len(part)] for part in HISTOGRAM_PARTS if name.endswith(part) and name[:-len(part)] in types), None)
        typed[name] = (types.get(name) or (types[base] if base else "untyped"), labels)
    return typed


def read_promql(expr):
    """The vector selectors of a PromQL expression, each (metric, [(label, operator, value)], the
    function it is an argument of, its range or None), and the labels of its by, without, on,
    ignoring and group_ clauses. Raises Failure for what it cannot read."""
    tokens, position = [], 0
    while expr[position:].strip():
        token = TOKEN.match(expr, position)
        check(token, f"cannot read {expr[position:]!r}")
        tokens.append((token.lastgroup, token.group(token.lastgroup)))
        position = token.end()
    selectors, grouping, calls, i = [], set(), [], 0
    aggregation = None      # `sum` of `sum by (le) (...)`, until its own ( opens

    def closing(start, bracket):
        end = next((j for j in range(start, len(tokens)) if tokens[j][1] == bracket), None)
        check(end is not None, f"no {bracket} closes what opens at {tokens[start][1]!r}")
        return end

    while i < len(tokens):
        kind, text = tokens[i]
        following = tokens[i + 1][1] if i + 1 < len(tokens) else None
        if kind == "name" and text in GROUPING:
            if following == "(":
                end = closing(i + 1, ")")
                grouping.update(t for k, t in tokens[i + 2:end] if k == "name")
                i = end
        elif kind == "name" and text in AGGREGATIONS and following in ("by", "without"):
            aggregation = text
        elif kind == "name" and following == "(":
            check(text in FUNCTIONS, f"{text}() is not a PromQL function")
            calls.append(text)
            i += 1
        elif text == "(":
            calls.append(aggregation)
            aggregation = None
        elif text == ")":
            check(calls, "a ) closes nothing")
            calls.pop()
        elif text == "{":
            raise Failure("a selector names no metric")
        elif kind == "name" and text.lower() not in KEYWORDS:
            matchers = []
            if following == "{":
                end = closing(i + 1, "}")
                inside = [t for t in tokens[i + 2:end] if t[1] != ","]
                check(len(inside) % 3 == 0 and all(inside[j][0] == "name" and inside[j + 1][0] == "operator"
                                                   and inside[j + 2][0] == "string" for j in range(0, len(inside), 3)),
                      f"cannot read the matchers of {text}")
                matchers = [(inside[j][1], inside[j + 1][1], inside[j + 2][1][1:-1]) for j in range(0, len(inside), 3)]
                i = end
            ranged = tokens[i + 1][1] if i + 1 < len(tokens) and tokens[i + 1][0] == "range" else None
            if ranged:
                check(re.fullmatch(r"\[(\d+[smhdwy]|\$__rate_interval|\$__interval|\$__range)\]", ranged), f"the range {ranged}")
                i += 1
            selectors.append((text, matchers, calls[-1] if calls else None, ranged))
        elif kind == "range":
            raise Failure(f"the range {text} follows no selector")
        i += 1
    check(not calls, "a ( is not closed")
    return selectors, grouping


def expression_problems(expr, scrape):
    """What is wrong with a panel's PromQL against the metrics a server serves (`read_scrape`)."""
    try:
        selectors, grouping = read_promql(expr)
    except Failure as failure:
        return [str(failure)]
    problems, labels_seen = [], set(TARGET_LABELS)
    if not selectors:
        problems.append("it reads no metric")
    for name, matchers, function, ranged in selectors:
        if name not in scrape:
            base = next((name[:-len(part)] for part in HISTOGRAM_PARTS if name.endswith(part)), None)
            problems.append(f"{name} is not in /metrics" + (f" ({base} is no histogram there)" if base else ""))
            continue
        kind, labels = scrape[name]
        labels_seen.update(labels)
        part = name.endswith(HISTOGRAM_PARTS) and kind == "histogram"
        for label, operator, value in matchers:
            if label not in labels and label not in TARGET_LABELS:
                problems.append(f"{name} has no label {label} (it has {sorted(labels)})")
            elif label == "http_route" and operator == "=" and value not in labels[label]:
                problems.append(f"no route {value} answered (routes: {sorted(labels[label])})")
        if function in COUNTER_FUNCTIONS and kind != "counter" and not part:
            problems.append(f"{function}() of {name}, a {kind}")
        if ranged and function not in RANGE_FUNCTIONS:
            problems.append(f"{name}{ranged} is not the argument of a function of a range")
        if function in RANGE_FUNCTIONS and not ranged:
            problems.append(f"{function}() of {name} without a range")
        if name.endswith("_bucket") and part and ("histogram_quantile(" not in expr or "le" not in grouping):
            problems.append(f"{name} is not read by histogram_quantile() grouped by le")
    problems += [f"no metric it reads has the label {label}" for label in sorted(grouping - labels_seen)]
    return problems


def dashboard_problems(dashboard, scrape):
    """What is wrong with the dashboard: its form, and each panel's and variable's PromQL."""
    problems = []
    if dashboard.get("schemaVersion") != 39:
        problems.append(f"schemaVersion {dashboard.get('schemaVersion')}, not 39")
    if not any(i.get("name") == "DS_PROMETHEUS" and i.get("pluginId") == "prometheus" for i in dashboard.get("__inputs", [])):
        problems.append("no DS_PROMETHEUS data source input")
    panels = dashboard.get("panels") or []
    ids = [p.get("id") for p in panels]
    if len(set(ids)) != len(ids):
        problems.append(f"panel ids repeat: {ids}")
    shown = [p for p in panels if p.get("type") != "row"]
    if not shown:
        problems.append("no panels")
    for panel in shown:
        title = panel.get("title")
        grid = panel.get("gridPos", {})
        if not (grid.get("w", 0) > 0 and grid.get("x", -1) >= 0 and grid.get("x", 0) + grid.get("w", 0) <= 24 and grid.get("h", 0) > 0):
            problems.append(f"{title!r}: gridPos {grid}")
        targets = panel.get("targets") or []
        if not targets:
            problems.append(f"{title!r} has no query")
        for source in [panel.get("datasource")] + [t.get("datasource") for t in targets]:
            if source != {"type": "prometheus", "uid": DATASOURCE}:
                problems.append(f"{title!r} reads the data source {source}, not {DATASOURCE}")
        for target in targets:
            if not target.get("expr"):
                problems.append(f"{title!r} has a query without expr")
                continue
            problems += [f"{title!r}: {problem} in {target['expr']}" for problem in expression_problems(target["expr"], scrape)]
    for variable in dashboard.get("templating", {}).get("list", []):
        query = variable.get("definition") or ""
        if variable.get("type") != "query":
            continue
        found = re.fullmatch(r"label_values\((\w+), *(\w+)\)", query)
        if not found or found.group(1) not in scrape:
            problems.append(f"the variable {variable.get('name')} reads {query!r}, not label_values of a metric served")
        elif found.group(2) not in TARGET_LABELS | set(scrape[found.group(1)][1]):
            problems.append(f"the variable {variable.get('name')} reads a label {found.group(2)} that {found.group(1)} has not")
        if variable.get("datasource") != {"type": "prometheus", "uid": DATASOURCE}:
            problems.append(f"the variable {variable.get('name')} reads the data source {variable.get('datasource')}")
    return problems


def scrape_a_day(binary, work):
    """/metrics of a server that visitors used: players join a group, a phone follows it, a
    mission is completed (its collage drawn and fetched), a wrong path is asked for, and a mission
    file is edited and reloaded. The event stream stays open while it is read."""
    missions = work / "missions"
    shutil.copytree(REPO / "missions", missions)
    server = Server(binary, work, missions=missions)
    stream = None
    try:
        api = server.api
        ada = api.new_player("Ada", "en")
        group = api.new_group(ada["token"], "science-centre", "Dashboard")
        bo = api.new_player("Bo")
        api.join(bo["token"], group["joinCode"])
        api.get("/healthz")
        api.request("GET", "/no-such-page", expect=None)
        stream = EventStream(api, f"/api/v1/groups/{group['id']}/events", bo["token"])
        stream.start()
        check(stream.opened.wait(10) and stream.status == 200, f"the event stream opens: {stream.status}")
        photo = (FIXTURES / "chelsea.jpg").read_bytes()
        for task in ("brightest-frog", "frog-pose"):
            api.upload_photo(group["id"], photo, ada["token"], mission="poison-frogs", task=task)
        stream.wait_for(lambda event: event[2] == "collage-ready", "the collage of poison-frogs", timeout=60)
        api.request("GET", f"/api/v1/groups/{group['id']}/missions/poison-frogs/collage.jpg", token=ada["token"])
        venue = missions / "science-centre.yaml"
        edited = venue.read_text().replace("  en: House of Science\n", "  en: House of Science, renamed\n", 1)
        check(edited != venue.read_text(), "the science centre's English name is in its mission file")
        venue.write_text(edited)
        deadline = time.monotonic() + 30
        while True:
            text = api.request("GET", "/metrics", timeout=10).body.decode()
            if "groupie_mission_file_reloads_total " in text and "groupie_collages_rendered_total " in text:
                return text
            families = [line for line in text.splitlines() if line.startswith("# TYPE ")]
            check(time.monotonic() < deadline, f"/metrics counts no reload or no collage within 30 s: {families}; see {server.log_path}")
            time.sleep(0.2)
    finally:
        if stream:
            stream.close()
        server.stop()


def check_dashboard(binary, readme, work):
    check("deploy/grafana-dashboard.json" in readme, "docs/operating.md names deploy/grafana-dashboard.json")
    try:
        dashboard = json.loads(DASHBOARD.read_text())
    except ValueError as error:
        raise Failure(f"{DASHBOARD.relative_to(REPO)} is not JSON: {error}")
    scrape = read_scrape(scrape_a_day(binary, work))
    problems = dashboard_problems(dashboard, scrape)
    check(not problems, "the dashboard reads what /metrics does not serve:\n  " + "\n  ".join(problems))
    queries = sum(len(p.get("targets", [])) for p in dashboard["panels"])
    log(f"every metric, label and route of the dashboard's {queries} queries is in /metrics ({len(scrape)} series names)")
    broken = [
        "sum(rate(groupie_no_such_thing_total[5m]))",
        "histogram_quantile(0.99, sum by (le) (rate(groupie_venues_served_bucket[5m])))",
        "histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration[5m])))",
        "histogram_quantile(0.99, sum by (http_route) (rate(http_server_request_duration_bucket[5m])))",
        "rate(groupie_venues_served[5m])",
        "rate(hb_requests)",
        "sum(rate(hb_requests_total[5m]))",
        "sum by (status) (rate(hb_requests[5m]))",
        'sum(rate(hb_requests{status="500"}[5m]))',
        'sum(rate(hb_requests{http_route="/api/v1/no-such-route"}[5m]))',
        "sum(rates(hb_requests[5m]))",
        "sum(rate(hb_requests[5m])",
    ]
    for expr in broken:
        wrong = copy.deepcopy(dashboard)
        panel = next(p for p in wrong["panels"] if p.get("type") != "row")
        panel["targets"].append({**panel["targets"][0], "expr": expr, "refId": "Z"})
        check(dashboard_problems(wrong, scrape), f"the check takes a panel reading {expr}")
    log(f"and the same check refuses each of {len(broken)} broken queries")


def main():
    binary = os.path.abspath(sys.argv[1])
    try:
        caddy = require("caddy", what="Debian's caddy")
        analyze = require("systemd-analyze", what="systemd")
        check(os.access(binary, os.X_OK), f"{binary} is a program")
        readme = (REPO / "docs" / "operating.md").read_text()
        with tempfile.TemporaryDirectory(prefix="groupie-deploy-") as folder:
            check_caddyfiles(caddy, readme, Path(folder))
            check_unit(analyze, binary, readme, Path(folder))
            check_backup_units(analyze, binary, readme, Path(folder))
            check_dashboard(binary, readme, Path(folder))
        log("PASS")
        return 0
    except Failure as failure:
        log(f"FAILED: {failure}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
