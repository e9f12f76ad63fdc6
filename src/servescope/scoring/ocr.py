"""ocr: the expected text is in the render, as Tesseract reads it.

Tesseract (Debian's ``tesseract-ocr``; ``pytesseract`` finds the binary and checks
it runs) is given the PNG on stdin and answers on stdout: pytesseract's own
``image_to_string`` would write the render to a temporary file, and no render is
ever written (workloads.txt). Comparison: upper-case letters and digits, runs of
anything else as one space; correct when the expected text is a substring of the
reading. The reading itself is not kept (``predicted`` is null).
"""

from __future__ import annotations

import io
import re
import subprocess

from servescope.errors import UsageError
from servescope.scoring.base import Args, Score, verdict, wrong
from servescope.scoring.image import Render

MISSING = (
    "the ocr scorer needs Tesseract: install Debian's tesseract-ocr (apt-get install tesseract-ocr; "
    "make test does it as root) and pip install 'servescope[image]' for pytesseract"
)
TIMEOUT_S = 60


def _folded(text: str) -> str:
    return re.sub(r"[^A-Z0-9]+", " ", text.upper()).strip()


def tesseract_command() -> str:
    """The tesseract binary, checked to run; a UsageError in one line when it does not."""
    try:
        import pytesseract
    except ImportError:
        raise UsageError(MISSING) from None
    try:
        pytesseract.get_tesseract_version()
    except (pytesseract.TesseractNotFoundError, OSError):
        raise UsageError(MISSING) from None
    return str(pytesseract.pytesseract.tesseract_cmd)


def read_text(image: object) -> str:
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="PNG")  # type: ignore[attr-defined]
    done = subprocess.run([tesseract_command(), "stdin", "stdout", "--psm", "6"], input=buf.getvalue(), capture_output=True, timeout=TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"tesseract exited {done.returncode}: {done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout.decode("utf-8", errors="replace")


def score(render: Render, expected: object, args: Args) -> Score:
    if not isinstance(expected, str) or not _folded(expected):
        return wrong(f"case {render.case_id}: an ocr case needs its expected text")
    try:
        reading = _folded(read_text(render.image))
    except (RuntimeError, subprocess.TimeoutExpired, UsageError) as exc:
        return wrong(f"case {render.case_id}: {exc}")
    found = _folded(expected) in reading
    return verdict(found, None, detail="expected text read in the render" if found else "expected text not read in the render")
