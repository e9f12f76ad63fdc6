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
