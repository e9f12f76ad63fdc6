"""The image scorers on images made here (PIL, and the tiny engine's test render mode):
rgba, fidelity (pHash distance and the render digest), ocr (Tesseract on stdin) and
clip (refused); predicted is always null."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image, ImageDraw

from servescope.errors import UsageError
from servescope.scoring import IMAGE_SCORERS, is_image_scorer, known, score_render
from servescope.scoring.fidelity import distance
from servescope.scoring.image import Render, phash_hex, render_digest


def _render(image: Image.Image, digest: str = "d") -> Render:
    return Render(image, "case-0", digest)


def _checker(mode: str = "RGB") -> Image.Image:
    image = Image.new(mode, (64, 64), (255, 255, 255, 255) if mode == "RGBA" else (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for i in range(0, 64, 16):
        draw.rectangle((i, 0, i + 7, 63), fill=(0, 0, 0, 255) if mode == "RGBA" else (0, 0, 0))
    return image


def test_image_scorers_are_known_by_both_spellings_and_never_raise() -> None:
    assert set(IMAGE_SCORERS) == {"clip", "fidelity", "ocr", "rgba"}
    assert all(known(n) and is_image_scorer(n) for n in ("ocr", "OCR", "fidelity", "rgba", "clip"))
    assert not is_image_scorer("exact")
    bad = score_render("rgba", Render(object(), "c", "d"), None, {})  # not an image at all
    assert bad.correct is False and "rgba failed" in (bad.detail or "")


def test_rgba_needs_an_alpha_channel_that_is_used() -> None:
    assert score_render("rgba", _render(_checker("RGB")), None).correct is False
    opaque = score_render("rgba", _render(_checker("RGBA")), None)
    assert opaque.correct is False and "0.0%" in (opaque.detail or "")
    clear = _checker("RGBA")
    ImageDraw.Draw(clear).rectangle((0, 0, 31, 63), fill=(0, 0, 0, 0))
    used = score_render("rgba", _render(clear), None)
    assert used.correct is True and used.predicted is None
    assert score_render("rgba", _render(clear), None, {"min_transparent": 0.9}).correct is False


def test_fidelity_is_the_phash_distance_and_checks_the_digest_first() -> None:
    image = _checker()
    ref = {"phash": phash_hex(image), "render_digest": "d"}
    same = score_render("fidelity", _render(image), None, {"reference": ref})
    assert same.correct is True and same.score == 1.0 and same.predicted is None
    flipped = Image.new("RGB", (64, 64), (255, 255, 255))
    ImageDraw.Draw(flipped).ellipse((4, 4, 40, 30), fill=(0, 0, 0))
    d = distance(phash_hex(flipped), ref["phash"])
    assert d > 10
    far = score_render("fidelity", _render(flipped), None, {"reference": ref})
    assert far.correct is False and far.score == pytest.approx(1 - d / 64)
    other_spec = score_render("fidelity", _render(image, digest="e"), None, {"reference": ref})
    assert other_spec.correct is False and "another spec" in (other_spec.detail or "")
    assert score_render("fidelity", _render(image), None, {}).correct is False  # no reference: wrong, says so


def test_distance_counts_differing_bits() -> None:
    assert distance("0000000000000000", "ffffffffffffffff") == 64
    assert distance("00000000000000ff", "0000000000000000") == 8


def test_render_digest_covers_prompt_spec_and_reference_images() -> None:
    spec = {"width": 64, "height": 64, "steps": 4, "seed": 0, "guidance": None, "model": None, "background": None}
    base = render_digest("a fox", spec, None)
    buf = io.BytesIO()
    _checker().save(buf, format="PNG")
    ref = base64.b64encode(buf.getvalue()).decode()
    assert base == render_digest("a fox", dict(spec), [])
    assert len({base, render_digest("a cat", spec, None), render_digest("a fox", spec | {"steps": 8}, None), render_digest("a fox", spec, [ref])}) == 4


def test_ocr_reads_known_text_and_keeps_no_transcription() -> None:
    pytest.importorskip("pytesseract")
    from servescope.testing.image.pipeline import RenderSpec, render_text

    image = render_text(RenderSpec('a sign that says "OPEN 24"', 256, 64, 4, 0, 3.0))
    hit = score_render("ocr", _render(image), "OPEN 24")
    assert hit.correct is True and hit.predicted is None
    assert score_render("ocr", _render(image), "CLOSED").correct is False
    assert score_render("ocr", _render(_checker()), "OPEN 24").correct is False
    assert score_render("ocr", _render(image), None).correct is False  # a case without its expected text


def test_ocr_without_tesseract_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pytesseract = pytest.importorskip("pytesseract")
    from servescope.scoring.ocr import tesseract_command

    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
    with pytest.raises(UsageError, match=r"^the ocr scorer needs Tesseract: install Debian's tesseract-ocr") as exc:
        tesseract_command()
    assert "\n" not in str(exc.value)


def test_clip_is_refused_never_faked() -> None:
    from servescope.scoring import clip

    with pytest.raises(UsageError, match="clip scorer is not available"):
        clip.check()
    assert score_render("clip", _render(_checker()), "a checkerboard").correct is False
