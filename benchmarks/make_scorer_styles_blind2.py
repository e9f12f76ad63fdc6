"""Build benchmarks/scorer_styles_blind2.jsonl: a second held-out set of answer styles (issue 33).

How this set was made, and the blindness rules its author kept:
- The author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args), the seed text that says what the
  suites are for, and the first generator (benchmarks/make_scorer_styles_blind.py)
  for its line format and so as NOT to repeat its templates. The author never
  opened src/servescope/scoring/, tests/scoring/, benchmarks/scorer_styles.py,
  benchmarks/scorer_accuracy.py, benchmarks/scorer_blind_agreement.py, any scorer
  result under benchmarks/results/, the scorer docs, or the git history of any of
  them, and never ran a scorer or a servescope eval on these cases.
- Every case is an answer a real instruct model (small or large, terse or
  chatty, sometimes in the prompt's language) could give to THAT row's prompt.
  Its verdict is the one a careful human grader gives after reading the prompt,
  the expected answer and the row's rules; verdicts are fixed here, by
  construction, before anything is scored.
- The styles lean on what a templated set misses: the answer buried
  mid-paragraph and restated, markdown tables and lists, "Final answer"
  headings, other languages and scripts, number words, ordinals, units,
  currency, percentages, scientific notation, ranges, self-corrections both
  ways, partial refusals, answering a different question, echoing the question,
  multiple choice by letter, by option text and by both (consistent or not),
  JSON in fences / with prose / with trailing commas, tool calls as structure
  and as text, and instruction-following answers that break exactly ONE rule
  subtly (a word count off by one, a forbidden word in another case, a missing
  P.S., one bullet too many, the wrong closing punctuation) next to answers that
  keep every rule in unusual formatting.
- Instruction answers are composed from the row's rules by a small builder; a
  checker written here from the prompt wording (not from any scorer) confirms
  that a "right" answer keeps every rule and that a "wrong" one breaks exactly
  the rule its style names, so a verdict cannot drift from its construction.
  Hand-written instruction cases that this checker reads too naively (an
  abbreviation inside a sentence, curly quotes, markdown headings) carry the
  author's verdict alone.
- The code answers were run once against their row's own asserts while they
  were written, to know which pass; three wrong answers pass those asserts and
  are still wrong code (a palindrome test that only compares the ends, ...).
- Where a prompt asks for more than its row's rule list holds (format-v1 says
  "Write one sentence" but lists only the case rule), an answer that breaks only
  the unlisted request is wrong to a grader who reads the prompt; those cases
  are marked ambiguous.
- "ambiguous": true marks cases where careful graders would disagree (for
  example a P.S. that may or may not count as a sentence, JSON wrapped in prose
  when the prompt said "JSON only", an answer in another script); an accuracy
  run should leave them out.
- The set holds about 1,640 cases over 765 rows of 23 suites, a little over half
  of them right; each case's style names how it was written.
- Beyond the first set's suites, this set also covers the long-context needle
  rows (eval-longctx-v1), the code rows (eval-code-v1) and the long-generation
  integrity rows (eval-longgen-integrity-v1/v2). eval-vision-v1 is left out: its
  prompts are images.

Run: python benchmarks/make_scorer_styles_blind2.py  (deterministic, stdlib only, no network)
"""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind2.jsonl"

SUITES = [
    "eval-calibration-v1",
    "eval-code-v1",
    "eval-commonsense-v1",
    "eval-format-v1",
    "eval-format-v2",
    "eval-hallucination-v1",
    "eval-instruction-v1",
    "eval-json-v1",
    "eval-knowledge-v1",
    "eval-knowledge-v2",
    "eval-longctx-v1",
    "eval-longgen-integrity-v1",
    "eval-longgen-integrity-v2",
    "eval-math-v1",
    "eval-math-v2",
    "eval-math-v3",
    "eval-multilingual-v1",
    "eval-rag-grounded-v1",
    "eval-reasoning-v1",
    "eval-reasoning-v2",
    "eval-science-v1",
    "eval-tools-small-v1",
    "eval-tools-v1",
]

rng = random.Random(3302)
ROWS: dict[str, tuple[str, dict[str, Any]]] = {}
CASES: list[dict[str, Any]] = []


def load() -> None:
    for suite in SUITES:
        for line in (DATASETS / f"{suite}.jsonl").read_text().splitlines():
            row = json.loads(line)
            ROWS[row["id"]] = (suite, row)


def add(
    row_id: str,
    text: str,
    verdict: bool,
    style: str,
    *,
    ambiguous: bool = False,
    tool_calls: list[dict[str, Any]] | None = None,
) -> None:
    suite, row = ROWS[row_id]
    case: dict[str, Any] = {
        "suite": suite,
        "row_id": row_id,
        "scorer": row["scorer"],
        "text": text,
        "verdict": verdict,
        "style": style,
        "ambiguous": ambiguous,
    }
    if row["scorer"] == "tool_call":
        case["tool_calls"] = tool_calls if tool_calls is not None else []
    elif tool_calls is not None:
        raise ValueError(f"{row_id}: tool_calls on a {row['scorer']} row")
    CASES.append(case)


def rows_where(scorer: str, prefix: str = "") -> list[dict[str, Any]]:
    return [r for s, r in ROWS.values() if r["scorer"] == scorer and s.startswith(prefix)]


# ---------------------------------------------------------------- number helpers

ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def words(n: int) -> str:
    """English number words, hyphenated the usual way (0 <= |n| < 10000)."""
    if n < 0:
        return "minus " + words(-n)
    if n < 20:
        return ONES[n]
    if n < 100:
        t, o = divmod(n, 10)
        return TENS[t] + ("-" + ONES[o] if o else "")
    if n < 1000:
        h, r = divmod(n, 100)
        return ONES[h] + " hundred" + (" and " + words(r) if r else "")
    th, r = divmod(n, 1000)
    return words(th) + " thousand" + ((" and " if r < 100 else " ") + words(r) if r else "")


def fmt(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    return f"{float(v):.10f}".rstrip("0").rstrip(".")


def grouped(v: Fraction, sep: str = ",") -> str:
    if v.denominator != 1:
        return fmt(v)
    s = f"{abs(v.numerator):,}".replace(",", sep)
    return ("-" if v < 0 else "") + s


def question(row: dict[str, Any]) -> str:
    """The question part of a prompt, without its reply-format instructions."""
    q = row["text"]
    for cut in (" End with a line", " Reply in exactly", " Give the answer as", " Reply with the letter", "\nA)", " A)"):
        q = q.split(cut)[0]
    return q.strip()


def is_int(v: Fraction) -> bool:
    return v.denominator == 1


# ---------------------------------------------------------------- numeric

WRONG_NUM = {
    "sci1-021": 212,
    "sci1-029": 8,
    "sci1-030": 12,
    "sci1-035": 2,
    "sci1-042": 1,
    "sci1-071": 0,
    "sci1-078": 208,
    "know2-000": 6,
    "know2-005": 1948,
    "know2-077": 1915,
    "know2-079": 52,
    "know2-090": 1918,
    "common1-002": 9,
    "common1-003": 4,
    "common1-006": 5,
    "common1-007": 3,
    "common1-016": 11,
    "common1-020": 6,
    "common1-023": 55,
    "common1-037": 2,
    "common1-039": 10,
    "common1-061": 4,
    "common1-067": 8,
    "common1-074": 14,
    "common1-081": 9,
    "common1-082": 3,
    "common1-088": 24,
}


def math_operands(row: dict[str, Any]) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", question(row))]


def different_question(row: dict[str, Any]) -> tuple[Fraction, str] | None:
    """The value a model gets by answering a neighbouring question, and what it answered."""
    cat = row.get("category")
    q = question(row)
    ops = math_operands(row)
    if not row["id"].startswith("math"):
        return None
    if cat == "add":
        return Fraction(ops[0] - ops[1]), f"{ops[0]} - {ops[1]} = {ops[0] - ops[1]}"
    if cat in ("sub", "neg"):
        return Fraction(ops[1] - ops[0]), f"{ops[1]} - {ops[0]} = {ops[1] - ops[0]}"
    if cat == "mul":
        return Fraction(ops[0] + ops[1]), f"{ops[0]} + {ops[1]} = {ops[0] + ops[1]}"
    if cat == "word" and "shelf" in q:
        return Fraction(ops[0] * ops[1]), f"{ops[0]} boxes x {ops[1]} pencils = {ops[0] * ops[1]} pencils on the shelf"
    if cat == "word":
        return Fraction(ops[0]), f"Sam starts with {ops[0]} apples"
    if cat == "fraction":
        a, b = ops[0], ops[1]
        return Fraction(a, b), f"Each of the two terms is {a}/{b}"
    if cat == "percent":
        p, n = ops[0], ops[1]
        if p == 50:
            return Fraction(n * p, 10), f"{p} x {n} / 10 = {n * p // 10}"
        return Fraction(n * (100 - p), 100), f"the other {100 - p}% of {n} is {fmt(Fraction(n * (100 - p), 100))}"
    if cat == "money":
        return Fraction(ops[0]), f"one ticket costs ${ops[0]}"
    return None


def wrong_value(row: dict[str, Any]) -> Fraction:
    v = Fraction(row["answer"])
    if row["id"] in WRONG_NUM:
        return Fraction(WRONG_NUM[row["id"]])
    cat = row.get("category")
    if cat == "fraction":
        ops = math_operands(row)
        return Fraction(ops[0] + ops[2], ops[1] + ops[3])  # added the numerators and the denominators
    if not is_int(v):
        return v * 10  # the decimal point slipped
    if cat in ("sub", "neg") and v < 0:
        return v + 10  # a borrow lost
    if cat == "mul":
        return v + 10 * rng.choice([1, -1])
    if cat == "sequence":
        return v + 2
    return v + rng.choice([1, -1, 2])


def latex_expr(row: dict[str, Any]) -> str | None:
    q = question(row)
    m = re.match(r"What is (\d+) ([+\-×]) (\d+)\?", q)
    if m:
        a, op, b = m.groups()
        tex_op = "\\times" if op == "×" else op
        return f"{a} {tex_op} {b}"
    m = re.match(r"What is (\d+)/(\d+) \+ (\d+)/(\d+)\?", q)
    if m:
        a, b, c, d = m.groups()
        return f"\\frac{{{a}}}{{{b}}} + \\frac{{{c}}}{{{d}}}"
    m = re.match(r"What is (\d+)% of (\d+)\?", q)
    if m:
        return f"{m.group(1)}\\% \\times {m.group(2)}"
    return None


def unit_text(row: dict[str, Any], v: Fraction) -> str | None:
    q = question(row)
    if row.get("category") == "money":
        return f"${grouped(v)}.00" if is_int(v) else f"${fmt(v)}"
    if "pencils" in q:
        return f"{grouped(v)} pencils"
    if "apples" in q:
        return f"{grouped(v)} apples"
    if "minutes" in q:
        return f"{fmt(v)} minutes"
    if "hours" in q:
        return f"{fmt(v)} hours"
    if "days" in q:
        return f"{fmt(v)} days"
    return None


def sci(v: Fraction) -> tuple[str, int] | None:
    """A mantissa and exponent that write v exactly, for integers of four digits or more."""
    if not is_int(v) or abs(v) < 1000:
        return None
    digits = str(abs(v.numerator))
    e = len(digits) - 1
    mant = (digits[0] + "." + digits[1:]).rstrip("0").rstrip(".")
    return ("-" if v < 0 else "") + mant, e


# styles whose wording only fits an arithmetic question
MATH_ONLY = {"bold-mid-sentence", "exactly", "final-answer-colon", "partial-refusal", "right-as-intermediate"}


def numeric_right(row: dict[str, Any], style: str, v: Fraction, w: Fraction) -> tuple[str, bool] | None:
    """A right answer in one style, and whether careful graders would disagree; None if the style does not fit."""
    s, o, q = fmt(v), fmt(w), question(row)
    if style in MATH_ONLY and not row["id"].startswith("math"):
        return None
    if style == "buried-restated":
        return (
            f"Sure, let's go through it. {q} Working it through, the result comes out to {s}, and a quick "
            f"check going the other way gives back the numbers in the question, so I'm confident in it.\n\nSo the answer is {s}.",
            False,
        )
    if style == "md-table":
        return f"| Step | Value |\n|------|-------|\n| Question | {q} |\n| **Result** | **{s}** |\n\nAnswer: {s}", False
    if style == "final-heading":
        return f"Let me solve this carefully.\n\n{q}\n\n### Final Answer\n\n{s}", False
    if style == "number-words":
        if not is_int(v) or not 0 <= v < 10000:
            return None
        return f"Answer: {words(v.numerator)}", False
    if style == "words-and-digits":
        if not is_int(v) or abs(v) >= 10000:
            return None
        return f"That gives {words(v.numerator)} ({s}).\nAnswer: {s}", False
    if style == "strikethrough-fix":
        return f"Answer: ~~{o}~~ {s}", False
    if style == "latex-display":
        e = latex_expr(row)
        if e is None:
            return None
        return f"$$\n{e} = {s}\n$$\n\nSo the value is $\\mathbf{{{s}}}$.", False
    if style == "sci-notation":
        sc = sci(v)
        if sc is None:
            return None
        return f"Answer: {sc[0]} × 10^{sc[1]}", False
    if style == "e-notation":
        sc = sci(v)
        if sc is None:
            return None
        return f"{s}\n\n(In scientific notation: {sc[0]}e{sc[1]}.)\n\nAnswer: {sc[0]}e{sc[1]}", False
    if style == "qa-echo":
        return f"Q: {q}\nA: {s}", False
    if style == "chinese":
        return f"计算结果是 {s}。\n\n答案：{s}", False
    if style == "russian":
        return f"Решение: получаем {s}.\nОтвет: {s}", False
    if style == "german":
        return f"Das Ergebnis ist {s}.\nAntwort: {s}", False
    if style == "units":
        u = unit_text(row, v)
        if u is None:
            return None
        return f"That makes {u} altogether.\n\nAnswer: {u}", False
    if style == "bold-mid-sentence":
        return f"After simplifying, **{s}** is what you get, and that's the final value.", False
    if style == "self-correct-right":
        return f"Answer: {o}... no, scratch that, I dropped a step. Redoing it properly gives {s}.\n\nAnswer: {s}", False
    if style == "exactly":
        return f"It is exactly {s}, no rounding needed.\nAnswer: {s}", False
    if style == "trailing-note":
        return f"Answer: {s}\n\n(Note: I double-checked this with a second method and got the same thing.)", False
    if style == "final-answer-colon":
        return f"First I read the numbers, then I combine them.\n\nFinal answer: {s}", False
    if style == "swiss-apostrophe":
        if not is_int(v) or abs(v) < 1000:
            return None
        return f"Answer: {grouped(v, chr(39))}", True
    if style == "fullwidth-digits":
        return "答え：" + s.translate(str.maketrans("0123456789-.", "０１２３４５６７８９－．")), True
    if style == "decimal-comma":
        if is_int(v):
            return None
        return f"Antwort: {s.replace('.', ',')}", True
    raise ValueError(style)


def numeric_wrong(row: dict[str, Any], style: str, v: Fraction, w: Fraction) -> tuple[str, bool] | None:
    s, o, q = fmt(v), fmt(w), question(row)
    if style in MATH_ONLY and not row["id"].startswith("math"):
        return None
    if style == "buried-wrong":
        return (
            f"Okay. {q} Working it through, the result comes out to {o}, which seems about right given the size of the numbers.\n\nSo the answer is {o}.",
            False,
        )
    if style == "md-table-wrong":
        return f"| Step | Value |\n|------|-------|\n| Question | {q} |\n| **Result** | **{o}** |\n\nAnswer: {o}", False
    if style == "self-correct-wrong":
        return f"I get {s}. Hmm, wait, I think I slipped somewhere; redoing it I get {o}.\n\n**Final answer:** {o}", False
    if style == "two-values":
        return f"It's either {s} or {o}, depending on how you read the question.", False
    if style == "range":
        if not is_int(v):
            return None
        lo, hi = v.numerator - 5, v.numerator + 5
        return f"Somewhere between {lo} and {hi}.", False
    if style == "different-question":
        dq = different_question(row)
        if dq is None or dq[0] == v:
            return None
        return f"{dq[1]}.\n\nAnswer: {fmt(dq[0])}", False
    if style == "number-words-wrong":
        if not is_int(w) or not 0 <= w < 10000:
            return None
        return f"Answer: {words(w.numerator)}", False
    if style == "echo-no-answer":
        return f"{q}\n\nThat's a good one! Let me know if you'd like me to walk through it step by step.", False
    if style == "partial-refusal":
        if not is_int(v) or abs(v) < 20:
            return None
        rounded = round(v.numerator, -1) if v.numerator % 10 else v.numerator + 10
        return f"I can't guarantee exact arithmetic, so please double-check with a calculator, but it's roughly {rounded}.", False
    if style == "truncated":
        return f"Let me compute this carefully.\n\nFirst, {q.lower()}", False
    if style == "sci-wrong-exponent":
        sc = sci(v)
        if sc is None:
            return None
        return f"Answer: {sc[0]} × 10^{sc[1] - 1}", False
    if style == "final-heading-wrong":
        return f"Let me solve this carefully.\n\n{q}\n\n### Final Answer\n\n{o}", False
    if style == "spanish-wrong":
        return f"El resultado es {o}.\nRespuesta: {o}", False
    if style == "right-as-intermediate":
        return f"{q} Start from {s} as a first estimate, then adjust.\nAfter adjusting: {o}.\n\nAnswer: {o}", False
    raise ValueError(style)


NUM_RIGHT = [
    "buried-restated",
    "md-table",
    "final-heading",
    "number-words",
    "strikethrough-fix",
    "latex-display",
    "sci-notation",
    "qa-echo",
    "chinese",
    "units",
    "bold-mid-sentence",
    "self-correct-right",
    "words-and-digits",
    "exactly",
    "russian",
    "e-notation",
    "trailing-note",
    "german",
    "final-answer-colon",
    "swiss-apostrophe",
    "fullwidth-digits",
    "decimal-comma",
]
NUM_WRONG = [
    "buried-wrong",
    "different-question",
    "md-table-wrong",
    "self-correct-wrong",
    "two-values",
    "range",
    "number-words-wrong",
    "echo-no-answer",
    "partial-refusal",
    "truncated",
    "sci-wrong-exponent",
    "final-heading-wrong",
    "spanish-wrong",
    "right-as-intermediate",
]


def pick(styles: list[str], start: int, fn: Any, row: dict[str, Any], *rest: Any) -> tuple[str, tuple[str, bool]]:
    """The first style from styles[start:] (wrapping round) that fits the row, with its text."""
    for k in range(len(styles)):
        st = styles[(start + k) % len(styles)]
        got = fn(row, st, *rest)
        if got is not None:
            return st, got
    raise ValueError("no style fits")


def numeric_cases() -> None:
    rows = [r for r in rows_where("numeric") if not r["id"].startswith(("multi1", "tsmall1", "calib1"))]
    for i, row in enumerate(rows):
        v = Fraction(row["answer"])
        w = wrong_value(row)
        assert w != v, row["id"]
        # two rows in three get one case, right and wrong in turn
        if i % 3 == 2:
            continue
        if i % 2 == 0:
            st, (text, amb) = pick(NUM_RIGHT, i // 2, numeric_right, row, v, w)
            add(row["id"], text, True, f"num-{st}", ambiguous=amb)
        else:
            st, (text, amb) = pick(NUM_WRONG, i // 2, numeric_wrong, row, v, w)
            add(row["id"], text, False, f"num-{st}", ambiguous=amb)
    calibration_numeric()
    hand_numeric()


def calibration_numeric() -> None:
    confs = ["95%", "100%", "88 %", "0.9", "high (about 90%)", "70%"]
    for i, row in enumerate(rows_where("numeric", "eval-calibration")):
        v = Fraction(row["answer"])
        w = wrong_value(row)
        s, o = fmt(v), fmt(w)
        c = confs[i % len(confs)]
        k = i % 4
        if k == 0:
            add(row["id"], f"Answer: **{s}**\nConfidence: {c}", True, "calib-num-bold")
            add(row["id"], f"Answer: {o}\nConfidence: {c}", False, "calib-num-plain")
        elif k == 1:
            add(row["id"], f"{question(row)}\n\nAnswer: {s}\nConfidence: {c}", True, "calib-num-echo-first")
            add(row["id"], f"Answer: {o}\nConfidence: {s}%", False, "calib-num-right-value-as-confidence")
        elif k == 2:
            add(row["id"], f"Answer: {s} (I multiplied it out twice)\nConfidence: {c}", True, "calib-num-parenthetical")
            add(row["id"], f"Answer: {s} or {o}\nConfidence: 50%", False, "calib-num-two-values")
        else:
            add(row["id"], f"- Answer: {s}\n- Confidence: {c}", True, "calib-num-bullets")
            add(row["id"], f"Answer: {o}\nConfidence: 99%\n\n(Correction: it should be {s}.)", True, "calib-num-trailing-correction", ambiguous=True)


def hand_numeric() -> None:
    # fractions the dataset stores unreduced: any equal value is right
    add("math1-028", "5/5 is just 1, so 1 + 1 = 2.\n\nAnswer: 2", True, "frac-whole-number")
    add("math1-028", "Answer: 10/10", False, "frac-added-denominators")
    add("math1-036", "3/5 + 3/5 = 6/5 = 1.2\n\n**Answer:** 6/5 (= 1.2)", True, "frac-and-decimal")
    add("math1-036", "Answer: 1⅕", True, "frac-unicode-mixed", ambiguous=True)
    add("math1-036", "Answer: 6/10", False, "frac-added-denominators")
    add("math2-036", "Answer: \\frac{3}{4}", True, "frac-latex-reduced")
    add("math2-036", "Answer: 0.75", True, "frac-decimal")
    add("math2-036", "Answer: 75%", True, "frac-as-percent", ambiguous=True)
    add("math2-036", "Answer: 3/16", False, "frac-multiplied")
    add("math3-036", "5/4 + 5/4 = 10/4, which simplifies to 5/2 or 2.5.\n\nAnswer: 2.5", True, "frac-simplified-decimal")
    add("math3-036", "Answer: two and a half", True, "frac-words")
    add("math3-036", "Answer: 10/8", False, "frac-added-denominators")
    add("math3-020", "Answer: one half", True, "frac-words")
    add("math3-020", "Answer: ½", True, "frac-unicode")
    add("math3-020", "Answer: 1/8", False, "frac-multiplied")
    add("math3-028", "Answer: 0.5", True, "frac-decimal")
    add("math3-028", "Answer: 4/16", False, "frac-added-denominators")
    # decimals and percents
    add("math1-037", "10% of 24 is 2.4.\nAnswer: 2.40", True, "pct-trailing-zero")
    add("math1-037", "Answer: 24", False, "pct-decimal-dropped")
    add("math2-021", "20% of 16: 16 / 5 = 3.2\n\nAnswer: 3,2", True, "pct-decimal-comma", ambiguous=True)
    add("math2-021", "Answer: 3", False, "pct-truncated")
    add("math2-037", "0.2 × 68 = 13.6, i.e. 13.6 (or 68 − 54.4).\n\nAnswer: 13.6", True, "pct-extra-numbers")
    add("math2-037", "Answer: 54.4", False, "pct-complement")
    add("math3-021", "Answer: 26.4 (20% of 132)", True, "pct-answer-then-percent")
    add("math3-021", "20% is a fifth, so 132 / 5 ≈ 26.\n\nAnswer: ≈26", False, "pct-rounded")
    add("math1-021", "A quarter of 124 is thirty-one.", True, "pct-number-words-sentence")
    add("math3-013", "25% of 120 = 30%... I mean 30.\n\nAnswer: 30", True, "pct-slip-then-fixed")
    # money, currency and thousands
    add("math1-030", "6 tickets × $800 = **$4,800**", True, "money-bold-equation")
    add("math1-030", "Answer: 4.800 $", True, "money-european", ambiguous=True)
    add("math1-030", "Answer: $48,00", False, "money-misplaced-separator")
    add("math1-030", "Answer: $4,800 per ticket", False, "money-answer-mislabelled", ambiguous=True)
    add("math2-022", "Nine tickets at $700 each cost $6.3k in total.\n\nAnswer: $6.3k", True, "money-k-suffix", ambiguous=True)
    add("math2-022", "Answer: US$6,300", True, "money-us-dollar")
    add("math2-022", "Answer: $700", False, "money-unit-price")
    add("math3-030", "$975 × 7 = $6,825\n\nAnswer: 6825 dollars", True, "money-words-unit")
    add("math3-030", "$975 × 7 = $6,825\n\nAnswer: $6,285", False, "money-transposed-digits")
    add("math1-022", "Answer: fifteen hundred fifty dollars", True, "money-hundreds-words")
    add("math1-022", "Answer: 1,550 USD (about €1,430)", True, "money-converted-extra")
    # negatives
    add("math1-033", "44 − 47 = −3 (three below zero).\n\nAnswer: negative three", True, "neg-words")
    add("math1-033", "Answer: 3", False, "neg-sign-dropped")
    add("math2-015", "Answer: (821)", False, "neg-accounting-parens", ambiguous=True)
    add("math2-015", "Answer: −821", True, "neg-unicode-minus")
    add("math3-039", "400 − 712 = −312\n\nAnswer: -312.0", True, "neg-trailing-decimal")
    add("math3-039", "400 − 712 = −312\n\nAnswer: 312 less than zero", True, "neg-phrase", ambiguous=True)
    add("math3-039", "712 − 400 = 312\n\nAnswer: 312", False, "neg-reversed-operands")
    # word problems that go negative: the literal arithmetic is what the row expects
    add(
        "math2-011",
        "3 × 150 = 450 pencils, and 639 are taken out: 450 − 639 = −189. That can't really happen, but arithmetically it's −189.\n\nAnswer: -189",
        True,
        "neg-impossible-noted",
    )
    add("math2-011", "3 × 150 = 450 pencils, and you can't take out 639 of them, so 0 are left.\n\nAnswer: 0", False, "neg-clamped-to-zero", ambiguous=True)
    # ordinals, sequences and numbers around the answer
    add("reason1-010", "The sequence goes up by 9 each time, so the 6th term is 47.", True, "seq-ordinal-before")
    add("reason1-010", "Each step adds 9. The 47th... no, the next one is 38 + 9 = 47.\n\nAnswer: 47", True, "seq-ordinal-slip")
    add("reason1-010", "Each step adds 9, so the next term is 38 + 9.\n\nAnswer: 9", False, "seq-difference-not-term")
    add(
        "reason2-010",
        "Differences: 23, 41, 59, 77 (second differences 18). Next difference is 95, so 214 + 95 = 309.\n\n| term | value |\n|---|---|\n| 6th | **309** |",
        True,
        "seq-table-ordinal",
    )
    add("reason2-010", "Differences: 23, 41, 59, 77. Next difference is 95.\n\nAnswer: 95", False, "seq-difference-not-term")
    add("reason2-026", "Second differences are 8, so the differences go 10, 18, 26, 34, 42 and the next term is 94 + 42 = 136.", True, "seq-buried-end")
    add("reason2-026", "Second differences are 8, so the differences go 10, 18, 26, 34, 40 and the next term is 134.", False, "seq-slip")
    add("common1-023", "From 9:15 to 10:00 is three quarters of an hour.\n\nAnswer: 45 min", True, "time-min-unit")
    add("common1-023", "From 9:15 to 10:00 is 0.75 hours.\n\nAnswer: 0.75", False, "time-wrong-unit", ambiguous=True)
    add("common1-016", "Noon to midnight is half a day: twelve hours.", True, "words-half-day")
    add("common1-016", "Noon to midnight... 24 hours in a day, so 24.\nAnswer: 24", False, "wrong-whole-day")
    add("common1-082", "You get $2 back.", True, "currency-change")
    add("common1-082", "You get $2.00 back... plus the $3 coffee, so $5 total.\nAnswer: $5", False, "different-question-total")
    add("common1-039", "A dozen is 12 eggs (a baker's dozen would be 13).", True, "extra-number-after")
    add("common1-039", "A baker's dozen is 13.\nAnswer: 13", False, "different-question-bakers")
    add("common1-067", "10 — five on each hand.", True, "answer-first-dash")
    add("sci1-035", "Hydrogen is element number one on the periodic table.", True, "number-word-in-sentence")
    add("sci1-035", "Hydrogen's mass number is usually 1, but its atomic number is 2.\nAnswer: 2", False, "confabulated")
    add("sci1-071", "It freezes at 32 °F, which is 0 °C or 273.15 K.", True, "units-three-scales")
    add("sci1-071", "It freezes at 0 degrees.", False, "wrong-scale-no-unit")
    add("sci1-078", "Adults have two hundred and six bones.", True, "words-and")
    add("sci1-078", "Adults have about 200 bones.\nAnswer: ~200", False, "approximate")
    add("sci1-029", "The first shell (n = 1) holds at most 2 electrons; the second holds 8.", True, "extra-numbers-around")
    add("sci1-029", "The n = 2 shell holds 8.\nAnswer: 8", False, "different-shell")
    add("know2-079", "There are **50 states** (plus DC, which isn't a state).\n\n**Final answer:** 50", True, "bold-final")
    add("know2-079", "50 states plus DC makes 51.\nAnswer: 51", False, "added-extra")
    add("know2-090", "The First World War began in 1914 and ended in 1918.", True, "year-both-ends")
    add("know2-090", "The First World War ended in 1918.\nAnswer: 1918", False, "different-question-end")
    add("know2-077", "RMS Titanic sank on 15 April 1912.", True, "full-date")
    add("know2-077", "It sank in the 1910s.", False, "decade-only")
    add("know2-005", "1945 (the Charter came into force on 24 October 1945).", True, "year-then-date")
    add("know2-000", "Seven: Africa, Antarctica, Asia, Australia, Europe, North America and South America.", True, "words-with-list")
    add("know2-000", "Most models count six or seven; I'd say six.\nAnswer: 6", False, "hedge-then-wrong")
    add("reason1-030", "+5 each time → 42", True, "arrow")
    add("reason1-030", "+5 each time → 37 + 5 = 43", False, "arrow-slip")
    add("math3-027", "2 × 8 = 16, 16 − 7 = 9. **Nine** pencils remain.", True, "bold-number-word")
    add("math3-027", "2 × 8 = 16 pencils.\n\nAnswer: 16", False, "stopped-early")
    add("math3-026", "566 × 10 = 5660\n\nAnswer: 5.66 × 10³", True, "sci-superscript")
    add("math3-026", "Answer: 566", False, "dropped-zero")
    add("math2-018", "Answer: 1012 ± 0", True, "plus-minus-zero", ambiguous=True)
    add("math2-018", "Answer: 1000-1020", False, "range-hyphen")
    multilingual_numeric()
    tool_result_numeric()


def multilingual_numeric() -> None:
    add("multi1-004", "Deux plus trois égalent cinq (5).", True, "fr-words-and-digits")
    add("multi1-004", "**5**", True, "bold-digit")
    add("multi1-004", "Deux plus trois font six.", False, "fr-words-wrong")
    add("multi1-004", "2 + 3 = 23 (on les met côte à côte).", False, "concatenated")
    add("multi1-005", "Cuatro más cuatro son ocho.", True, "es-words")
    add("multi1-005", "8️⃣", True, "keycap-emoji", ambiguous=True)
    add("multi1-005", "Son 16 (cuatro por cuatro).", False, "es-multiplied")
    add("multi1-006", "7", True, "bare")
    add("multi1-006", "Zehn minus drei ergibt sieben, also 7.", True, "de-words-then-digit")
    add("multi1-006", "Zehn minus drei ist dreizehn.", False, "de-added")
    add("multi1-013", "Siete.", True, "es-word")
    add("multi1-013", "Una semana tiene siete días (de lunes a domingo).", True, "es-sentence-words")
    add("multi1-013", "Cinco días laborables.", False, "es-different-question")
    add("multi1-015", "Vinte e quatro.", True, "pt-words")
    add("multi1-015", "24 horas ⏰", True, "digits-emoji")
    add("multi1-015", "Um dia tem 12 horas de luz.", False, "pt-different-question")
    add("multi1-018", "Vier.", True, "de-word")
    add("multi1-018", "Eine Katze hat 4 Beine und einen Schwanz.", True, "de-sentence-extra-noun")
    add("multi1-018", "Zwei Vorderbeine.", False, "de-partial")
    add("multi1-019", "Dodici.", True, "it-word")
    add("multi1-019", "6 × 2 = 12", True, "equation")
    add("multi1-019", "Sei per due fa otto.", False, "it-words-wrong")
    add("multi1-019", "十二", True, "cjk-numeral", ambiguous=True)


def tool_result_numeric() -> None:
    # the tool said temperature_c; a careful grader reads the reply for that number
    add("tsmall1-use-0", "According to the weather service, it's **6 °C** in Lima right now, with clear skies.", True, "tool-result-bold-unit")
    add("tsmall1-use-0", "Lima: six degrees Celsius, clear.", True, "tool-result-words")
    add("tsmall1-use-0", "It's clear in Lima. Would you like the forecast for tomorrow too?", False, "tool-result-omits-number")
    add("tsmall1-use-1", "Quito is below freezing: −4 °C.", True, "tool-result-unicode-minus")
    add("tsmall1-use-1", "It's minus four degrees in Quito.", True, "tool-result-words-negative")
    add("tsmall1-use-1", "Quito: 4 °C below... sorry, 4 °C.", False, "tool-result-sign-lost")
    add("tsmall1-use-2", "| City | Temp (°C) | Sky |\n|---|---|---|\n| Riga | 19 | clear |", True, "tool-result-table")
    add("tsmall1-use-2", "It's 66 °F in Riga.", True, "tool-result-converted-f", ambiguous=True)
    add("tsmall1-use-2", "It's 91 °C in Riga.", False, "tool-result-digits-swapped")
    add("tsmall1-use-3", "Dakar is at 21 degrees (clear). That's about 70 °F.", True, "tool-result-two-units")
    add("tsmall1-use-3", "Dakar is usually around 30 °C this time of year.", False, "tool-result-ignored")
    add("tsmall1-use-4", "The current temperature in Oslo is 12°C.", True, "tool-result-no-space-unit")
    add("tsmall1-use-4", "Oslo: 12-14 °C.", False, "tool-result-range", ambiguous=True)
    add("tsmall1-use-5", "Tunis: 27 °C ☀️", True, "tool-result-emoji")
    add("tsmall1-use-5", "I can't check live weather, sorry.", False, "tool-result-refusal")


# ---------------------------------------------------------------- exact

EXACT_WRONG = {
    "100": "212",
    "12": "10",
    "2": "3",
    "24": "12",
    "26": "24",
    "366": "365",
    "3:30 pm": "3:00 pm",
    "6": "8",
    "60": "100",
    "8": "6",
    "9": "8",
    "90": "180",
    "Africa": "Asia",
    "Amazon": "Orinoco",
    "Ana": "Tim",
    "Asmara": "Keren",
    "Asunción": "Encarnación",
    "Au": "Ag",
    "Beijing": "Hong Kong",
    "Berlin": "Hamburg",
    "Bishkek": "Almaty",
    "Brazil": "Peru",
    "Cairo": "Giza",
    "Canberra": "Melbourne",
    "Copenhagen": "Odense",
    "He": "Hm",
    "January": "December",
    "July": "May",
    "Jupiter": "Neptune",
    "Lisboa": "Coimbra",
    "Madrid": "Seville",
    "Mars": "Mercury",
    "Mediterranean Sea": "Caspian Sea",
    "Monday": "Saturday",
    "Moscow": "Minsk",
    "Na": "So",
    "New York City": "San Francisco",
    "Ottawa": "Vancouver",
    "Ouagadougou": "Niamey",
    "Pablo Picasso": "Joan Miró",
    "Pacific": "Indian",
    "Paramaribo": "Cayenne",
    "Paris": "Marseille",
    "Roma": "Napoli",
    "Rome": "Florence",
    "Stockholm": "Oslo",
    "Sun": "Sirius",
    "Thimphu": "Kathmandu",
    "Tokyo": "Osaka",
    "Tuesday": "Thursday",
    "Ulaanbaatar": "Erdenet",
    "Vientiane": "Phnom Penh",
    "William Shakespeare": "Ben Jonson",
    "blau": "grün",
    "book": "pound",
    "carbon dioxide": "nitrogen",
    "cat": "chat",
    "cold": "cool",
    "diamond": "corundum",
    "dog": "puppy",
    "east": "north",
    "friction": "inertia",
    "gravity": "air pressure",
    "green": "orange",
    "heart": "liver",
    "honey": "pollen",
    "hydrogen": "oxygen",
    "ice": "boiling water",
    "lungs": "diaphragm",
    "mice": "mouse",
    "nucleus": "proton",
    "red": "white",
    "seismology": "volcanology",
    "south": "west",
    "water": "vodka",
    "went": "goes",
}
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def tallest(row: dict[str, Any]) -> str:
    q = question(row)
    pairs = re.findall(r"(\w+) is taller than (\w+)", q)
    lower = {b for _, b in pairs}
    return next(a for a, _ in pairs if a not in lower)


def exact_wrong(row: dict[str, Any]) -> str:
    a = row["answer"]
    if row.get("category") == "order":
        return tallest(row)
    if a in DAYS:
        return DAYS[(DAYS.index(a) + 1) % 7]  # one day too far
    return EXACT_WRONG[a]


def conf_suffix(row: dict[str, Any], i: int) -> str:
    if not row["id"].startswith("calib"):
        return ""
    return "\nConfidence: " + ["90%", "75%", "100%", "60 %", "95%"][i % 5]


def dot(a: str) -> str:
    """a, closed with a full stop unless it already ends with one, as "3:30 p.m." does."""
    return a if a.endswith(".") else a + "."


def exact_right(row: dict[str, Any], style: str, a: str, w: str) -> tuple[str, bool] | None:
    q = question(row)
    if style == "buried-restated":
        return f"Good question. The one you're looking for is {a}, which is what standard references give as well. To restate: {dot(a)}", False
    if style == "md-table":
        return f"| Question | Answer |\n|---|---|\n| {q} | {a} |", False
    if style == "final-heading":
        return f"Let me think about it for a second.\n\n**Final answer**\n\n{a}", False
    if style == "self-correct-right":
        return f"{w}? No wait, that's not right. It's {a}.\n\nAnswer: {a}", False
    if style == "quoted":
        return f'"{a}"', False
    if style == "md-list":
        return f"- **Answer:** {a}\n- **Why:** it's the commonly accepted answer.", False
    if style == "repeat-question":
        return f"{q}\n\n{dot(a)}", False
    if style == "answer-dash-gloss":
        return f"{a} — no doubt about that one.", False
    if style == "lower-no-period":
        if a.isdigit():
            return None
        return f"answer: {a.lower()}", a in ("Au", "Na", "He")
    if style == "json-object":
        return json.dumps({"answer": a}), True
    if style == "spanish-frame":
        return f"La respuesta es {dot(a)}", False
    if style == "sure-exclaim":
        return f"Sure thing! That would be {a}!", False
    raise ValueError(style)


def exact_wrong_text(row: dict[str, Any], style: str, a: str, w: str) -> tuple[str, bool] | None:
    q = question(row)
    if style == "self-correct-wrong":
        return f"{a}... although, thinking about it again, I'd say {w}.\n\nFinal answer: {w}", False
    if style == "md-table-wrong":
        return f"| Question | Answer |\n|---|---|\n| {q} | {w} |", False
    if style == "candidates":
        return f"Possible answers include {a} and {w}; it depends on the source.", False
    if style == "echo-no-answer":
        return f"{q}\n\nThat's an interesting question! Would you like some background on it first?", False
    if style == "partial-refusal":
        return "I'd rather not guess on this one without checking a reliable source, sorry.", False
    if style == "negated-right":
        return f"Definitely not {a}. I'd go with {w}.", False
    if style == "final-heading-wrong":
        return f"Let me think about it for a second.\n\n**Final answer**\n\n{w}", False
    if style == "hedged-wrong":
        return f"Probably {w}, but I'm not completely sure.", False
    if style == "buried-wrong":
        return f"Good question. The one you're looking for is {w}, which is what I remember from school. To restate: {dot(w)}", False
    raise ValueError(style)


EXACT_RIGHT_STYLES = [
    "buried-restated",
    "md-table",
    "final-heading",
    "self-correct-right",
    "quoted",
    "md-list",
    "repeat-question",
    "answer-dash-gloss",
    "lower-no-period",
    "spanish-frame",
    "sure-exclaim",
    "json-object",
]
EXACT_WRONG_STYLES = [
    "self-correct-wrong",
    "md-table-wrong",
    "candidates",
    "echo-no-answer",
    "partial-refusal",
    "negated-right",
    "final-heading-wrong",
    "hedged-wrong",
    "buried-wrong",
]


def exact_cases() -> None:
    rows = [r for r in rows_where("exact") if not r["id"].startswith("multi1")]
    for i, row in enumerate(rows):
        a = row["answer"]
        aliases = (row.get("score_args") or {}).get("aliases") or []
        shown = aliases[i % len(aliases)] if aliases and i % 3 == 0 else a
        w = exact_wrong(row)
        c = conf_suffix(row, i)
        if i % 4 == 0:
            st, (text, amb) = pick(EXACT_RIGHT_STYLES, i // 4, exact_right, row, shown, w)
            add(row["id"], text + c, True, f"exact-{st}", ambiguous=amb)
        elif i % 4 == 2:
            st, (text, amb) = pick(EXACT_WRONG_STYLES, i // 4, exact_wrong_text, row, a, w)
            add(row["id"], text + c, False, f"exact-{st}", ambiguous=amb)
    hand_exact()


def hand_exact() -> None:
    # other scripts and languages with the right content
    add("calib1-005", "Answer: Tokyo (東京)\nConfidence: 99%", True, "script-gloss")
    add("calib1-005", "Answer: 東京\nConfidence: 99%", True, "script-only", ambiguous=True)
    add("calib1-030", "Answer: Москва (Moscow)\nConfidence: 97%", True, "script-first-gloss")
    add("calib1-035", "Answer: 北京 / Beijing\nConfidence: 98%", True, "script-slash")
    add("calib1-025", "Answer: القاهرة\nConfidence: 90%", True, "script-arabic-only", ambiguous=True)
    add("calib1-025", "Answer: Alexandria (الإسكندرية)\nConfidence: 60%", False, "script-gloss-wrong")
    add("know1-001", "東京 (Tōkyō).", True, "script-romanised", ambiguous=True)
    add("know1-003", "Cairo — القاهرة in Arabic.", True, "script-after")
    add("know1-008", "Berlin (auf Deutsch auch Berlin).", True, "german-gloss")
    # answers buried mid-paragraph, then restated
    add(
        "know1-039",
        "Many people guess Sydney because it is the biggest city, and Melbourne was the temporary seat of government until 1927, "
        "but the purpose-built capital is Canberra. So, Canberra.",
        True,
        "buried-after-distractors",
    )
    add(
        "know1-039",
        "Many people guess Canberra, but the biggest and best-known city is Sydney, which is where the country is really run from. So, Sydney.",
        False,
        "buried-distractor-committed",
    )
    add("know1-004", "Toronto is the largest city, but Ottawa is the capital.", True, "distractor-first")
    add("know1-004", "Ottawa is in Ontario, whose capital is Toronto.\nAnswer: Toronto", False, "different-question-province")
    add("know1-006", "Kenya is in East Africa.", True, "region-qualified")
    add("know1-006", "Kenya is in the Horn of Africa region, Nairobi being its capital.\n\nAnswer: Nairobi", False, "different-question-capital")
    # number-valued exact rows
    add("know1-015", "Spiders have eight (8) legs.", True, "words-and-digits")
    add("know1-015", "8th", False, "ordinal-not-count", ambiguous=True)
    add("know1-020", "A hexagon has 6 sides — hex means six.", True, "digits-and-words")
    add("know1-020", "Six sides and six angles... wait, a hexagon has eight sides.\n\nAnswer: 8", False, "self-correct-wrong-number")
    add("know1-021", "90°", True, "degree-sign")
    add("know1-021", "π/2 radians", True, "radians", ambiguous=True)
    add("know1-021", "180°", False, "straight-angle")
    add("know1-023", "Sixty.", True, "alias-capitalised")
    add("know1-023", "3600", False, "seconds-not-minutes")
    add("know1-025", "100 cm", True, "unit-symbol")
    add("know1-025", "1,000", False, "millimetres")
    add("know1-029", "There are 26 letters.", True, "sentence")
    add("know1-029", "Twenty-six letters; the Danish alphabet has 29.", True, "extra-number-after")
    add("know1-030", "24 hours (1,440 minutes).", True, "extra-number-after")
    add("know1-030", "1,440", False, "different-unit")
    add("know1-032", "twelve months", True, "alias-with-noun")
    add("know1-035", "2 — it's a bi-cycle.", True, "dash-gloss")
    add("know1-035", "A tricycle has three.\nAnswer: 3", False, "different-question")
    add("know1-024", "Three hundred sixty-six.", True, "words-no-and")
    add("know1-017", "100 °C (212 °F)", True, "units-two-scales")
    add("know1-017", "212", False, "wrong-scale")
    # words, grammar, colours
    add("know1-026", 'The plural is *mice* (not "mouses").', True, "italic-and-negated-wrong")
    add("know1-026", "mouse → mouses", False, "arrow-wrong")
    add("know1-027", 'Cold (or "cool", but "cold" is the usual opposite).', True, "alternative-mentioned")
    add("know1-027", "Cool.", False, "near-synonym", ambiguous=True)
    add("know1-028", "go → went → gone", True, "arrow-chain-includes-participle", ambiguous=True)
    add("know1-028", "Past tense: went. Past participle: gone.", True, "labelled-both")
    add("know1-031", "Blue + yellow = green 🟢", True, "emoji")
    add("know1-031", "You get teal, a bluish green.", False, "near-miss-colour", ambiguous=True)
    add("know1-033", "Ice (solid H2O).", True, "gloss")
    add("know1-036", "Honey — and beeswax too.", True, "extra-product")
    add("know1-036", "Beeswax.", False, "other-product")
    # days and names from reasoning rows
    add("reason1-005", "13 days = 1 week + 6 days, so Monday + 6 = Sunday.\n\n| Day 0 | Day 13 |\n|---|---|\n| Monday | **Sunday** |", True, "table-days")
    add("reason1-005", "13 days = 1 week + 6 days. Monday + 6 = Saturday.\n\nAnswer: Saturday", False, "off-by-one")
    add("reason1-009", "Thursday + 10 days → Sunday (Sun.)", True, "abbrev-in-parens")
    add("reason1-009", "10 days from Thursday: 10 mod 7 = 3.\n\nAnswer: 3", False, "different-question-offset")
    add("reason1-017", "Lunes", True, "spanish-day", ambiguous=True)
    add("reason1-017", "Tuesday + 13 days = Tuesday + 6 days = **Monday**.", True, "equation-bold")
    add("reason1-029", "It'll be Monday, the 8th day from today.", True, "ordinal-after")
    add("reason1-029", "It'll be Sunday again, 7 days later... plus one: Monday? No, Sunday.\n\nAnswer: Sunday", False, "self-correct-wrong")
    add("reason2-009", "51 = 7 × 7 + 2, so two days after Saturday.\n\n## Answer\nMonday", True, "markdown-heading")
    add("reason2-009", "51 = 7 × 7 + 2, so two days after Saturday.\n\n## Answer\n2", False, "different-question-remainder")
    add("reason2-017", "95 mod 7 = 4 → Friday + 4 = Tuesday. Final: TUESDAY", True, "uppercase")
    add("reason2-017", "95 mod 7 = 4 → Friday + 4 = Monday.\nAnswer: Monday", False, "counting-slip")
    add("reason1-004", "Cara > Ana > Fay\n\nShortest: **Fay**", True, "inequality-chain")
    add("reason1-004", "Cara > Ana > Fay\n\nTallest: **Cara**", False, "different-question-tallest")
    add("reason1-012", "Hana is tallest, then Ben, then Gus. Gus is the shortest.", True, "sentence-order")
    add("reason1-012", "Ben and Gus are both shorter than Hana.", False, "no-commitment")
    add("reason2-004", "Order (tallest → shortest): Hana, Ana, Ben, Eli, Dev.\n\n1. Hana\n2. Ana\n3. Ben\n4. Eli\n5. Dev ← shortest", True, "numbered-list")
    add("reason2-004", "Order (tallest → shortest): Hana, Ana, Ben, Dev, Eli.\n\nAnswer: Eli", False, "order-slip")
    add("reason2-020", "Fay > Eli > Dev > Hana > Gus, so it's Gus.", True, "chain-then-name")
    add("reason2-020", "Fay > Eli > Dev > Hana > Gus, so it's Fay.", False, "chain-then-wrong-end")
    # multilingual rows: answers in the prompt's language, other scripts, other exonyms
    add("multi1-000", "Paris.", True, "bare-period")
    add("multi1-000", "La capitale de la France, c'est Paris ! Ville lumière, elle compte plus de deux millions d'habitants.", True, "fr-chatty")
    add("multi1-000", "Marseille", False, "bare")
    add("multi1-001", "Madrid, por supuesto.", True, "es-with-tag")
    add("multi1-001", "Barcelona es la capital de Cataluña, pero la de España es Madrid.", True, "es-distractor-first")
    add("multi1-001", "Sevilla.", False, "bare")
    add("multi1-002", "**Berlin**", True, "bold")
    add("multi1-002", "Bonn (bis 1990).", False, "historic-wrong")
    add("multi1-003", "ROMA", True, "uppercase")
    add("multi1-003", "Roma (Rome en français, Rom auf Deutsch).", True, "gloss-other-languages")
    add("multi1-003", "Napoli", False, "bare")
    add("multi1-007", "A capital de Portugal é Lisboa.", True, "pt-sentence")
    add("multi1-007", "Porto, a segunda maior cidade.", False, "pt-wrong")
    add("multi1-008", "« cat »", True, "guillemets")
    add("multi1-008", "Chat (en anglais : cat)", True, "gloss-after", ambiguous=True)
    add("multi1-008", "chat", False, "untranslated")
    add("multi1-009", "dog 🐶", True, "emoji")
    add("multi1-009", "En inglés: dog.", True, "es-frame")
    add("multi1-009", "hound", False, "near-synonym", ambiguous=True)
    add("multi1-010", "Water", True, "capitalised")
    add("multi1-010", "Die Übersetzung lautet: water.", True, "de-frame")
    add("multi1-010", "„Wasser“ heißt auf Englisch „waters“.", False, "plural-wrong", ambiguous=True)
    add("multi1-011", "book.", True, "lower-period")
    add("multi1-011", 'In inglese si dice "book".', True, "it-frame")
    add("multi1-011", "bookshop", False, "false-friend")
    add("multi1-012", "La planète rouge, c'est Mars.", True, "fr-sentence")
    add("multi1-012", "Mercure", False, "fr-wrong")
    add("multi1-014", "Blau.", True, "capitalised")
    add("multi1-014", "Der Himmel ist an einem klaren Tag blau.", True, "de-sentence")
    add("multi1-014", "Hellblau", True, "compound-light-blue", ambiguous=True)
    add("multi1-014", "Grau, wegen der Wolken.", False, "de-wrong")
    add("multi1-016", "Tokyo (東京).", True, "script-gloss")
    add("multi1-016", "東京", True, "script-only", ambiguous=True)
    add("multi1-016", "Kyoto (ancienne capitale).", False, "historic-wrong")
    add("multi1-017", "Roma.", True, "bare-period")
    add("multi1-017", "La capital de Italia es Roma; antes lo fue Florencia.", True, "es-extra-after")
    add("multi1-017", "Milán", False, "es-wrong")
    # commonsense / science exact rows with distractors around
    add("common1-012", "Two months after November: December, then January → **January**", True, "arrow-bold")
    add("common1-012", "November + 2 = 13 → month 1... so the answer is month 13?\nAnswer: 13", False, "confused-number")
    add("common1-021", "Ice — boiling water is 100 °C, ice is at most 0 °C.", True, "answer-first-reason")
    add("common1-033", "2:00 pm + 1 h 30 min = 3:30 pm", True, "equation")
    add("common1-033", "It ends at half past three.", True, "time-words")
    add("common1-033", "It lasts 90 minutes, i.e. an hour and a half.", False, "different-question-duration")
    add("common1-044", "South ⬇️", True, "emoji-arrow")
    add("common1-044", "S", True, "compass-letter", ambiguous=True)
    add("common1-056", "Yesterday was Tuesday (today being Wednesday).", True, "sentence-with-other-day")
    add("common1-056", "Tomorrow is Thursday.", False, "different-question-tomorrow")
    add("common1-057", "Ana is the youngest: Tim > Sam > Ana in age.", True, "chain-after")
    add("common1-062", "Red — there are no other colours in the box.", True, "dash-reason")
    add("common1-062", "It could be any colour.", False, "ignored-premise")
    add("common1-073", "In the east (and it sets in the west).", True, "prep-phrase")
    add("sci1-020", "**Friction.** It acts opposite to the direction of sliding.", True, "bold-period")
    add("sci1-020", "Normal force.", False, "related-force")
    add("sci1-049", "Seismology (from Greek seismos, 'earthquake').", True, "etymology")
    add("sci1-049", "Geology — specifically the branch that deals with quakes.", False, "parent-field", ambiguous=True)
    add("sci1-079", "Diamond, 10 on the Mohs scale.", True, "with-number")
    add("sci1-079", "Corundum (9 on the Mohs scale) is the hardest... after diamond.\n\nAnswer: corundum", False, "self-contradicting")
    add("sci1-094", "The symbol is He (atomic number 2).", True, "sentence-with-number")
    add("sci1-094", "Answer: HE", False, "symbol-wrong-case", ambiguous=True)
    add("know2-084", "Copenhagen (København).", True, "endonym-gloss")
    add("know2-084", "København", True, "endonym-only", ambiguous=True)
    add("know2-034", "Stockholm 🇸🇪", True, "flag-emoji")
    add("know2-034", "Göteborg", False, "endonym-wrong")
    add("know2-060", "The Mediterranean (Mare Nostrum to the Romans).", True, "alias-gloss")
    add("know2-060", "The Red Sea separates Africa from Arabia.", False, "different-question")
    add(
        "know2-096",
        "| Country | Area (km²) |\n|---|---|\n| Brazil | 8,515,767 |\n| Argentina | 2,780,400 |\n\nBrazil is the largest.",
        True,
        "table-then-answer",
    )
    add("know2-096", "Brazil by population, but by area it's Argentina.\nAnswer: Argentina", False, "confused-measure")
    add("know2-011", "Picasso painted it in 1937 after the bombing of the Basque town.", True, "surname-sentence")
    add("know2-011", "Dalí? No — Picasso.", True, "self-correct-right-terse")
    add("know2-072", "Shakespeare, around 1600.", True, "surname-year")
    add("know2-072", "Christopher Marlowe (some say Shakespeare, but I disagree).", False, "wrong-mentions-right")
    add("know2-025", "New York — the Big Apple.", True, "alias-dash")
    add("know2-025", "Manhattan", False, "borough-only", ambiguous=True)


# ---------------------------------------------------------------- multiple choice

LETTERS = "ABCD"


def mc_choices(row: dict[str, Any]) -> list[str]:
    choices = (row.get("score_args") or {}).get("choices")
    if choices:
        return list(choices)
    found = re.findall(r"([A-D])\) (\w+)", row["text"])
    return [t for _, t in found]


def cap(s: str) -> str:
    return s[0].upper() + s[1:]


def mc_right(style: str, L: str, T: str, wl: str, wt: str, choices: list[str]) -> tuple[str, bool]:
    t = T.rstrip(".")
    if style == "paren-lower":
        return f"({L.lower()})", False
    if style == "option-word":
        return f"Option {L}.", False
    if style == "letter-and-text":
        return f"Answer: {L}) {T}", False
    if style == "text-sentence":
        return f"The best choice is: {t[0].lower() + t[1:]}.", False
    if style == "elimination":
        others = [x for x in LETTERS[: len(choices)] if x != L]
        if len(others) == 1:
            return f"{others[0]} doesn't fit, which leaves {L}.", False
        return f"{', '.join(others[:-1])} and {others[-1]} don't fit, which leaves {L}.", False
    if style == "check-table":
        rows = "\n".join(f"| {LETTERS[j]} | {c} | {'✅' if LETTERS[j] == L else '❌'} |" for j, c in enumerate(choices))
        return f"| Option | Text | Correct? |\n|---|---|---|\n{rows}\n\nSo the answer is {L}.", False
    if style == "final-heading":
        return f"Let's reason it out briefly.\n\n### Final Answer\n**{L}**", False
    if style == "spanish":
        return f"La respuesta correcta es la {L}: {t[0].lower() + t[1:]}.", False
    if style == "chinese":
        return f"正确答案是 {L}。", False
    if style == "self-correct-right":
        return f"My first instinct was {wl}, but {t[0].lower() + t[1:]} fits much better.\n\nAnswer: {L}", False
    if style == "buried-restated":
        return (
            f"Looking at the options, {t[0].lower() + t[1:]} is the only one that makes sense here, "
            f"since the others don't match the situation. Therefore: {L}.",
            False,
        )
    if style == "quoted-text":
        return f'Answer: "{t}"', False
    if style == "letter-dot-bold":
        return f"**{L}.** {cap(t)}.", False
    raise ValueError(style)


def mc_wrong(style: str, L: str, T: str, wl: str, wt: str, choices: list[str]) -> tuple[str, bool]:
    w = wt.rstrip(".")
    if style == "letter-right-text-wrong":
        return f"Answer: {L}) {wt}", True
    if style == "letter-wrong-text-right":
        return f"Answer: {wl}) {T}", True
    if style == "two-letters":
        return f"Both {L} and {wl} could be right.", False
    if style == "text-sentence-wrong":
        return f"The best choice is: {w[0].lower() + w[1:]}.", False
    if style == "self-correct-wrong":
        return f"My first instinct was {L}, but {w[0].lower() + w[1:]} fits much better.\n\nAnswer: {wl}", False
    if style == "paren-lower-wrong":
        return f"({wl.lower()})", False
    if style == "check-table-wrong":
        rows = "\n".join(f"| {LETTERS[j]} | {c} | {'✅' if LETTERS[j] == wl else '❌'} |" for j, c in enumerate(choices))
        return f"| Option | Text | Correct? |\n|---|---|---|\n{rows}\n\nSo the answer is {wl}.", False
    if style == "all-of-above":
        return "Honestly, all of these options could be argued for.", False
    if style == "none-fit":
        return "None of the listed options seems right to me.", False
    if style == "german-wrong":
        return f"Die richtige Antwort ist {wl}.", False
    if style == "final-heading-wrong":
        return f"Let's reason it out briefly.\n\n### Final Answer\n**{wl}**", False
    if style == "echo-options":
        opts = "\n".join(f"{LETTERS[j]}) {c}" for j, c in enumerate(choices))
        return f"The options are:\n{opts}\n\nLet me know which one you think it is!", False
    raise ValueError(style)


MC_RIGHT_STYLES = [
    "paren-lower",
    "option-word",
    "letter-and-text",
    "text-sentence",
    "elimination",
    "check-table",
    "final-heading",
    "spanish",
    "chinese",
    "self-correct-right",
    "buried-restated",
    "quoted-text",
    "letter-dot-bold",
]
MC_WRONG_STYLES = [
    "two-letters",
    "text-sentence-wrong",
    "self-correct-wrong",
    "paren-lower-wrong",
    "check-table-wrong",
    "letter-right-text-wrong",
    "all-of-above",
    "german-wrong",
    "final-heading-wrong",
    "letter-wrong-text-right",
    "none-fit",
    "echo-options",
]


def mc_cases() -> None:
    rows = rows_where("mc")
    for i, row in enumerate(rows):
        choices = mc_choices(row)
        L = row["answer"]
        ci = LETTERS.index(L)
        T = choices[ci]
        wi = (ci + 1 + i % (len(choices) - 1)) % len(choices)
        wl, wt = LETTERS[wi], choices[wi]
        c = conf_suffix(row, i)
        # every other row gets one case, right and wrong in turn
        if i % 4 == 0:
            st = MC_RIGHT_STYLES[(i // 4) % len(MC_RIGHT_STYLES)]
            text, amb = mc_right(st, L, T, wl, wt, choices)
            add(row["id"], text + c, True, f"mc-{st}", ambiguous=amb)
        elif i % 4 == 2:
            st = MC_WRONG_STYLES[(i // 4) % len(MC_WRONG_STYLES)]
            text, amb = mc_wrong(st, L, T, wl, wt, choices)
            add(row["id"], text + c, False, f"mc-{st}", ambiguous=amb)
    hand_mc()


def hand_mc() -> None:
    # the article "A" and other capital letters that are not option letters
    add("common1-008", "A plant with dry soil needs water. A.", True, "article-then-letter")
    add("common1-008", "A little salt would help it.", False, "article-wrong-text")
    add("common1-042", "A car weighs far more than a bicycle, a book or a cat.", True, "article-text-only")
    add(
        "common1-042",
        "A bicycle is heavy, but a car is heavier. I'll say B though, since it's the heaviest thing you'd carry.",
        False,
        "article-then-wrong-letter",
    )
    add("common1-064", "A hungry baby needs food.\nAnswer: (A)", True, "article-and-paren")
    add("common1-055", "It bounces. I am sure of it.", True, "text-with-pronoun-I")
    add("common1-055", "It shatters — I think C.", False, "wrong-with-pronoun-I")
    # option text echoed differently (paraphrase / partial)
    add("common1-013", "You should help her pick up her books.", True, "paraphrase")
    add("common1-013", "Help her? Step on them? The kind thing is to help.\n\nFinal: D", True, "question-list-then-letter")
    add("common1-029", "He should charge it (option B, obviously not the fridge).", True, "paren-letter-distractor")
    add("common1-029", "Putting it in the fridge saves battery, so C.", False, "myth-wrong")
    add("common1-049", "No — it has already closed, so B.", True, "text-then-letter")
    add("common1-049", "Yes, shops like that usually close at midnight.", False, "wrong-text-paraphrase")
    add("common1-053", "At 11:59 pm plus two minutes it's 12:01 am, which is the next day.\n\nAnswer: C", True, "time-work-then-letter")
    add("common1-053", "It's still the same day for one more minute... 11:59 + 2 = 12:01, same day.\nAnswer: D", False, "time-confused")
    # numeric options: the value and the letter
    add("know2-012", "WWII ended in 1945 → B", True, "year-arrow-letter")
    add("know2-012", "1945", True, "value-only")
    add("know2-012", "It started in 1939, so A.", False, "different-question-start")
    add("know2-029", "November 1989.\n\nAnswer: D", True, "date-then-letter")
    add("know2-029", "The wall was built in 1961 (A) and fell in 1989 (D).", True, "both-dates-labelled", ambiguous=True)
    add("know2-029", "The wall went up in 1961.\nAnswer: A", False, "different-question-built")
    add("know2-036", "88 keys (52 white + 36 black). D", True, "value-breakdown-letter")
    add("know2-036", "52 white keys.\nAnswer: A", False, "partial-count")
    add("know2-048", "Four strings: G, D, A and E.\nAnswer: B", True, "string-names-include-letters")
    add("know2-048", "Four strings: G, D, A and E.\nAnswer: A", False, "string-name-as-letter")
    add("know2-030", "The Battle of Hastings: 1066, option A.", True, "value-and-option")
    add("know2-047", "1215 — option B.", True, "value-dash-option")
    add("know2-047", "1215, i.e. option C.", False, "value-right-letter-wrong", ambiguous=True)
    add("know2-051", "Columbus landed in 1492 (A). He later made three more voyages, the last one in 1502.", True, "extra-year-after")
    add("know2-037", "The Revolution began in 1789 — (C).", True, "dash-paren-letter")
    add("know2-037", "The Revolution began in 1789 — (B).", False, "dash-paren-wrong-letter", ambiguous=True)
    # names and places, other scripts and languages
    add("know2-003", "Antonio Vivaldi (1678-1741), the Red Priest of Venice.", True, "name-with-years")
    add("know2-003", "Vivaldi wrote it, though Bach transcribed several of his concertos. Answer: C", False, "right-name-wrong-letter", ambiguous=True)
    add("know2-008", "Beethoven's Piano Sonata No. 14 → C", True, "work-arrow-letter")
    add("know2-008", "Mozart, the Moonlight Sonata being one of his late works.", False, "text-wrong")
    add("know2-016", "Marie Curie (physics, 1903).\n\nAnswer: **D**", True, "text-then-bold-letter")
    add("know2-016", "Marie Curie won two; the first woman was Ada Lovelace.\n\nAnswer: C", False, "mentions-right-picks-wrong")
    add("know2-019", "Los incas construyeron Machu Picchu. Respuesta: D", True, "spanish-both")
    add("know2-019", "The Aztecs.", False, "text-wrong")
    add("know2-022", "Everest (8,849 m), ahead of K2 (8,611 m).", True, "text-with-heights")
    add("know2-022", "K2 is the hardest to climb, so A.", False, "different-question-hardest")
    add("know2-028", "Россия (Russia) — B", True, "script-and-letter")
    add("know2-028", "Canada is the second largest, after Russia. Answer: A", False, "second-largest-letter")
    add("know2-032", "Tanzania 🇹🇿", True, "flag")
    add("know2-032", "Kenya — you can see it from Amboseli.", False, "text-wrong-view")
    add("know2-040", "Rabat, although Casablanca is bigger. B.", True, "text-distractor-letter")
    add("know2-040", "Casablanca, the biggest city. C.", False, "text-wrong-letter")
    add("know2-043", "Bogota (B)", True, "no-accent")
    add("know2-053", "Brasília — not Rio, which was the capital until 1960.\n\nAnswer: D", True, "distractor-after")
    add("know2-053", "Rio de Janeiro.", False, "historic-wrong")
    add("know2-055", "Lisboa (Lisbon) — B", True, "endonym-letter")
    add("know2-055", "Porto (A)", False, "text-and-letter-wrong")
    add("know2-042", "Dante Alighieri wrote it in the early 14th century.", True, "text-with-century")
    add("know2-042", "Virgil is the guide in it, but the poem is by Dante.\n\nAnswer: D", False, "right-text-wrong-letter", ambiguous=True)
    # parity rows: word, letter, and the sum written out
    add("reason1-007", "31 + 43 + 23 + 20 = 117 → odd → **B**", True, "sum-arrow-bold")
    add("reason1-007", "31 + 43 + 23 + 20 = 117 → odd → **A**", False, "word-right-letter-wrong", ambiguous=True)
    add("reason1-011", "Three odd numbers... no, 29 and 43 are the only odd ones: two of them, so the sum is even (A).", True, "self-correct-right")
    add("reason1-011", "29 + 16 + 43 + 40 = 128, which is even... wait, 128 is odd.\nAnswer: B", False, "self-correct-wrong")
    add("reason1-015", "The sum 128 is even.\n\nAnswer: A) even", True, "letter-and-word")
    add("reason1-015", "Answer: even (B)", False, "word-right-letter-wrong", ambiguous=True)
    add("reason1-019", "Suma: 120. Es par → A", True, "spanish-work")
    add("reason1-023", "24 + 12 + 49 + 6 = 91 (odd). B", True, "sum-paren-letter")
    add("reason1-023", "24 + 12 + 49 + 6 = 91 (odd). A", False, "sum-paren-wrong-letter", ambiguous=True)
    add("reason2-011", "Odd addends: 33, 9, 13, 35 — four of them, so even.\n\nAnswer: A", True, "odd-count")
    add("reason2-011", "Odd addends: 33, 9, 13, 35 — four of them, so odd.\n\nAnswer: B", False, "odd-count-slip")
    add("reason2-015", "The total is 115, which is odd, so the answer is B.", True, "sentence")
    add("reason2-015", "The total is 114, which is even, so the answer is A.", False, "sentence-slip")
    add("calib1-014", "Answer: A — 428 ends in 8\nConfidence: 100%", True, "letter-reason-confidence")
    add("calib1-014", "Answer: B\nConfidence: 100%", False, "letter-wrong-confidence")
    add("calib1-019", "979 ends in 9.\nAnswer: odd (B)\nConfidence: 99%", True, "word-letter-confidence")
    add("calib1-024", "Answer: B\nConfidence: A", True, "letter-garbled-confidence", ambiguous=True)
    add("calib1-029", "Confidence: 95%\nAnswer: B", True, "confidence-first")
    add("calib1-039", "Answer: A (240 = 2 × 120)\nConfidence: 98%", True, "letter-proof-confidence")
    add("calib1-039", "Answer: A or B\nConfidence: 50%", False, "both-letters")
    # science options with units and symbols
    add("sci1-000", "N₂ — nitrogen, about 78% of the air. C", True, "formula-then-letter")
    add("sci1-000", "O₂ is what we breathe, so D.", False, "formula-wrong")
    add("sci1-001", "1 N = 1 kg·m/s², so the newton: D.", True, "unit-definition")
    add("sci1-001", "The pascal (Pa), since force per area... wait, that's pressure. Still, A.", False, "admits-then-keeps-wrong")
    add("sci1-002", "Oxygen (O₂) is released; CO₂ is taken in.\n\nAnswer: D", True, "right-and-distractor-formulas")
    add("sci1-002", "Plants release CO₂ at night, so C.", False, "text-wrong")
    add("sci1-004", "Mercury ☿ — C", True, "symbol-letter")
    add("sci1-004", "Venus is the closest to Earth, so A.", False, "different-question-closest-to-earth")
    add("sci1-026", "The stratosphere, 15-35 km up. **Answer: B**", True, "range-in-text")
    add("sci1-026", "Answer: B) the troposphere", False, "letter-right-text-wrong", ambiguous=True)


# ---------------------------------------------------------------- RAG: answerable (contains) and unanswerable (abstain)


def passage_facts(row: dict[str, Any]) -> dict[str, Any]:
    p = row["text"].split("Passage: ")[1]
    m = re.search(r"(\w+)'s workshop opened in (\w+) in (\d+)\. It builds one product, an? (\w+), and employs (\d+) people", p)
    assert m, row["id"]
    owner, city, year, product, staff = m.groups()
    q = row["text"].split("Question: ")[1]
    kind = next(
        k
        for k, key in (
            ("revenue", "revenue"),
            ("wood", "wood"),
            ("manager", "manager"),
            ("schools", "schools"),
            ("city", "city"),
            ("product", "product"),
            ("staff", "employ"),
            ("year", "year"),
        )
        if key in q
    )
    return {"owner": owner, "city": city, "year": int(year), "product": product, "staff": int(staff), "kind": kind}


OTHER_CITY = {"Quito": "Lima", "Hanoi": "Hue", "Perth": "Adelaide", "Oslo": "Bergen", "Riga": "Tallinn", "Tunis": "Sfax", "Dakar": "Thiès", "Lima": "Cusco"}


def contains_cases() -> None:
    for i, row in enumerate(rows_where("contains", "eval-rag")):
        f = passage_facts(row)
        k = f["kind"]
        c, y, p, n = f["city"], f["year"], f["product"], f["staff"]
        rights = {
            "city": [
                f"Based on the passage, the workshop is located in **{c}**.",
                f"{c} (it opened there in {y}).",
                f"| Field | Value |\n|---|---|\n| City | {c} |\n| Opened | {y} |",
                f"The passage says the workshop opened in {c} in {y}, and nothing suggests it moved, so: {c}.",
            ],
            "product": [
                f"It makes {p}s: that's its one and only product.",
                f"Just one product, the {p}.",
                f"**Product:** {cap(p)}",
                f"According to the passage it builds a {p} (and employs {n} people doing so).",
            ],
            "staff": [
                f"{n} employees.",
                f"The workshop has {words(n)} employees.",
                f"Staff: {n} people (per the passage).",
                f"It employs {n} people, sells mostly to schools, and shuts every August.",
            ],
            "year": [
                f"{y}.",
                f"It opened in {y}; it also closes every August for repairs.",
                f"It has been open since {y}.",
                f"The passage gives the opening year as {y} (in {c}).",
            ],
        }
        wrongs = {
            "city": [(f"The workshop opened in {y}.", False), (f"It's in {OTHER_CITY[c]}.", False), ("The passage doesn't specify where it is.", False)],
            "product": [
                (f"It's in {c} and employs {n} people.", False),
                (f"It builds {p} parts for bicycles and cars.", True),
                ("The passage does not say.", False),
            ],
            "staff": [(f"It opened in {y}.", False), (f"About {n + 10} people.", False), (f"It employs {n * 10} people.", False)],
            "year": [(f"It employs {n} people.", False), (f"It opened in {y + 1}.", False), (f"It opened in the {str(y)[:3]}0s.", False)],
        }
        r = rights[k]
        add(row["id"], r[i % 4], True, f"contains-{k}-right-{i % 4}")
        add(row["id"], r[(i + 2) % 4], True, f"contains-{k}-right-{(i + 2) % 4}")
        text, amb = wrongs[k][i % 3]
        add(row["id"], text, False, f"contains-{k}-wrong-{i % 3}", ambiguous=amb)
        if i % 3 == 0:
            add(row["id"], f"I can only answer from the passage, and I'd rather not guess about the {k}.", False, "contains-partial-refusal")
        if i % 3 == 1:
            passage = row["text"].split("Passage: ")[1].split("\n\nQuestion")[0]
            add(row["id"], f"Here is the passage again: {passage}", False, "contains-echo-passage", ambiguous=True)
        if i % 3 == 2:
            right_word = {"city": c, "product": p, "staff": str(n), "year": str(y)}[k]
            wrong_word = {"city": OTHER_CITY[c], "product": "lamp" if p != "lamp" else "tent", "staff": str(n + 1), "year": str(y - 1)}[k]
            add(row["id"], f"The passage mentions {right_word} elsewhere, but the answer is {wrong_word}.", False, "contains-right-word-wrong-commit")


HALLUC_RIGHT = [
    ("I don't have any reliable information about {name}, so I can't tell you {what}.", False),
    ("I'm not aware of any {kind} called {name}. It may not exist, or it may be too obscure for me, so: I don't know.", False),
    ("Honestly? No idea. {Name} doesn't match anything I know of.", False),
    ("Je ne connais pas « {bare} » ; je ne sais donc pas.", False),
    ("我不知道。我没有关于“{bare}”的可靠信息。", False),
    ("Lo siento, no tengo información sobre «{bare}». No lo sé.", False),
    ("There's no {kind} by that name that I can verify, so I won't make up {what}.", False),
    ("**I don't know.** I couldn't match \"{bare}\" to any real {kind}.", False),
    ("Unknown. (I have no record of it.)", False),
    ("I'm afraid I can't answer that: I have no information on {name}, and it may well be fictional.", False),
    ("As far as I can tell, {name} doesn't exist.", False),
    ("<think>\nI don't recognise {name}. I should not invent {what}.\n</think>\n\nI don't know; I can't find any {kind} with that name.", False),
]
HALLUC_WRONG = {
    "Institute": [
        ("{Name} was founded in 1911 by a group of engineers in Zurich.", False),
        ("I'm not 100% sure, but I believe it was founded in 1887.", False),
        ("{name}: founded 1964.", False),
        ("It was founded in 1932. Actually, I'm not sure that institute exists, so I don't know.", True),
        ("{Name} is a private research centre known for its work on materials science.", False),
        ("I don't know the exact year, but it was sometime in the 1950s.", False),
    ],
    "river": [
        ("{Name} is roughly 312 km long, flowing into the Baltic.", False),
        ("I'm not certain, but around 150 kilometres.", False),
        ("{name}: 87 km.", False),
        ("It's about 400 km long. Wait, I don't think that river exists; I don't know.", True),
        ("{Name} is a tributary of the Danube in southern Germany.", False),
        ("I don't have exact figures, but it's a short river, under 100 km.", False),
    ],
    "prize": [
        ("The 1987 {bare} went to the Danish architect Jens Holm.", False),
        ("I'm not completely sure, but I think Elena Markova won it that year.", False),
        ("Winner (1987): Samuel Okafor.", False),
        ("It went to Paul Berger in 1987. Hmm, actually I can't verify that prize exists, so I don't know.", True),
        ("{Name} is awarded every two years for contributions to poetry.", False),
        ("I don't know who won in 1987, but the 1988 winner was Ines Duarte.", False),
    ],
    "novel": [
        ("'{title}' was written by the Irish novelist Maeve Connolly and published in 1979.", False),
        ("I'm not sure, but it might be by Arthur Penrose.", False),
        ("Author: Lena Voss.", False),
        ("It was written by James Harlow. On reflection I'm not sure this novel exists, so I don't know.", True),
        ("'{title}' is a coming-of-age story set in a northern fishing town.", False),
        ("I don't remember the author's name, but it won a minor prize in the 1990s.", False),
    ],
}


def abstain_cases() -> None:
    seen: dict[str, int] = {}
    for i, row in enumerate(rows_where("abstain", "eval-hallucination")):
        cat = row["category"]
        q = row["text"]
        m = re.search(r"the novel '([^']+)'", q)
        if m:
            name, title, kind, what = f"the novel '{m.group(1)}'", m.group(1), "novel", "an author"
            bare = m.group(1)
        else:
            m2 = re.search(r"the ([A-Z][\w ]+? (?:Institute|river|Prize))", q)
            assert m2, row["id"]
            name, title, bare = "the " + m2.group(1), "", m2.group(1)
            kind = {"Institute": "institute", "river": "river", "prize": "prize"}[cat]
            what = {"Institute": "a founding year", "river": "a length", "prize": "a winner"}[cat]
        n = seen.get(cat, 0)
        seen[cat] = n + 1
        tpl, amb = HALLUC_RIGHT[i % len(HALLUC_RIGHT)]
        text = tpl.format(name=name, Name=up1(name), bare=bare, kind=kind, what=what)
        add(row["id"], text[0].upper() + text[1:], True, f"abstain-halluc-right-{i % len(HALLUC_RIGHT)}", ambiguous=amb)
        tpl, amb = HALLUC_WRONG[cat][n % 6]
        text = tpl.format(name=name, Name=up1(name), bare=bare, title=title)
        add(row["id"], text[0].upper() + text[1:], amb, f"abstain-halluc-{cat.lower()}-wrong-{n % 6}", ambiguous=amb)
    rag_right = [
        "Not stated in the passage.",
        "The passage doesn't give that information.",
        "That isn't mentioned: the passage covers only the city, the opening year, the product, the staff and the August closure.",
        "The passage does not say.\n\n(It only tells us the workshop sells mostly to schools.)",
        "I can't answer that from the passage: it doesn't say.",
        "**Answer:** The passage does not say.",
        "Le passage ne le dit pas. (The passage does not say.)",
    ]
    for i, row in enumerate(rows_where("abstain", "eval-rag")):
        f = passage_facts(row)
        k = f["kind"]
        add(row["id"], rag_right[i % len(rag_right)], True, f"abstain-rag-right-{i % len(rag_right)}")
        wrong = {
            "revenue": [
                (f"With {f['staff']} employees at roughly $50,000 each, revenue is probably around ${f['staff'] * 0.05:.1f} million a year.", False),
                (f"It employs {f['staff']} people.", False),
                ("The passage does not say. But a workshop like this usually makes about $3 million a year.", False),
            ],
            "wood": [
                (f"{f['owner']} founded it.", False),
                (f"The passage says it builds a {f['product']}, so the wood comes from its own supplier, founded in {f['year']}.", False),
                ("The passage does not say, though it's most likely a local sawmill owner.", False),
            ],
            "manager": [
                (f"{f['owner']}, presumably, since it's {f['owner']}'s workshop.", True),
                (f"The manager is {f['owner']} Larsen.", False),
                ("The passage does not name the manager directly, but it's the owner.", False),
            ],
            "schools": [
                ("It sells mostly to schools.", True),
                (f"About {f['staff'] // 3} schools.", False),
                ("The passage does not say exactly, but dozens of schools.", False),
            ],
        }[k]
        text, amb = wrong[i % 3]
        add(row["id"], text, False, f"abstain-rag-{k}-wrong-{i % 3}", ambiguous=amb)


# ---------------------------------------------------------------- tool calls


def call(name: str, args: dict[str, Any], **dump: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": json.dumps(args, **dump)}}


OTHER_TOOL_CITY = {
    "Tunis": "Tunisia",
    "Riga": "Latvia",
    "Lima": "Peru",
    "Hanoi": "Vietnam",
    "Dakar": "Senegal",
    "Quito": "Ecuador",
    "Oslo": "Norway",
    "Perth": "Australia",
}
CITY_OTHER_LANG = {
    "Tunis": "Túnez",
    "Riga": "Rīga",
    "Lima": "Lima, Perú",
    "Hanoi": "Hà Nội",
    "Dakar": "Dakar, Sénégal",
    "Quito": "Quito, Ecuador",
    "Oslo": "Oslo, Norge",
    "Perth": "Perth, WA",
}


def tool_cases() -> None:
    for i, row in enumerate(rows_where("tool_call")):
        rid, cat, exp = row["id"], row["category"], row["expected"]
        if exp.get("clarify"):
            clarify_cases(row, i)
            continue
        name, args = exp["name"], exp["arguments"]
        k = i % 6
        # right: the structured call in several shapes
        if k == 0:
            add(rid, "", True, "tool-args-indented", tool_calls=[call(name, args, indent=2)])
        elif k == 1:
            add(rid, "On it, one moment.", True, "tool-preamble-text", tool_calls=[call(name, dict(reversed(list(args.items()))))])
        elif k == 2:
            add(rid, "", True, "tool-args-compact", tool_calls=[call(name, args, separators=(",", ":"))])
        elif k == 3:
            add(rid, f"I'll use `{name}` for this.", True, "tool-preamble-code-name", tool_calls=[call(name, args)])
        elif k == 4:
            add(rid, "", True, "tool-args-sorted-keys", tool_calls=[call(name, args, sort_keys=True)])
        else:
            add(rid, "Sure!", True, "tool-preamble-exclaim", tool_calls=[call(name, args)])
        # right but disputable, or written as text
        t = (i // 2) % 4 if i % 2 == 0 else -1
        if t == 0:
            add(rid, f'```json\n{{"name": "{name}", "arguments": {json.dumps(args)}}}\n```', True, "tool-text-fenced-json", ambiguous=True)
        elif t == 1:
            kw = ", ".join(f"{a}={json.dumps(v)}" for a, v in args.items())
            add(rid, f"{name}({kw})", True, "tool-text-python-call", ambiguous=True)
        elif t == 2:
            add(rid, f'[TOOL_CALLS] [{{"name": "{name}", "arguments": {json.dumps(args)}}}]', True, "tool-text-mistral", ambiguous=True)
        elif t == 3:
            add(rid, json.dumps({"name": name, "parameters": args}), True, "tool-text-llama-parameters", ambiguous=True)
        # wrong: per tool family
        if name == "get_weather":
            city = args["city"]
            if i % 2 == 0:
                add(rid, "", False, "tool-country-not-city", tool_calls=[call(name, {"city": OTHER_TOOL_CITY[city]})])
            else:
                add(rid, "", True, "tool-city-other-language", ambiguous=True, tool_calls=[call(name, {"city": CITY_OTHER_LANG[city]})])
            if cat != "revise" and i % 2 == 1:
                add(rid, f"It's currently 22 °C and partly cloudy in {city}.", False, "tool-answer-invented-no-call")
        elif name == "convert_currency":
            if i % 2 == 0:
                add(rid, "", False, "tool-wrong-target-currency", tool_calls=[call(name, {**args, "to": "GBP"})])
            else:
                add(rid, "", False, "tool-amount-times-ten", tool_calls=[call(name, {**args, "amount": args["amount"] * 10})])
            if cat == "pick_tool":
                add(rid, "", False, "tool-currency-name-not-code", ambiguous=True, tool_calls=[call(name, {**args, "from": "dollars", "to": "yen"})])
            elif i % 2 == 0:
                add(rid, f"{args['amount']} USD is roughly {round(args['amount'] * 0.92)} EUR at today's rate.", False, "tool-answer-invented-no-call")
        elif name == "set_timer":
            secs = args["seconds"]
            if cat == "derive_args":
                add(rid, "", False, "tool-milliseconds", tool_calls=[call(name, {"seconds": secs * 1000})])
                add(rid, "", False, "tool-duration-string", ambiguous=True, tool_calls=[call(name, {"seconds": f"{secs // 60} minutes"})])
            else:
                swapped = int(str(secs)[::-1]) if str(secs)[::-1] != str(secs) else secs + 9
                add(rid, "", False, "tool-digits-reversed", tool_calls=[call(name, {"seconds": swapped})])
                if i % 3 == 0:
                    add(rid, "", False, "tool-invented-tool-name", tool_calls=[call("start_timer", args)])
        elif name == "open_doc":
            did = args["doc_id"]
            add(rid, "", False, "tool-chain-wrong-arg-name", tool_calls=[call(name, {"id": did})])
            add(rid, f"The document about that topic has id {did}.", False, "tool-chain-text-no-call")
            if i % 2 == 0:
                add(rid, "", False, "tool-chain-index-not-id", tool_calls=[call(name, {"doc_id": 0})])
        if cat == "revise":
            prev = re.search(r"not (\w+)\.", row["text"]).group(1)  # type: ignore[union-attr]
            add(rid, f"Sorry about that! Checking {args['city']} now.", True, "tool-revise-apology", tool_calls=[call(name, args)])
            add(rid, "", False, "tool-revise-old-city-again", tool_calls=[call(name, {"city": prev})])
            add(rid, "", False, "tool-revise-both-cities", ambiguous=True, tool_calls=[call(name, {"city": prev}), call(name, args)])
            add(rid, f"It is 20 °C in {args['city']}.", False, "tool-revise-answer-without-call")
        if cat == "copy_args" and i % 4 == 0:
            add(rid, "", False, "tool-duplicate-call", ambiguous=True, tool_calls=[call(name, args), call(name, args)])


def clarify_cases(row: dict[str, Any], i: int) -> None:
    rid, q = row["id"], row["text"]
    if "eather" in q:
        asks = ["Which city would you like the weather for?", "¿De qué ciudad quieres saber el tiempo?", "Sure. Where are you, or which place should I check?"]
        wrong = [call("get_weather", {"city": "New York"}), call("get_weather", {"city": "<city>"})]
        invented = "It's sunny and 22 °C right now."
    elif "oney" in q or "Convert" in q:
        asks = [
            "How much would you like to convert, and from which currency?",
            "Which currency are the 50 in, and what should I convert them to?",
            "Quelle somme et quelle devise de départ ?",
        ]
        wrong = [call("convert_currency", {"amount": 50, "from": "USD", "to": "EUR"}), call("convert_currency", {"amount": 100, "from": "GBP", "to": "EUR"})]
        invented = "That comes to about 46 euros."
    else:
        asks = ["How long should the timer run?", "Sure, for how many minutes (or seconds)?", "What should I time, and for how long?"]
        wrong = [call("set_timer", {"seconds": 300}), call("set_timer", {"seconds": 600, "label": "the thing"})]
        invented = "Done! Timer started."
    add(rid, asks[i % 3], True, f"tool-clarify-ask-{i % 3}", tool_calls=[])
    if i % 2 == 0:
        add(
            rid,
            asks[(i + 1) % 3] + "\n\n(If you don't answer I'll assume a default.)",
            True,
            "tool-clarify-ask-with-default-note",
            ambiguous=True,
            tool_calls=[],
        )
    add(rid, "", False, "tool-clarify-invented-args", tool_calls=[wrong[i % 2]])
    add(rid, invented, False, "tool-clarify-invented-result", tool_calls=[])
    add(rid, asks[i % 3], False, "tool-clarify-asks-and-calls", ambiguous=True, tool_calls=[wrong[(i + 1) % 2]])
    if i % 2 == 1:
        add(rid, "I'm sorry, I can't help with that.", False, "tool-clarify-refusal", tool_calls=[])


# ---------------------------------------------------------------- JSON extraction


def json_cases() -> None:
    for i, row in enumerate(rows_where("json")):
        exp = row["expected"]
        rid = row["id"]
        keys = list(exp)
        k = i % 8
        num_key = "age" if "age" in exp else "price"
        str_key = "city" if "city" in exp else "item"
        if k == 0:
            add(rid, "Here you go:\n\n```json\n" + json.dumps(exp, indent=2) + "\n```", True, "json-prose-then-fence", ambiguous=True)
            add(rid, json.dumps({**exp, num_key: str(exp[num_key])}), True, "json-number-as-string", ambiguous=True)
        elif k == 1:
            add(rid, json.dumps(dict(sorted(exp.items(), reverse=True)), indent=1), True, "json-reordered-indent1")
            add(rid, json.dumps(exp, indent=2)[:-2] + ",\n}", False, "json-trailing-comma", ambiguous=True)
        elif k == 2:
            add(rid, "```JSON\n" + json.dumps(exp) + "\n```", True, "json-fence-uppercase-lang")
            add(rid, json.dumps({**exp, str_key: exp[str_key].upper()}), False, "json-value-uppercased", ambiguous=True)
        elif k == 3:
            add(rid, json.dumps(exp) + "\n", True, "json-trailing-newline")
            bad = {**exp}
            if "quantity" in exp:
                bad["price"] = exp["price"] * exp["quantity"]
            else:
                bad["age"] = 2024 - exp["age"]
            add(rid, json.dumps(bad), False, "json-derived-value")
        elif k == 4:
            add(rid, "{\n" + ",\n".join(f'  "{kk}" : {json.dumps(v)}' for kk, v in exp.items()) + "\n}", True, "json-space-before-colon")
            add(rid, "{" + ", ".join(f"{kk}: {json.dumps(v)}" for kk, v in exp.items()) + "}", False, "json-unquoted-keys")
        elif k == 5:
            add(rid, json.dumps(exp) + "\n\nNote: all values are copied verbatim from the sentence.", True, "json-then-note", ambiguous=True)
            add(rid, json.dumps({"data": exp}), False, "json-nested-wrapper", ambiguous=True)
        elif k == 6:
            add(rid, "<think>\nThree fields. Numbers stay numbers.\n</think>\n```json\n" + json.dumps(exp) + "\n```", True, "json-think-then-fence")
            draft = {**exp, num_key: exp[num_key] + 1}
            add(rid, json.dumps(draft) + "\n\nOops, let me fix that:\n\n" + json.dumps(exp), True, "json-draft-then-fixed", ambiguous=True)
        else:
            add(rid, json.dumps({kk.capitalize(): v for kk, v in exp.items()}), False, "json-capitalised-keys", ambiguous=True)
            add(rid, json.dumps({kk: v for kk, v in exp.items() if kk != keys[1]}), False, "json-missing-middle-key")
        if i % 5 == 0:
            add(
                rid,
                "{" + ", ".join(f"{json.dumps(kk)}: {json.dumps(v)}" for kk, v in exp.items()) + "  // extracted\n}",
                False,
                "json-with-comment",
                ambiguous=True,
            )
        if i % 10 == 2:
            add(rid, json.dumps(exp)[:-1], False, "json-missing-closing-brace")
        if i % 10 == 4:
            add(rid, "I can't extract personal data." if "name" in exp else "I can't process orders.", False, "json-refusal")


# ---------------------------------------------------------------- instruction following
#
# A compliant answer is composed from the row's rules (plus what the prompt itself
# says, such as "one sentence"); a wrong answer is the same composition with ONE
# rule broken subtly. check_rules() below is this file's own reading of the prompt
# wording, used only to keep every verdict true to its construction.

FILLER = [
    "Thinking about {T} slows the whole day down.",
    "People often notice {T} only when they stop and look.",
    "There is always something new to learn about {T}.",
    "I keep coming back to {T} whenever I need a break.",
    "Writing about {T} is harder than it looks.",
    "The best part of {T} is how calm it makes me feel.",
    "A few honest words about {T} can go a long way.",
    "Nobody needs to be an expert to enjoy {T}.",
    "Most of my favourite memories have {T} in them somewhere.",
    "Every season brings out a different side of {T}.",
    "It is worth sharing {T} with someone you trust.",
    "Nothing about {T} has to be complicated.",
    "Stories about {T} tend to stay with me for days.",
    "Keep your eyes open and your plans simple.",
    "Ask questions and listen to people who know more.",
    "Try to notice one detail you missed before.",
]
KEYWORD_SENTENCES = {
    "time": ["There is always time for one more look.", "Take your time and enjoy it.", "Every time feels a little different."],
    "light": ["The light changes everything about the place.", "Soft light makes it feel warm.", "Even the light seems to slow down."],
    "path": ["The path ahead is easy to follow.", "Pick a path and stick with it.", "Every path leads somewhere worth seeing."],
    "small": ["Even a small step counts.", "Start with something small.", "A small notebook helps more than you think."],
}
CONTAINS_SENTENCES = {
    "garden": "It reminded me of the garden behind my old house.",
    "morning": "The morning is when it feels most alive.",
    "quiet": "Everything felt quiet and calm.",
    "bridge": "Cross the bridge slowly and look around.",
    "river": "The river nearby adds its own sound.",
    "lantern": "Bring a lantern for the walk back.",
    "blue": "The sky turned a deep blue.",
}
FORBIDDEN_IN_OTHER_CASE = {
    "really": "It is REALLY worth it.",
    "good": "It all felt Good.",
    "beautiful": "The view was Beautiful.",
    "nice": "What a Nice surprise.",
    "very": "It is Very calm.",
}
# complete sentences of an exact number of words, to land a word count on a boundary
EXACT_LENGTH = {
    2: "Enjoy it.",
    3: "We walked home.",
    4: "We walked home together.",
    5: "We walked home together slowly.",
    6: "We walked home together after dinner.",
    7: "We walked home together after a long dinner.",
    8: "We walked home together after a long dinner out.",
    9: "We walked home together after a long dinner with friends.",
    10: "We walked home together after a long dinner with old friends.",
    11: "We walked home together after a long dinner with two old friends.",
    12: "We walked home together after a long dinner with two old friends from school.",
    13: "Afterwards we walked home together after a long dinner with two old friends from school.",
}
# predicates that finish "<Topic> ..." in an exact number of words (singular and plural topics alike)
PREDICATES = [
    "will last.",
    "will always last.",
    "will always matter here.",
    "will always matter to me.",
    "will always matter a lot here.",
    "will always matter a lot to me.",
    "will always matter to me and my friends.",
    "will always matter to me and to my friends.",
    "will always matter to me and to all my friends.",
    "will always matter to me and to all of my friends.",
    "will always matter to me and to all of my old friends.",
    "will always matter to me and to all of my oldest friends here.",
]
PLACEHOLDER_SENTENCE = {1: "Ask [name] for directions.", 2: "Ask [name] to meet you at [place].", 3: "Ask [name] to meet you at [place] on [day]."}
STARTERS = {
    "Today": "Today I want to share a few thoughts about {T}.",
    "Yesterday": "Yesterday I spent a whole afternoon thinking about {T}.",
    "Honestly": "Honestly I did not expect to care this much about {T}.",
    "Imagine": "Imagine a whole afternoon spent with {T}.",
}
PS_SENTENCES = ["P.S. Bring a snack for the road.", "P.S. Let me know what you think.", "P.S. I will send photos soon.", "P.S. Say hello to everyone for me."]


def topic_of(text: str) -> str:
    pats = [
        r"Explain what makes (.+?) interesting",
        r"new to (.+?)\.",
        r"Describe (.+?)(?: in your own words| in at most|\.)",
        r"for a story about (.+?)(?: in capital|,)",
        r"JSON object with (?:the )?keys .+? for (.+?)\.",
        r"about (.+?)(?: using| as bullet| without| that |\.)",
    ]
    for p in pats:
        m = re.search(p, text)
        if m:
            return m.group(1)
    raise ValueError(text)


def up1(s: str) -> str:
    return s[0].upper() + s[1:]


def low1(s: str) -> str:
    return s[0].lower() + s[1:]


def rules_of(row: dict[str, Any]) -> dict[str, Any]:
    rules = {r["rule"]: r.get("value") for r in row["score_args"]["rules"]}
    return rules


def implied_rules(row: dict[str, Any]) -> dict[str, Any]:
    """What the prompt asks for beyond the row's rule list (format-v1 says "one sentence" but lists no rule for it)."""
    t = row["text"]
    extra: dict[str, Any] = {}
    if re.search(r"\b(?:Write one sentence|Write a sentence)\b", t):
        extra["sentence_count"] = 1
    if "Write two sentences" in t:
        extra["sentence_count"] = 2
    if "List exactly 3 facts" in t:
        extra["bullet_count"] = 3
    return extra


WORD_RE = re.compile(r"[A-Za-z0-9\[\]']+")


def word_count(text: str) -> int:
    return len([w for w in text.split() if re.search(r"[A-Za-z0-9]", w)])


def sentence_count(text: str) -> int:
    body = re.sub(r"^\s*P\.S\..*$", "", text, flags=re.M)  # whether a P.S. is a sentence is left to the ambiguous flag
    body = re.sub(r"<<[^>]*>>", "", body)
    body = re.sub(r"^SECTION \d+.*$", "", body, flags=re.M)
    parts = re.split(r"[.!?]+(?=\s|\"|$)", body)
    return len([p for p in parts if re.search(r"[A-Za-z]", p)])


def word_hits(text: str, word: str) -> int:
    return len(re.findall(rf"\b{re.escape(word)}\b", text, flags=re.I))


def check_rules(text: str, rules: dict[str, Any]) -> dict[str, bool]:
    """This file's own reading of each rule's wording; True where the text keeps the rule."""
    ok: dict[str, bool] = {}
    body = text
    for name, val in rules.items():
        if name == "max_words":
            ok[name] = word_count(body) <= val
        elif name == "min_words":
            ok[name] = word_count(body) >= val
        elif name == "lowercase":
            ok[name] = body == body.lower()
        elif name == "uppercase":
            ok[name] = body == body.upper()
        elif name == "no_commas":
            ok[name] = "," not in body
        elif name == "language_ascii":
            ok[name] = body.isascii()
        elif name == "bullet_count":
            ok[name] = len(re.findall(r"^- ", body, flags=re.M)) == val
        elif name == "paragraph_count":
            ok[name] = len([p for p in re.split(r"\n\s*\n", body.strip()) if p.strip()]) == val
        elif name == "section_count":
            ok[name] = len(re.findall(rf"^{val['marker']} \d+", body, flags=re.M)) == val["count"]
        elif name == "sentence_count":
            ok[name] = sentence_count(body) == val
        elif name == "highlight_count":
            ok[name] = len(re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", body)) >= val
        elif name == "placeholder_count":
            ok[name] = len(re.findall(r"\[[^\]\n]+\]", body)) >= val
        elif name == "title":
            ok[name] = re.search(r"<<[^<>\n]+>>", body) is not None
        elif name == "quotation":
            s = body.strip()
            ok[name] = len(s) > 1 and s[0] == '"' and s[-1] == '"'
        elif name == "starts_with":
            ok[name] = re.match(rf"{re.escape(val)}\b", body.strip(), flags=re.I) is not None
        elif name == "ends_with":
            ok[name] = body.strip().rstrip('"').endswith(val) if " " in val else re.search(rf"\b{re.escape(val)}[.!]?$", body.strip()) is not None
        elif name == "not_contains":
            ok[name] = word_hits(body, val) == 0
        elif name == "contains":
            ok[name] = word_hits(body, val) >= 1
        elif name == "keyword_count":
            ok[name] = word_hits(body, val["word"]) >= val["min"]
        elif name == "postscript":
            ok[name] = re.search(rf"^\s*{re.escape(val)}", body, flags=re.M) is not None
        elif name == "json":
            try:
                s = body.strip()
                if s.startswith("```"):
                    s = s.split("\n", 1)[1].rsplit("```", 1)[0]
                obj = json.loads(s)
                ok[name] = isinstance(obj, dict)
            except ValueError:
                ok[name] = False
        elif name == "json_keys":
            try:
                s = body.strip()
                if s.startswith("```"):
                    s = s.split("\n", 1)[1].rsplit("```", 1)[0]
                obj = json.loads(s)
                ok[name] = isinstance(obj, dict) and all(k in obj for k in val)
            except ValueError:
                ok[name] = False
        else:
            raise ValueError(name)
    return ok


class CannotBuild(Exception):
    """The builder cannot place this combination; the caller picks another variant."""


class Draft:
    """An answer under construction: units (sentences, bullets, paragraphs or sections) of sentences."""

    def __init__(self, row: dict[str, Any], rules: dict[str, Any], seed: int) -> None:
        self.row = row
        self.rules = rules
        self.topic = topic_of(row["text"])
        self.next_filler = seed
        self.kind = d_kind(rules)
        n = {"sections": lambda: rules["section_count"]["count"], "bullets": lambda: rules["bullet_count"], "paragraphs": lambda: rules["paragraph_count"]}.get(
            self.kind, lambda: 1
        )()
        if self.kind == "sentences":
            needed = (
                ("starts_with" in rules)
                + ("ends_with" in rules)
                + (rules["keyword_count"]["min"] if "keyword_count" in rules else 0)
                + ("contains" in rules)
                + ("placeholder_count" in rules)
            )
            short = rules.get("max_words", 100) <= 12
            per = rules.get("sentence_count") or max(1 if short else 2 if "max_words" in rules else 3, needed + 1, needed + rules.get("highlight_count", 0))
        else:
            per = 2 if self.kind in ("paragraphs", "sections") else 1
        self.special: set[str] = set()
        self.units: list[list[str]] = [[self.filler() for _ in range(per)] for _ in range(n)]
        self.title = "<<" + up1(f"notes on {self.topic}") + ">>" if "title" in rules else ""
        self.ps = PS_SENTENCES[seed % len(PS_SENTENCES)] if "postscript" in rules else ""
        self.highlights = rules.get("highlight_count", 0)
        self.bold_highlights = False
        self.quote = "quotation" in rules
        self.case = "lower" if "lowercase" in rules else "upper" if "uppercase" in rules else ""
        self.one_per_line = "poem" in row["text"]  # a poem comes one line per sentence
        self.ends_own_line = False

    def filler(self) -> str:
        s = FILLER[self.next_filler % len(FILLER)]
        self.next_filler += 7
        return up1(s.format(T=self.topic))

    def free_positions(self) -> list[tuple[int, int]]:
        return [(u, k) for u, unit in enumerate(self.units) for k, s in enumerate(unit) if s not in self.special]

    def put(self, sentence: str, *, from_end: bool = False) -> None:
        free = self.free_positions()
        if not free:
            raise CannotBuild(f"{self.row['id']}: no free sentence slot")
        u, k = free[-1] if from_end else free[0]
        self.units[u][k] = sentence
        self.special.add(sentence)

    def append(self, sentence: str) -> None:
        """Add a sentence to the last unit, before a closing phrase if the row asks for one."""
        last = self.units[-1]
        if "ends_with" in self.rules:
            last.insert(len(last) - 1, sentence)
        else:
            last.append(sentence)

    def compose_required(self, keyword_n: int | None = None, placeholders: int | None = None, drop_contains: bool = False) -> None:
        r = self.rules
        if "starts_with" in r:
            self.units[0][0] = STARTERS[r["starts_with"]].format(T=self.topic)
            self.special.add(self.units[0][0])
        if "ends_with" in r:
            val = r["ends_with"]
            last = f"After a long look at {self.topic} I felt finished and done." if val == "done" else val
            self.units[-1][-1] = last
            self.special.add(last)
        if "keyword_count" in r:
            kw = r["keyword_count"]
            for j in range(kw["min"] if keyword_n is None else keyword_n):
                self.put(KEYWORD_SENTENCES[kw["word"]][j % 3])
        if "contains" in r and not drop_contains:
            self.put(CONTAINS_SENTENCES[r["contains"]], from_end=True)
        if "placeholder_count" in r:
            n = r["placeholder_count"] if placeholders is None else placeholders
            if n:
                self.put(PLACEHOLDER_SENTENCE[n], from_end=True)

    def exact_sentence(self, n: int) -> str | None:
        tw = len(self.topic.split())
        for p in PREDICATES:
            if tw + len(p.split()) == n:
                return up1(f"{self.topic} {p}")
        return EXACT_LENGTH.get(n)

    def render(self) -> str:
        sents = [list(u) for u in self.units]
        closing = self.rules.get("ends_with")
        # highlights: wrap the last two words of the first sentences that are long enough
        done = 0
        for unit in sents:
            for k, s in enumerate(unit):
                if done >= self.highlights:
                    break
                words_ = s[:-1].split(" ")
                if len(words_) < 4 or "[" in s or s == closing or s.endswith("done."):
                    continue
                mark = "**" if self.bold_highlights else "*"
                if self.topic in s:  # highlight the topic where the sentence names it, else its last two words
                    unit[k] = s.replace(self.topic, f"{mark}{self.topic}{mark}", 1)
                elif s.startswith(up1(self.topic)):
                    unit[k] = f"{mark}{up1(self.topic)}{mark}" + s[len(self.topic) :]
                else:
                    unit[k] = " ".join(words_[:-2]) + f" {mark}{words_[-2]} {words_[-1]}{mark}" + s[-1]
                done += 1
        if done < self.highlights:
            raise CannotBuild(f"{self.row['id']}: not enough sentences to highlight")
        sep = "\n" if self.one_per_line else " "
        if self.kind == "sentences":
            body = sep.join(sents[0])
            if self.ends_own_line and len(sents[0]) > 1:
                body = " ".join(sents[0][:-1]) + "\n\n" + sents[0][-1]
        elif self.kind == "bullets":
            body = "\n".join("- " + " ".join(u) for u in sents)
        elif self.kind == "paragraphs":
            body = "\n\n".join(sep.join(u) for u in sents)
        else:
            marker = self.rules["section_count"]["marker"]
            body = "\n\n".join(f"{marker} {j + 1}\n" + " ".join(u) for j, u in enumerate(sents))
        if self.ps:
            body += ("\n" if self.kind == "paragraphs" else "\n\n") + self.ps
        if self.title:
            body = self.title + "\n\n" + body
        if self.case == "lower":
            body = body.lower()
        elif self.case == "upper":
            body = body.upper()
        if self.quote:
            body = f'"{body}"'
        return body

    def structure_words(self) -> int:
        """Words that are scaffolding rather than prose: the title, section markers and the P.S. tag."""
        n = word_count(self.title) + (1 if self.ps else 0)
        if self.kind == "sections":
            n += 2 * len(self.units)
        return n

    def fit_words(self, target: int) -> None:
        """Make the word count exactly target by resizing free sentences (their number stays put where it can)."""
        for _ in range(60):
            n = word_count(self.render())
            if n == target:
                return
            free = self.free_positions()
            if not free:
                raise CannotBuild(f"{self.row['id']}: nothing free to resize")
            u, k = free[-1]
            cur = word_count(self.units[u][k])
            need = target - (n - cur)
            sentence = self.exact_sentence(need) if need >= 2 else None
            if sentence is not None and sentence not in self.special:
                self.units[u][k] = sentence
                self.special.add(sentence)  # resized once; the next pass resizes another
                continue
            if need > 13:
                self.append(self.filler())
            elif len(self.units[u]) > 1 and "sentence_count" not in self.rules:
                self.units[u].pop(k)
            else:
                raise CannotBuild(f"{self.row['id']}: cannot fit {target} words")
        raise CannotBuild(f"{self.row['id']}: word fitting did not settle")


def fresh(row: dict[str, Any], rules: dict[str, Any], seed: int, **kw: Any) -> Draft:
    d = Draft(row, rules, seed)
    d.compose_required(**kw)
    if "min_words" in rules:
        while word_count(d.render()) < rules["min_words"] + 6:
            d.append(d.filler())
    if "max_words" in rules and word_count(d.render()) > rules["max_words"] - 2:
        d.fit_words(rules["max_words"] - 3)
    return d


def json_instruction_text(row: dict[str, Any], keys: list[str], variant: str) -> str:
    topic = topic_of(row["text"])
    mood = ["calm", "cozy", "wistful", "lively", "peaceful"][len(topic) % 5]
    vals = {
        "topic": topic,
        "mood": mood,
        "title": up1(topic),
        "summary": f"A short, {mood} piece about {topic}.",
        "name": up1(topic),
        "reason": f"It feels {mood}.",
    }
    obj = {k: vals.get(k, "n/a") for k in keys}
    if variant == "fenced":
        return "```json\n" + json.dumps(obj, indent=2) + "\n```"
    if variant == "bare":
        return json.dumps(obj)
    if variant == "prose-after":
        return json.dumps(obj) + "\n\nLet me know if you want more keys!"
    if variant == "single-quotes":
        return "{" + ", ".join(f"'{k}': '{v}'" for k, v in obj.items()) + "}"
    if variant == "missing-key":
        return json.dumps({k: obj[k] for k in keys[:-1]})
    if variant == "extra-key":
        return json.dumps({**obj, "notes": "none"})
    if variant == "trailing-comma":
        return json.dumps(obj, indent=2)[:-2] + ",\n}"
    if variant == "capitalised-keys":
        return json.dumps({up1(k): v for k, v in obj.items()})
    raise ValueError(variant)


def instruction_json_cases(row: dict[str, Any], i: int) -> None:
    rules = rules_of(row)
    keys = rules.get("json_keys") or re.findall(r"'(\w+)'", row["text"].split("Reply")[0])[-2:] or ["topic", "mood"]
    rid = row["id"]
    j = int(rid[-3:]) // 8 + i  # the format suites repeat a prompt every eight rows: vary across the repeats
    right = "fenced" if j % 2 else "bare"
    add(rid, json_instruction_text(row, keys, right), True, f"instr-json-{right}")
    wrong = ["single-quotes", "missing-key", "trailing-comma", "prose-after", "capitalised-keys", "extra-key"][j % 6]
    verdict, amb = {
        "single-quotes": (False, False),
        "missing-key": (False, False),
        "trailing-comma": (False, True),
        "prose-after": (False, True),
        "capitalised-keys": (False, True),
        "extra-key": (True, True),
    }[wrong]
    if wrong in ("missing-key", "capitalised-keys", "extra-key") and "json_keys" not in rules and "keys" not in row["text"]:
        wrong, verdict, amb = "single-quotes", False, False
    add(rid, json_instruction_text(row, keys, wrong), verdict, f"instr-json-{wrong}", ambiguous=amb)


# how a single rule is broken, and whether careful graders could disagree that it is broken
BREAKS = {
    "max_words": "one-word-over",
    "min_words": "one-word-short",
    "lowercase": "one-capital",
    "uppercase": "one-lowercase-word",
    "no_commas": "one-comma",
    "language_ascii": "curly-apostrophe",
    "bullet_count": "one-bullet-too-many",
    "paragraph_count": "one-paragraph-too-many",
    "section_count": "one-section-too-many",
    "sentence_count": "one-sentence-too-many",
    "highlight_count": "one-highlight-short",
    "placeholder_count": "one-placeholder-short",
    "title": "bold-not-angle-brackets",
    "quotation": "closing-quote-missing",
    "starts_with": "chatty-opener",
    "ends_with": "wrong-closing",
    "not_contains": "forbidden-word-other-case",
    "contains": "word-missing",
    "keyword_count": "keyword-one-short",
    "postscript": "ps-missing",
}


def cased(text: str, rules: dict[str, Any]) -> str:
    """Text inserted into an answer takes the answer's letter case, so it breaks no case rule by accident."""
    if "lowercase" in rules:
        return text.lower()
    if "uppercase" in rules:
        return text.upper()
    return text


def first_sentence_end(text: str) -> int:
    """Where the first sentence's closing mark is (the last character when there is one sentence)."""
    m = re.search(r"[.!?](?=\s)", text)
    return m.start() if m else len(text.rstrip('"')) - 1


def broken(row: dict[str, Any], rules: dict[str, Any], target: str, seed: int) -> str:
    kw: dict[str, Any] = {}
    if target == "keyword_count":
        kw["keyword_n"] = rules["keyword_count"]["min"] - 1
    if target == "placeholder_count":
        kw["placeholders"] = rules["placeholder_count"] - 1
    if target == "contains":
        kw["drop_contains"] = True
    d = fresh(row, rules, seed, **kw)
    if target == "max_words":
        # one word over even for a grader who skips titles, section markers and the P.S. tag
        d.fit_words(rules["max_words"] + 1 + d.structure_words())
    elif target == "min_words":
        d.fit_words(rules["min_words"] - 1)
    elif target == "highlight_count":
        d.highlights -= 1
    elif target in ("bullet_count", "paragraph_count", "section_count"):
        d.units.append([d.filler() for _ in d.units[-1]])
        if "ends_with" in rules:  # keep the closing phrase last
            d.units[-1][-1], d.units[-2][-1] = d.units[-2][-1], d.units[-1][-1]
    elif target == "sentence_count":
        d.append(d.filler())
    elif target == "title":
        d.title = "**" + d.title[2:-2] + "**"
    elif target == "postscript":
        d.ps = ""
    elif target == "not_contains":
        extra = FORBIDDEN_IN_OTHER_CASE[rules["not_contains"]]
        if "sentence_count" in rules:
            d.put(extra)
        else:
            d.append(extra)
    text = d.render()
    if target == "lowercase":
        # a capital where a model slips back into habit: the start of the second sentence, else the first letter
        m = re.search(r"[.!?] ([a-z])", text) or re.search(r"([a-z])", text)
        assert m is not None
        j = m.start(1)
        text = text[:j] + text[j].upper() + text[j + 1 :]
    elif target == "uppercase":
        m = list(re.finditer(r"\b([A-Z]{4,})\b", text))
        w = m[len(m) // 2]
        text = text[: w.start()] + w.group(1).lower() + text[w.end() :]
    elif target == "no_commas":
        j = first_sentence_end(text)
        text = text[:j] + cased(", of course", rules) + text[j:]
    elif target == "language_ascii":
        j = first_sentence_end(text)
        text = text[:j] + cased(" and that’s the truth", rules) + text[j:]
    elif target == "quotation":
        text = text[:-1]
    elif target == "starts_with":
        text = cased("So ", rules) + low1(text)
    elif target == "ends_with":
        val = rules["ends_with"]
        if val == "done":
            text = text.rstrip(".") + " for today."
        elif val.endswith("."):
            text = text[: text.rfind(val)] + val[:-1] + "!"
        else:
            text = text[: text.rfind(val)] + val[:-1] + "."
    return text


def instruction_cases() -> None:
    rows = rows_where("instruction")
    for i, row in enumerate(rows):
        rid = row["id"]
        if rid.startswith("format") and int(rid[-3:]) // 8 % 2 == 1:
            continue  # the format suites repeat eight prompts five times; three rounds of each are enough
        rules = rules_of(row)
        if "json" in rules:
            instruction_json_cases(row, i)
            continue
        if "title for a story" in row["text"] or "Write a title of" in row["text"]:
            title_row_cases(row, i)
            continue
        implied = implied_rules(row)
        full = {**implied, **rules}
        # P.S. sentences and sentence counts: graders split on whether the P.S. is a sentence
        amb_ps = "postscript" in full and "sentence_count" in full
        try:
            variant = unusual_variant(row, full, i)
        except CannotBuild:
            variant = None
        # right, in an ordinary layout where no unusual layout is made for the row
        if variant is None:
            text = fresh(row, full, i).render()
            verify(rid, text, full, None)
            add(rid, text, True, "instr-all-rules-kept", ambiguous=amb_ps)
        # right, in an unusual layout or exactly on a boundary
        if variant is not None:
            vtext, vstyle, vamb = variant
            verify(rid, vtext, full, None)
            add(rid, vtext, True, f"instr-{vstyle}", ambiguous=vamb or amb_ps)
        # wrong: exactly one rule broken, rotating over the row's rules
        targets = [r for r in rules if r in BREAKS] or [r for r in implied if r in BREAKS]
        made = 0
        for j in range(len(targets)):
            target = targets[(i + j) % len(targets)]
            try:
                btext = broken(row, full, target, i + j)
            except CannotBuild:
                continue
            verify(rid, btext, full, target)
            amb = amb_ps
            if target == "contains" and rules["contains"].lower() in btext.lower():
                amb = True  # "gardening" holds "garden": graders differ on whether that counts
            add(rid, btext, False, f"instr-{BREAKS[target]}", ambiguous=amb)
            made += 1
            if made == (2 if len(targets) > 1 and i % 6 == 0 else 1):
                break
        # format-v1 rows list fewer rules than their prompt states: break only what the prompt states
        only_prompt = [k for k in implied if k not in rules]
        if only_prompt and i % 4 == 1:
            k = only_prompt[0]
            btext = broken(row, full, k, i + 5)
            verify(rid, btext, full, k)
            add(rid, btext, False, f"instr-prompt-only-{BREAKS[k]}", ambiguous=True)
    hand_instruction()


def unusual_variant(row: dict[str, Any], rules: dict[str, Any], i: int) -> tuple[str, str, bool] | None:
    k = i % 6
    if "max_words" in rules and k in (0, 3):
        d = fresh(row, rules, i + 11)
        d.fit_words(rules["max_words"])
        return d.render(), "exactly-max-words", False
    if "min_words" in rules and k in (1, 4):
        d = fresh(row, rules, i + 11)
        extra = d.structure_words()
        d.fit_words(rules["min_words"] + extra)
        return d.render(), "exactly-min-words" if not extra else "min-words-boundary", False
    if "highlight_count" in rules and k == 2:
        d = fresh(row, rules, i + 11)
        d.bold_highlights = True
        return d.render(), "bold-highlights", True
    if "ends_with" in rules and rules["ends_with"] != "done" and d_kind(rules) == "sentences" and k % 2 == 0:
        d = fresh(row, rules, i + 11)
        d.ends_own_line = True
        return d.render(), "closing-phrase-own-paragraph", False
    if (
        d_kind(rules) == "sentences"
        and not rules.keys() & {"max_words", "quotation"}
        and rules.get("sentence_count") != 1
        and k == 5
        and "poem" not in row["text"]
    ):
        d = fresh(row, rules, i + 11)
        d.one_per_line = True
        return d.render(), "one-sentence-per-line", False
    return None


def d_kind(rules: dict[str, Any]) -> str:
    for k, kind in (("section_count", "sections"), ("bullet_count", "bullets"), ("paragraph_count", "paragraphs")):
        if k in rules:
            return kind
    return "sentences"


def verify(rid: str, text: str, rules: dict[str, Any], broken_rule: str | None) -> None:
    ok = check_rules(text, rules)
    failed = sorted(k for k, v in ok.items() if not v)
    want = [] if broken_rule is None else [broken_rule]
    if failed != want:
        raise ValueError(f"{rid}: expected {want or 'no'} rule broken, got {failed}:\n{text}")


TITLE_RIGHT = ["LOST IN {U}", "NOTES FROM {U}", "# {U}: A STORY", '"THE LAST DAY OF {U}"']


def title_row_cases(row: dict[str, Any], i: int) -> None:
    rid = row["id"]
    rules = rules_of(row)
    u = topic_of(row["text"]).upper()
    t = TITLE_RIGHT[i % 4].format(U=u)
    verify(rid, t, rules, None)
    add(rid, t, True, f"instr-title-caps-{i % 4}")
    if i % 2 == 0:
        wrong = f"LOST IN {u} ON THE LONGEST AND COLDEST NIGHT OF THE WHOLE YEAR"
        verify(rid, wrong, rules, "max_words")
        add(rid, wrong, False, "instr-title-too-long")
    else:
        wrong = f"LOST IN {u} (a short story)"
        verify(rid, wrong, rules, "uppercase")
        add(rid, wrong, False, "instr-title-lowercase-subtitle")


def hand_instruction() -> None:
    """Hand-written answers for readings a composed answer cannot reach: substrings, lookalike
    characters, markdown variants, abbreviations inside sentences, and closing text after a phrase."""
    skip = "skip"  # the generator's own checker reads this one too naively; the verdict is by hand
    specs: list[tuple[str, str, bool, str, bool, str | None]] = [
        # the forbidden word only inside other words, or in another form
        (
            "instr1-003",
            "Hi team,\n\nEveryone keeps asking about the sea trip, so here is every detail I have. We leave early and come back by evening.\n\nBest,\nMara",
            True,
            "not-contains-only-as-substring",
            False,
            None,
        ),
        (
            "instr1-063",
            "Very few places feel as alive as a city at night. The lights, the sounds and the strangers all tell a story.",
            False,
            "not-contains-sentence-start",
            False,
            "not_contains",
        ),
        (
            "instr1-078",
            "The rain was very-nearly over when Lena reached the bus stop. She laughed and waited for the next one.",
            False,
            "not-contains-hyphenated",
            False,
            "not_contains",
        ),
        (
            "instr1-109",
            "We rode beautifully smooth roads past the lake and stopped for bread in a village where nobody spoke English.",
            True,
            "not-contains-other-form",
            True,
            skip,
        ),
        (
            "instr1-048",
            "Autumn came early to Nice this year,\nleaves on the promenade,\nsea wind in the plane trees.",
            False,
            "not-contains-place-name",
            True,
            skip,
        ),
        (
            "instr1-000",
            "In the garden, reality is slow:\nseeds, then rain, then green,\nand the real work is waiting.",
            True,
            "not-contains-near-miss",
            False,
            None,
        ),
        # keyword counts and lookalikes
        (
            "instr1-105",
            "Sometimes the city at night feels timeless. Nobody keeps track of time there.",
            False,
            "keyword-substrings-not-counted",
            False,
            "keyword_count",
        ),
        ("instr1-105", "Time moves differently after dark. Every TIME I walk home I notice something new.", True, "keyword-other-case", False, None),
        (
            "instr1-016",
            "Hi Sam,\n\nMy first day went well. The office has great natural light, the desks are light and modern, and the team made the whole day feel light.\n\nThanks,\nAlex",
            True,
            "keyword-three-in-one-sentence",
            False,
            None,
        ),
        (
            "instr1-016",
            "Hi Sam,\n\nLight, lighter, lightest: that is how my mood went on day one. The lighting in the office helps too.\n\nThanks,\nAlex",
            False,
            "keyword-inflections-only",
            True,
            skip,
        ),
        (
            "instr1-119",
            "The first time I rode to the coast I got lost. The second time I took a map. By the third time I knew every turn and I stopped checking the map at all.",
            True,
            "keyword-exactly-min",
            False,
            None,
        ),
        ("instr1-069", "Mornings by the sea are my favourite. The water is flat and the gulls are loud.", True, "contains-plural-form", True, skip),
        (
            "instr1-100",
            "LEARNING TO COOK IS NOISY AT FIRST. THEN ONE DAY THE KITCHEN GOES QUIET AND YOU JUST KNOW WHAT TO DO.",
            True,
            "contains-uppercase",
            False,
            None,
        ),
        # closing phrases with something after them, or only whitespace after them
        (
            "instr1-090",
            "Hi Jo,\n\nThe new library wing opens on Monday and it has a reading garden.\n\nIs there anything else I can help with? 😊",
            False,
            "ends-with-emoji-after",
            False,
            "ends_with",
        ),
        (
            "instr1-075",
            "Neon hums on wet stone,\ntaxis blink and disappear,\nthe last train sighs home.\nThat is all for now.\n",
            True,
            "ends-with-trailing-newline",
            False,
            None,
        ),
        (
            "instr1-084",
            "Waves fold into foam,\nthe gulls argue with the wind.\nThat is all for now.\n\n— written by the sea",
            False,
            "ends-with-signature-after",
            False,
            "ends_with",
        ),
        ("instr1-103", "I found a coffee place that roasts its own beans. That is all for now", False, "ends-with-period-missing", True, skip),
        # openings
        (
            "instr1-096",
            "Yesterday, I finally planted the tomatoes along the back fence. The soil was perfect after the rain.",
            True,
            "starts-with-then-comma",
            False,
            None,
        ),
        ("instr1-108", "Yesterday's visit to the library reminded me how calm those rooms are.", True, "starts-with-possessive", True, skip),
        ("instr1-013", "**Imagine** a small cafe where the owner knows your order before you sit down.", True, "starts-with-bold", True, skip),
        ("instr1-028", "# Mountains\n\nToday I climbed above the clouds for the first time.", False, "starts-with-heading-first", True, skip),
        # postscripts
        (
            "instr1-006",
            "Mountains change the weather, hide rare plants and test everyone who climbs them.\n\nP.S.: The sunrise from the summit is worth the early start.",
            True,
            "ps-with-colon",
            False,
            None,
        ),
        (
            "instr1-021",
            "The leaves turned gold the week Nora moved to the village. By November she knew every neighbour.\n\nPS: autumn is my favourite season.",
            False,
            "ps-without-periods",
            True,
            skip,
        ),
        (
            "instr1-030",
            "Hi Kim,\n\nThe mountains were wonderful and the hut had hot showers.\n\np.s. bring your boots next time!",
            False,
            "ps-lowercase",
            True,
            skip,
        ),
        (
            "instr1-030",
            "P.S. I almost forgot to say thanks for the map!\n\nHi Kim,\n\nThe mountains were wonderful and the hut had hot showers.",
            False,
            "ps-at-the-start",
            False,
            skip,
        ),
        # titles, bullets, sections and paragraphs in other shapes
        ("instr1-064", "Coffee is a small daily ritual: the *smell* first, then the *first sip*.\n\n<<Morning Coffee>>", True, "title-at-end", True, None),
        ("instr1-064", "<< Morning Coffee >>\n\nCoffee is a small daily ritual: the *smell* first, then the *first sip*.", True, "title-padded", False, None),
        (
            "instr1-008",
            "<<Autumn Notes>>\n\n* Leaves turn red and gold.\n* Days get shorter.\n* Apples are ready to pick.\n* Mornings are misty.\n* Sweaters come out.",
            False,
            "bullets-asterisk",
            True,
            skip,
        ),
        (
            "instr1-012",
            "- Carry an umbrella.\n- Wear shoes that do not slip.\n  - Rubber soles are best.\n- Check the forecast.\n- Keep a towel at work.\n- Enjoy the sound of it.",
            False,
            "bullets-nested-extra",
            True,
            skip,
        ),
        (
            "instr1-099",
            "Three reasons to visit your library this month:\n\n- Free books and films.\n- Quiet rooms to work in.\n- Friendly staff who can find anything.",
            True,
            "bullets-with-intro-line",
            True,
            None,
        ),
        (
            "instr1-024",
            "1. They shape the weather.\n2. They hold rare plants.\n3. They test climbers.\n4. They store water as snow.\n5. They are old beyond imagining.",
            False,
            "bullets-numbered",
            False,
            "bullet_count",
        ),
        (
            "instr1-015",
            "SECTION 1: Lights\nNeon signs flicker above the wet street.\n\nSECTION 2: Sounds\nA tram rattles past and somebody laughs.\n\nSECTION 3: People\nNight workers share a last coffee.",
            True,
            "sections-with-titles",
            False,
            None,
        ),
        (
            "instr1-027",
            "Section 1\nThe route is new every time.\n\nSection 2\nYou meet people you would never meet otherwise.\n\nSection 3\nYour legs remember it for days.",
            False,
            "sections-title-case-marker",
            True,
            skip,
        ),
        (
            "instr1-054",
            "### SECTION 1\nStay on well-lit streets.\n\n### SECTION 2\nKeep your phone charged.\n\n### SECTION 3\nTell a friend where you are going.",
            True,
            "sections-as-headings",
            False,
            skip,
        ),
        (
            "instr1-045",
            "Rain all week here, and the cat refuses to go outside.\n\n\nI hope it is sunnier where you are. Write soon!",
            True,
            "paragraphs-two-blank-lines",
            True,
            None,
        ),
        # sentence counts with punctuation that is not a sentence end
        (
            "instr1-066",
            "Rain smells of wet earth, e.g. after a dry week. It cools the air. It fills the rivers. It also makes the city quieter.",
            True,
            "sentences-abbreviation-inside",
            False,
            skip,
        ),
        ("instr1-093", "Lights glitter!? Streets hum... Strangers share taxis. Nobody hurries home.", True, "sentences-mixed-end-marks", False, skip),
        (
            "instr1-066",
            "Rain is interesting for many reasons: it feeds plants; it cools the air; it fills rivers; it sounds lovely on a roof.",
            False,
            "sentences-one-long",
            False,
            "sentence_count",
        ),
        # commas, ASCII and quotation marks that look alike
        ("instr1-009", "Trains carried 1,000 people a day on the old line. Today they carry twice that.", False, "comma-in-number", False, "no_commas"),
        (
            "instr1-051",
            "Autumn is gold and grey; it smells of smoke and rain. The days shrink - and the evenings grow long.",
            True,
            "no-commas-semicolons-dashes",
            False,
            None,
        ),
        ("instr1-039", "Hi Ana! Day one done... the team is kind and the coffee is free. Can't wait for tomorrow.", True, "ascii-three-dots", False, None),
        (
            "instr1-039",
            "Hi Ana! Day one done… the team is kind and the coffee is free. Can't wait for tomorrow.",
            False,
            "ascii-unicode-ellipsis",
            False,
            "language_ascii",
        ),
        ("instr1-042", "New desk -- new name tag --\nnew faces I will soon know...\nday one, done.", True, "ascii-double-hyphens", False, None),
        ("instr1-088", "“Rain taps on the window all afternoon and the street smells of wet stone.”", False, "quotation-curly-breaks-ascii", False, skip),
        ("instr1-057", "“Hi Sam, I am finally learning to cook. Last night I made soup and nobody got sick. Best, Lea”", True, "quotation-curly", True, skip),
        ("instr1-057", '"Hi Sam, I am finally learning to cook." That is what I would write to a colleague.', False, "quotation-partial", False, "quotation"),
        # case rules with placeholders and titles
        (
            "instr1-023",
            "<<city lights>>\n\na city at night is *never fully asleep*. the *neon signs* hum and the *last trains* rattle home.",
            True,
            "lowercase-title-and-highlights",
            False,
            None,
        ),
        (
            "instr1-023",
            "<<City Lights>>\n\na city at night is *never fully asleep*. the *neon signs* hum and the *last trains* rattle home.",
            False,
            "lowercase-title-capitalised",
            False,
            "lowercase",
        ),
        (
            "instr1-080",
            "<<first steps in the garden>>\n\nask [Name] at [Garden Centre] which seeds suit your soil, and plant them before [date].",
            False,
            "lowercase-placeholder-capitalised",
            False,
            "lowercase",
        ),
        (
            "instr1-025",
            "- A boat named {ship} leaves the harbour.\n- Captain {name} waves goodbye.\n- The sea turns grey near {place}.\n- Everyone is home by dawn.",
            False,
            "placeholders-curly-braces",
            False,
            "placeholder_count",
        ),
    ]
    for rid, text, verdict, style, amb, check in specs:
        if check != skip:
            rules = {**implied_rules(ROWS[rid][1]), **rules_of(ROWS[rid][1])}
            verify(rid, text, rules, check if not verdict else None)
        add(rid, text, verdict, f"instr-{style}", ambiguous=amb)


# ---------------------------------------------------------------- long-context needle


def needle_cases() -> None:
    for i, row in enumerate(rows_where("needle")):
        rid, code = row["id"], row["answer"]
        box = re.search(r"box (\d+)\?", row["text"]).group(1)  # type: ignore[union-attr]
        other = ROWS[f"longctx1-{(int(rid[-3:]) + 1) % 8:03d}"][1]["answer"]
        swapped = code[:2] + code[3] + code[2] if code[2] != code[3] else code[:3] + str((int(code[3]) + 1) % 10)
        rights = [
            (code, False),
            (f"The vault code for box {box} is **{code}**.", False),
            (f"`{code}`", False),
            (f"Code: {code}\n\n(It appears once in the archive notes.)", False),
            (f"{code[0]} {code[1]} {code[2]} {code[3]}", True),
            (f"I scanned the whole text. Boxes are mentioned many times, but only one sentence gives box {box} a code: {code}.", False),
        ]
        wrongs = [
            (swapped, False),
            (f"The vault code for box {box} is {other}.", False),
            (f"I couldn't find a vault code for box {box} in the text.", False),
            (f"It's either {code} or {swapped}.", False),
            (f"Box {box}", False),
            ("The humidity reading in the notebook is the code.", False),
        ]
        for j in (i % 6, (i + 3) % 6):
            text, amb = rights[j]
            add(rid, text, True, f"needle-right-{j}", ambiguous=amb)
            text, amb = wrongs[j]
            add(rid, text, False, f"needle-wrong-{j}", ambiguous=amb)


# ---------------------------------------------------------------- code


CODE = {
    "code1-000": ("def add(a, b):\n    return a + b", "def add(a, b):\n    return str(a) + str(b)"),
    "code1-001": ("def is_even(n):\n    return n % 2 == 0", "def is_even(n):\n    return n % 2"),
    "code1-002": ("def reverse_string(s):\n    return s[::-1]", "def reverse_string(s):\n    return ''.join(sorted(s, reverse=True))"),
    "code1-003": (
        "def maximum(xs):\n    best = xs[0]\n    for x in xs[1:]:\n        if x > best:\n            best = x\n    return best",
        "def maximum(xs):\n    best = 0\n    for x in xs:\n        if x > best:\n            best = x\n    return best",
    ),
    "code1-004": ("def count_vowels(s):\n    return sum(1 for c in s if c in 'aeiou')", "def count_vowels(s):\n    return sum(1 for c in s if c in 'aeiouy')"),
    "code1-005": (
        "def factorial(n):\n    result = 1\n    for k in range(2, n + 1):\n        result *= k\n    return result",
        "def factorial(n):\n    result = 1\n    for k in range(1, n):\n        result *= k\n    return result",
    ),
    "code1-006": (
        "def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)",
        "def fizzbuzz(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)",
    ),
    "code1-007": ("def square_all(xs):\n    return [x * x for x in xs]", "def square_all(xs):\n    return map(lambda x: x * x, xs)"),
    "code1-008": ("def is_palindrome(s):\n    return s == s[::-1]", "def is_palindrome(s):\n    return s[0] == s[-1]"),
    "code1-009": ("def sum_digits(n):\n    return sum(int(d) for d in str(n))", "def sum_digits(n):\n    return n % 9"),
    "code1-010": ("def first_word(s):\n    return s.split()[0]", "def first_word(s):\n    return s[: s.find(' ')]"),
    "code1-011": ("def celsius_to_f(c):\n    return c * 9 / 5 + 32", "def celsius_to_f(c):\n    return (c + 32) * 9 / 5"),
}
# wrong answers that pass the row's own asserts yet are wrong code: a careful grader still fails them
PASSES_TESTS_BUT_WRONG = {"code1-002", "code1-008", "code1-009"}


def code_cases() -> None:
    for i, row in enumerate(rows_where("code_exec")):
        rid = row["id"]
        good, bad = CODE[rid]
        name = re.search(r"def (\w+)", good).group(1)  # type: ignore[union-attr]
        k = i % 4
        if k == 0:
            add(rid, f"Here's a simple implementation:\n\n```python\n{good}\n```\n\nIt runs in linear time at most.", True, "code-fenced-with-prose")
        elif k == 1:
            add(rid, f"```py\n{good}\n\n\nif __name__ == '__main__':\n    print({name}.__name__, 'ok')\n```", True, "code-py-fence-with-main")
        elif k == 2:
            add(rid, f"```\n{good}\n```", True, "code-fence-no-language")
        else:
            add(rid, good, True, "code-no-fence", ambiguous=True)
        style = "code-passes-tests-but-wrong" if rid in PASSES_TESTS_BUT_WRONG else "code-subtle-bug"
        add(rid, f"```python\n{bad}\n```", False, style)
        if i % 3 == 0:
            add(
                rid, f"```python\n{bad}\n```\n\nWait, that's buggy. Corrected version:\n\n```python\n{good}\n```", True, "code-draft-then-fixed", ambiguous=True
            )
        if i % 3 == 1:
            broken_syntax = good.replace("):", ")", 1)
            add(rid, f"```python\n{broken_syntax}\n```", False, "code-syntax-error")
        if rid == "code1-003":
            add(rid, "```python\ndef maximum(xs):\n    return max(xs)\n```", False, "code-uses-forbidden-builtin")
            add(rid, "```python\ndef maximum(xs):\n    return sorted(xs)[-1]\n```", True, "code-sorted-instead-of-max", ambiguous=True)


# ---------------------------------------------------------------- long generation integrity


def counted(n: int, word: str) -> list[str]:
    return [f"{k}. {word}" for k in range(1, n + 1)]


def token_integrity_cases() -> None:
    for i, row in enumerate(rows_where("token_integrity")):
        if i % 3:
            continue
        rid = row["id"]
        n, word = row["score_args"]["lines"], row["score_args"]["word"]
        lines = counted(n, word)
        mid = n // 2 + (i % 7)
        k = (i // 3) % 10
        if k == 0:
            add(rid, "\n".join(lines), True, "count-exact")
        elif k == 1:
            add(rid, "\n".join(lines) + "\n", True, "count-trailing-newline")
        elif k == 2:
            add(rid, "\n".join(lines[: mid - 1] + lines[mid:]), False, "count-one-line-skipped")
        elif k == 3:
            add(rid, "\n".join(lines[:mid] + [lines[mid - 1]] + lines[mid:]), False, "count-one-line-repeated")
        elif k == 4:
            changed = list(lines)
            changed[mid] = changed[mid].replace(word, word.upper())
            add(rid, "\n".join(changed), False, "count-one-word-uppercased")
        elif k == 5:
            add(rid, "\n".join(lines[:-1]), False, "count-stops-one-short")
        elif k == 6:
            add(rid, f"Here are all {n} lines:\n\n" + "\n".join(lines), True, "count-with-preamble", ambiguous=True)
        elif k == 7:
            add(rid, "```\n" + "\n".join(lines) + "\n```", True, "count-in-code-fence", ambiguous=True)
        elif k == 8:
            changed = list(lines)
            changed[mid] = changed[mid].replace(". ", " ", 1)
            add(rid, "\n".join(changed), False, "count-one-period-missing")
        else:
            add(rid, "\n".join(lines[:3] + ["..."] + lines[-2:]), False, "count-elided")


def main() -> None:
    load()
    numeric_cases()
    exact_cases()
    mc_cases()
    contains_cases()
    abstain_cases()
    tool_cases()
    json_cases()
    instruction_cases()
    needle_cases()
    code_cases()
    token_integrity_cases()
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    right = sum(c["verdict"] for c in CASES)
    amb = sum(c["ambiguous"] for c in CASES)
    print(f"wrote {len(CASES)} cases to {OUT.relative_to(ROOT)} ({right} right, {amb} ambiguous)")


if __name__ == "__main__":
    main()
