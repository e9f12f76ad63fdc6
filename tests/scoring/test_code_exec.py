"""code-exec pitfalls: fences, prose around code, wrong code, hangs, thinking (in the real sandbox)."""

from __future__ import annotations

import pytest

from servescope.errors import UsageError
from servescope.scoring import score_item
from servescope.scoring.base import Output
from servescope.scoring.sandbox import find_sandbox

pytestmark = pytest.mark.integration

TESTS = {"tests": "assert add(2, 3) == 5\nassert add(-1, 1) == 0", "timeout_s": 5}
GOOD = "def add(a, b):\n    return a + b\n"
CASES = [
    (f"```python\n{GOOD}```", True, True),
    (f"Here is the code:\n```python\n{GOOD}```\nIt adds two numbers.", True, True),
    (GOOD, True, False),  # no fence: runs the whole answer, not strict
    ("```python\ndef add(a, b):\n    return a - b\n```", False, False),
    ("```python\ndef add(a, b):\n    while True: pass\n```", False, False),  # a hang is killed, not waited for
    (f"<think>```python\n{GOOD}```</think>I cannot.", False, False),
    ("```python\nimport socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)\n" + GOOD + "```", False, False),
    ("", False, False),
    # a function block, then an "example usage" block that calls it: one program
    (f"```python\n{GOOD}```\nExample usage:\n```python\nprint(add(2, 3))\n```", True, True),
    # ... and an output block that is not code at all
    (f"```python\n{GOOD}```\nOutput:\n```\n5\n>>> add(2, 3)\n```", True, True),
]


@pytest.fixture(scope="module", autouse=True)
def _sandbox() -> None:
    try:
        find_sandbox()
    except UsageError as exc:
        pytest.fail(str(exc))


@pytest.mark.parametrize(("text", "correct", "strict"), CASES)
def test_code_exec_pitfalls(text: str, correct: bool, strict: bool) -> None:
    s = score_item("code-exec", Output(text), None, TESTS)
    assert (s.correct, bool(s.strict)) == (correct, strict), s


def test_a_row_without_tests_is_wrong_not_a_crash() -> None:
    assert score_item("code_exec", Output(GOOD), None, {}).correct is False


def test_fences_pair_up_so_a_shell_block_is_never_read_as_code() -> None:
    from servescope.scoring.code_exec import extract_code

    text = "Install:\n```bash\npip install nothing\n```\nThen:\n```python\n" + GOOD + "```\nand run it."
    assert extract_code(text) == (GOOD, True)
