"""Every scorer against the careful grader's verdicts in benchmarks/scorer_styles.py.

The table is the scorer-accuracy benchmark's (benchmarks/scorer_accuracy.py): realistic
answer styles over the packaged suites' rows plus hand-written cases, one per class of
error a grader found (denied answers, units and justifications, conversions in brackets,
corrections on one line, mixed numbers, refusal paraphrases and hedged fabrication,
pleasantries that are not clarifying questions, confidence statements inside answers).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

_STYLES = Path(__file__).resolve().parents[2] / "benchmarks" / "scorer_styles.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scorer_styles", _STYLES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["scorer_styles"] = module
    spec.loader.exec_module(module)
    return module


styles = _load()


def _verdict(case: object) -> bool:
    return score_item(case.scorer, Output(case.text, list(case.tool_calls)), case.expected, case.args).correct  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", [c for c in styles.HAND_CASES if not c.ambiguous], ids=lambda c: f"{c.scorer}-{c.style}")
def test_hand_written_case_gets_the_graders_verdict(case: object) -> None:
    assert _verdict(case) == case.verdict, case  # type: ignore[attr-defined]


def test_every_styled_answer_over_the_suites_rows_gets_the_graders_verdict() -> None:
    cases = [c for c in styles.row_cases() if not c.ambiguous]
    assert len(cases) > 5000  # every text suite's rows, in every style
    wrong = [(c.suite, c.scorer, c.style, c.text, c.expected) for c in cases if _verdict(c) != c.verdict]
    assert wrong == [], f"{len(wrong)} disagreements, first: {wrong[:5]}"


def test_a_wrong_answer_in_every_style_is_never_accepted() -> None:
    accepted = [(c.suite, c.style, c.text) for c in styles.row_cases() if not c.verdict and _verdict(c)]
    assert accepted == []
