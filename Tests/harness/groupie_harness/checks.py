"""Failing, logging and the little statistics every test and benchmark uses."""
import os
import shutil
import time


class Failure(Exception):
    """What a test, a benchmark or the harness itself found wrong; its message says what."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def logger(prefix=None, width=6):
    """A `log(message)` that prints `[  12.3s] message` (seconds since this call), or
    `prefix: message` when a prefix is given, and flushes at once."""
    started = time.monotonic()

    def log(message):
        if prefix:
            print(f"{prefix}: {message}", flush=True)
        else:
            print(f"[{time.monotonic() - started:{width}.1f}s] {message}", flush=True)

    return log


def require(*tools, what=None):
    """The full path of each tool (a command on PATH, or an absolute path that must exist);
    raises Failure with a sentence naming the missing ones and `scripts/bootstrap`, which
    installs them all."""
    found, missing = [], []
    for tool in tools:
        path = tool if tool.startswith("/") else shutil.which(tool)
        if path and os.path.exists(path):
            found.append(path)
        else:
            missing.append(tool)
    if missing:
        raise Failure(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed"
                      f"{' (' + what + ')' if what else ''}; run scripts/bootstrap, which installs "
                      f"{'it' if len(missing) == 1 else 'them'}")
    return found[0] if len(found) == 1 else found


def percentile(values, share):
    """The value below which `share` of `values` fall (nan when there are none)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def median(values):
    """The middle value, or the mean of the middle two (None when there are none)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if not ordered:
        return None
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
