"""Throughput of an authenticated GET /api/v1/groups/{id} beside GET /healthz on the same server.

Targets: at least half the bare route's requests per second, and p99 under 5 ms, at 64
connections on 2 cores. Measured with wrk from Debian (scripts/bootstrap installs it), which
shares the 2 cores. Beside it: `/healthz` (which asks the database once, as the group read
does), the OpenAPI document (a route that answers from memory through the same middleware),
and a bare Hummingbird route in a process of its own (`bare-route`, built beside `groupie`: one
route, no middleware), what Hummingbird and SwiftNIO reach here before Groupie does anything.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import benchlib
from groupie_harness.client import Api
from groupie_harness.photos import fixture_photos
from groupie_harness.server import free_port

BINARY = os.path.abspath(sys.argv[1])
DURATION = os.environ.get("BENCH_DURATION", "10s")


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
    """The bare Hummingbird route's rate and p99, measured alone (the Groupie server is idle);
    None when `bare-route` is not beside the binary (`make bench` builds both)."""
    binary = os.path.join(os.path.dirname(BINARY), "bare-route")
    if not os.access(binary, os.X_OK):
        return None
    port = free_port()
    process = subprocess.Popen([binary, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        api = Api(f"http://127.0.0.1:{port}")
        for _ in range(300):
            try:
                api.request("GET", "/", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        wrk(f"http://127.0.0.1:{port}/")  # warm-up
        return wrk(f"http://127.0.0.1:{port}/")
    finally:
        process.terminate()
        process.wait()


def main():
    benchlib.require_tools("wrk")
    work = tempfile.mkdtemp(prefix="groupie-bench-")
    server = benchlib.server(BINARY, work)
    api = server.api
    try:
        players = [api.new_player(f"Player {i}") for i in range(5)]
        group = api.new_group(players[0]["token"])
        for player in players[1:]:
            api.join(player["token"], group["joinCode"])
        # A group well into its visit: three missions complete, each task with its chosen photo
        # (a signed thumbnail URL each) and each mission with its collage.
        photos = fixture_photos()
        venue = api.get("/api/v1/venues/science-centre")
        uploaded = 0
        for mission in [m for m in venue["missions"] if not m.get("after")][:3]:
            for task in mission["tasks"]:
                api.upload(group["id"], photos[uploaded % len(photos)].read_bytes(), players[uploaded % 5]["token"],
                           mission=mission["id"], task=task["id"])
                uploaded += 1
        for _ in range(200):
            document = api.get(f"/api/v1/groups/{group['id']}", players[0]["token"])["group"]
            ready = sum(1 for m in document["missions"] if (m.get("collage") or {}).get("status") == "ready")
            if ready >= 3:
                break
            time.sleep(0.1)
        base = server.base
        wrk(f"{base}/healthz")  # warm-up
        bare_rps, bare_p99 = wrk(f"{base}/healthz")
        static_rps, static_p99 = wrk(f"{base}/api/v1/openapi.yaml")
        group_rps, group_p99 = wrk(f"{base}/api/v1/groups/{group['id']}", players[0]["token"])
        hummingbird = bare_route()
        print(f"group read: wrk, 64 connections, {DURATION}, 2 threads, on the same 2 cores as the server")
        print(f"  GET /api/v1/groups/{{id}} (authenticated, 5 members, {uploaded} chosen photos, {ready} collages): {group_rps:9.0f} req/s  p99 {group_p99:6.2f} ms")
        print(f"  reference GET /healthz:                            {bare_rps:9.0f} req/s  p99 {bare_p99:6.2f} ms")
        print(f"  reference GET /api/v1/openapi.yaml (from memory):  {static_rps:9.0f} req/s  p99 {static_p99:6.2f} ms")
        if hummingbird:
            print(f"  reference bare Hummingbird route, own process:     {hummingbird[0]:9.0f} req/s  p99 {hummingbird[1]:6.2f} ms")
        else:
            print("  reference bare Hummingbird route: not measured, no bare-route beside the binary"
                  " (swift build -c release --product bare-route)")
        print(f"  ratio {group_rps / bare_rps:.2f} (target >= 0.5); p99 target < 5 ms")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
