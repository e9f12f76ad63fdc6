"""Check every eval dataset's expected answers: re-derive what a template computed, and flag
answers that cannot be true (a negative count, a fraction of a person, an age of 300).

    python3 scripts/check_eval_datasets.py                # the packaged datasets
    python3 scripts/check_eval_datasets.py --datasets DIR

Stdlib only. For each ``eval-*.jsonl`` row:

- the row is complete for its scorer (an answer, an expected object, rules, tests);
- templated rows (arithmetic, word problems, percentages, prices, calendars, sequences,
  parity, orderings, JSON extraction, tool arguments, needles, line counts) have their
  answer recomputed from the numbers in the prompt;
- numeric answers obey the domain of the question: a count or an amount ("how many",
  "how much", "left") is not negative, people and things are counted in whole numbers, an
  age lies in 0..130, a share asked as a percentage in 0..100;
- multiple-choice answers name one of the options the prompt lists (and ``choices``, if
  given, are those options, distinct);
- grounded answers (passage, needle) appear in the prompt;
- instruction rows use known rules, and every instruction the prompt states is a rule
  while every rule is stated in the prompt (``instruction_coverage``).

A problem is one line, ``dataset row: what is wrong``. Problems of published datasets that
are documented in their manifest's notes (``KNOWN``) are listed as known and do not fail
the check (a published dataset is immutable; its successor is fixed). Exit 1 on any other
problem.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "src/servescope/data/datasets"

# (dataset, row id or check name): why it is known. Each is written in the dataset's notes.
KNOWN: dict[tuple[str, str], str] = {
    ("eval-math-v2", "math2-011"): "published with a negative count; eval-math-v3 fixes the template",
    ("eval-format-v1", "coverage"): "published with rules that miss stated constraints; eval-format-v2 checks them all",
}

SCORERS = {"abstain", "code_exec", "contains", "exact", "instruction", "json", "mc", "needle", "numeric", "token_integrity", "tool_call"}
INSTRUCTION_RULES = {
    "max_words",
    "min_words",
    "max_chars",
    "max_sentences",
    "min_sentences",
    "sentence_count",
    "paragraph_count",
    "line_count",
    "lowercase",
    "uppercase",
    "no_commas",
    "quotation",
    "starts_with",
    "ends_with",
    "contains",
    "not_contains",
    "keyword_count",
    "bullet_count",
    "title",
    "placeholder_count",
    "highlight_count",
    "section_count",
    "postscript",
    "json",
    "json_keys",
    "language_ascii",
}
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# Things counted in whole numbers when a question asks "how many <thing>".
WHOLE_THINGS = re.compile(
    r"how many (?:\w+ )?(people|persons|students|children|workers|employees|players|pencils|apples|boxes|tickets|"
    r"eggs|books|cars|buses|slices|socks|legs|wheels|fingers|days|pages|states|continents|rings|keys|strings|bones|"
    r"protons|electrons|atoms|chromosomes|chambers|planets|sides|items|sheep|cats|dogs|squares)\b",
    re.IGNORECASE,
)


def number(text: str) -> Fraction | None:
    """The number an answer states: an integer, a decimal or a fraction a/b; None otherwise."""
    t = text.strip().replace("−", "-").replace(",", "")
    m = re.fullmatch(r"(-?\d+)/(\d+)", t)
    if m:
        return Fraction(int(m.group(1)), int(m.group(2))) if int(m.group(2)) else None
    try:
        return Fraction(t)
    except ValueError:
        return None


# ---- re-derivations: (pattern on the prompt, what the answer must be) -------------------------
Derive = Callable[[re.Match[str], dict[str, Any]], Any]


def _ints(m: re.Match[str]) -> list[int]:
    return [int(g) for g in m.groups()]


def _next_in_sequence(m: re.Match[str], _row: dict[str, Any]) -> Any:
    """The next term of a sequence whose differences become constant (arithmetic, quadratic)."""
    seq = [int(x) for x in m.group(1).replace(" ", "").split(",")]
    levels = [seq]
    while len(levels[-1]) > 1 and len(set(levels[-1])) > 1:
        levels.append([b - a for a, b in zip(levels[-1], levels[-1][1:], strict=False)])
    if len(levels[-1]) < 2:
        return None  # no constant difference: nothing to re-derive from
    nxt = levels[-1][-1]
    for level in reversed(levels[:-1]):
        nxt = level[-1] + nxt
    return nxt


def _parity(values: list[int]) -> str:
    return "A" if sum(values) % 2 == 0 else "B"


def _shortest(m: re.Match[str], row: dict[str, Any]) -> Any:
    pairs = re.findall(r"(\w+) is taller than (\w+)\.", row["text"])
    taller = {a for a, _ in pairs}
    names = {n for pair in pairs for n in pair}
    shortest = names - taller
    return shortest.pop() if len(shortest) == 1 else None


DERIVATIONS: list[tuple[re.Pattern[str], Derive]] = [
    (re.compile(r"^What is (-?\d+) \+ (-?\d+)\?"), lambda m, r: sum(_ints(m))),
    (re.compile(r"^What is (-?\d+) - (-?\d+)\?"), lambda m, r: _ints(m)[0] - _ints(m)[1]),
    (re.compile(r"^What is (-?\d+) × (-?\d+)\?"), lambda m, r: _ints(m)[0] * _ints(m)[1]),
    (
        re.compile(r"A shelf holds (\d+) boxes and each box holds (\d+) pencils\. (\d+) pencils are taken out\."),
        lambda m, r: _ints(m)[0] * _ints(m)[1] - _ints(m)[2],
    ),
    (re.compile(r"Sam has (\d+) apples and buys (\d+) more\."), lambda m, r: sum(_ints(m))),
    (re.compile(r"^What is (\d+)/(\d+) \+ (\d+)/(\d+)\?"), lambda m, r: Fraction(_ints(m)[0], _ints(m)[1]) + Fraction(_ints(m)[2], _ints(m)[3])),
    (re.compile(r"^What is (\d+)% of (\d+)\?"), lambda m, r: Fraction(_ints(m)[0] * _ints(m)[1], 100)),
    (re.compile(r"A ticket costs \$(\d+)\. How many dollars do (\d+) tickets cost\?"), lambda m, r: _ints(m)[0] * _ints(m)[1]),
    (re.compile(r"Today is (\w+)\. What day of the week will it be in (\d+) days\?"), lambda m, r: DAYS[(DAYS.index(m.group(1)) + int(m.group(2))) % 7]),
    (re.compile(r"What number comes next: ([\d, ]+), \.\.\.\?"), _next_in_sequence),
    (
        re.compile(r"Is the sum of ([\d, ]+) even or odd\? Reply with the letter\. A\) even B\) odd"),
        lambda m, r: _parity([int(x) for x in m.group(1).split(",")]),
    ),
    (re.compile(r"^Is (\d+) even or odd\? Reply with the letter\. A\) even B\) odd"), lambda m, r: _parity([int(m.group(1))])),
    (re.compile(r"Who is the shortest\?"), _shortest),
    (re.compile(r"Count from 1 to (\d+)\.|Now count from 1 to (\d+) "), lambda m, r: int(m.group(1) or m.group(2))),
    (re.compile(r'"(\w+) is (\d+) years old and lives in (\w+)\."'), lambda m, r: {"name": m.group(1), "age": int(m.group(2)), "city": m.group(3)}),
    (re.compile(r'"Order: (\d+) x (\w+) at (\d+) dollars each\."'), lambda m, r: {"item": m.group(2), "price": int(m.group(3)), "quantity": int(m.group(1))}),
    (re.compile(r"^Set a timer for (\d+) minutes"), lambda m, r: {"name": "set_timer", "arguments": {"seconds": int(m.group(1)) * 60}}),
    (re.compile(r"^Set a timer for (\d+) seconds"), lambda m, r: {"name": "set_timer", "arguments": {"seconds": int(m.group(1))}}),
    (
        re.compile(r"^Convert (\d+) USD to EUR\."),
        lambda m, r: {"name": "convert_currency", "arguments": {"amount": int(m.group(1)), "from": "USD", "to": "EUR"}},
    ),
    (
        re.compile(r"^How many yen is (\d+) dollars\?"),
        lambda m, r: {"name": "convert_currency", "arguments": {"amount": int(m.group(1)), "from": "USD", "to": "JPY"}},
    ),
    (re.compile(r"^(?:What's the weather in|Is it raining in) (\w+)"), lambda m, r: {"name": "get_weather", "arguments": {"city": m.group(1)}}),
    (re.compile(r"The vault code for box (\d+) is (\d+)\."), lambda m, r: m.group(2)),
]


def _got(row: dict[str, Any]) -> Any:
    """What the row expects, in the form a derivation returns."""
    if row.get("scorer") == "token_integrity":
        return (row.get("score_args") or {}).get("lines")
    if row.get("expected") is not None:
        return row["expected"]
    return row.get("answer")


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, dict) and isinstance(got, dict):
        return all(k in got and _same(v, got[k]) for k, v in want.items())
    if isinstance(want, (int, Fraction)) and not isinstance(want, bool):
        value = got if isinstance(got, int) else number(str(got)) if got is not None else None
        return value is not None and Fraction(value) == Fraction(want)
    return str(want) == str(got)


def rederive(row: dict[str, Any]) -> tuple[bool, str | None]:
    """(whether a template matched, the problem if the answer differs from the recomputed one)."""
    text = row.get("text", "")
    for pattern, derive in DERIVATIONS:
        m = pattern.search(text)
        if not m:
            continue
        want = derive(m, row)
        if want is None:
            return False, None
        got = _got(row)
        if not _same(want, got):
            return True, f"expected {got!r} but the prompt's numbers give {want!r}"
        return True, None
    return False, None


# ---- domain: what an answer to this question can be -------------------------------------------
def domain_problems(row: dict[str, Any]) -> list[str]:
    answer = row.get("answer")
    if row.get("scorer") != "numeric" or answer is None:
        return []
    value = number(str(answer))
    if value is None:
        return [f"numeric answer {answer!r} is not a number"]
    question = (row.get("text") or "").split("\n")[-1] if row.get("messages") is None else row.get("text", "")
    q = question.lower()
    out = []
    if value < 0 and (re.search(r"\bhow (many|much|long|far|old)\b", q) or re.search(r"\b(left|remain|remaining)\b", q)):
        out.append(f"answer {answer} is negative, but the question asks for a count or amount")
    if value.denominator != 1 and WHOLE_THINGS.search(question):
        out.append(f"answer {answer} is not a whole number of {WHOLE_THINGS.search(question).group(1)}")  # type: ignore[union-attr]
    if re.search(r"\bhow old\b|\bage\b", q) and not 0 <= value <= 130:
        out.append(f"answer {answer} is not a human age")
    if re.search(r"\bwhat (percent|percentage|share)\b", q) and not 0 <= value <= 100:
        out.append(f"answer {answer} is not a share in percent (0-100)")
    for years in re.findall(r"\b(-?\d+) years old\b", row.get("text", "")):
        if not 0 <= int(years) <= 130:
            out.append(f"the prompt gives an age of {years}")
    return out


# ---- multiple choice ------------------------------------------------------------------------
def mc_problems(row: dict[str, Any]) -> list[str]:
    letter = str(row.get("answer") or "")
    text = row.get("text", "")
    letters = re.findall(r"(?:^|\s)([A-J])\) ", text)
    if not re.fullmatch(r"[A-J]", letter):
        return [f"mc answer {letter!r} is not an option letter"]
    out = []
    if letters != [chr(65 + i) for i in range(len(letters))] or len(letters) < 2:
        out.append(f"the prompt does not list options A, B, ... in order (found {letters})")
    elif letter not in letters:
        out.append(f"answer {letter} is not among the listed options {letters}")
    choices = (row.get("score_args") or {}).get("choices")
    if choices is not None:
        if len(choices) != len(letters) or any(f"{chr(65 + i)}) {c}" not in text for i, c in enumerate(choices)):
            out.append("score_args.choices are not the options the prompt lists, in order")
        if len({str(c).strip().lower() for c in choices}) != len(choices):
            out.append("two options are the same")
    return out


# ---- grounded answers -----------------------------------------------------------------------
def grounded_problems(row: dict[str, Any]) -> list[str]:
    scorer, answer = row.get("scorer"), row.get("answer")
    if scorer in ("contains", "needle") and answer is not None and str(answer).lower() not in row.get("text", "").lower():
        return [f"answer {answer!r} does not appear in the prompt it must be read from"]
    if scorer == "json" and isinstance(row.get("expected"), dict):
        missing = [k for k, v in row["expected"].items() if str(v) not in row.get("text", "")]
        if missing:
            return [f"expected values of {missing} do not appear in the prompt"]
    return []


# ---- instruction rows: rules known, and rules == instructions the prompt states --------------
def _n(word: str) -> int | None:
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word.lower())


# (pattern in the prompt, the rule it states, the value it states or None)
PHRASES: list[tuple[re.Pattern[str], str, Callable[[re.Match[str]], Any]]] = [
    (re.compile(r"at most (\d+) words", re.I), "max_words", lambda m: int(m.group(1))),
    (re.compile(r"at least (\d+) words", re.I), "min_words", lambda m: int(m.group(1))),
    (
        re.compile(r"\b(?:exactly (\d+|one|two|three|four|five)|(one|two|three|four|five|a)) sentences?\b", re.I),
        "sentence_count",
        lambda m: _n(m.group(1) or m.group(2)),
    ),
    (re.compile(r"exactly (\d+) paragraphs", re.I), "paragraph_count", lambda m: int(m.group(1))),
    (re.compile(r"exactly (\d+) [^.]*?bullet points", re.I), "bullet_count", lambda m: int(m.group(1))),
    (
        re.compile(r"into exactly (\d+) sections, marking the start of each with '(\w+) 1'", re.I),
        "section_count",
        lambda m: {"marker": m.group(2), "count": int(m.group(1))},
    ),
    (re.compile(r"lowercase letters", re.I), "lowercase", lambda m: None),
    (re.compile(r"capital letters only|in capital letters\.", re.I), "uppercase", lambda m: None),
    (re.compile(r"any commas", re.I), "no_commas", lambda m: None),
    (re.compile(r"\bstarts? (?:your answer )?with (?:the word )?'([^']+)'", re.I), "starts_with", lambda m: m.group(1)),
    (re.compile(r"\bends? (?:your answer )?with (?:the word |the exact phrase )?'([^']+)'", re.I), "ends_with", lambda m: m.group(1)),
    (re.compile(r"\bInclude the word '([^']+)'", re.I), "contains", lambda m: m.group(1)),
    (re.compile(r"\bDo not use the word '([^']+)'", re.I), "not_contains", lambda m: m.group(1)),
    (re.compile(r"\bUse the word '([^']+)' at least (\d+) times", re.I), "keyword_count", lambda m: {"word": m.group(1), "min": int(m.group(2))}),
    (re.compile(r"double angular brackets", re.I), "title", lambda m: None),
    (re.compile(r"at least (\d+) placeholders", re.I), "placeholder_count", lambda m: int(m.group(1))),
    (re.compile(r"Highlight at least (\d+) parts", re.I), "highlight_count", lambda m: int(m.group(1))),
    (re.compile(r"postscript starting with '([^']+)'", re.I), "postscript", lambda m: m.group(1)),
    (re.compile(r"\bJSON\b"), "json", lambda m: None),
    (re.compile(r"with the keys '(\w+)' and '(\w+)'", re.I), "json_keys", lambda m: [m.group(1), m.group(2)]),
    (re.compile(r"double quotation marks", re.I), "quotation", lambda m: None),
    (re.compile(r"plain ASCII", re.I), "language_ascii", lambda m: True),
]


def instruction_coverage(text: str, rules: list[dict[str, Any]]) -> list[str]:
    """What differs between the instructions the prompt states and the rules that check them."""
    stated: dict[str, Any] = {}
    for pattern, name, value in PHRASES:
        m = pattern.search(text)
        if m:
            stated[name] = value(m)
    checked = {str(r.get("rule")): r.get("value") for r in rules}
    out = [f"the prompt asks for {name} ({v!r}) but no rule checks it" for name, v in stated.items() if name not in checked]
    out += [f"rule {name} checks what the prompt does not ask" for name in checked if name not in stated]
    out += [
        f"rule {name} checks {checked[name]!r} but the prompt says {v!r}"
        for name, v in stated.items()
        if name in checked and v is not None and checked[name] != v
    ]
    return out


def instruction_problems(row: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(rule problems, coverage problems)."""
    rules = (row.get("score_args") or {}).get("rules") or []
    if not rules:
        return ["an instruction row without rules"], []
    unknown = [str(r.get("rule")) for r in rules if r.get("rule") not in INSTRUCTION_RULES]
    return ([f"unknown rules {unknown}"] if unknown else []), instruction_coverage(row.get("text", ""), rules)


# ---- completeness -----------------------------------------------------------------------------
def completeness(row: dict[str, Any]) -> list[str]:
    scorer, args = row.get("scorer"), row.get("score_args") or {}
    if scorer not in SCORERS:
        return [f"unknown scorer {scorer!r}"]
    needs = {
        "numeric": row.get("answer") is not None,
        "exact": row.get("answer") is not None,
        "mc": row.get("answer") is not None,
        "contains": row.get("answer") is not None,
        "needle": row.get("answer") is not None,
        "json": row.get("expected") is not None,
        "tool_call": row.get("expected") is not None,
        "code_exec": bool(args.get("tests")),
        "abstain": row.get("unanswerable") is True,
        "token_integrity": bool(args.get("lines")),
        "instruction": True,
    }
    return [] if needs[str(scorer)] else [f"a {scorer} row without what its scorer needs"]


def check_dataset(path: Path) -> tuple[list[tuple[str, str, str]], int, int]:
    """(problems as (row id, check, message), rows, rows re-derived)."""
    problems: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    derived = 0
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        rid = str(row.get("id"))
        if rid in seen:
            problems.append((rid, "ids", "duplicate row id"))
        seen.add(rid)
        problems += [(rid, "complete", p) for p in completeness(row)]
        matched, wrong = rederive(row)
        derived += matched
        if wrong:
            problems.append((rid, "rederive", wrong))
        problems += [(rid, "domain", p) for p in domain_problems(row)]
        if row.get("scorer") == "mc":
            problems += [(rid, "mc", p) for p in mc_problems(row)]
        problems += [(rid, "grounded", p) for p in grounded_problems(row)]
        if row.get("scorer") == "instruction":
            rule_issues, coverage = instruction_problems(row)
            problems += [(rid, "rules", p) for p in rule_issues] + [(rid, "coverage", p) for p in coverage]
    return problems, len(rows), derived


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DIR, help="folder of <id>.jsonl rows files (default: the packaged datasets)")
    args = ap.parse_args(argv)
    files = sorted(args.datasets.glob("eval-*.jsonl"))
    if not files:
        print(f"error: no eval-*.jsonl rows files in {args.datasets}; pass --datasets DIR", file=sys.stderr)
        return 2
    new = known = rows = derived = 0
    for path in files:
        did = path.stem
        problems, n, d = check_dataset(path)
        rows, derived = rows + n, derived + d
        for rid, check, message in problems:
            why = KNOWN.get((did, rid)) or KNOWN.get((did, check))
            if why:
                known += 1
                print(f"known: {did} {rid}: {message} ({why})")
            else:
                new += 1
                print(f"{did} {rid}: {message}")
    print(f"{rows} rows in {len(files)} eval datasets; {derived} answers re-derived from their templates; {new} problem(s), {known} known")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
