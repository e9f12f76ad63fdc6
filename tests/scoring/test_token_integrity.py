"""token-integrity: the splice detector on clean runs and on planted splices."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output
from servescope.scoring.token_integrity import inspect

CLEAN = "\n".join(f"{n}. ok" for n in range(1, 151))


def planted(line: int, replacement: str) -> str:
    lines = CLEAN.splitlines()
    lines[line - 1] = replacement
    return "\n".join(lines)


CASES = [
    (CLEAN, True),
    (planted(73, "73. okay"), False),  # a fragment glued to the word
    (planted(73, "73. ok 112"), False),  # a number from another position
    (planted(73, "73. the ok"), False),  # a foreign word
    (planted(73, "73. o"), False),  # a token lost mid-line
    (CLEAN.replace("73. ok\n", ""), True),  # a missing line is counting, not a splice
    (CLEAN + "\nThat is all the lines you asked for.", True),  # prose after: drift, not a splice
    ("Sure! Here are the lines you asked for.", False),  # not a long generation: too short to judge, never a pass
    ("\n".join(f"{n}. ok" for n in range(1, 100)), False),  # 99 of 150 lines: too short to judge
]


@pytest.mark.parametrize(("text", "clean"), CASES)
def test_planted_splices_are_found_and_clean_runs_pass(text: str, clean: bool) -> None:
    s = score_item("token-integrity", Output(text), None, {"word": "ok", "lines": 150})
    assert s.correct is clean, s.detail


def test_counting_and_drift_are_reported_apart_from_splices() -> None:
    found = inspect(CLEAN.replace("73. ok\n", "") + "\nbye", "ok")
    assert (len(found.splices), found.counting, found.drift) == (0, 1, 1)


def test_no_lines_is_wrong() -> None:
    assert score_item("token_integrity", Output(""), None, {"word": "ok"}).correct is False


def test_a_last_line_cut_at_the_token_limit_is_not_a_splice() -> None:
    # SmolLM2 overran a 227-line ask to the 2,048-token cap: "...359. ok\n36" (seen 2026-12-01)
    cut = "\n".join(f"{n}. ok" for n in range(1, 360)) + "\n36"
    args = {"word": "ok", "lines": 227}
    assert score_item("token-integrity", Output(cut, finish_reason="length"), None, args).correct is True
    # the same text from a generation that stopped on its own: "36" is a broken line
    assert score_item("token-integrity", Output(cut, finish_reason="stop"), None, args).correct is False
    # a splice before the cut is still found
    spliced = cut.replace("\n200. ok\n", "\n200. ok 7\n")
    assert score_item("token-integrity", Output(spliced, finish_reason="length"), None, args).correct is False
