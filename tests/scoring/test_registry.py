"""The scorer registry: both spellings, unknown names, and a scorer that raises."""

from __future__ import annotations

from servescope.scoring import canonical_name, known, score_item
from servescope.scoring.base import Output
from servescope.scoring.text import anchored, boxed, strip_thinking


def test_kebab_and_snake_case_are_one_scorer() -> None:
    assert canonical_name("tool-call") == canonical_name("tool_call") == "tool_call"
    assert known("token-integrity") and known("token_integrity") and known("code-exec")


def test_unknown_scorer_is_a_wrong_item_not_a_crash() -> None:
    s = score_item("telepathy", Output("x"), "x")
    assert s.correct is False and "unknown scorer" in (s.detail or "")


def test_a_scorer_fed_garbage_never_raises() -> None:
    for name in ("numeric", "mc", "exact", "json", "tool_call", "instruction", "contains", "needle", "token_integrity", "abstain"):
        s = score_item(name, Output("garbage", [{"function": 3}]), {"weird": [1, None]}, {"rules": [None, 3]})
        assert s.correct in (True, False)


def test_text_helpers() -> None:
    assert strip_thinking("<think>a</think>b") == "b"
    assert strip_thinking("b<think>never closed") == "b"
    assert strip_thinking("inner</think>after") == "after"
    assert boxed(r"x \boxed{\frac{1}{2}} y") == r"\frac{1}{2}"
    assert boxed(r"\boxed{a{b}c}") == "a{b}c"
    assert boxed(r"\boxed{unbalanced") is None
    assert anchored("Answer: 3\nAnswer: 4") == "4"
