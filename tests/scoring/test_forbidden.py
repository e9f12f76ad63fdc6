"""Forbidden constructs are found in the syntax tree: every way of using a name, none of mentioning it."""

from __future__ import annotations

from pathlib import Path

import pytest

from servescope.scoring.forbidden import malformed, violations
from tests.scoring.user_suite import run_one_row_suite

USES = [
    ("def f(xs):\n    return max(xs)\n", ["max"]),
    ("def f(xs):\n    m = max\n    return m(xs)\n", ["max"]),
    ("import builtins\ndef f(xs):\n    return builtins.max(xs)\n", ["max"]),
    ("from builtins import max as biggest\ndef f(xs):\n    return biggest(xs)\n", ["max"]),
    ("import builtins\ndef f(xs):\n    return getattr(builtins, 'max')(xs)\n", ["max"]),
    ("def f(xs):\n    return __builtins__['max'](xs)\n", ["max"]),
    ("def f(xs):\n    return vars(__import__('builtins'))['sorted'](xs)\n", ["sorted"]),
    ("def f(xs):\n    ys = list(xs)\n    ys.sort()\n    return ys\n", ["sorted", "sort"]),
    ("def f(xs):\n    return list(sorted(xs))\n", ["sorted", "sort"]),
    ("import collections\n", ["import"]),
    ("from collections import Counter\n", ["import"]),
    ("def f():\n    import os\n    return os\n", ["import"]),
    ("def f():\n    return __import__('os')\n", ["import"]),
    ("def f(xs):\n    seen = set()\n    return [x for x in xs if x not in seen]\n", ["set"]),
    ("def f(xs):\n    return (lambda g: g(xs))(max)\n", ["max"]),
    ("def f(xs):\n    return eval('max(xs)')\n", ["max"]),
    ("def f(xs):\n    exec('import os')\n", ["import"]),
    ("def f(xs):\n    return eval('m' + 'ax')(xs)\n", ["max"]),  # built at run time: cannot be checked, so refused
    # ... but a check that binds (a walrus), or a top-level statement that is no check, counts
    ("def f(xs):\n    return g(xs)\n\nassert (g := max)\n", ["max"]),
    ("def f(xs):\n    return g(xs)\n\nif __name__ == '__main__':\n    g = max\n", ["max"]),
    ("def f(xs):\n    assert xs == sorted(xs)\n    return xs\n", ["sorted"]),  # inside the function it is the function's
]

CLEAN = [
    # mentioned in a comment or a string, or named as the code's own variable or function
    ("# no max() here\ndef f(xs):\n    return 'max'\n", ["max"]),
    ("def f(xs):\n    max = xs[0]\n    for x in xs:\n        if x > max:\n            max = x\n    return max\n", ["max"]),
    ("def max(xs):\n    best = xs[0]\n    for x in xs:\n        best = x if x > best else best\n    return best\n", ["max"]),
    ("def f(stats):\n    return stats['max']\n", ["max"]),
    ("def f(xs):\n    return xs[::-1]\n", ["sorted", "sort", "import"]),
    ("def f(xs):\n    return max(xs)\n", []),  # nothing forbidden
    ("def f(xs):\n    return eval('m' + 'ax')(xs)\n", []),
    ("def f(xs):\n    return eval('sum(xs)')\n", ["max"]),
    # the answer's own checks compare against the builtin without the function using it
    ("def f(xs):\n    return xs[-1]\n\nassert f([1, 2]) == max([1, 2])\nprint(f([3]), max([3]))\n", ["max"]),
    ("def f(xs):\n    return xs[-1]\n\nif __name__ == '__main__':\n    assert f([1, 2]) == max([1, 2])\n", ["max"]),
    ("def f(:\n", ["max"]),  # does not parse: running it says why
    ("import math\n", ["max"]),  # an import is only forbidden by "import"
]


@pytest.mark.parametrize(("code", "forbidden"), USES)
def test_a_use_is_found(code: str, forbidden: list[str]) -> None:
    assert violations(code, forbidden), code


@pytest.mark.parametrize(("code", "forbidden"), CLEAN)
def test_no_use_is_invented(code: str, forbidden: list[str]) -> None:
    assert violations(code, forbidden) == [], code


@pytest.mark.parametrize(
    ("value", "ok"), [(None, True), ([], True), (["max", "import"], True), ("max", False), ([1], False), (["max()"], False), (["a.b"], False)]
)
def test_a_malformed_field_says_what_is_wrong(value: object, ok: bool) -> None:
    problem = malformed(value)
    assert (problem is None) == ok, problem
    if problem:
        assert "score_args.forbidden" in problem


def test_the_scorer_reports_a_malformed_row_instead_of_running_it() -> None:
    from servescope.scoring import score_item
    from servescope.scoring.base import Output

    s = score_item("code_exec", Output("```python\ndef f():\n    return 1\n```"), None, {"tests": "assert f() == 1", "forbidden": "max"})
    assert s.correct is False
    assert s.detail is not None and s.detail.startswith("the row is malformed: score_args.forbidden")


def test_a_run_refuses_a_malformed_row_in_one_line_before_sending_anything(tmp_path: Path) -> None:
    """A user's code suite whose row says ``"forbidden": "max"`` (a string, not a list): one line
    naming the dataset, the row and what to write, exit 1, nothing sent or written."""
    row = {
        "id": "mine-000",
        "text": "Write `def f(xs)` without max().",
        "scorer": "code_exec",
        "score_args": {"tests": "assert f([1]) == 1", "forbidden": "max"},
    }
    done, out = run_one_row_suite(tmp_path, row, "eval-code-v2")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.startswith("error")]
    assert errors == ["error: dataset eval-mine-v1: row mine-000: score_args.forbidden must be a list of names (e.g. [\"max\"]), got 'max'; fix the row"]
    assert "Traceback" not in done.stderr and not out.exists()
