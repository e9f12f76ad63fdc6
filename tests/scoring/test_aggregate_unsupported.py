"""Rows the endpoint cannot take (failure category ``unsupported``) are not wrong answers."""

from __future__ import annotations

from servescope.scoring.aggregate import ScoredItem, scores_block
from servescope.scoring.base import Score


def answered(i: int, correct: bool, cat: str = "colour") -> ScoredItem:
    return ScoredItem(f"r{i}", cat, "easy", "exact", True, Score(correct, 1.0 if correct else 0.0, "red"), "red", 50.0)


def unsupported(i: int, cat: str = "colour") -> ScoredItem:
    return ScoredItem(f"u{i}", cat, "easy", "exact", False, None, "red", None, unsupported=True)


def test_unsupported_rows_are_left_out_of_accuracy_and_counted_beside_it() -> None:
    block = scores_block([answered(0, True), answered(1, False), unsupported(2, "count"), unsupported(3)], "exact")
    assert block["accuracy"] == 0.5 and block["item_count"] == 2 and block["unsupported_count"] == 2
    assert block["success_rate"] == 1.0  # of the rows sent; the unsupported ones are failures in metrics
    assert block["by_category"] == {"colour": 0.5}  # a category with no row sent has no rate
    items = {i["id"]: i for i in block["items"]}
    assert len(items) == 4 and items["u2"]["correct"] is None and "unsupported" in items["u2"]["detail"]
    assert block["correct_count"] == sum(1 for i in block["items"] if i["correct"])


def test_every_row_unsupported_gives_null_accuracy_not_zero() -> None:
    block = scores_block([unsupported(0), unsupported(1)], "exact")
    assert block["accuracy"] is None and block["accuracy_ci_low"] is None and block["success_rate"] is None
    assert block["item_count"] == 0 and block["unsupported_count"] == 2 and block["correct_count"] == 0


def test_a_failed_request_that_is_not_unsupported_still_counts_wrong() -> None:
    failed = ScoredItem("f", "colour", "easy", "exact", False, None, "red", None)
    block = scores_block([answered(0, True), failed], "exact")
    assert block["accuracy"] == 0.5 and block["unsupported_count"] == 0
