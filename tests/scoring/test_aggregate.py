"""The scores block, against hand-computed values."""

from __future__ import annotations

import pytest

from servescope.scoring.aggregate import ITEM_TEXT_LIMIT, ScoredItem, scores_block
from servescope.scoring.base import Score


def item(
    i: int,
    ok: bool | None,
    cat: str = "a",
    diff: str = "easy",
    strict: bool | None = None,
    unans: bool = False,
    abstained: bool | None = None,
    latency: float = 100.0,
) -> ScoredItem:
    score = None if ok is None else Score(ok, 1.0 if ok else 0.0, "x" * 900, strict=strict, abstained=abstained)
    return ScoredItem(f"r{i}", cat, diff, "exact", ok is not None, score, "y", latency if ok is not None else None, unans)


def test_accuracy_counts_failed_requests_as_wrong_and_success_rate_as_not_completed() -> None:
    items = [item(0, True, latency=100), item(1, True, latency=300), item(2, False, latency=200), item(3, None)]
    block = scores_block(items, "exact")
    assert block["accuracy"] == 0.5 and block["correct_count"] == 2 and block["item_count"] == 4
    assert block["success_rate"] == 0.75
    assert block["avg_latency_ms"] == 200.0
    # Wilson 95 % for 2/4: centre (0.5 + 1.92/4)/(1 + 3.84/4) = 0.5, half-width 0.3488...
    assert block["accuracy_ci_low"] == pytest.approx(0.1500, abs=1e-3)
    assert block["accuracy_ci_high"] == pytest.approx(0.8500, abs=1e-3)


def test_by_category_difficulty_and_strict() -> None:
    items = [item(0, True, "a", "easy", True), item(1, True, "b", "hard", False), item(2, False, "b", "hard", False)]
    block = scores_block(items, "exact")
    assert block["by_category"] == {"a": 1.0, "b": 0.5}
    assert block["by_difficulty"] == {"easy": 1.0, "hard": 0.5}
    assert block["strict_accuracy"] == pytest.approx(1 / 3)
    assert block["by_category_detail"]["b"]["n"] == 2


def test_abstention_and_false_abstention() -> None:
    items = [
        item(0, True, unans=True, abstained=True),
        item(1, False, unans=True, abstained=False),
        item(2, False, abstained=True),
        item(3, True, abstained=False),
    ]
    block = scores_block(items, "contains")
    assert block["abstention"] == 0.5 and block["false_abstention"] == 0.5


def test_items_are_truncated_and_integrity_suites_carry_the_note() -> None:
    block = scores_block([item(0, True)], "token-integrity")
    assert len(block["items"][0]["predicted"]) == ITEM_TEXT_LIMIT
    assert "not proof of absence" in block["note"]
    assert "note" not in scores_block([item(0, True)], "exact")


def test_calibration_only_when_the_suite_asks_and_over_the_items_that_stated_one() -> None:
    from dataclasses import replace

    items = [
        replace(item(0, True), confidence=0.9),
        replace(item(1, False), confidence=0.9),
        replace(item(2, True), confidence=0.2),
        item(3, True),  # answered without a confidence: not in the ECE
        item(4, None),  # failed: no answer, no confidence
    ]
    assert "calibration" not in scores_block(items, "exact")
    block = scores_block(items, "exact", confidence_asked=True)
    cal = block["calibration"]
    # (0.8, 0.9]: acc 1/2, conf 0.9 -> 0.4, weight 2/3; (0.1, 0.2]: acc 1, conf 0.2 -> 0.8, weight 1/3
    assert cal["answered_with_confidence"] == 3
    assert cal["ece"] == pytest.approx(0.4 * 2 / 3 + 0.8 / 3) and cal["mce"] == pytest.approx(0.8)
    assert [i["confidence"] for i in block["items"]] == [0.9, 0.9, 0.2, None, None]


def test_calibration_when_nobody_stated_a_confidence_is_null_not_invented() -> None:
    block = scores_block([item(0, True), item(1, False)], "exact", confidence_asked=True)
    assert block["calibration"] == {"ece": None, "mce": None, "bins": [], "answered_with_confidence": 0}


def test_strict_accuracy_counts_a_failed_request_as_not_strict_so_it_never_exceeds_accuracy() -> None:
    items = [item(0, True, strict=True), item(1, True, strict=True), item(2, None), item(3, None)]
    block = scores_block(items, "exact")
    assert block["accuracy"] == 0.5 and block["strict_accuracy"] == 0.5


def test_instruction_level_accuracy_counts_every_rule_given_and_none_kept_by_a_failed_request() -> None:
    from servescope.documents.result import Scores
    from servescope.scoring import score_item
    from servescope.scoring.base import Output

    rules = {"rules": [{"rule": "lowercase"}, {"rule": "max_words", "value": 3}, {"rule": "ends_with", "value": "bye"}]}
    kept_all = score_item("instruction", Output("ok then bye"), None, rules)  # 3 of 3
    kept_two = score_item("instruction", Output("Ok then bye"), None, rules)  # not lowercase: 2 of 3
    assert (kept_all.parts, kept_all.parts_kept, kept_two.parts_kept, kept_two.parts_kept_strict) == (3, 3, 2, 2)
    items = [
        ScoredItem("a", None, None, "instruction", True, kept_all, None, 1.0, parts=3),
        ScoredItem("b", None, None, "instruction", True, kept_two, None, 1.0, parts=3),
        ScoredItem("c", None, None, "instruction", False, None, None, None, parts=2),  # failed: keeps none of its 2
    ]
    block = scores_block(items, "instruction")
    assert block["accuracy"] == pytest.approx(1 / 3)  # prompt level
    assert block["instruction_accuracy"] == pytest.approx(5 / 8) and block["instruction_strict_accuracy"] == pytest.approx(5 / 8)
    Scores.model_validate({k: v for k, v in block.items() if k != "items"})
    assert "instruction_accuracy" not in scores_block([item(0, True)], "exact")
