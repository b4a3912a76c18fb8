"""The soak test's accounting: requests by route and status, errors by kind, counters, and the log."""

import collections
import threading
import time

from groupie_harness.checks import logger, percentile

started = time.monotonic()
log = logger(width=7)


class Stats:
    """Requests by route and status, their durations, errors by kind (with a few examples), counters."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = collections.Counter()          # (route, status) -> n
        self.durations = collections.defaultdict(list)  # route -> [seconds]
        self.timed = []                                 # (when, route, seconds), to compare windows
        self.errors = collections.Counter()             # kind -> n
        self.examples = collections.defaultdict(list)   # kind -> [text]
        self.counters = collections.Counter()

    def request(self, route, status, seconds):
        with self.lock:
            self.requests[(route, status)] += 1
            self.durations[route].append(seconds)
            self.timed.append((time.monotonic(), route, seconds))

    def p99(self, since, until, game_only=True):
        """The 99th percentile of the requests that ended in the window, the attacker's left out."""
        with self.lock:
            values = [s for t, r, s in self.timed if since <= t < until and not (game_only and r.startswith("attack"))]
        return percentile(values, 0.99) if values else None

    def error(self, kind, detail):
        with self.lock:
            self.errors[kind] += 1
            if len(self.examples[kind]) < 3:
                self.examples[kind].append(f"[{time.monotonic() - started:.1f}s] {detail}"[:400])

    def count(self, name, n=1):
        with self.lock:
            self.counters[name] += n

    def total(self, *prefixes):
        """The sum of the counters whose names begin with one of `prefixes`."""
        with self.lock:
            return sum(n for name, n in self.counters.items() if name.startswith(prefixes))

    def statuses(self, *routes):
        """How the requests of `routes` were answered: {status: n}, and the slowest in seconds."""
        with self.lock:
            answered = collections.Counter()
            for (route, status), n in self.requests.items():
                if route in routes:
                    answered[status] += n
            slowest = max((max(self.durations[r]) for r in routes if self.durations.get(r)), default=None)
        return answered, slowest

    def total_requests(self):
        with self.lock:
            return sum(self.requests.values())

    def total_errors(self):
        with self.lock:
            return sum(self.errors.values())


STATS = Stats()


class Unexpected(Exception):
    """A request went wrong; already counted as an error. Ends the current step."""
