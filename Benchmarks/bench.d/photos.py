"""Photo ingest, sustained uploads and live-event latency.

Targets (issue: photos and live events): ingest of a 12-megapixel JPEG (both derivatives)
at most 1.3x the time `vipsthumbnail` takes to make the same two sizes from the same file;
sustained uploads per second on 2 cores; and upload-answered-to-event-received latency with
1,000 subscribers in 200 groups, p99 under 50 ms.
"""
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib
from groupie_harness import aio
from groupie_harness.photos import black_jpeg, make_photo, read, with_comment

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="groupie-bench-photos-")


def ms(seconds):
    return seconds * 1000


def distinct(body, index):
    """The same picture as a photo of its own, stored (and flushed) anew."""
    return with_comment(body, f"upload {index}")


def ingest(server, photo):
    token, group = server.api.player_in_group()
    body = read(photo)
    server.api.upload(group["id"], distinct(body, 0), token)  # warm-up
    ours, reference = [], []
    for index in range(1, 8):
        start = time.perf_counter()
        server.api.upload(group["id"], distinct(body, index), token)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        subprocess.run(["vipsthumbnail", photo, "-s", "1600", "-o", f"{WORK}/ref-display.jpg[Q=85,strip]"], check=True)
        subprocess.run(["vipsthumbnail", photo, "-s", "400", "-o", f"{WORK}/ref-thumb.jpg[Q=80,strip]"], check=True)
        reference.append(time.perf_counter() - start)
    ours_ms, reference_ms = ms(statistics.median(ours)), ms(statistics.median(reference))
    print(f"ingest of a 12-megapixel JPEG ({os.path.getsize(photo) / 1e6:.1f} MB), display + thumb, median of 7:")
    print(f"  Groupie upload (HTTP, hash, derivatives, fsync, row), a new photo each time: {ours_ms:7.1f} ms")
    print(f"  reference, vipsthumbnail for both sizes:              {reference_ms:7.1f} ms  ratio {ours_ms / reference_ms:.2f} (target <= 1.3)")


def sustained(server, photo, seconds=15, clients=4):
    token, group = server.api.player_in_group()
    body = read(photo)
    done = [0]
    deadline = time.perf_counter() + seconds

    async def client():
        loop = asyncio.get_running_loop()
        while time.perf_counter() < deadline:
            await loop.run_in_executor(None, lambda: server.api.upload(group["id"], body, token))
            done[0] += 1

    start = time.perf_counter()
    asyncio.run(_gather(client, clients))
    elapsed = time.perf_counter() - start
    print(f"sustained uploads of 12-megapixel JPEGs, {clients} clients for {seconds} s on 2 cores:")
    print(f"  {done[0] / elapsed:6.2f} uploads/s; server peak RSS {server.memory_mib('VmHWM'):.0f} MiB")


async def _gather(factory, count):
    await asyncio.gather(*(factory() for _ in range(count)))


async def event_latency(server, small_photo, groups=200, per_group=5):
    # Each subscriber is a member of its own: a player may hold only a few streams at once.
    members = []
    subscribers = []
    for _ in range(groups):
        token, group = server.api.player_in_group()
        members.append((token, group))
        subscribers.append((token, group))
        for index in range(per_group - 1):
            joiner = server.api.new_player(f"Member {index}")["token"]
            server.api.join(joiner, group["joinCode"])
            subscribers.append((joiner, group))
    received = {}
    ready = asyncio.Event()
    opened = [0]
    total = groups * per_group

    async def subscribe(group_id, token):
        stream_token = server.api.call("POST", f"/api/v1/groups/{group_id}/events/token", token=token)["token"]
        reader, writer = await aio.open_stream(server.port, f"/api/v1/groups/{group_id}/events?token={stream_token}")
        opened[0] += 1
        if opened[0] == total:
            ready.set()

        def on_event(event):
            if event.get("event") == "photo-added":
                received.setdefault(group_id, []).append(time.perf_counter())

        await aio.read_stream(reader, on_event)

    tasks = [asyncio.create_task(subscribe(group["id"], token)) for token, group in subscribers]
    await ready.wait()
    await asyncio.sleep(1)
    body = read(small_photo)
    latencies = []
    loop = asyncio.get_running_loop()
    for token, group in members:
        await loop.run_in_executor(None, lambda: server.api.upload(group["id"], body, token))
        answered = time.perf_counter()
        for _ in range(200):
            if len(received.get(group["id"], [])) >= per_group:
                break
            await asyncio.sleep(0.001)
        latencies += [max(0.0, t - answered) for t in received.get(group["id"], [])]
    for task in tasks:
        task.cancel()
    latencies.sort()
    p50 = ms(latencies[len(latencies) // 2])
    p99 = ms(latencies[int(len(latencies) * 0.99) - 1])
    print(f"live events: {total} subscribers in {groups} groups, one upload per group, {len(latencies)} deliveries:")
    print(f"  upload answered -> event received: p50 {p50:.1f} ms, p99 {p99:.1f} ms (target p99 < 50 ms)")
    print("  (delivery starts before the upload's answer is written, so most events arrive first and count as 0)")


def main():
    photo = make_photo(f"{WORK}/photo-12mp.jpg", (128, 128, 128), size=(4000, 3000), sigma=40, quality=90)
    small = black_jpeg(f"{WORK}/small.jpg", 320, 240)
    # A thousand subscribers, each a player of their own, from one address.
    server = benchlib.server(BINARY, WORK, options=("--creations-per-address", "5000"))
    try:
        ingest(server, photo)
        sustained(server, photo)
        asyncio.run(event_latency(server, small))
    finally:
        server.stop()
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
