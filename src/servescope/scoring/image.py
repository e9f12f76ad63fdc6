"""What an image scorer takes: a render, held in memory, and what its case pins.

An image scorer is ``score(render, expected, args) -> Score`` like a text scorer,
but reads pixels, not text; it never raises (a render it cannot read scores 0 with
a ``detail``). ``Score.predicted`` is always None: a transcription or a picture is
the generated content read back, and it does not belong in a Result (workloads.txt).
``render_digest`` fingerprints what a case asks to be rendered (its prompt, its
frozen render spec, its reference images), so a reference made from another spec
is recognised before it is scored against.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Render:
    """One render, decoded in memory (a PIL image), with the case it answers."""

    image: Any
    case_id: str
    digest: str  # render_digest of the case as it was asked


def render_digest(prompt: str, render: dict[str, Any], ref_images: list[str] | None) -> str:
    """sha256 of the case's prompt, render spec (every field, nulls included) and reference images."""
    refs = [hashlib.sha256(base64.b64decode(r)).hexdigest() for r in ref_images or []]
    blob = json.dumps({"prompt": prompt, "render": render, "ref_images": refs}, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def phash_hex(image: Any) -> str:
    """The render's 64-bit perceptual hash (imagehash's pHash), as 16 hex digits."""
    import imagehash

    return str(imagehash.phash(image.convert("RGB")))
