"""fidelity: how close a render is to its reference, by 64-bit perceptual hash.

The reference comes from a bundle made once by ``servescope t2i-reference`` on the
same box (``args["reference"]``: its ``phash`` and ``render_digest``). The render
digest is compared first: a reference rendered from another spec is never scored
against (the run refuses such a bundle before sending anything; here it is a wrong
item saying why). Then the Hamming distance between the two pHashes (0..64):
``score`` = 1 - distance/64, correct when distance <= ``max_distance`` (default 10).
The render's pHash is in ``detail``: the one trace of the render a Result keeps.
"""

from __future__ import annotations

from servescope.scoring.base import Args, Score, wrong
from servescope.scoring.image import Render, phash_hex

DEFAULT_MAX_DISTANCE = 10
HASH_BITS = 64


def distance(a_hex: str, b_hex: str) -> int:
    """Hamming distance of two 64-bit hashes written as 16 hex digits."""
    return bin(int(a_hex, 16) ^ int(b_hex, 16)).count("1")


def score(render: Render, expected: object, args: Args) -> Score:
    reference = args.get("reference")
    if not isinstance(reference, dict) or not isinstance(reference.get("phash"), str):
        return wrong(f"case {render.case_id}: no reference in the bundle")
    if reference.get("render_digest") != render.digest:
        return wrong(f"case {render.case_id}: the reference was rendered from another spec (render digest differs)")
    rendered = phash_hex(render.image)
    try:
        d = distance(rendered, reference["phash"])
    except ValueError:
        return wrong(f"case {render.case_id}: the reference's phash is not 16 hex digits")
    limit = int(args.get("max_distance", DEFAULT_MAX_DISTANCE))
    # the render's 64-bit pHash is the one trace of it a Result keeps (workloads.txt)
    return Score(correct=d <= limit, score=1.0 - d / HASH_BITS, detail=f"pHash {rendered} vs reference {reference['phash']}: distance {d} (pass <= {limit})")
