#!/usr/bin/env python3
"""The files in deploy/ as the README shows them:

  - each Caddyfile in deploy/ is in the README word for word (and the README shows no other),
    and `caddy validate` accepts it (Debian's caddy, with a HOME of its own: its internal
    authority is made there);
  - deploy/groupie.service passes `systemd-analyze verify` (its ExecStart pointed at the binary
    under test, which must exist), and `systemd-analyze security` rates its exposure as the
    README says;
  - the README's steps install that very file, and the config file they write for it uses only
    settings that `groupie serve --help` lists.

Usage: deploy_test.py path/to/groupie   (caddy and systemd, which scripts/bootstrap installs).
Exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
from groupie_harness import REPO  # noqa: E402
from groupie_harness.checks import Failure, check, logger, require  # noqa: E402

log = logger("deploy")
DEPLOY = REPO / "deploy"
UNIT = DEPLOY / "groupie.service"


def check_caddyfiles(caddy, readme, work):
    shown = re.findall(r"```caddyfile\n(.*?)```", readme, re.S)
    files = sorted(DEPLOY.glob("Caddyfile*"))
    check(files, "deploy/ holds a Caddyfile")
    check(len(shown) == len(files), f"the README shows each Caddyfile of deploy/ once ({len(shown)} blocks, {len(files)} files)")
    environment = {**os.environ, "HOME": str(work), "XDG_DATA_HOME": str(work / "data"), "XDG_CONFIG_HOME": str(work / "config")}
    for path in files:
        check(path.read_text() in shown, f"the README shows {path.relative_to(REPO)} as it is")
        validated = subprocess.run([caddy, "validate", "--config", str(path), "--adapter", "caddyfile"], capture_output=True,
                                   text=True, timeout=60, env=environment)
        check(validated.returncode == 0, f"caddy validate accepts {path.relative_to(REPO)}: {validated.stderr.strip()[-500:]}")
    log(f"caddy validate accepts {', '.join(p.name for p in files)}, as the README shows them")


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
    check(said == [(score, verdict)], f"the README gives the unit's exposure as measured, {score} ({verdict}): it says {said}")
    check("deploy/groupie.service /etc/systemd/system/groupie.service" in readme, "the README installs deploy/groupie.service")
    settings = re.findall(r"/etc/groupie/groupie\.json >/dev/null <<'JSON'\n(.*?)\nJSON\n", readme, re.S)
    check(len(settings) == 1 and "--config /etc/groupie/groupie.json" in unit, "the README writes the config file the unit names")
    keys = json.loads(settings[0]).keys()
    known = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=60).stdout
    unknown = [key for key in keys if f'"{key}" in the file' not in " ".join(known.split())]
    check(not unknown, f"the README's config file uses settings serve knows: not {unknown}")
    log(f"systemd-analyze verify accepts deploy/groupie.service; its exposure is {score} ({verdict}), as the README says")


def main():
    binary = os.path.abspath(sys.argv[1])
    try:
        caddy = require("caddy", what="Debian's caddy")
        analyze = require("systemd-analyze", what="systemd")
        check(os.access(binary, os.X_OK), f"{binary} is a program")
        readme = (REPO / "README.md").read_text()
        with tempfile.TemporaryDirectory(prefix="groupie-deploy-") as folder:
            check_caddyfiles(caddy, readme, Path(folder))
            check_unit(analyze, binary, readme, Path(folder))
        log("PASS")
        return 0
    except Failure as failure:
        log(f"FAILED: {failure}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
