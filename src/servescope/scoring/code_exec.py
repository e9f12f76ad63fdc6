"""code-exec: the generated code passes the row's tests, run in the sandbox.

The code is every fenced Python block of the answer in order (```python ... ```; an
unlabelled block too when it compiles), so a function block followed by an "example
usage" block runs as one program; the last block alone when none compiles; the whole
answer when it has no fence; the row's ``args.tests`` (plain ``assert`` lines) are
appended and the lot runs in :mod:`servescope.scoring.sandbox`. Exit status 0 within
the limits = correct. Without a working sandbox this refuses (``UsageError``) unless
``SERVESCOPE_UNSAFE_CODE_EXEC=1`` (what ``--unsafe-code-exec`` sets). Strict: the code
came in a fence as asked. A row whose prompt forbids a construct lists it in
``args.forbidden`` (:mod:`servescope.scoring.forbidden`): code that uses one is wrong
before it runs, however its tests go.
"""

from __future__ import annotations

import os
import re

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.forbidden import malformed, violations
from servescope.scoring.sandbox import Limits, find_sandbox
from servescope.scoring.text import strip_thinking

UNSAFE_ENV = "SERVESCOPE_UNSAFE_CODE_EXEC"
# Fences are read in pairs (an opening line, its closing line), so a ```bash block's closing fence is
# never taken for the opening of a Python one; the label says which blocks are code.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)
_PYTHON_LABELS = {"", "python", "python3", "py"}


def _compiles(code: str) -> bool:
    try:
        compile(code, "<answer>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def extract_code(text: str) -> tuple[str, bool]:
    """(the code, whether it came in a fence)."""
    blocks = [(label.lower(), body) for label, body in _FENCE.findall(text)]
    if not blocks:
        return text, False
    blocks = [(label, body) for label, body in blocks if label in _PYTHON_LABELS] or blocks
    # A block that does not compile is output, prose or a REPL transcript, not part of the program.
    runnable = [body for _label, body in blocks if _compiles(body)]
    if runnable:
        return "\n\n".join(runnable), True
    return blocks[-1][1], True


def score(output: Output, expected: object, args: Args) -> Score:
    tests = str(args.get("tests") or "")
    if not tests.strip():
        return wrong("the row has no tests")
    forbidden = args.get("forbidden")
    problem = malformed(forbidden)
    if problem:
        return wrong(f"the row is malformed: {problem}")
    code, fenced = extract_code(strip_thinking(output.text))
    if not code.strip():
        return wrong("no code in the answer", strict=False)
    used = violations(code, forbidden or [])
    if used:
        return wrong(f"forbidden by the prompt: {'; '.join(used)[:200]}", code[:200], strict=False)
    runner = find_sandbox(unsafe=os.environ.get(UNSAFE_ENV) == "1")
    wall_s = float(args.get("timeout_s", 10.0))
    result = runner.run(code + "\n\n" + tests + "\n", Limits(wall_s=wall_s))
    if result.timed_out:  # the code and everything it started were killed (scoring.sandbox)
        return wrong(f"timeout: no exit within {wall_s:g} s; killed with every process it started", code[:200], strict=False)
    last = (result.stderr.strip().splitlines() or [""])[-1][:200]
    return verdict(result.passed, code[:200], strict=fenced, detail=None if result.passed else f"exit {result.returncode}: {last}")
