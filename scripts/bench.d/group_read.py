"""Throughput of an authenticated GET /api/v1/groups/{id} beside GET /healthz on the same server.

Targets: at least half the bare route's requests per second, and p99 under 5 ms, at 64
connections on 2 cores. Measured with wrk from Debian, which shares the 2 cores. Beside it:
`/healthz` (which asks the database once, as the group read does), the OpenAPI document (a
route that answers from memory through the same middleware), and a bare Hummingbird route in a
process of its own (`bare-route`, built beside `groupie`: one route, no middleware), what
Hummingbird and SwiftNIO reach here before Groupie does anything.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import benchlib

BINARY = os.path.abspath(sys.argv[1])
REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DURATION = os.environ.get("BENCH_DURATION", "10s")


def call(port, method, path, body=None, token=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def wrk(url, token=None):
    command = ["wrk", "-t2", "-c64", f"-d{DURATION}", "--latency", url]
    if token:
        command[1:1] = ["-H", f"Authorization: Bearer {token}"]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    scale = {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        raise RuntimeError(f"{url}: {errors.group(1)} failed responses")
    return rps, float(p99.group(1)) * scale


def bare_route():
    """The bare Hummingbird route's rate and p99, measured alone (the Groupie server is idle)."""
    binary = os.path.join(os.path.dirname(BINARY), "bare-route")
    port = benchlib.free_port()
    process = subprocess.Popen([binary, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/").read()
                break
            except OSError:
                time.sleep(0.05)
        wrk(f"http://127.0.0.1:{port}/")  # warm-up
        return wrk(f"http://127.0.0.1:{port}/")
    finally:
        process.terminate()
        process.wait()


def main():
    benchlib.ensure_wrk()
    data = tempfile.mkdtemp(prefix="groupie-bench-")
    port = benchlib.free_port()
    server = subprocess.Popen(
        [BINARY, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data,
         "--missions", f"{REPOSITORY}/missions", "--assets", f"{REPOSITORY}/assets", "--log-level", "error"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                call(port, "GET", "/healthz")
                break
            except OSError:
                time.sleep(0.05)
        players = [call(port, "POST", "/api/v1/players", {"name": f"Player {i}"}) for i in range(5)]
        group = call(port, "POST", "/api/v1/groups", {"venueId": "science-centre"}, players[0]["token"])["group"]
        for player in players[1:]:
            call(port, "POST", "/api/v1/groups/join", {"code": group["joinCode"]}, player["token"])
        # A group well into its visit: three missions complete, each task with its chosen photo
        # (a signed thumbnail URL each) and each mission with its collage.
        photos = sorted(os.path.join(REPOSITORY, "Tests/Fixtures/Photos", name)
                        for name in os.listdir(os.path.join(REPOSITORY, "Tests/Fixtures/Photos")))
        venue = call(port, "GET", "/api/v1/venues/science-centre")
        uploaded = 0
        for mission in [m for m in venue["missions"] if not m.get("after")][:3]:
            for task in mission["tasks"]:
                with open(photos[uploaded % len(photos)], "rb") as file:
                    request = urllib.request.Request(
                        f"http://127.0.0.1:{port}/api/v1/groups/{group['id']}/photos?mission={mission['id']}&task={task['id']}",
                        method="POST", data=file.read())
                request.add_header("Content-Type", "image/jpeg")
                request.add_header("Authorization", f"Bearer {players[uploaded % 5]['token']}")
                urllib.request.urlopen(request).read()
                uploaded += 1
        for _ in range(200):
            document = call(port, "GET", f"/api/v1/groups/{group['id']}", token=players[0]["token"])["group"]
            ready = sum(1 for m in document["missions"] if (m.get("collage") or {}).get("status") == "ready")
            if ready >= 3:
                break
            time.sleep(0.1)
        base = f"http://127.0.0.1:{port}"
        wrk(f"{base}/healthz")  # warm-up
        bare_rps, bare_p99 = wrk(f"{base}/healthz")
        static_rps, static_p99 = wrk(f"{base}/api/v1/openapi.yaml")
        group_rps, group_p99 = wrk(f"{base}/api/v1/groups/{group['id']}", players[0]["token"])
        hummingbird_rps, hummingbird_p99 = bare_route()
        print(f"group read: wrk, 64 connections, {DURATION}, 2 threads, on the same 2 cores as the server")
        print(f"  GET /api/v1/groups/{{id}} (authenticated, 5 members, {uploaded} chosen photos, {ready} collages): {group_rps:9.0f} req/s  p99 {group_p99:6.2f} ms")
        print(f"  reference GET /healthz:                            {bare_rps:9.0f} req/s  p99 {bare_p99:6.2f} ms")
        print(f"  reference GET /api/v1/openapi.yaml (from memory):  {static_rps:9.0f} req/s  p99 {static_p99:6.2f} ms")
        print(f"  reference bare Hummingbird route, own process:     {hummingbird_rps:9.0f} req/s  p99 {hummingbird_p99:6.2f} ms")
        print(f"  ratio {group_rps / bare_rps:.2f} (target >= 0.5); p99 target < 5 ms")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
