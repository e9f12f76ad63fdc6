"""Build benchmarks/scorer_styles_blind3.jsonl: a third held-out set of answer styles (issue 33).

How this set was made, and the blindness rules its author kept:
- The author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args, tools, messages), the seed text that
  says what the suites are for (/work/shared/seeds/evaluation-run.txt and
  workloads.txt), and the two earlier generators
  (benchmarks/make_scorer_styles_blind.py, make_scorer_styles_blind2.py) and their
  .jsonl output: for the line format, and to list their styles so as NOT to repeat
  them. The author never opened src/servescope/scoring/, tests/scoring/,
  benchmarks/scorer_styles.py, benchmarks/scorer_accuracy.py,
  benchmarks/scorer_blind_agreement.py, any scorer result under
  benchmarks/results/, benchmarks/docs/scorer*.md, docs/scored-suites*.md, or the
  git history of any of them, and never ran a scorer or a servescope eval on
  these cases.
- Every case is an answer a real instruct model (small or large, terse or
  chatty, reasoning or not, sometimes in the prompt's language) could give to
  THAT row's prompt. Its verdict is the one a careful human grader gives after
  reading the prompt, the expected answer and the row's rules; verdicts are
  fixed here, by construction, before anything is scored.
- The styles are ones the two earlier sets do not have (their style lists
  were read first and their texts are not repeated): a <think> block that
  reaches a different conclusion than the final line, both ways; the answer in
  a code block; step-by-step work whose intermediate numbers are larger than
  the final one, and the slip of reporting an intermediate as the answer; a
  list of candidates with one marked (tick, arrow, "<- my pick"); "A) ..."
  option text carrying a different letter; the right answer negated ("it is
  not X") and a wrong one negated before the right one; citations, footnote
  and superscript markers glued to the answer; LaTeX boxed{} with text{} and
  mathrm{} (backslash commands); fraction vs decimal vs padded decimal
  equivalents; answers framed in Chinese, Japanese, Russian and Arabic (Latin,
  full-width or Arabic-Indic digits, Cyrillic homoglyph letters); units
  converted (Celsius with Fahrenheit or Kelvin, dollars with euros, ISO codes);
  numerals with spaces or narrow no-break spaces as thousands separators; a
  YAML or JSON answer object; JSON with a BOM, tabs, comments, unquoted keys,
  a YAML body, an array of one-key objects, totals instead of unit prices,
  swapped fields, units inside values; tool calls as text in formats the
  earlier sets lack (<function=...>, <|python_tag|>, the "functions.NAME"
  channel form, XML parameters) and as structure with odd argument encodings
  (tabs and unicode escapes, a trailing newline, a space before colons) or subtle
  slips (mm:ss digits as seconds, the same currency twice, arguments wrapped in
  "params", truncated JSON, a wrong argument name); instruction answers that
  keep every rule with CRLF line endings or trailing spaces, and ones that
  break exactly one rule subtly (an en dash bullet, an em dash aside under
  ASCII-only, the comma a comparative clause naturally takes, a forbidden word
  in a trailing clause, an inflected opener, a single-angle title, Roman
  section numbers, "Postscript:" for "P.S.", a sign-off paragraph, an unclosed
  highlight, a placeholder in angle brackets, a horizontal rule after the
  closing phrase, the keyword only inside a compound); corrupted
  long-generation lines (homoglyphs, zero-width spaces, merged lines, a token
  cut mid-word, a leaked byte token, a spliced CJK character).
- Long-generation integrity rows (token_integrity) are graded as the seed
  defines the suite: "scores token integrity, not correctness: accuracy is the
  share of generations that came back with no spliced token". A skipped,
  repeated or early-stopped line whose tokens are clean is right; the ones that
  only break the count are marked ambiguous because a grader could disagree.
- code_exec rows: code that is wrong on inputs the prompt covers is wrong even
  where it may pass a few tests; cases where only hidden edge cases break it,
  or where the prompt leaves the behaviour open, are marked ambiguous. The code
  answers were run once with plain exec against their row's own asserts while
  they were written, to know which pass (no scorer was run): six wrong answers
  pass those asserts (max() used although forbidden, a palindrome test that
  only compares the ends, and four marked ambiguous).
- Instruction answers are built from the row's rule list by a small composer;
  a checker written here from the prompt wording (not from any scorer) confirms
  that a "right" answer keeps every rule and a "wrong" one breaks exactly the
  rule its style names, so a verdict cannot drift from its construction.
- "ambiguous": true marks cases where careful graders would disagree; an
  accuracy run should leave them out.
- The set holds about 1,720 cases over every text row (1,036 rows of 23
  suites, all eleven scorer families), a little over half of them right and
  about 11 % marked ambiguous; each case's style names how it was written.
- eval-vision-v1 is left out: its prompts are images.

Run: python benchmarks/make_scorer_styles_blind3.py  (deterministic, stdlib only, no network)
"""

from __future__ import annotations

import itertools
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind3.jsonl"

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

ROWS: dict[str, tuple[str, dict[str, Any]]] = {}
ORDER: list[str] = []
CASES: list[dict[str, Any]] = []


def load() -> None:
    for suite in SUITES:
        for line in (DATASETS / f"{suite}.jsonl").read_text().splitlines():
            row = json.loads(line)
            ROWS[row["id"]] = (suite, row)
            ORDER.append(row["id"])


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


def rows_of(scorer: str) -> list[dict[str, Any]]:
    return [ROWS[i][1] for i in ORDER if ROWS[i][1]["scorer"] == scorer]


def suite_of(row: dict[str, Any]) -> str:
    return ROWS[row["id"]][0]


def wants_confidence(row: dict[str, Any]) -> bool:
    return "Confidence:" in row["text"]


def finish(row: dict[str, Any], body: str, conf: int = 90) -> str:
    """Calibration rows ask for a second 'Confidence:' line; keep it where the style allows."""
    if wants_confidence(row):
        return body + f"\nConfidence: {conf}%"
    return body


# ---------------------------------------------------------------- numbers

ARABIC_INDIC = str.maketrans("0123456789-", "٠١٢٣٤٥٦٧٨٩-")
FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def num_value(answer: str) -> Fraction:
    return Fraction(answer)


def fmt(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    return f"{float(v):g}"


def spaced(n: int, sep: str = " ") -> str:
    s = f"{abs(n):,}".replace(",", sep)
    return ("-" if n < 0 else "") + s


def wrong_num(row: dict[str, Any], v: Fraction) -> Fraction:
    """A plausible slip for this row: a carry error, an off-by-one, a sign slip or a near value."""
    cat = row.get("category", "")
    k = int(row["id"][-1]) if row["id"][-1].isdigit() else 0
    if cat == "sub" and v < 0 and k % 2 == 0:
        return -v
    if v.denominator != 1:
        return v + Fraction(1, 2)
    if abs(v) >= 100:
        return v + (10 if k % 2 else -10)
    if abs(v) >= 20:
        return v + (1 if k % 2 else -2)
    return v + (1 if v <= 2 or k % 2 else -1)


def operands(row: dict[str, Any]) -> list[int]:
    return [int(x) for x in re.findall(r"(?<![\w/])-?\d+(?![\w/%])", row["text"].split("End with")[0].split("Reply")[0])]


def work_lines(row: dict[str, Any], v: Fraction) -> tuple[list[str], Fraction] | None:
    """Step-by-step work whose intermediate numbers exceed the final one; returns (lines, a big intermediate)."""
    text = row["text"]
    cat = row.get("category", "")
    m = re.search(r"What is (-?\d+) - (\d+)\?", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        big = a + 1000
        return [f"{a} - {b} = ({a} + 1000) - {b} - 1000", f"{big} - {b} = {big - b}", f"{big - b} - 1000 = {big - b - 1000}"], Fraction(big - b)
    m = re.search(r"What is (\d+) \+ (\d+)\?", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        r10 = -(-b // 10) * 10 + (10 if b % 10 == 0 else 0)
        return [f"round {b} up to {r10}", f"{a} + {r10} = {a + r10}", f"{a + r10} - {r10 - b} = {a + b}"], Fraction(a + r10)
    m = re.search(r"What is (\d+) × (\d+)\?", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        return [f"{a} × {b + 1} = {a * (b + 1)}", f"{a * (b + 1)} - {a} = {a * b}"], Fraction(a * (b + 1))
    m = re.search(r"What is (\d+)% of (\d+)\?", text)
    if m:
        p, n = int(m.group(1)), int(m.group(2))
        return [f"{n} × {p} = {n * p}", f"{n * p} ÷ 100 = {fmt(Fraction(n * p, 100))}"], Fraction(n * p)
    m = re.search(r"costs \$(\d+)\. How many dollars do (\d+) tickets", text)
    if m:
        p, q = int(m.group(1)), int(m.group(2))
        return [f"{q} × {p} = {p * q}", f"check: {p * q} + {p} = {p * (q + 1)} would be {q + 1} tickets"], Fraction(p * (q + 1))
    m = re.search(r"holds (\d+) boxes and each box holds (\d+) pencils\. (\d+) pencils", text)
    if m:
        a, b, c = int(m.group(1)), int(m.group(2)), int(m.group(3))
        return [f"{a} × {b} = {a * b} pencils in all", f"{a * b} - {c} = {a * b - c}"], Fraction(a * b)
    m = re.search(r"What is (\d+)/(\d+) \+ (\d+)/(\d+)\?", text)
    if m:
        a, b, c, d = (int(x) for x in m.groups())
        num = a * d + c * b
        return [f"common denominator {b * d}", f"{a * d}/{b * d} + {c * b}/{b * d} = {num}/{b * d}", f"{num}/{b * d} = {fmt(Fraction(num, b * d))}"], Fraction(
            num
        )
    m = re.search(r"has (\d+) \w+ and buys (\d+) more", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        return [f"{a} + {b}: first {a} + {b + 10} = {a + b + 10}", f"then take back 10: {a + b}"], Fraction(a + b + 10)
    if cat == "sequence":
        nums = [int(x) for x in re.findall(r"-?\d+", text.split("?")[0])]
        return [
            f"the terms so far add up to {sum(nums)}",
            f"differences: {', '.join(str(b - a) for a, b in itertools.pairwise(nums))}",
            f"next term: {fmt(v)}",
        ], Fraction(sum(nums))
    return None


# ---------------------------------------------------------------- numeric


def numeric_right_styles(row: dict[str, Any], v: Fraction, w: Fraction) -> list[tuple[str, str, bool]]:
    """(style, text, ambiguous) answers a careful grader marks right."""
    a, bad = fmt(v), fmt(w)
    out: list[tuple[str, str, bool]] = []
    out.append(
        (
            "num-think-other-then-final",
            finish(row, f"<think>\nQuick guess: {bad}. Hmm, let me redo that more carefully... yes, my guess was off, it's {a}.\n</think>\n\nAnswer: {a}"),
            False,
        )
    )
    out.append(("num-code-block", finish(row, f"```\nAnswer: {a}\n```"), False))
    work = work_lines(row, v)
    if work:
        lines, _big = work
        out.append(("num-steps-big-intermediates", finish(row, "\n".join(f"Step {i + 1}: {ln}" for i, ln in enumerate(lines)) + f"\n\nAnswer: {a}"), False))
    boxed = f"\\text{{\\$}}{a}" if row.get("category") == "money" else f"\\mathrm{{{a}}}"
    out.append(("num-boxed-mathrm-or-dollar", finish(row, f"$$\\boxed{{{boxed}}}$$\n\nAnswer: {a}"), False))
    out.append(("num-candidates-ticked", finish(row, f"Candidates I considered:\n- {bad}\n- {a} ✓\n- {fmt(w + 1)}\n\nAnswer: {a}"), False))
    out.append(("num-footnote-marker", finish(row, f"Answer: {a}[^1]\n\n[^1]: Checked by working backwards from the result."), False))
    out.append(("num-negated-wrong-then-right", finish(row, f"It is not {bad}, that was a slip in the middle step. Answer: {a}"), False))
    out.append(("num-chinese-colon", finish(row, f"答案：{a}"), False))
    out.append(("num-russian-answer", finish(row, f"Ответ: {a}"), False))
    out.append(("num-arabic-latin-digits", finish(row, f"الإجابة: {a}"), False))
    if v.denominator == 1 and v >= 0:
        out.append(("num-arabic-indic-digits", finish(row, f"الإجابة: {a.translate(ARABIC_INDIC)}"), True))
    if v.denominator == 1 and abs(v) >= 1000:
        out.append(("num-space-thousands", finish(row, f"Answer: {spaced(int(v))}"), False))
        out.append(("num-narrow-nbsp-thousands", finish(row, f"Answer: {spaced(int(v), chr(0x202F))}"), False))
    out.append(("num-yaml-answer", finish(row, f"```yaml\nanswer: {a}\n```"), False))
    out.append(("num-json-answer", finish(row, json.dumps({"answer": int(v) if v.denominator == 1 else float(v)})), False))
    if v.denominator == 1 and 0 <= v < 10:
        out.append(("num-fullwidth-in-sentence", finish(row, f"答えは{a.translate(FULLWIDTH)}です。\nAnswer: {a}"), False))
    out.append(("num-answer-check-emoji", finish(row, f"Double-checked by redoing it another way.\nAnswer: {a} ✅"), False))
    return out


def numeric_wrong_styles(row: dict[str, Any], v: Fraction, w: Fraction) -> list[tuple[str, str, bool]]:
    a, bad = fmt(v), fmt(w)
    out: list[tuple[str, str, bool]] = []
    out.append(("num-think-right-final-other", finish(row, f"<think>\nWorking it out I get {a}.\n</think>\n\nAnswer: {bad}"), False))
    work = work_lines(row, v)
    if work:
        lines, big = work
        out.append(
            (
                "num-steps-reports-intermediate",
                finish(row, "\n".join(f"Step {i + 1}: {ln}" for i, ln in enumerate(lines[:-1])) + f"\n\nAnswer: {fmt(big)}"),
                False,
            )
        )
    out.append(("num-candidates-wrong-ticked", finish(row, f"Candidates:\n- {a}\n- {bad} ← this one\n\nAnswer: {bad}"), False))
    out.append(("num-right-negated", finish(row, f"The answer is not {a}. Answer: {bad}"), False))
    out.append(("num-boxed-text-wrong", finish(row, f"$\\boxed{{\\text{{{bad}}}}}$"), False))
    out.append(("num-code-block-wrong", finish(row, f"```text\n{bad}\n```"), False))
    out.append(("num-chinese-wrong", finish(row, f"答案：{bad}"), False))
    out.append(("num-russian-wrong", finish(row, f"Ответ: {bad}"), False))
    out.append(("num-footnote-wrong", finish(row, f"Answer: {bad}[1]\n\n[1] See the working above; {a} was my first attempt."), False))
    out.append(("num-json-wrong", finish(row, json.dumps({"answer": int(w) if w.denominator == 1 else float(w)})), False))
    if v.denominator == 1 and abs(v) >= 1000:
        # a space inside the number read as two numbers by a careless eye, but here the digits are wrong
        out.append(("num-space-thousands-wrong", finish(row, f"Answer: {spaced(int(w))}"), False))
    return out


def numeric_special(row: dict[str, Any], v: Fraction) -> None:
    """Percent, fraction, money, negative and unit rows get equivalents a grader accepts, and near misses."""
    rid = row["id"]
    cat = row.get("category", "")
    a = fmt(v)
    if v.denominator == 1 and abs(v) >= 1000:
        if len(CASES) % 2:
            add(rid, finish(row, f"Answer: {spaced(int(v))}"), True, "num-space-thousands")
        else:
            add(rid, finish(row, f"Answer: {spaced(int(v), chr(0x202F))}"), True, "num-narrow-nbsp-thousands")
    if cat == "fraction":
        dec = f"{float(v):.2f}".rstrip("0") if v.denominator != 1 else f"{v.numerator}.0"
        add(rid, f"The sum is {row['answer']}; as a decimal that is {dec}.\n\nAnswer: {dec}", True, "frac-decimal-after-sum")
        add(rid, f"Answer: $\\tfrac{{{v.numerator * 2}}}{{{v.denominator * 2}}}$", True, "frac-latex-tfrac-unreduced")
    elif cat == "percent":
        pct = int(re.search(r"(\d+)%", row["text"]).group(1))  # type: ignore[union-attr]
        padded = f"{a}.0" if v.denominator == 1 else f"{a}0"
        add(rid, f"{pct} hundredths of the amount: {padded}\n\nAnswer: {padded}", True, "pct-trailing-zero-decimal")
        add(rid, f"{pct}% = {pct}/100 = {fmt(Fraction(pct, 100))}\n\nAnswer: {fmt(Fraction(pct, 100))}", False, "pct-reports-rate-as-decimal")
    elif cat == "money":
        cents = f"{float(v):.2f}"
        add(rid, f"Answer: USD {a}", True, "money-iso-code")
        add(rid, f"That comes to ${cents} (roughly €{int(v * Fraction(92, 100))}).\n\nAnswer: ${cents}", True, "money-converted-aside")
        add(rid, f"Answer: {a} $", True, "money-trailing-symbol")
        unit = operands(row)
        if unit:
            add(rid, f"Each ticket is ${unit[0]}, so the price is ${unit[0]}.\n\nAnswer: {unit[0]}", False, "money-unit-price-reported")
    elif cat in ("sub", "neg") and v < 0:
        add(rid, f"Answer: {fmt(v)} ({fmt(-v)} below zero)", True, "neg-below-zero-gloss")
        add(rid, f"Answer: negative {fmt(-v)}", True, "neg-word-negative")
        add(rid, f"The difference is {fmt(-v)} (the second number is bigger).\n\nAnswer: {fmt(-v)}", False, "neg-magnitude-only-explained")
    elif cat == "use_result":
        c = int(v)
        f = round(c * 9 / 5 + 32)
        add(rid, f"The current temperature in the city is {c} °C ({f} °F), according to the weather tool.", True, "tool-result-celsius-fahrenheit")
        add(rid, f"Right now it's {c + 273} K there — i.e. {c} degrees Celsius.", True, "tool-result-kelvin-then-celsius")
        add(rid, f"It's about {f} degrees Fahrenheit there right now.", False, "tool-result-fahrenheit-only", ambiguous=True)
        add(
            rid,
            f"The tool returned temperature_c: {c}, but that looks like a sensor glitch; it's probably closer to {c + 10} °C.",
            False,
            "tool-result-second-guessed",
        )


def numeric_cases() -> None:
    rows = rows_of("numeric")
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        v = num_value(row["answer"])
        w = wrong_num(row, v)
        rights = numeric_right_styles(row, v, w)
        wrongs = numeric_wrong_styles(row, v, w)
        rid = row["id"]
        picks_r = [rights[(i * 3) % len(rights)]] if i % 2 == 0 else []
        picks_w = [wrongs[(i * 5 + 1) % len(wrongs)]] if i % 2 == 1 else []
        for style, text, amb in picks_r:
            add(rid, text, True, style, ambiguous=amb)
        for style, text, amb in picks_w:
            add(rid, text, False, style, ambiguous=amb)
        cat = row.get("category", "")
        seen[cat] = seen.get(cat, 0) + 1
        if cat == "use_result" or seen[cat] % 3 == 1:
            numeric_special(row, v)


# ---------------------------------------------------------------- exact

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
CYRILLIC_NAMES = {
    "Paris": "Париж",
    "Tokyo": "Токио",
    "Berlin": "Берлин",
    "Madrid": "Мадрид",
    "Roma": "Рим",
    "Rome": "Рим",
    "Ulaanbaatar": "Улан-Батор",
    "Lisboa": "Лиссабон",
    "Canberra": "Канберра",
    "Ottawa": "Оттава",
}
CJK_NAMES = {
    "Paris": "巴黎",
    "Tokyo": "東京",
    "Berlin": "柏林",
    "Madrid": "马德里",
    "Monday": "星期一",
    "Tuesday": "星期二",
    "Wednesday": "星期三",
    "Thursday": "星期四",
    "Friday": "星期五",
    "Saturday": "星期六",
    "Sunday": "星期日",
}


# A plausible wrong answer a model gives to each knowledge row (a nearby city, a neighbouring number, a near term).
PLAUSIBLE_WRONG = {
    "Paris": "Lyon",
    "Ulaanbaatar": "Darkhan",
    "Tokyo": "Kyoto",
    "Thimphu": "Paro",
    "Rome": "Milan",
    "Ouagadougou": "Bobo-Dioulasso",
    "Berlin": "Munich",
    "Vientiane": "Luang Prabang",
    "Madrid": "Barcelona",
    "Asunción": "Ciudad del Este",
    "Cairo": "Alexandria",
    "Bishkek": "Osh",
    "Moscow": "Saint Petersburg",
    "Asmara": "Massawa",
    "Beijing": "Shanghai",
    "Paramaribo": "Georgetown",
    "January": "February",
    "ice": "boiling water",
    "3:30 pm": "3:00 pm",
    "south": "west",
    "Ana": "Tim",
    "red": "blue",
    "east": "west",
    "Ottawa": "Toronto",
    "Pacific": "Atlantic",
    "Africa": "Asia",
    "Amazon": "Paraná",
    "Au": "Ag",
    "Na": "So",
    "carbon dioxide": "oxygen",
    "Mars": "Jupiter",
    "Jupiter": "Saturn",
    "8": "6",
    "water": "hydrogen peroxide",
    "100": "212",
    "heart": "lungs",
    "Sun": "Proxima Centauri",
    "6": "8",
    "90": "180",
    "9": "8",
    "60": "100",
    "366": "365",
    "mice": "mouses",
    "cold": "cool",
    "went": "gone",
    "26": "24",
    "24": "12",
    "green": "purple",
    "12": "10",
    "July": "August",
    "2": "3",
    "honey": "wax",
    "Monday": "Sunday",
    "gravity": "magnetism",
    "Canberra": "Sydney",
    "Pablo Picasso": "Salvador Dalí",
    "New York City": "Chicago",
    "Stockholm": "Gothenburg",
    "Mediterranean Sea": "Adriatic Sea",
    "William Shakespeare": "Christopher Marlowe",
    "Copenhagen": "Aarhus",
    "Brazil": "Argentina",
    "Roma": "Milano",
    "Lisboa": "Porto",
    "cat": "chatter",
    "dog": "puppy",
    "book": "free",
    "blau": "hellblau",
    "lungs": "heart",
    "friction": "gravity",
    "seismology": "geology",
    "nucleus": "proton",
    "diamond": "quartz",
    "hydrogen": "helium",
    "He": "H",
}


def exact_wrong(row: dict[str, Any], pool: dict[tuple[str, str], list[str]]) -> str:
    ans = row["answer"]
    cat = row.get("category", "")
    if ans in PLAUSIBLE_WRONG and row.get("category") not in ("days", "order"):
        return PLAUSIBLE_WRONG[ans]
    if ans in DAYS:
        return DAYS[(DAYS.index(ans) + 1) % 7]
    if cat == "order":
        names = [n for n in re.findall(r"\b([A-Z][a-z]+) is taller", row["text"]) if n != ans]
        if names:
            return names[0]
    if ans.isdigit():
        return str(int(ans) + 1)
    others = [a for a in pool[(suite_of(row), cat)] if a.lower() != ans.lower()]
    if not others:
        others = [a for (s, _c), lst in pool.items() if s == suite_of(row) for a in lst if a.lower() != ans.lower()]
    return others[int(row["id"][-2:]) % len(others)]


def exact_cases() -> None:
    rows = rows_of("exact")
    pool: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        pool.setdefault((suite_of(r), r.get("category", "")), []).append(r["answer"])
    for i, row in enumerate(rows):
        rid, x = row["id"], row["answer"]
        w = exact_wrong(row, pool)
        rights: list[tuple[str, str, bool]] = [
            (
                "exact-think-other-then-final",
                finish(row, f"<think>\nMy first thought is {w}... no wait, that doesn't fit. It's {x}.\n</think>\nAnswer: {x}"),
                False,
            ),
            ("exact-code-block", finish(row, f"```\nAnswer: {x}\n```"), False),
            ("exact-boxed-text", finish(row, f"$\\boxed{{\\text{{{x}}}}}$"), False),
            ("exact-candidates-ticked", finish(row, f"Options I weighed:\n1. {w} ✗\n2. {x} ✓\n\nAnswer: {x}"), False),
            ("exact-not-other-but-this", finish(row, f"It isn't {w} — it's {x}.\nAnswer: {x}"), False),
            ("exact-chinese-frame-latin", finish(row, f"答案：{x}"), False),
            ("exact-json-answer-key", finish(row, json.dumps({"answer": x}, ensure_ascii=False)), False),
        ]
        if not suite_of(row).startswith("eval-reasoning"):
            rights.append(("exact-footnote", finish(row, f"Answer: {x}[1]\n\n[1] Standard reference value."), False))
            rights.append(("exact-source-parenthetical", finish(row, f"Answer: {x} (source: my general knowledge; confident)"), False))
        if suite_of(row).startswith(("eval-knowledge", "eval-science")) and not x.isdigit():
            rights.append(("exact-markdown-link", finish(row, f"Answer: [{x}](https://en.wikipedia.org/wiki/{x.replace(' ', '_')})"), False))
        if x in CYRILLIC_NAMES:
            rights.append(("exact-cyrillic-with-latin-gloss", finish(row, f"Ответ: {CYRILLIC_NAMES[x]} ({x})"), False))
            rights.append(("exact-cyrillic-only", finish(row, f"Ответ: {CYRILLIC_NAMES[x]}"), True))
        if x in CJK_NAMES:
            rights.append(("exact-cjk-only", finish(row, f"答案：{CJK_NAMES[x]}"), True))
        wrongs: list[tuple[str, str, bool]] = [
            ("exact-think-right-final-other", finish(row, f"<think>\nThat should be {x}.\n</think>\nAnswer: {w}"), False),
            ("exact-candidates-wrong-ticked", finish(row, f"- {x}\n- **{w}** ← my pick\n\nAnswer: {w}"), False),
            ("exact-right-negated", finish(row, f"It's not {x}.\nAnswer: {w}"), False),
            ("exact-boxed-text-wrong", finish(row, f"$\\boxed{{\\text{{{w}}}}}$"), False),
            ("exact-code-block-wrong", finish(row, f"```\n{w}\n```"), False),
            ("exact-json-wrong", finish(row, json.dumps({"answer": w}, ensure_ascii=False)), False),
            ("exact-footnote-right-in-note", finish(row, f"Answer: {w}[1]\n\n[1] Some sources say {x}."), False),
        ]
        if w in CJK_NAMES:
            wrongs.append(("exact-cjk-wrong", finish(row, f"答案：{CJK_NAMES[w]}"), False))
        picks = [rights[(i * 7) % len(rights)] if i % 2 == 0 else wrongs[(i * 3 + 2) % len(wrongs)]]
        if i % 3 == 0:
            picks.append(wrongs[(i * 3 + 5) % len(wrongs)] if i % 2 == 0 else rights[(i * 7 + 4) % len(rights)])
        if x in CYRILLIC_NAMES and i % 2:
            picks.append(rights[-1] if x not in CJK_NAMES else rights[-2])
        for style, text, amb in picks:
            add(rid, text, style in {s for s, _t, _a in rights}, style, ambiguous=amb)


# ---------------------------------------------------------------- multiple choice

CYRILLIC_LETTER = {"A": "А", "B": "В", "C": "С"}


def choices_of(row: dict[str, Any]) -> dict[str, str]:
    if "score_args" in row and "choices" in row["score_args"]:
        return {"ABCDEFGH"[k]: c for k, c in enumerate(row["score_args"]["choices"])}
    found = re.findall(r"([A-D])\) (\w+)", row["text"])
    return dict(found)


def mc_cases() -> None:
    rows = rows_of("mc")
    for i, row in enumerate(rows):
        rid, x = row["id"], row["answer"]
        opts = choices_of(row)
        letters = sorted(opts)
        others = [opt for opt in letters if opt != x]
        w = others[i % len(others)]
        tx, tw = opts[x], opts[w]
        ticks_r = "\n".join(f"{opt}) {opts[opt]} {'✓' if opt == x else '✗'}" for opt in letters)
        ticks_w = "\n".join(f"{opt}) {opts[opt]} {'✓' if opt == w else '✗'}" for opt in letters)
        neg = ", ".join(others)
        rights: list[tuple[str, str, bool]] = [
            (
                "mc-think-other-letter-then-final",
                finish(row, f"<think>\nAt first {w} looks tempting ({tw}), but on reflection {x} ({tx}) is correct.\n</think>\n\nAnswer: {x}"),
                False,
            ),
            ("mc-code-block", finish(row, f"```\nAnswer: {x}\n```"), False),
            ("mc-ticks-then-answer", finish(row, f"{ticks_r}\n\nAnswer: {x}"), False),
            ("mc-ticks-only", ticks_r, False),
            ("mc-boxed-text-letter", finish(row, f"\\(\\boxed{{\\text{{{x}}}}}\\)"), False),
            ("mc-eliminate-by-negation", finish(row, f"Not {neg}.\n\nAnswer: {x}"), False),
            ("mc-chinese-frame", finish(row, f"正确选项是 {x}。\n答案：{x}"), False),
            ("mc-arabic-frame", finish(row, f"الإجابة: {x}"), False),
            ("mc-footnote", finish(row, f"Answer: {x}[1]\n\n[1] {tx[:1].upper() + tx[1:]} is the textbook answer."), False),
            ("mc-json-answer", finish(row, json.dumps({"answer": x, "option": tx}, ensure_ascii=False)), False),
            ("mc-arrow-marked-list", finish(row, "\n".join(f"{'→ ' if opt == x else '  '}{opt}) {opts[opt]}" for opt in letters) + f"\n\nAnswer: {x}"), False),
        ]
        if x in CYRILLIC_LETTER:
            rights.append(("mc-cyrillic-homoglyph-letter", finish(row, f"Ответ: {CYRILLIC_LETTER[x]}"), True))
        wrongs: list[tuple[str, str, bool]] = [
            ("mc-think-right-final-other", finish(row, f"<think>\n{x} ({tx}) fits best.\n</think>\n\nAnswer: {w}"), False),
            ("mc-ticks-wrong-option", finish(row, f"{ticks_w}\n\nAnswer: {w}"), False),
            ("mc-right-text-other-letter", finish(row, f"Answer: {w}) {tx}"), True),
            ("mc-right-negated", finish(row, f"It is not {x}.\n\nAnswer: {w}"), False),
            ("mc-boxed-wrong", finish(row, f"$\\boxed{{{w}}}$"), False),
            ("mc-json-wrong", finish(row, json.dumps({"answer": w}, ensure_ascii=False)), False),
            ("mc-chinese-wrong", finish(row, f"答案：{w}"), False),
            ("mc-code-block-wrong", finish(row, f"```\nAnswer: {w}\n```"), False),
            ("mc-footnote-wrong", finish(row, f"Answer: {w}[1]\n\n[1] Though {x} is a common alternative."), False),
        ]
        picks = [rights[(i * 5) % len(rights)] if i % 2 == 0 else wrongs[(i * 7 + 3) % len(wrongs)]]
        if i % 16 == 0:
            picks.append(wrongs[(i * 7 + 1) % len(wrongs)])
        elif i % 16 == 5:
            picks.append(rights[(i * 5 + 6) % len(rights)])
        right_styles = {s for s, _t, _a in rights}
        for style, text, amb in picks:
            add(rid, text, style in right_styles, style, ambiguous=amb)


# ---------------------------------------------------------------- rag contains / abstain

CITY_ALT = {"Quito": "Lima", "Hanoi": "Hue", "Perth": "Sydney", "Tunis": "Sfax", "Oslo": "Bergen", "Lima": "Cusco", "Dakar": "Thiès", "Riga": "Tallinn"}
CITY_ZH = {"Quito": "基多", "Hanoi": "河内", "Perth": "珀斯", "Tunis": "突尼斯", "Oslo": "奥斯陆", "Lima": "利马", "Dakar": "达喀尔", "Riga": "里加"}


def passage_facts(row: dict[str, Any]) -> dict[str, str]:
    m = re.search(r"opened in (\w+) in (\d{4})\. It builds one product, an? (\w+), and employs (\d+) people", row["text"])
    if not m:
        raise ValueError(f"{row['id']}: passage not recognised")
    return {"city": m.group(1), "year": m.group(2), "product": m.group(3), "staff": m.group(4)}


def contains_cases() -> None:
    for row in rows_of("contains"):
        rid, x = row["id"], row["answer"]
        f = passage_facts(row)
        kind = next(k for k, val in f.items() if val == x)
        if kind == "city":
            add(rid, f"The workshop is in {x} [Passage, sentence 1].", True, "rag-bracket-citation")
            add(rid, f"工作坊位于{CITY_ZH.get(x, x)}（{x}）。", True, "rag-chinese-with-latin")
            add(rid, f"Not in {CITY_ALT[x]} — the passage puts it in {x}.", True, "rag-not-other-but-this")
            add(rid, f"It is not in {x}; the passage only says where the owner lives.", False, "rag-right-negated")
            add(rid, f"The workshop is in {CITY_ALT[x]}, near the coast.", False, "rag-nearby-city")
        elif kind == "product":
            add(rid, f"> It builds one product, a {x}\n\nSo: a {x}.", True, "rag-blockquote-then-answer")
            add(rid, f"Its single product is the {x}¹.\n\n¹ Passage, second sentence.", True, "rag-superscript-footnote")
            add(rid, f"Not a {x} — it builds furniture for schools.", False, "rag-right-negated")
            add(rid, f'{{"product": "{x}s"}}', True, "rag-json-plural", ambiguous=True)
        elif kind == "staff":
            n = int(x)
            add(rid, f"Headcount: {x} (staff), per the passage.", True, "rag-label-value")
            add(rid, f"It employs {x} people — that's roughly {round(n, -1) if n > 20 else n} staff.", True, "rag-exact-then-rounded")
            add(rid, f"It employs {n * 10 + 4} people.", False, "rag-digit-appended")
            add(rid, f"Сотрудников: {x}.", True, "rag-russian-label")
            add(rid, f"It does not employ {x} people; that number is the schools it sells to.", False, "rag-right-negated")
        else:
            add(rid, f"Opened: {x} (passage, first sentence).", True, "rag-label-value")
            add(rid, f"It opened in {x}, i.e. {2026 - int(x)} years before 2026.", True, "rag-year-with-age")
            add(rid, f"It opened in {int(x) + 10}.", False, "rag-decade-slip")
            add(rid, f"{x}年に開業しました。", True, "rag-japanese-sentence")


def abstain_cases() -> None:
    for i, row in enumerate(rows_of("abstain")):
        rid = row["id"]
        if row["id"].startswith("rag"):
            f = passage_facts(row)
            q = row["text"].split("Question: ")[1]
            if i % 2 == 0:
                add(
                    rid,
                    "<think>\nThe passage mentions the city, the year, the product and the staff, but nothing about that.\n</think>\n\nThe passage does not say.",
                    True,
                    "abstain-rag-after-think",
                )
            else:
                add(rid, "文中没有提到。（The passage does not say.）", True, "abstain-rag-chinese-with-english")
            if "revenue" in q:
                add(
                    rid,
                    f"The passage doesn't give revenue, but with {f['staff']} staff it is probably around ${int(f['staff']) * 80},000 a year.",
                    False,
                    "abstain-rag-estimated-anyway",
                )
                add(rid, f"Revenue: ${f['staff']},000 [Passage].", False, "abstain-rag-fake-citation")
            elif "schools" in q:
                add(rid, f"It sells mostly to schools — {f['staff']} of them, according to the passage.", False, "abstain-rag-other-number-as-answer")
                add(
                    rid,
                    "The passage says it sells *mostly to schools* but gives no number, so: The passage does not say.",
                    True,
                    "abstain-rag-quotes-then-abstains",
                )
            elif "manager" in q:
                owner = row["text"].split("Passage: ")[1].split("'s")[0]
                add(rid, f"{owner} seems to be the manager, since it is {owner}'s workshop.", False, "abstain-rag-owner-as-manager", ambiguous=True)
                add(rid, f"It names the owner ({owner}) but not a manager. The passage does not say.", True, "abstain-rag-owner-not-manager")
            else:
                add(rid, f"The wood comes from a supplier in {f['city']}, founded by the same family.", False, "abstain-rag-invented-supplier")
                add(rid, "The passage doesn't mention the wood supplier at all, so I can't say who founded it.", True, "abstain-rag-paraphrased")
            if i % 3 == 0:
                add(rid, "```\nThe passage does not say.\n```", True, "abstain-rag-code-block")
            continue
        cat = row.get("category", "")
        name = re.search(r"(?:the |novel ')([A-Z]\w+(?: [A-Z]\w+)?)", row["text"])
        thing = name.group(1) if name else "that"
        fabric = {
            "Institute": "It was founded in 1911.",
            "river": "It is about 340 km long.",
            "prize": "It went to the Austrian poet Lena Graf.",
            "novel": "It was written by Henrik Dahl in 1958.",
        }[cat]
        k = i % 6
        if k == 0:
            add(
                rid,
                f"<think>\nI could say {fabric.lower()[:-1]}... but I can't actually verify {thing} exists.\n</think>\n\nI don't know — I can't find any record of {thing}.",
                True,
                "abstain-think-fabricates-final-abstains",
            )
            add(rid, f"<think>\nI have never heard of {thing}. I don't know.\n</think>\n\n{fabric}", False, "abstain-think-abstains-final-fabricates")
        elif k == 1:
            add(rid, f"Не знаю. У меня нет сведений о «{thing}».", True, "abstain-russian")
            add(rid, f"{fabric}[1]\n\n[1] Encyclopaedia of Northern Europe, 2003 edition.", False, "abstain-fabricated-citation")
        elif k == 2:
            add(rid, f"لا أعرف. ليست لدي معلومات موثوقة عن {thing}.", True, "abstain-arabic")
            add(rid, f"I don't know for certain. {fabric} (unverified)", False, "abstain-disclaimer-then-fabricates", ambiguous=True)
        elif k == 3:
            add(rid, json.dumps({"answer": None, "known": False, "note": f"no reliable information about {thing}"}), True, "abstain-json-null")
            add(rid, json.dumps({"answer": fabric[:-1], "confidence": 0.4}), False, "abstain-json-fabricated")
        elif k == 4:
            add(rid, f"{thing}? Doesn't ring a bell. I'd be making it up, so: I don't know.", True, "abstain-casual-british")
            add(
                rid,
                f"There are several candidates:\n- {fabric}\n- Possibly something else.\nThe first is the most likely.",
                False,
                "abstain-candidates-fabricated",
            )
        else:
            add(rid, f"わかりません。「{thing}」についての信頼できる情報がありません。", True, "abstain-japanese")
            add(rid, f"It's not that I don't know: {fabric}", False, "abstain-negated-abstention")


# ---------------------------------------------------------------- tool calls


def call(name: str, args: Any, **dump: Any) -> dict[str, Any]:
    body = args if isinstance(args, str) else json.dumps(args, **dump)
    return {"function": {"name": name, "arguments": body}}


def tool_cases() -> None:
    for i, row in enumerate(rows_of("tool_call")):
        rid = row["id"]
        exp = row["expected"]
        cat = row.get("category", "")
        if exp.get("clarify"):
            missing = {0: "city", 1: "amount", 2: "duration", 3: "city", 4: "currencies", 5: "duration"}[int(rid[-1])]
            example = {"city": "Lima, Oslo or Riga", "duration": "5 or 10 minutes", "amount": "50 USD or 100 GBP", "currencies": "USD to EUR"}[missing]
            add(rid, f"Happy to help! Which {missing} do you mean (for example {example})?", True, "tool-clarify-with-examples")
            add(
                rid,
                {
                    "city": "¿De qué ciudad quieres saber el tiempo?",
                    "amount": "¿Qué cantidad quieres convertir, y desde qué moneda?",
                    "currencies": "¿De qué moneda a qué moneda convierto los 50?",
                    "duration": "¿Cuánto tiempo debe durar el temporizador?",
                }[missing],
                True,
                "tool-clarify-spanish",
            )
            placeholder = {
                "city": ("get_weather", {"city": ""}),
                "duration": ("set_timer", {"seconds": 0}),
                "amount": ("convert_currency", {"amount": 1, "from": "USD", "to": "EUR"}),
                "currencies": ("convert_currency", {"amount": 50, "from": "???", "to": "???"}),
            }[missing]
            add(rid, "", False, "tool-clarify-placeholder-args", tool_calls=[call(*placeholder)])
            add(
                rid,
                f"<think>\nThe {missing} is missing, I should ask.\n</think>\n\nI'll assume the usual and go ahead.",
                False,
                "tool-clarify-think-asks-final-assumes",
                ambiguous=True,
            )
            continue
        name, args = exp["name"], exp["arguments"]
        if cat == "chain":
            did = args["doc_id"]
            add(rid, f"Found it (id {did}) — opening now.", True, "tool-chain-narrated-structured", tool_calls=[call(name, args)])
            add(rid, f'<function=open_doc>{{"doc_id": {did}}}</function>', True, "tool-text-function-tag", ambiguous=True, tool_calls=[])
            add(rid, "", False, "tool-chain-id-in-list", tool_calls=[call(name, {"doc_id": [did]})])
            add(
                rid,
                f"The search returned document {did}. Would you like me to open it?",
                False,
                "tool-chain-asks-instead-of-opening",
                ambiguous=True,
                tool_calls=[],
            )
            continue
        if cat == "revise":
            add(rid, f"D'accord, je regarde la météo à {args['city']}.", True, "tool-revise-french-narration", tool_calls=[call(name, args)])
            old = re.search(r"not (\w+)", row["text"]).group(1)  # type: ignore[union-attr]
            add(rid, "", False, "tool-revise-whole-phrase-as-city", tool_calls=[call(name, {"city": f"{args['city']}, not {old}"})])
            add(rid, f'<|python_tag|>get_weather.call(city="{args["city"]}")', True, "tool-text-python-tag", ambiguous=True, tool_calls=[])
            continue
        k = i % 8
        # right: a structured call with an unusual but valid argument encoding
        if k == 0:
            add(rid, "", True, "tool-args-unicode-escaped", tool_calls=[call(name, args, ensure_ascii=True, indent="\t")])
        elif k == 1:
            add(
                rid,
                "<think>\nThe user wants this; the tool needs exactly these arguments.\n</think>",
                True,
                "tool-think-then-structured",
                tool_calls=[call(name, args)],
            )
        elif k == 2:
            add(rid, "", True, "tool-args-trailing-newline", tool_calls=[call(name, json.dumps(args) + "\n")])
        elif k == 3:
            add(rid, "Un momento, lo consulto.", True, "tool-spanish-preamble-structured", tool_calls=[call(name, args)])
        elif k == 4:
            add(rid, f"functions.{name}:0\n{json.dumps(args)}", True, "tool-text-channel-form", ambiguous=True, tool_calls=[])
        elif k == 5:
            params = "".join(f"<parameter={key}>{val}</parameter>" for key, val in args.items())
            add(rid, f"<function={name}>{params}</function>", True, "tool-text-xml-parameters", ambiguous=True, tool_calls=[])
        elif k == 6:
            add(rid, "", True, "tool-args-space-before-colon", tool_calls=[call(name, json.dumps(args).replace('":', '" :'))])
        else:
            add(rid, "正在查询。", True, "tool-chinese-preamble-structured", tool_calls=[call(name, args)])
        # wrong: one argument subtly off, or no real call
        if "city" in args:
            c = args["city"]
            j = i % 4
            if j == 0:
                add(rid, "", False, "tool-city-lowercased-truncated", tool_calls=[call(name, {"city": c.lower()[:-1]})])
            elif j == 1:
                add(rid, f"I would call get_weather with city={c}, but I can't browse right now.", False, "tool-describes-call-in-prose", tool_calls=[])
            elif j == 2:
                add(rid, "", True, "tool-city-with-country", ambiguous=True, tool_calls=[call(name, {"city": f"{c}, {COUNTRY[c]}"})])
            else:
                add(rid, "", False, "tool-args-truncated-json", tool_calls=[call(name, json.dumps(args)[:-3])])
            if cat == "pick_tool":
                add(rid, "", False, "tool-pick-timer-for-weather", tool_calls=[call("set_timer", {"seconds": 60, "label": f"check {c}"})])
        elif "amount" in args:
            j = i % 4
            if j == 0:
                add(rid, "", False, "tool-currency-to-equals-from", tool_calls=[call(name, {**args, "to": args["from"]})])
            elif j == 1:
                add(rid, "", False, "tool-args-wrapped-in-params", tool_calls=[call(name, {"params": args})])
            elif j == 2:
                add(rid, "", False, "tool-amount-converted-in-head", tool_calls=[call(name, {**args, "amount": round(args["amount"] * 0.92, 2)})])
            else:
                add(
                    rid,
                    "",
                    False,
                    "tool-currency-symbols-as-codes",
                    ambiguous=True,
                    tool_calls=[call(name, {**args, "from": "$", "to": "¥" if args["to"] == "JPY" else "€"})],
                )
            if cat == "pick_tool":
                add(rid, f"{args['amount']} dollars is roughly {args['amount'] * 150} yen.", False, "tool-answers-from-memory", tool_calls=[])
        elif "seconds" in args:
            s = args["seconds"]
            j = i % 3
            if j == 0:
                mm, ss = divmod(s, 60)
                add(rid, "", False, "tool-seconds-as-mmss-digits", tool_calls=[call(name, {"seconds": mm * 100 + ss})])
            elif j == 1:
                add(rid, "Alles klar, der Timer läuft.", True, "tool-german-narration-structured", tool_calls=[call(name, args)])
            else:
                key, val = ("minutes", s // 60) if cat == "derive_args" else ("duration", s)
                add(rid, "", False, "tool-timer-wrong-arg-name", tool_calls=[call(name, {key: val})])
            add(rid, f"Timer set for {s // 60} minutes! ☕", False, "tool-claims-done-no-call", tool_calls=[])


COUNTRY = {
    "Tunis": "Tunisia",
    "Riga": "Latvia",
    "Lima": "Peru",
    "Hanoi": "Vietnam",
    "Dakar": "Senegal",
    "Quito": "Ecuador",
    "Oslo": "Norway",
    "Perth": "Australia",
}


# ---------------------------------------------------------------- json extraction


def json_cases() -> None:
    for i, row in enumerate(rows_of("json")):
        rid, exp = row["id"], row["expected"]
        keys = list(exp)
        person = "name" in exp
        k = i % 5
        # right
        if k == 0:
            add(rid, json.dumps({kk: exp[kk] for kk in reversed(keys)}, indent="\t"), True, "json-tab-indented-reversed")
        elif k == 1:
            add(rid, "<think>\nKeys first, then values straight from the sentence.\n</think>\n" + json.dumps(exp), True, "json-after-think-bare")
        elif k == 2:
            add(rid, "\ufeff" + json.dumps(exp), True, "json-leading-bom")
        elif k == 3:
            add(rid, json.dumps(exp, separators=(",", ":")) + "\n\n", True, "json-minified-trailing-blank")
        else:
            add(rid, "```JSON\n" + json.dumps(exp, indent=4) + "\n```", True, "json-fence-caps-lang-indent4")
        # wrong: one field or the syntax broken
        j = (i // 2) % 8
        if person:
            if j in (0, 4):
                add(rid, "name: " + exp["name"] + "\nage: " + str(exp["age"]) + "\ncity: " + exp["city"], False, "json-yaml-instead")
            elif j in (1, 5):
                add(rid, json.dumps({**exp, "city": f"{exp['city']}, {COUNTRY[exp['city']]}"}), False, "json-city-with-country", ambiguous=True)
            elif j in (2, 6):
                add(rid, '{name: "' + exp["name"] + '", age: ' + str(exp["age"]) + ', city: "' + exp["city"] + '"}', False, "json5-unquoted-keys-spaces")
            else:
                add(rid, json.dumps({**exp, "age": f"{exp['age']} years"}), False, "json-age-with-unit-string")
        else:
            total = exp["price"] * exp["quantity"]
            if j in (1, 5):
                add(rid, json.dumps({**exp, "price": total}), False, "json-total-not-unit-price")
            elif j in (3, 7):
                add(rid, json.dumps({**exp, "price": exp["quantity"], "quantity": exp["price"]}), False, "json-price-quantity-swapped")
            elif j in (0, 4):
                add(
                    rid,
                    '{\n  "item": "' + exp["item"] + '",  // singular\n  "price": ' + str(exp["price"]) + ',\n  "quantity": ' + str(exp["quantity"]) + "\n}",
                    False,
                    "json-line-comment-inline",
                )
            else:
                add(rid, json.dumps({**exp, "price": f"${exp['price']}.00"}), False, "json-price-currency-string", ambiguous=True)
        if i % 3 == 0:
            add(rid, "[" + ", ".join(json.dumps({kk: exp[kk]}) for kk in keys) + "]", False, "json-array-of-single-key-objects")
        if i % 4 == 2:
            add(rid, json.dumps({kk: (float(v) if isinstance(v, int) else v) for kk, v in exp.items()}), True, "json-ints-as-floats", ambiguous=True)


# ---------------------------------------------------------------- code

PY = "```python\n{}\n```"

# (row suffix, style, code, verdict, ambiguous); each wrong case is wrong on inputs the prompt covers,
# unless marked ambiguous (only a hidden edge case, or behaviour the prompt leaves open, breaks it)
CODE: list[tuple[str, str, str, bool, bool]] = [
    ("000", "code-typed-docstring", 'def add(a: float, b: float) -> float:\n    """Return a + b."""\n    return a + b', True, False),
    ("000", "code-sum-of-list", "def add(a, b):\n    return sum([a, b])", True, False),
    ("000", "code-concat-strings", "def add(a, b):\n    return int(str(a) + str(b))", False, False),
    ("000", "code-ints-only", "def add(a, b):\n    return int(a) + int(b)", False, True),
    ("001", "code-bitmask", "def is_even(n):\n    return (n & 1) == 0", True, False),
    ("001", "code-returns-int-not-bool", "def is_even(n):\n    return 1 - n % 2", False, False),
    ("001", "code-zero-not-even", "def is_even(n):\n    return n / 2 == n // 2 and n > 0", False, True),
    (
        "001",
        "code-think-then-block",
        "<think>\nModulo 2 is enough; negatives work in Python too.\n</think>\n\n```python\ndef is_even(n):\n    return n % 2 == 0\n```",
        True,
        False,
    ),
    ("002", "code-loop-prepend", "def reverse_string(s):\n    out = ''\n    for ch in s:\n        out = ch + out\n    return out", True, False),
    ("002", "code-reversed-join", "def reverse_string(s):\n    return ''.join(reversed(s))", True, False),
    ("002", "code-words-reversed", "def reverse_string(s):\n    return ' '.join(s.split()[::-1])", False, False),
    ("002", "code-drops-first-char", "def reverse_string(s):\n    return s[:0:-1]", False, False),
    (
        "003",
        "code-loop-first-as-start",
        "def maximum(xs):\n    best = xs[0]\n    for x in xs[1:]:\n        if x > best:\n            best = x\n    return best",
        True,
        False,
    ),
    ("003", "code-sorted-last", "def maximum(xs):\n    return sorted(xs)[-1]", True, False),
    (
        "003",
        "code-returns-index",
        "def maximum(xs):\n    best = 0\n    for i in range(len(xs)):\n        if xs[i] > xs[best]:\n            best = i\n    return best",
        False,
        False,
    ),
    ("003", "code-uses-max-anyway", "def maximum(xs):\n    return max(xs)", False, False),
    ("004", "code-sum-generator", "def count_vowels(s):\n    return sum(ch in 'aeiou' for ch in s)", True, False),
    ("004", "code-counts-y", "def count_vowels(s):\n    return sum(1 for ch in s if ch in 'aeiouy')", False, False),
    ("004", "code-set-of-vowels", "def count_vowels(s):\n    return len(set(ch for ch in s if ch in 'aeiou'))", False, False),
    ("004", "code-count-method", "def count_vowels(s):\n    return sum(s.count(v) for v in 'aeiou')", True, False),
    ("005", "code-recursive", "def factorial(n):\n    return 1 if n == 0 else n * factorial(n - 1)", True, False),
    ("005", "code-math-prod", "import math\n\ndef factorial(n):\n    return math.prod(range(1, n + 1))", True, False),
    ("005", "code-range-excludes-n", "def factorial(n):\n    r = 1\n    for k in range(1, n):\n        r *= k\n    return r", False, False),
    ("005", "code-recursive-le-one", "def factorial(n):\n    if n <= 1:\n        return 1\n    return n * factorial(n - 1)", True, False),
    (
        "006",
        "code-string-build",
        "def fizzbuzz(n):\n    out = ('Fizz' if n % 3 == 0 else '') + ('Buzz' if n % 5 == 0 else '')\n    return out or str(n)",
        True,
        False,
    ),
    (
        "006",
        "code-order-wrong",
        "def fizzbuzz(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)",
        False,
        False,
    ),
    (
        "006",
        "code-returns-int",
        "def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    return n",
        False,
        False,
    ),
    (
        "006",
        "code-match-statement",
        "def fizzbuzz(n):\n    match (n % 3, n % 5):\n        case (0, 0):\n            return 'FizzBuzz'\n        case (0, _):\n            return 'Fizz'\n        case (_, 0):\n            return 'Buzz'\n    return str(n)",
        True,
        False,
    ),
    ("007", "code-map-lambda", "def square_all(xs):\n    return list(map(lambda x: x * x, xs))", True, False),
    ("007", "code-mutates-input", "def square_all(xs):\n    for i, x in enumerate(xs):\n        xs[i] = x * x\n    return xs", False, True),
    ("007", "code-doubles", "def square_all(xs):\n    return [x * 2 for x in xs]", False, False),
    ("007", "code-returns-generator", "def square_all(xs):\n    return (x ** 2 for x in xs)", False, False),
    (
        "008",
        "code-two-pointer",
        "def is_palindrome(s):\n    i, j = 0, len(s) - 1\n    while i < j:\n        if s[i] != s[j]:\n            return False\n        i += 1\n        j -= 1\n    return True",
        True,
        False,
    ),
    ("008", "code-first-half-only", "def is_palindrome(s):\n    half = len(s) // 2\n    return s[:half] == s[-half:]", False, False),
    ("008", "code-normalises-case", "def is_palindrome(s):\n    t = ''.join(ch.lower() for ch in s if ch.isalnum())\n    return t == t[::-1]", True, True),
    ("008", "code-sorted-compare", "def is_palindrome(s):\n    return sorted(s) == sorted(s[::-1]) and s[0] == s[-1]", False, False),
    (
        "009",
        "code-divmod-loop",
        "def sum_digits(n):\n    total = 0\n    while n:\n        n, d = divmod(n, 10)\n        total += d\n    return total",
        True,
        False,
    ),
    ("009", "code-str-map", "def sum_digits(n):\n    return sum(map(int, str(n)))", True, False),
    ("009", "code-counts-digits", "def sum_digits(n):\n    return len(str(n))", False, False),
    (
        "009",
        "code-skips-last-digit",
        "def sum_digits(n):\n    total = 0\n    while n >= 10:\n        total += n % 10\n        n //= 10\n    return total",
        False,
        False,
    ),
    ("010", "code-split-index", "def first_word(s):\n    return s.split()[0]", True, False),
    ("010", "code-partition", "def first_word(s):\n    return s.partition(' ')[0]", True, True),
    ("010", "code-first-char", "def first_word(s):\n    return s[0]", False, False),
    ("010", "code-last-word", "def first_word(s):\n    return s.split()[-1]", False, False),
    ("011", "code-float-ratio", "def celsius_to_f(c):\n    return c * 9 / 5 + 32", True, False),
    ("011", "code-rounded-ratio", "def celsius_to_f(c):\n    return round(c * 1.8 + 32)", False, True),
    ("011", "code-reverse-formula", "def celsius_to_f(c):\n    return (c - 32) * 5 / 9", False, False),
    ("011", "code-missing-offset", "def celsius_to_f(c):\n    return c * 9 / 5", False, False),
]


def code_cases() -> None:
    for k, (suffix, style, code, verdict, amb) in enumerate(CODE):
        rid = f"code1-{suffix}"
        if code.startswith("<think>"):
            text = code
        elif k % 4 == 1:
            text = "Here's a straightforward implementation:\n\n" + PY.format(code) + "\n\nIt runs in linear time."
        elif k % 4 == 3:
            text = PY.format(code) + "\n\nI checked it by hand on a couple of inputs."
        else:
            text = PY.format(code)
        add(rid, text, verdict, style, ambiguous=amb)


# ---------------------------------------------------------------- needle


def needle_cases() -> None:
    for i, row in enumerate(rows_of("needle")):
        rid, code = row["id"], row["answer"]
        box = re.search(r"box (\d+)\?", row["text"]).group(1)  # type: ignore[union-attr]
        other = re.findall(r"The vault code for box \d+ is (\d+)", row["text"])
        decoy = str((int(code) + 1111) % 10000).zfill(4)
        add(rid, f"Box {box}: `{code}`", True, "needle-box-label-inline-code")
        add(rid, f"The vault code for box {box} is **{code[:2]} {code[2:]}**.", True, "needle-grouped-digits", ambiguous=True)
        add(rid, f"<think>\nScanning... box {box}: found it.\n</think>\n{code}", True, "needle-after-think")
        add(rid, f"{code[::-1]}", False, "needle-digits-reversed")
        add(rid, f"I couldn't find box {box}'s code; the nearest figure is {decoy}.", False, "needle-decoy-number")
        if i % 2 == 0:
            add(rid, f"Код: {code}", True, "needle-russian-label")
            add(rid, f"It's not {code} — that one belongs to another box. Code: {decoy}", False, "needle-right-negated")
        if len(other) > 1:
            add(rid, next(c for c in other if c != code), False, "needle-other-box-code")


# ---------------------------------------------------------------- token integrity


def token_integrity_cases() -> None:
    """One case a row: each corruption style and its clean counterpart alternate over the rows."""
    i = 0

    def put(rid: str, text: str, verdict: bool, style: str, *, ambiguous: bool = False) -> None:
        if verdict == ((i // 12) % 2 == 0):
            add(rid, text, verdict, style, ambiguous=ambiguous)

    for i, row in enumerate(rows_of("token_integrity")):
        rid = row["id"]
        n, word = row["score_args"]["lines"], row["score_args"]["word"]
        lines = [f"{k}. {word}" for k in range(1, n + 1)]
        mid = (n * (i % 5 + 2)) // 8
        k = i % 12
        changed = list(lines)
        if k == 0:
            put(rid, "\r\n".join(lines), True, "count-crlf-line-endings")
            changed[mid] = f"{mid + 1}. о" + word[1:]  # Cyrillic o
            put(rid, "\n".join(changed), False, "count-cyrillic-homoglyph")
        elif k == 1:
            put(rid, "\n".join(ln + "  " for ln in lines), True, "count-trailing-spaces")
            changed[mid] = f"{mid + 1}. o\u200bk" if word == "ok" else f"{mid + 1}. {word[0]}\u200b{word[1:]}"
            put(rid, "\n".join(changed), False, "count-zero-width-space-inside")
        elif k == 2:
            put(rid, "\n".join(lines[:mid] + lines[mid + 1 :]), True, "count-skips-one-clean", ambiguous=True)
            changed[mid] = changed[mid] + changed[mid + 1]
            del changed[mid + 1]
            put(rid, "\n".join(changed), False, "count-two-lines-merged")
        elif k == 3:
            put(rid, "\n".join(lines[: n * 2 // 3]), True, "count-stops-early-clean", ambiguous=True)
            put(rid, "\n".join(lines[:-1] + [f"{n}. {word[0]}"]), False, "count-last-token-cut-mid-word")
        elif k == 4:
            put(rid, "\n".join(lines[:mid] + [lines[mid], lines[mid]] + lines[mid + 1 :]), True, "count-line-doubled-clean", ambiguous=True)
            changed[mid] = f"{mid + 1}. {word}{word}"
            put(rid, "\n".join(changed), False, "count-token-doubled-in-line")
        elif k == 5:
            put(rid, "<think>\nJust count carefully.\n</think>\n" + "\n".join(lines), True, "count-after-think", ambiguous=True)
            changed[mid] = f"{mid + 1}. {word}确"
            put(rid, "\n".join(changed), False, "count-cjk-token-spliced")
        elif k == 6:
            put(rid, "\n".join(lines) + "\n\nDone — all lines written.", True, "count-closing-remark", ambiguous=True)
            changed[mid] = f"{mid + 1}. {word[:1]}{mid + 2}. {word}"
            put(rid, "\n".join(changed), False, "count-restart-inside-line")
        elif k == 7:
            put(rid, "\n".join(lines[:mid] + [lines[mid].replace(".", ")", 1)] + lines[mid + 1 :]), True, "count-one-paren-not-period", ambiguous=True)
            changed[mid] = f"{mid + 1}. {word[0]}ķ" if word == "ok" else f"{mid + 1}. {word}ķ"
            put(rid, "\n".join(changed), False, "count-diacritic-letter")
        elif k == 8:
            put(rid, "\n".join(ln.replace(". ", ".\t") for ln in lines), True, "count-tab-separator", ambiguous=True)
            changed[mid] = f"{mid + 1}. {word}ograph"
            put(rid, "\n".join(changed), False, "count-word-grown-into-other-word")
        elif k == 9:
            numbered = list(lines)
            numbered[mid] = f"{mid + 2}. {word}"
            put(rid, "\n".join(numbered), True, "count-one-number-wrong-clean", ambiguous=True)
            changed[mid] = f"{mid + 1}. <0xE2>{word}"
            put(rid, "\n".join(changed), False, "count-byte-token-leaked")
        elif k == 10:
            put(rid, "\n".join(lines), True, "count-plain-complete")
            changed[mid] = f"{mid + 1}. {word} {word[::-1]}"
            put(rid, "\n".join(changed), False, "count-extra-garbled-token")
        else:
            put(rid, "\n".join(lines), True, "count-plain-complete")
            changed[mid] = f"{mid + 1}. {word.upper()[0]}{word[1:]}"
            put(rid, "\n".join(changed), False, "count-capitalised-token", ambiguous=True)


# ---------------------------------------------------------------- instruction following

BANK = [
    "There is always something new to notice about {t}.",
    "Many people say that time with {t} helps them slow down and think.",
    "A single afternoon spent on {t} can change a whole week.",
    "Friends often share their own stories about {t} over dinner.",
    "The details of {t} are easy to miss when we rush.",
    "Writers have returned to {t} again and again for centuries.",
    "Each season brings a different side of {t} into view.",
    "Children tend to ask the best questions about {t}.",
    "Few things feel as familiar and as surprising as {t}.",
    "It is worth keeping a notebook of what {t} can teach us.",
    "Some of the warmest memories people have involve {t}.",
    "Even a short walk can turn into a lesson about {t}.",
    "Nobody needs special training to enjoy {t}.",
    "The more attention you pay to {t} the more you get back.",
    "Plenty of people plan their weekends around {t}.",
    "Sounds and smells often tie our memories to {t}.",
]
SHORT = ["{T} can calm a busy mind.", "{T} can hold quiet stories.", "{T} can feel old and new at once."]
# Where a comma (or a dash) falls naturally in a bank sentence: the slip a model makes under "no commas".
COMMA_FORMS = {
    "The more attention you pay to {t} the more you get back.": "The more attention you pay to {t}, the more you get back.",
    "Writers have returned to {t} again and again for centuries.": "Writers have returned to {t} again and again, for centuries.",
    "Many people say that time with {t} helps them slow down and think.": "As many people say, time with {t} helps them slow down and think.",
    "Few things feel as familiar and as surprising as {t}.": "Few things feel as familiar, and as surprising, as {t}.",
    "Sounds and smells often tie our memories to {t}.": "Sounds, smells and colours often tie our memories to {t}.",
    "Even a short walk can turn into a lesson about {t}.": "Even a short walk, though, can turn into a lesson about {t}.",
    "Each season brings a different side of {t} into view.": "Each season, in turn, brings a different side of {t} into view.",
}
OPENERS = {
    "Imagine": "Imagine {t} on a calm evening with nowhere to be.",
    "Today": "Today I want to say a few words about {t}.",
    "Yesterday": "Yesterday I spent a long while thinking about {t}.",
    "Honestly": "Honestly {t} deserves more attention than it gets.",
}
INFLECTED = {
    "Imagine": "Imagining {t} on a calm evening is easy.",
    "Today": "Today's walk made me think about {t}.",
    "Yesterday": "Yesterday's walk made me think about {t}.",
    "Honestly": "Honest words about {t} are rare.",
}
CLOSERS = {"done": "After one more hour with {t} the day felt done."}
COMPOUND = {
    "bridge": "footbridge",
    "river": "riverbank",
    "garden": "gardener",
    "lantern": "lanterns",
    "morning": "mornings",
    "quiet": "quietly",
    "blue": "bluebell",
}
KW_PHRASE = {"light": "light in the {p}", "path": "a path past the {p}", "small": "small joys in the {p}", "time": "time in the {p}"}
KW_COMPOUND = {"light": "sunlight", "path": "footpath", "small": "smallish", "time": "daytime"}
FORBIDDEN_TAIL = {"really": "really calm", "very": "very calm", "good": "good", "nice": "nice", "beautiful": "beautiful"}
PLACES = ["kitchen", "hallway", "garden shed", "street", "station"]
PLACEHOLDER_SENTENCE = {
    2: "Ask [name] to meet you at [address] and bring a snack.",
    3: "Ask [name] to meet you at [address] on [date] and bring a snack.",
}
PLACEHOLDERS = ["[name]", "[address]", "[date]", "[time of day]", "[phone number]"]


def topic_of(text: str) -> str:
    for pat in (
        r"what makes ([^.,]+?) interesting",
        r"who is new to ([^.,]+?)\.",
        r"^Describe ([^.,]+?)(?: in your own words| in at most|[.,])",
        r"about ([^.,]+?)(?: as bullet| in at most| in capital| using| without| that|[.,])",
        r"for ([^.,]+?)\. Reply",
    ):
        m = re.search(pat, text)
        if m:
            return m.group(1)
    return "this topic"


def implied_rules(row: dict[str, Any]) -> list[dict[str, Any]]:
    """Requests the prompt makes that its rule list leaves out (format-v1); breaking only these is ambiguous."""
    text = row["text"]
    have = {r["rule"] for r in row["score_args"]["rules"]}
    out: list[dict[str, Any]] = []
    if "sentence_count" not in have:
        if re.search(r"Write (?:one|a) sentence", text):
            out.append({"rule": "sentence_count", "value": 1})
        elif "Write two sentences" in text:
            out.append({"rule": "sentence_count", "value": 2})
    if "json_keys" not in have and "keys 'topic' and 'mood'" in text:
        out.append({"rule": "json_keys", "value": ["topic", "mood"]})
    return out


def words(text: str) -> int:
    return sum(1 for tok in text.split() if re.search(r"[A-Za-z0-9]", tok))


def sentences(text: str) -> int:
    body = re.sub(r"<<[^>]*>>", "", text)
    body = re.sub(r"(?im)^\s*SECTION \d+\s*$", "", body)
    body = re.sub(r"(?im)^p\.s\..*$", "", body)
    return len(re.findall(r"[A-Za-z0-9\]*][.!?]+(?=[\s\"*]|$)", body))


def check(rule: dict[str, Any], text: str) -> bool:
    """The author's reading of each rule from the prompt wording (not a scorer)."""
    name, val = rule["rule"], rule.get("value")
    t = text.strip()
    if name == "max_words":
        return words(t) <= val
    if name == "min_words":
        return words(t) >= val
    if name == "sentence_count":
        return sentences(t) == val
    if name == "uppercase":
        return t == t.upper()
    if name == "lowercase":
        return t == t.lower()
    if name == "no_commas":
        return "," not in t and "，" not in t
    if name == "ends_with":
        if val[-1].isalnum():
            return re.search(rf"\b{re.escape(val)}[.!]?$", t) is not None
        return t.endswith(val)
    if name == "starts_with":
        return re.match(rf"{re.escape(val)}\b(?!')", t) is not None
    if name == "bullet_count":
        return len(re.findall(r"(?m)^- \S", t)) == val
    if name == "language_ascii":
        return all(ord(ch) < 128 for ch in text)
    if name == "json":
        try:
            return isinstance(json.loads(t), dict)
        except ValueError:
            return False
    if name == "json_keys":
        try:
            obj = json.loads(t)
        except ValueError:
            return False
        return isinstance(obj, dict) and sorted(obj) == sorted(val)
    if name == "not_contains":
        return re.search(rf"\b{re.escape(val)}\b", t, re.I) is None
    if name == "contains":
        return re.search(rf"\b{re.escape(val)}\b", t, re.I) is not None
    if name == "placeholder_count":
        return len(re.findall(r"\[[^\]\n]+\]", t)) >= val
    if name == "postscript":
        return re.search(rf"(?m)^{re.escape(val)} \S", t) is not None
    if name == "highlight_count":
        return len(re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", t)) >= val
    if name == "keyword_count":
        return len(re.findall(rf"\b{re.escape(val['word'])}\b", t, re.I)) >= val["min"]
    if name == "title":
        return re.search(r"<<[^<>\n]+>>", t) is not None
    if name == "section_count":
        return len(re.findall(rf"(?m)^{val['marker']} \d+\b", t)) == val["count"]
    if name == "paragraph_count":
        return len([p for p in re.split(r"\n\s*\n", t) if p.strip()]) == val
    if name == "quotation":
        return t.startswith('"') and t.endswith('"') and len(t) > 1
    raise ValueError(f"unknown rule {name}")


def compose(row: dict[str, Any], rules: list[dict[str, Any]], nl: str = "\n") -> dict[str, Any]:
    """A structured answer keeping every rule; render() turns it into text."""
    R = {r["rule"]: r.get("value") for r in rules}
    t = topic_of(row["text"])
    tcap = t[:1].upper() + t[1:]
    spec: dict[str, Any] = {"nl": nl, "title": None, "ps": None, "quote": None, "case": None, "layout": "plain", "groups": 1}
    short_title = "short title" in row["text"]
    if short_title:
        spec["sents"] = [f"{tcap} after dark"]
        spec["case"] = "upper" if "uppercase" in R else None
        return spec
    if "sentence_count" in R:
        n = R["sentence_count"]
    elif "bullet_count" in R:
        n = R["bullet_count"]
    elif "max_words" in R and R["max_words"] <= 12:
        n = 1
    elif "min_words" in R:
        n = R["min_words"] // 9 + 2
    elif "max_words" in R:
        n = 1
        while words(" ".join(BANK[k].format(t=t) for k in range(n + 1))) <= R["max_words"] - 16:
            n += 1
    elif "section_count" in R:
        n = R["section_count"]["count"] * 2
    elif "paragraph_count" in R:
        n = R["paragraph_count"] * 2
    else:
        n = 4
    start = int(re.sub(r"\D", "", row["id"])[-2:]) % len(BANK)
    if "max_words" in R and R["max_words"] <= 12:
        sents = [SHORT[start % len(SHORT)].format(T=tcap)]
        if words(sents[0]) > R["max_words"] - 2:
            sents = [f"{tcap} rest."]
    else:
        sents = [BANK[(start + k) % len(BANK)].format(t=t) for k in range(n)]
    if "section_count" in R:
        spec["layout"], spec["groups"] = "sections", R["section_count"]["count"]
        while len(sents) < spec["groups"]:
            sents.append(BANK[(start + len(sents)) % len(BANK)].format(t=t))
    elif "bullet_count" in R:
        spec["layout"], spec["groups"] = "bullets", R["bullet_count"]
    elif "paragraph_count" in R:
        spec["layout"], spec["groups"] = "paras", R["paragraph_count"]
        while len(sents) < spec["groups"]:
            sents.append(BANK[(start + len(sents)) % len(BANK)].format(t=t))
    slot = 1 if len(sents) > 2 else len(sents) - 1
    if "keyword_count" in R:
        kw, m = R["keyword_count"]["word"], R["keyword_count"]["min"]
        sents[slot] = "You find " + " and ".join(KW_PHRASE[kw].format(p=PLACES[j]) for j in range(m)) + "."
        slot = max(0, slot - 1) if len(sents) <= 2 else min(slot + 1, len(sents) - 1)
    if "contains" in R:
        w = R["contains"]
        if "keyword_count" in R and len(sents) <= 2:
            sents[-1 if slot == 0 else slot] = sents[-1 if slot == 0 else slot][:-1] + f" near the {w}."
        else:
            sents[slot] = f"A {w} sits at the centre of this picture of {t}."
    if "placeholder_count" in R:
        k = R["placeholder_count"]
        bank = {b.format(t=t) for b in BANK}
        free = [j for j, x in enumerate(sents) if x in bank and not (j == 0 and "starts_with" in R) and not (j == len(sents) - 1 and "ends_with" in R)]
        if free:
            sents[free[-1]] = PLACEHOLDER_SENTENCE[k]
        else:
            tgt = len(sents) - 2 if "ends_with" in R and len(sents) > 1 else len(sents) - 1
            sents[tgt] = sents[tgt][:-1] + " with " + " and ".join(PLACEHOLDERS[:k]) + "."
    if "starts_with" in R:
        sents[0] = OPENERS[R["starts_with"]].format(t=t)
    if "ends_with" in R:
        phrase = R["ends_with"]
        sents[-1] = CLOSERS.get(phrase, phrase).format(t=t)
        if len(sents) == 1 and "starts_with" in R:
            sents[0] = OPENERS[R["starts_with"]].format(t=t)[:-1] + " and now it is " + phrase
    if "highlight_count" in R:
        need = R["highlight_count"]
        for j, s in enumerate(sents):
            if need and t in s and "*" not in s:
                sents[j] = s.replace(t, f"*{t}*", 1)
                need -= 1
        j = 0
        while need and j < 50:
            s = sents[j % len(sents)]
            m = re.search(r"(?<=\s)(\w{5,})\b(?![^*]*\*)", s)
            if m:
                sents[j % len(sents)] = s[: m.start()] + f"*{m.group(1)}*" + s[m.end() :]
                need -= 1
            j += 1
    spec["sents"] = sents
    if "title" in R:
        spec["title"] = f"Notes on {t}"
    if "postscript" in R:
        spec["ps"] = f"I will bring the book about {t} next week."
    if "quotation" in R:
        spec["quote"] = ('"', '"')
    if "uppercase" in R:
        spec["case"] = "upper"
    elif "lowercase" in R:
        spec["case"] = "lower"
    return spec


def split_groups(items: list[str], n: int) -> list[list[str]]:
    n = max(1, min(n, len(items)))
    size, extra = divmod(len(items), n)
    out, k = [], 0
    for g in range(n):
        take = size + (1 if g < extra else 0)
        out.append(items[k : k + take])
        k += take
    return out


def render(spec: dict[str, Any]) -> str:
    nl = spec["nl"]
    sents = spec["sents"]
    layout = spec["layout"]
    if layout == "bullets":
        markers = spec.get("markers") or ["- "] * len(sents)
        body = nl.join(m + s for m, s in zip(markers, sents, strict=True))
    elif layout == "sections":
        fmt_ = spec.get("section_fmt", "SECTION {i}")
        body = (nl + nl).join(fmt_.format(i=i + 1, r=["I", "II", "III", "IV"][i]) + nl + " ".join(g) for i, g in enumerate(split_groups(sents, spec["groups"])))
    elif layout == "paras":
        body = (nl + nl).join(" ".join(g) for g in split_groups(sents, spec["groups"]))
    else:
        body = " ".join(sents)
    if spec.get("signoff"):
        body += nl + nl + spec["signoff"]
    if spec["title"]:
        body = spec.get("title_fmt", "<<{}>>").format(spec["title"]) + nl + nl + body
    if spec["case"] == "upper":
        body = body.upper()
    elif spec["case"] == "lower":
        body = body.lower()
    if spec["ps"]:
        ps = spec["ps"].upper() if spec["case"] == "upper" else spec["ps"].lower() if spec["case"] == "lower" else spec["ps"]
        sep = nl if layout == "paras" else nl + nl
        body += sep + spec.get("ps_marker", "P.S.") + " " + ps
    if spec["quote"]:
        body = spec["quote"][0] + body + spec["quote"][1]
    if spec.get("trailing_spaces"):
        body = nl.join(line + "  " for line in body.split(nl))
    return body


FILLER_WORDS = ["and", "it", "stays", "with", "you", "for", "many", "quiet", "years", "after", "you", "leave", "the", "place", "behind"]


def mutate(spec: dict[str, Any], rule: dict[str, Any], row: dict[str, Any]) -> tuple[str, str, bool] | None:
    """Break exactly `rule` in a subtle way; returns (style, text, ambiguous) or None where no subtle break fits."""
    name, val = rule["rule"], rule.get("value")
    s = json.loads(json.dumps(spec))
    sents: list[str] = s["sents"]
    if name == "max_words" and "short title" in row["text"]:
        sents[0] = sents[0] + " and the long walk home through the old harbour town"
        return "instr-title-runs-long", render(s), False
    if name == "max_words":
        over = val - words(render(spec)) + 3
        j = max(0, len(sents) - 2) if "ends_with" in str(row["score_args"]) else len(sents) - 1
        filler = FILLER_WORDS
        extra = " ".join(filler[: max(1, over)])
        if over > len(filler):
            return None
        sents[j] = sents[j].rstrip(".") + " " + extra + "."
        return "instr-over-by-trailing-clause", render(s), False
    if name == "min_words":
        plain = [k for k, x in enumerate(sents) if x in {b.format(t=topic_of(row["text"])) for b in BANK}]
        while plain and words(render(s)) >= val:
            del sents[plain.pop()]
        if words(render(s)) >= val or words(render(s)) < val - 12:
            return None
        return "instr-short-by-one-sentence", render(s), False
    if name == "sentence_count":
        j = max(0, len(sents) - 1)
        sents.insert(j, "It stays with me.")
        return "instr-one-extra-sentence", render(s), False
    if name == "uppercase":
        text = render(spec)
        for w in (" AND ", " THE ", " OF "):
            if w in text:
                return "instr-upper-one-small-word-lower", text.replace(w, w.lower(), 1), False
        return None
    if name == "lowercase":
        text = render(spec)
        m = re.search(r"(?<=[.!?] )([a-z])", text)
        if not m:
            m = re.search(r"^([a-z])", text)
        if not m:
            return None
        return "instr-lower-sentence-initial-capital", text[: m.start()] + m.group(1).upper() + text[m.end() :], False
    if name in ("no_commas", "language_ascii"):
        t = topic_of(row["text"])
        for j, x in enumerate(sents):
            for plain, comma in COMMA_FORMS.items():
                if x == plain.format(t=t):
                    sents[j] = comma.format(t=t) if name == "no_commas" else comma.format(t=t).replace(",", " —", 1).replace(",", "", 1)
                    style = "instr-natural-comma-slip" if name == "no_commas" else "instr-ascii-em-dash-aside"
                    return style, render(s), False
        return None
    if name == "ends_with":
        return "instr-ends-then-horizontal-rule", render(spec) + spec["nl"] + spec["nl"] + "---", False
    if name == "starts_with":
        sents[0] = INFLECTED[val].format(t=topic_of(row["text"]))
        return "instr-starts-inflected-form", render(s), False
    if name == "bullet_count":
        s["markers"] = ["- "] * (len(sents) - 1) + ["– "]
        return "instr-last-bullet-en-dash", render(s), False
    if name == "not_contains":
        j = 1 if len(sents) > 2 else 0
        tail = FORBIDDEN_TAIL[val]
        sents[j] = sents[j].rstrip(".") + f" and it feels {tail}."
        return "instr-forbidden-in-trailing-clause", render(s), False
    if name == "placeholder_count":
        text = render(spec)
        last = PLACEHOLDERS[val - 1]
        if s["case"] == "upper":
            last = last.upper()
        if last not in text:
            return None
        return "instr-placeholder-angle-brackets", text.replace(last, "<" + last[1:-1] + ">", 1), False
    if name == "contains":
        text = render(spec)
        w = val.upper() if s["case"] == "upper" else val
        comp = COMPOUND[val].upper() if s["case"] == "upper" else COMPOUND[val]
        new = re.sub(rf"\b{re.escape(w)}\b", comp, text)
        return "instr-contains-only-in-compound", new, True
    if name == "postscript":
        s["ps_marker"] = "Postscript:"
        return "instr-ps-spelled-out", render(s), False
    if name == "highlight_count":
        text = render(spec)
        m = list(re.finditer(r"(?<!\*)\*([^*\n]+)\*(?!\*)", text))
        if not m:
            return None
        last = m[-1]
        return "instr-highlight-unclosed", text[: last.start()] + "*" + last.group(1) + text[last.end() :], False
    if name == "keyword_count":
        text = render(spec)
        kw = val["word"]
        w = kw.upper() if s["case"] == "upper" else kw
        comp = KW_COMPOUND[kw].upper() if s["case"] == "upper" else KW_COMPOUND[kw]
        return "instr-keyword-one-in-compound", re.sub(rf"\b{re.escape(w)}\b", comp, text, count=1), True
    if name == "title":
        s["title_fmt"] = "<{}>"
        return "instr-title-single-angle", render(s), False
    if name == "section_count":
        s["section_fmt"] = "SECTION {r}"
        return "instr-sections-roman-numerals", render(s), True
    if name == "paragraph_count":
        s["signoff"] = "Cheers" + s["nl"] + "Sam"
        return "instr-signoff-own-paragraph", render(s), False
    if name == "quotation":
        s["quote"] = ("'", "'")
        return "instr-single-quotes-wrap", render(s), False
    if name in ("json", "json_keys"):
        return None
    raise ValueError(name)


def json_instruction(row: dict[str, Any], rules: list[dict[str, Any]], k: int) -> None:
    rid = row["id"]
    keys = next((r["value"] for r in rules if r["rule"] == "json_keys"), ["topic", "mood"])
    t = topic_of(row["text"])
    vals = {"topic": t, "mood": "calm", "name": t, "reason": f"{t} slows the day down", "title": f"Notes on {t}", "summary": f"A short look at {t}."}
    obj = {kk: vals[kk] for kk in keys}
    implied_only = not any(r["rule"] == "json_keys" for r in row["score_args"]["rules"])
    j = k % 4
    if j == 0:
        add(rid, json.dumps({kk: obj[kk] for kk in reversed(keys)}, indent=2), True, "instr-json-reversed-keys-indented")
    elif j == 1:
        add(rid, json.dumps(obj, ensure_ascii=True, separators=(", ", ": ")), True, "instr-json-one-line")
    elif j == 2:
        add(rid, json.dumps({keys[0]: obj[keys[0]], keys[1]: [obj[keys[1]], "hopeful"]}), True, "instr-json-list-value", ambiguous=True)
    else:
        add(rid, json.dumps(obj, indent=4), True, "instr-json-indent4")
    j = k % 3
    if j == 0:
        text = "{\n  // keys as requested\n" + ",\n".join(f'  "{kk}": "{obj[kk]}"' for kk in keys) + "\n}"
        add(rid, text, False, "instr-json-with-line-comment")
    elif j == 1:
        bad = {keys[0]: obj[keys[0]], keys[1] + " ": obj[keys[1]]}
        add(rid, json.dumps(bad), False, "instr-json-key-trailing-space", ambiguous=implied_only)
    else:
        add(rid, "\n".join(f"{kk}: {obj[kk]}" for kk in keys), False, "instr-json-yaml-instead")


def instruction_cases() -> None:
    rows = rows_of("instruction")
    skipped = 0
    for k, row in enumerate(rows):
        rid = row["id"]
        listed = row["score_args"]["rules"]
        implied = implied_rules(row)
        rules = listed + implied
        names = {r["rule"] for r in rules}
        if "json" in names or "json_keys" in names:
            json_instruction(row, rules, k)
            continue
        variant = k % 3
        nl = "\r\n" if variant == 1 else "\n"
        spec = compose(row, rules, nl)
        spec["trailing_spaces"] = variant == 2
        text = render(spec)
        failing = [r["rule"] for r in rules if not check(r, text)]
        if failing:
            skipped += 1
            print(f"  skip {rid}: composed answer breaks {failing}")
            continue
        ps_and_count = "postscript" in names and "sentence_count" in names
        style = ["instr-all-rules-plain", "instr-all-rules-crlf", "instr-all-rules-trailing-spaces"][variant]
        # the short format suites repeat their prompts: one case a row there, right and wrong in turn
        short_suite = rid.startswith("format")
        if not short_suite or k % 2 == 0:
            add(rid, text, True, style, ambiguous=ps_and_count)
        if short_suite and k % 2 == 0:
            continue
        order = sorted(rules, key=lambda r: hash_rule(rid, r["rule"]))
        made = 0
        for rule in order:
            out = mutate(spec, rule, row)
            if out is None:
                continue
            mstyle, mtext, amb = out
            broken = [r["rule"] for r in rules if not check(r, mtext)]
            if broken != [rule["rule"]]:
                continue
            amb = amb or rule in implied or (ps_and_count and rule["rule"] != "postscript")
            add(rid, mtext, False, mstyle, ambiguous=amb)
            made += 1
            if made >= (2 if k % 12 == 0 else 1):
                break
    if skipped:
        print(f"instruction rows skipped: {skipped}")


def hash_rule(rid: str, rule: str) -> int:
    return sum((i + 1) * ord(c) for i, c in enumerate(rid + rule)) % 997


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
    print(f"wrote {len(CASES)} cases over {len({c['row_id'] for c in CASES})} rows to {OUT.relative_to(ROOT)} ({right} right, {amb} ambiguous)")


if __name__ == "__main__":
    main()
