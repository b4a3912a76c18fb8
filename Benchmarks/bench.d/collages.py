"""Collages and the album download.

Targets (issue: mission visualisations):
- a 9-photo collage from `display` derivatives: p50 under 150 ms on 2 cores, printed beside
  the libvips command-line pipeline making the same grid from the same files;
- a 9-photo collage from 12-megapixel originals: no slower than `vipsthumbnail` +
  `vips arrayjoin` on the same files, and peak RSS under 150 MiB; ImageMagick's `montage`
  beside both (scripts/bootstrap installs it);
- album.zip of 300 photos: at most 64 MiB added to the server's memory, first bytes at once.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

import benchlib
from groupie_harness import REPO
from groupie_harness.photos import fixture_photos, read, with_comment

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="groupie-bench-collages-")
PHOTOS = [str(path) for path in fixture_photos()[:9]]


def run(arguments, **kwargs):
    """Runs a command; returns (seconds, peak RSS in MiB, stdout)."""
    started = time.perf_counter()
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)
    out, err = process.communicate()
    elapsed = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"{arguments[0]} failed: {err.decode()[:400]}")
    return elapsed, out.decode()


def timed(arguments):
    """Runs a command; returns (seconds, peak RSS in MiB) measured by the kernel."""
    started = time.perf_counter()
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"{' '.join(arguments[:3])} failed: {process.stderr.read().decode()[:400]}")
    return elapsed, usage.ru_maxrss / 1024


def prepare():
    originals, displays = [], []
    for index, photo in enumerate(PHOTOS):
        width, height = (int(v) for v in subprocess.check_output(["vipsheader", "-f", "width", photo]).split() +
                         subprocess.check_output(["vipsheader", "-f", "height", photo]).split())
        scale = (12_000_000 / (width * height)) ** 0.5
        original = f"{WORK}/original-{index}.jpg"
        subprocess.check_call(["vips", "resize", photo, original + "[Q=90]", str(scale), "--kernel", "lanczos3"])
        display = f"{WORK}/display-{index}.jpg"
        subprocess.check_call(["vipsthumbnail", original, "-s", "1600", "-o", display + "[Q=85,strip]"])
        originals.append(original)
        displays.append(display)
    tasks = "\n".join(f"      - id: t{i}\n        prompt: Photo {i + 1}" for i in range(9))
    venue = f"""id: bench
name: Bench Science Centre
languages: [en]
timezone: Europe/Stockholm
theme:
  color: "#0b6e8a"
  logo: logos/science-centre.svg
missions:
  - id: nine
    title: Nine photos
    icon: icons/rocket.svg
    tasks:
{tasks}
"""
    with open(f"{WORK}/bench.yaml", "w") as file:
        file.write(venue)
    return originals, displays


def groupie_collage(photos, out, repeat):
    return [BINARY, "collage", "--venue", f"{WORK}/bench.yaml", "--mission", "nine", "--assets", f"{REPO}/assets",
            "--names", "Ada,Bo,Cy,Di,Eli,Fay,Gus,Hal,Ivy", "--repeat", str(repeat), "--out", out] + photos


def cli_pipeline(photos, out):
    """The same 3×3 picture with libvips' own command-line tools: seconds and peak RSS."""
    total, peak = 0.0, 0.0
    tiles = []
    for index, photo in enumerate(photos):
        tile = f"{WORK}/tile-{index}.v"
        seconds, rss = timed(["vipsthumbnail", photo, "-s", "672x504", "--smartcrop", "attention", "-o", tile])
        total, peak = total + seconds, max(peak, rss)
        tiles.append(tile)
    seconds, rss = timed(["vips", "arrayjoin", " ".join(tiles), out + "[Q=90]", "--across", "3", "--shim", "8"])
    return total + seconds, max(peak, rss)


def median_of(runs, measure):
    results = [measure() for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def bench_collages():
    originals, displays = prepare()
    # Display derivatives: in-process timing over 21 drawings.
    _, output = run(groupie_collage(displays, f"{WORK}/display.jpg", 21))
    p50 = float(output.split(" p50 ")[1].split(" ms")[0])
    cpu = float(output.split("cpu p50 ")[1].split(" ms")[0])
    cli_seconds, _ = median_of(5, lambda: cli_pipeline(displays, f"{WORK}/cli-display.jpg"))
    print(f"collage of 9 display derivatives: groupie p50 {p50:.0f} ms (target < 150; {cpu:.0f} ms of CPU over both cores), "
          f"libvips CLI pipeline {cli_seconds * 1000:.0f} ms, ratio {p50 / 1000 / cli_seconds:.2f}x")

    # 12-megapixel originals: whole processes, each run from a cold start.
    ours, our_rss = median_of(5, lambda: timed(groupie_collage(originals, f"{WORK}/originals.jpg", 1)))
    cli, cli_rss = median_of(5, lambda: cli_pipeline(originals, f"{WORK}/cli-originals.jpg"))
    line = (f"collage of 9 12-MP originals: groupie {ours * 1000:.0f} ms, peak RSS {our_rss:.0f} MiB (target < 150); "
            f"vipsthumbnail + vips arrayjoin {cli * 1000:.0f} ms, peak {cli_rss:.0f} MiB; ratio {ours / cli:.2f}x (target <= 1)")
    if shutil.which("montage"):
        montage, montage_rss = median_of(3, lambda: timed(
            ["montage"] + originals + ["-tile", "3x3", "-geometry", "672x504^+4+4", "-gravity", "center", "-quality", "90", f"{WORK}/montage.jpg"]))
        line += f"; ImageMagick montage {montage * 1000:.0f} ms, peak {montage_rss:.0f} MiB, ratio {ours / montage:.2f}x"
    else:
        line += "; ImageMagick montage not installed (scripts/bootstrap installs it)"
    print(line)
    return originals


def bench_album_zip(sources):
    server = benchlib.server(BINARY, WORK)
    try:
        token, group = server.api.player_in_group()
        # 300 distinct photos of about 3 megapixels: nine pictures, each made unique by a JPEG comment.
        bases = []
        for index, source in enumerate(sources):
            path = f"{WORK}/album-{index}.jpg"
            subprocess.check_call(["vipsthumbnail", source, "-s", "2000", "-o", path + "[Q=90]"])
            bases.append(read(path))
        total_bytes = 0
        started = time.perf_counter()
        for n in range(300):
            unique = with_comment(bases[n % len(bases)], f"album photo {n}")
            total_bytes += len(unique)
            server.api.upload(group["id"], unique, token)
        upload_seconds = time.perf_counter() - started
        time.sleep(1)
        baseline = server.memory_mib("VmRSS")
        peak = [baseline]
        done = threading.Event()

        def watch():
            while not done.is_set():
                peak[0] = max(peak[0], server.memory_mib("VmRSS"))
                time.sleep(0.01)

        watcher = threading.Thread(target=watch)
        watcher.start()
        connection = server.api.connection(timeout=300)
        started = time.perf_counter()
        connection.request("GET", f"/api/v1/groups/{group['id']}/album.zip", headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        assert response.status == 200, response.status
        first_byte = None
        received = 0
        with open(f"{WORK}/album.zip", "wb") as out:
            while True:
                chunk = response.read(1 << 16)
                if not chunk:
                    break
                if first_byte is None:
                    first_byte = time.perf_counter() - started
                received += len(chunk)
                out.write(chunk)
        seconds = time.perf_counter() - started
        connection.close()
        done.set()
        watcher.join()
        with zipfile.ZipFile(f"{WORK}/album.zip") as archive:
            entries = len(archive.infolist())
            assert archive.testzip() is None
        print(f"album.zip of 300 photos ({total_bytes / 2**20:.0f} MiB uploaded in {upload_seconds:.0f} s): "
              f"{entries} entries, {received / 2**20:.0f} MiB in {seconds:.1f} s, first bytes after {first_byte * 1000:.0f} ms; "
              f"server RSS {baseline:.0f} -> peak {peak[0]:.0f} MiB, +{peak[0] - baseline:.0f} MiB (target <= 64)")
    finally:
        server.stop()


if __name__ == "__main__":
    try:
        bench_collages()
        bench_album_zip(PHOTOS)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
