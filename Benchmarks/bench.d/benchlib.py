"""What the benchmarks share beyond the harness (Tests/harness, put on the import path here, so
that a benchmark imports this first): a Groupie server as they run it, and the tools they need."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "harness"))
from groupie_harness.checks import Failure, require  # noqa: E402
from groupie_harness.server import Server  # noqa: E402


def server(binary, work, **settings):
    """`groupie serve` on a free port with a data folder under `work` (`data`: another, such as
    one shared by two instances), logging errors only unless told, ready when returned; further
    `settings` as for the harness's Server."""
    return Server(binary, work, **{"log_level": "error", "public_url": False, **settings})


def require_tools(*tools):
    """Exits with a sentence naming what is missing and scripts/bootstrap, which installs it."""
    try:
        require(*tools)
    except Failure as missing:
        raise SystemExit(f"{os.path.basename(sys.argv[0])}: {missing}") from None
