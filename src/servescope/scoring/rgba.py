"""rgba: the render has an alpha channel, and uses it.

Present: the PNG's mode carries alpha (RGBA, LA, PA) or a transparency entry.
Used: at least ``min_transparent`` (default 1 %) of the pixels are not fully
opaque. An RGB render, or an RGBA one that is opaque everywhere, is wrong.
"""

from __future__ import annotations

from servescope.scoring.base import Args, Score, verdict
from servescope.scoring.image import Render

DEFAULT_MIN_TRANSPARENT = 0.01


def score(render: Render, expected: object, args: Args) -> Score:
    image = render.image
    has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    if not has_alpha:
        return verdict(False, None, detail=f"no alpha channel (mode {image.mode})")
    alpha = image.convert("RGBA").getchannel("A")
    pixels = alpha.width * alpha.height
    histogram = alpha.histogram()
    transparent = (pixels - histogram[255]) / pixels if pixels else 0.0
    limit = float(args.get("min_transparent", DEFAULT_MIN_TRANSPARENT))
    used = transparent >= limit
    return verdict(used, None, detail=f"alpha channel, {transparent:.1%} of pixels not opaque (pass >= {limit:.0%})")
