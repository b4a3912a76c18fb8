"""The soak test's report: what was done, the server's memory, its shutdown, every route's
durations and statuses, and the verdict."""

import os
import shutil

from groupie_harness.checks import median
from stats import STATS

RSS_GROWTH_LIMIT = 10.0      # percent
RSS_WINDOW = 300             # seconds of samples whose median stands for "start" and "end"


def windowed_growth(samples, warmup, load_seconds):
    """RSS growth from the median of the first window after the warm-up to the median of the
    last window of the load: photos and collages in progress move a single sample by tens of
    MiB either way, a median of sixty samples does not. (growth %, start MiB, end MiB) or None."""
    window = min(RSS_WINDOW, max(5.0, (load_seconds - warmup) / 3))
    first = median([rss for t, rss in samples if warmup <= t < warmup + window])
    last = median([rss for t, rss in samples if t >= load_seconds - window])
    if not first or not last:
        return None
    return (last - first) / first * 100, first / 1024, last / 1024


def statuses_text(answered):
    return ", ".join(f"{status}: {n}" for status, n in sorted(answered.items(), key=lambda x: str(x[0]))) or "none"


def summary(*, binary, args, work, kinds, warmup, load_seconds, open_min, open_at_shutdown, data_bytes, rss_samples, anon_samples, file_samples,
            rss_start, rss_end, rss_peak, heap_start, heap_end, fds_start, fds_end, exit_status, shutdown_seconds,
            p99_quiet=None, p99_attacked=None):
    """Prints the report; returns the exit status, 0 on PASS and 1 on FAIL."""
    total = STATS.total_requests()
    errors = STATS.total_errors()
    single = (rss_end - rss_start) / rss_start * 100 if rss_start and rss_end else None
    windowed = windowed_growth(rss_samples, warmup, load_seconds)
    growth = windowed[0] if windowed else None
    print()
    print("=" * 78)
    print(f"Groupie soak test: {binary}")
    print(f"duration            {load_seconds / 60:.1f} min of load ({args.workers} workers, think {args.think} s), "
          f"warm-up {warmup:.0f} s")
    print(f"requests            {total} total, {total / load_seconds:.1f} per second")
    print(f"errors              {errors}" + ("" if not errors else "  (" + ", ".join(
        f"{k}: {v}" for k, v in STATS.errors.most_common()) + ")"))
    c = STATS.counters
    print(f"event streams       {args.streams} wanted, at least {open_min} open after warm-up, "
          f"{open_at_shutdown} open at shutdown; {c['stream connections']} connections, "
          f"{c['streams reconnected']} reconnected after an end, {c['streams closed by the script']} closed "
          f"by departing members, {c['streams moved to another member']} moved to a member without one")
    print(f"events received     {c['events']} ({c['heartbeats']} heartbeats); " + ", ".join(
        f"{k[6:]} {v}" for k, v in sorted(c.items()) if k.startswith("event ")))
    print(f"game                {c['groups created']} groups ({c['groups finished']} finished), "
          f"{c['players created']} players, {c['joins']} joins, {c['leaves']} leaves, "
          f"{c['photos uploaded']} photos ({c['photo bytes uploaded'] / 2**20:.0f} MiB), {c['choices']} choices, "
          f"{c['missions completed']} missions completed, {c['collages downloaded']} collages, "
          f"{c['album.zip downloaded']} album.zip ({c['album.zip bytes'] / 2**20:.0f} MiB)")
    print(f"tasks               the venues' {', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}; done: "
          f"photo {c['tasks done (photo)']} ({c['second photos']} second photos), question {c['tasks done (question)']}, "
          f"code {c['tasks done (code)']}")
    print(f"answers             questions {c['questions right (choice)']} right and {c['questions wrong (choice)']} wrong by choice, "
          f"{c['questions right (text)']} right and {c['questions wrong (text)']} wrong by text; codes {c['codes right (code)']} "
          f"found, {c['codes wrong (code)']} mistyped; {c['answers read']} reads of the group's answers")
    print(f"timed missions      {c['timed missions started']} started, {c['timed missions done in time']} done in time; "
          f"of the groups finished, {c['timed missions run out']} run out, {c['timed missions unfinished']} still running; "
          f"{c['late attempts']} late attempts, {c['late attempts refused (time-up)']} refused with 409 time-up, "
          f"{c['late claims refused (time-up)']} late claims refused")
    print(f"claims, feed        {c['claims']} claims ({c['claims released']} released, {c['claims ended by a photo']} ended by "
          f"the member's photo); {c['feed reads']} feed reads, {c['reactions given']} reactions given, "
          f"{c['reactions taken back']} taken back")
    print(f"recaps              {c['recaps (png)']} PNG, {c['recaps (pdf)']} PDF")
    print(f"resumable uploads   {c['resumable uploads']} photos in {c['upload parts']} parts, {c['upload parts cut off']} parts "
          f"cut off and resumed, {c['resumable uploads asked again']} asked again once made")
    print(f"staff               {c['staff messages to one group']} messages to one group, {c['staff messages to every group']} to "
          f"every group; {c['staff messages heard on the console']} staff-message events on the console, "
          f"{c['staff messages seen on phones']} on phones' streams; console: {c['console streams opened']} streams, "
          f"{c['console events']} events, {c['console page loads']} page loads"
          + (f", {c['staff messages unchecked (console stream reopened)']} messages unchecked (stream reopened)"
             if c['staff messages unchecked (console stream reopened)'] else ""))
    print(f"data folder         {data_bytes / 2**20:.0f} MiB at the end")
    if rss_start and rss_end:
        print(f"server RSS          start {rss_start / 1024:.1f} MiB, end {rss_end / 1024:.1f} MiB, "
              f"growth {single:+.1f} % (peak {rss_peak / 1024 if rss_peak else 0:.1f} MiB); "
              f"open files {fds_start} -> {fds_end}")
        if windowed:
            print(f"RSS, 5-min medians  {windowed[1]:.1f} MiB after the warm-up, {windowed[2]:.1f} MiB at the end: "
                  f"growth {windowed[0]:+.1f} % (the verdict's figure)")
        for label, samples in (("anonymous", anon_samples), ("from files", file_samples)):
            split = windowed_growth(samples, warmup, load_seconds)
            if split:
                print(f"  {label:18}{split[1]:.1f} MiB -> {split[2]:.1f} MiB: {split[0]:+.1f} % (5-min medians)")
        trail = [f"{t / 60:.1f}m {r / 1024:.0f}" for t, r in rss_samples[::max(1, len(rss_samples) // 10)]]
        print(f"RSS samples (MiB)   " + ", ".join(trail))
        if heap_start and heap_end:
            print(f"C heap (MiB)        in use {heap_start[0] / 2**20:.0f} -> {heap_end[0] / 2**20:.0f}, "
                  f"kept free {heap_start[1] / 2**20:.0f} -> {heap_end[1] / 2**20:.0f} "
                  "(the server's own figures, after its last trim)")
    else:
        print("server RSS          not measured (the server was gone)")
    print(f"shutdown            SIGTERM -> exit status {exit_status}"
          + (f" after {shutdown_seconds:.1f} s" if shutdown_seconds is not None else "")
          + f"; {c['streams ended by the server at shutdown']} streams ended by the server")
    print()
    print(f"{'route':58} {'count':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  statuses")
    routes = sorted(STATS.durations)
    for route in routes:
        d = sorted(STATS.durations[route])
        statuses = ", ".join(f"{s}: {n}" for (r, s), n in sorted(STATS.requests.items(), key=lambda x: str(x[0][1]))
                             if r == route)
        if route.endswith("/events"):
            print(f"{route:58} {len(d):7} {'':>8} {'':>8} {'':>8}  {statuses}")
        else:
            print(f"{route:58} {len(d):7} {d[len(d) // 2] * 1000:8.1f} {d[int(len(d) * 0.99)] * 1000:8.1f} "
                  f"{d[-1] * 1000:8.1f}  {statuses}")
    if errors:
        print()
        print("error examples:")
        for kind, examples in STATS.examples.items():
            for e in examples:
                print(f"  {kind}: {e}")
    with open(os.path.join(work, "server.log"), errors="replace") as f:
        logged = [l.rstrip() for l in f if " error" in l.lower() or "critical" in l.lower()
                  or "warning" in l.lower() or "fatal" in l.lower()]
    if logged:
        print()
        print(f"server log: {len(logged)} warning/error lines, e.g.:")
        for l in logged[:8]:
            print("  " + l[:300])
    failures = []
    if errors:
        failures.append(f"{errors} errors")
    if args.attacks:
        print()
        print(f"attacks             {STATS.counters['attack rounds']} rounds; the game's p99 "
              + (f"{p99_quiet * 1000:.1f} ms quiet (second half of the warm-up), {p99_attacked * 1000:.1f} ms under attack"
                 if p99_quiet and p99_attacked else "not measured"))
        guesses, _ = STATS.statuses("attack: code guesses")
        tiny, _ = STATS.statuses("attack: tiny uploads")
        recaps, slowest = STATS.statuses("attack: recap flood (png)", "attack: recap flood (pdf)")
        print(f"  code guesses      {c['attack code guesses']} wrong codes from one player: {statuses_text(guesses)}")
        print(f"  tiny uploads      {c['attack tiny uploads']} new keys announced with bytes */1: {statuses_text(tiny)}; "
              f"{c['attack tiny uploads kept']} uploads kept for the attacker's group after the last round")
        print(f"  recap floods      {c['attack recap floods']} floods of 16 recaps at once: {statuses_text(recaps)}"
              + (f"; the slowest took {slowest:.1f} s" if slowest is not None else ""))
        if not p99_quiet or not p99_attacked or p99_attacked > 2 * p99_quiet:
            failures.append("the game's p99 under attack " + ("not measured" if not p99_quiet or not p99_attacked
                                                               else f"{p99_attacked / p99_quiet:.1f}x the quiet one, more than 2x"))
    if growth is None or growth >= RSS_GROWTH_LIMIT:
        failures.append("RSS growth " + ("not measured" if growth is None else f"{growth:.1f} % >= {RSS_GROWTH_LIMIT:g} %"))
    print()
    if failures:
        print("FAIL: " + "; ".join(failures) + f"  (targets: 0 errors, RSS growth < {RSS_GROWTH_LIMIT:g} %)")
        keep_log = f"/tmp/groupie-soak-{os.getpid()}-server.log"
        shutil.copy(os.path.join(work, "server.log"), keep_log)
        print(f"server log kept at {keep_log}")
    else:
        print(f"PASS: 0 errors, RSS growth {growth:.1f} % < {RSS_GROWTH_LIMIT:g} % (5-minute medians), clean exit on SIGTERM"
              + (", the game's p99 under attack within 2x the quiet one" if args.attacks else ""))
    print("=" * 78)
    return 1 if failures else 0
