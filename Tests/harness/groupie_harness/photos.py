"""Photos to upload: the repository's fixture photos, and JPEGs made with the vips command line
(libvips-tools, which scripts/bootstrap installs)."""
import struct
import subprocess
from pathlib import Path

from . import REPO

FIXTURES = REPO / "Tests" / "Fixtures" / "Photos"


def fixture_photos():
    """The fixture photos (paths), sorted by name."""
    return sorted(FIXTURES.glob("*.jpg"))


def vips(*arguments):
    subprocess.run(["vips", *map(str, arguments)], check=True, capture_output=True)


def make_photo(path, rgb, size=(800, 600), sigma=12, quality=85):
    """A JPEG of one colour with a little noise (gaussian, `sigma`) at `path`; returns the path."""
    path = Path(path)
    noise, bands = path.with_suffix(".v"), path.with_suffix(".b.v")
    vips("gaussnoise", noise, size[0], size[1], "--sigma", sigma, "--mean", 0)
    vips("bandjoin", f"{noise} {noise} {noise}", bands)
    vips("linear", bands, f"{path}[Q={quality}]", "1 1 1", " ".join(str(c) for c in rgb), "--uchar")
    noise.unlink()
    bands.unlink()
    return path


def black_jpeg(path, width, height):
    """A black JPEG of the given size; returns the path."""
    vips("black", path, width, height, "--bands", 3)
    return path


def with_comment(jpeg, text):
    """The same picture as a file of its own: a JPEG comment after the start marker (which the
    served original leaves out) gives it another hash, so that each upload is stored as a new
    photo, as each camera shot is; the same bytes again would find their files stored already."""
    comment = text.encode() if isinstance(text, str) else text
    return jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + jpeg[2:]


def read(path):
    with open(path, "rb") as file:
        return file.read()
