"""Build benchmarks/scorer_styles_blind.jsonl: a held-out set of answer styles (issue 33).

How this set was made, and why it is held out:
- Its author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args) and never opened the scorers, their
  tests, benchmarks/scorer_styles.py or benchmarks/scorer_accuracy.py.
- Every case is an answer a real instruct model could give to that row's prompt,
  with the verdict a careful human grader would give after reading the prompt
  and the expected answer. Verdicts were fixed before any scorer was run.
- Small generators below vary the phrasing (anchored/unanchored, bold, boxed,
  LaTeX, units, separators, fractions, corrections, thinking blocks, chatty
  wrappers, restated options, other languages, confidence lines, refusals,
  hedges, tool calls as structure and as text); the right and wrong value of
  each case comes from the row itself, so a verdict follows from construction.
- "ambiguous": true marks cases where careful graders would disagree; the
  accuracy run leaves them out.

Run: python benchmarks/make_scorer_styles_blind.py  (deterministic, no network)
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind.jsonl"

TEXT_SUITES = [
    "eval-calibration-v1",
    "eval-commonsense-v1",
    "eval-format-v1",
    "eval-format-v2",
    "eval-hallucination-v1",
    "eval-instruction-v1",
    "eval-json-v1",
    "eval-knowledge-v1",
    "eval-knowledge-v2",
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

rng = random.Random(33)
ROWS: dict[str, tuple[str, dict[str, Any]]] = {}
CASES: list[dict[str, Any]] = []


def load() -> None:
    for suite in TEXT_SUITES:
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
    if tool_calls is not None:
        case["tool_calls"] = tool_calls
    CASES.append(case)


def rows_of(scorer: str, suite_prefix: str = "") -> list[dict[str, Any]]:
    return [r for s, r in ROWS.values() if r["scorer"] == scorer and s.startswith(suite_prefix)]


# ---------------------------------------------------------------- numeric


def value_of(answer: str) -> Fraction:
    return Fraction(answer)


def fmt_num(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    return str(float(v)).rstrip("0").rstrip(".")


def thousands(v: Fraction) -> str:
    return f"{v.numerator:,}" if v.denominator == 1 else fmt_num(v)


def wrong_numeric(row: dict[str, Any]) -> Fraction:
    v = value_of(row["answer"])
    cat = row.get("category")
    if cat == "fraction":
        n, d = (int(x) for x in row["answer"].split("/"))
        # the classic slip: add numerators and denominators
        return Fraction(n, 2 * d)
    if v.denominator != 1:
        return v * 10
    if cat in ("neg", "sub") and v < 0:
        return -v  # dropped the sign
    return v + rng.choice([1, -1, 10, -10, 2])


NUMERIC_RIGHT_STYLES = [
    "anchored",
    "anchored_bold",
    "boxed",
    "latex_inline",
    "sentence_unanchored",
    "chatty",
    "work_then_answer",
    "late_correction",
    "think_closed",
    "thousands_sep",
    "units",
    "bare",
]
NUMERIC_WRONG_STYLES = [
    "anchored",
    "anchored_bold",
    "boxed",
    "sentence_unanchored",
    "chatty",
    "work_then_answer",
    "late_wrong_correction",
    "think_right_then_wrong",
    "operand_echo",
    "think_unterminated",
]


def numeric_text(row: dict[str, Any], v: Fraction, style: str, other: Fraction) -> str:
    s = fmt_num(v)
    o = fmt_num(other)
    q = row["text"].split(" End with")[0].split(" Reply in")[0].split(" Give the")[0]
    if style == "anchored":
        return f"Answer: {s}"
    if style == "anchored_bold":
        return f"Let me work this out.\n\n**Answer: {s}**"
    if style == "boxed":
        return f"The result is $\\boxed{{{s}}}$."
    if style == "latex_inline":
        return f"We compute directly: $x = {s}$.\n\nAnswer: ${s}$"
    if style == "sentence_unanchored":
        return f"The answer is {s}."
    if style == "chatty":
        return f"Great question! {q} -> that comes to {s}. Let me know if you'd like me to show the steps!\n\nAnswer: {s}"
    if style == "work_then_answer":
        return f"Step 1: read the question.\nStep 2: a first rough guess is around {o} but let me be exact.\nStep 3: exact value {s}.\n\nAnswer: {s}"
    if style == "late_correction":
        return f"Answer: {o}\n\nWait, I made an arithmetic slip. Rechecking carefully gives {s}.\n\nAnswer: {s}"
    if style == "late_wrong_correction":
        return f"Answer: {o}\n\nHmm, let me double-check... actually I now get {s}.\n\nFinal answer: {s}"
    if style == "think_closed":
        return f"<think>\nFirst try gives {o}? No, that is off. Recompute: {s}.\n</think>\n\nAnswer: {s}"
    if style == "think_right_then_wrong":
        return f"<think>\nMaybe {o}... let me settle on a value.\n</think>\n\nAnswer: {s}"
    if style == "think_unterminated":
        return f"<think>\nOkay, {q}\nLet me start: partial result {o}, and then I need to"
    if style == "thousands_sep":
        return f"Answer: {thousands(v)}"
    if style == "units":
        return f"That works out to {thousands(v)} in total.\nAnswer: {s}"
    if style == "bare":
        return s
    if style == "operand_echo":
        return f"{q}\n\nAnswer: {s}"
    raise ValueError(style)


def numeric_cases() -> None:
    numeric_rows = [r for s, r in ROWS.values() if r["scorer"] == "numeric"]
    rng.shuffle(numeric_rows)
    for i, row in enumerate(numeric_rows[:70]):
        right = value_of(row["answer"])
        wrong = wrong_numeric(row)
        rs = NUMERIC_RIGHT_STYLES[i % len(NUMERIC_RIGHT_STYLES)]
        add(row["id"], numeric_text(row, right, rs, wrong), True, f"numeric-{rs}")
        ws = NUMERIC_WRONG_STYLES[i % len(NUMERIC_WRONG_STYLES)]
        if ws == "think_unterminated":
            add(row["id"], numeric_text(row, right, ws, wrong), False, "numeric-think_unterminated")
        elif ws == "late_wrong_correction":
            add(row["id"], numeric_text(row, wrong, ws, right), False, f"numeric-{ws}")
        else:
            add(row["id"], numeric_text(row, wrong, ws, right), False, f"numeric-{ws}")
    hand_numeric()


def hand_numeric() -> None:
    # fractions the dataset stores unreduced: any equal value is right
    add("math1-004", "1/2 + 1/2 = 1\n\nAnswer: 1", True, "fraction-reduced")
    add("math1-012", "3/4 + 3/4 = 6/4 = 3/2\n\nAnswer: 3/2", True, "fraction-reduced")
    add("math1-012", "Answer: 1 1/2", True, "mixed-number")
    add("math1-012", "Answer: $\\frac{3}{2}$", True, "latex-frac")
    add("math1-012", "Answer: 1.5", True, "fraction-as-decimal")
    add("math1-012", "Answer: 6/8", False, "fraction-added-denominators")
    add("math1-012", "Answer: \\(\\dfrac{6}{8}\\)", False, "latex-frac-wrong")
    add("math2-004", "5/2 + 5/2 = 10/2 = **5**\n\nAnswer: 5", True, "fraction-whole")
    add("math2-004", "Answer: 10/4", False, "fraction-added-denominators")
    add("math2-012", "Answer: 1/4", True, "fraction-reduced")
    add("math2-012", "Answer: 0.25", True, "fraction-as-decimal")
    add("math2-012", "Answer: 2/16", False, "fraction-added-denominators")
    add("math2-012", "Answer: 0.2", False, "fraction-rounded-wrong")
    # thousands separators, currency, units
    add("math2-003", "11 × 322 = 3,542; 3,542 − 132 = 3,410.\n\nAnswer: 3,410", True, "thousands-sep-unicode-minus")
    add("math2-003", "11 × 322 = 3,542 pencils in all.\n\nAnswer: 3,542", False, "stopped-early")
    add("math2-006", "4 × $275 = $1,100\n\nAnswer: $1,100", True, "currency-thousands")
    add("math2-006", "Answer: $1,100.00", True, "currency-cents")
    add("math2-006", "Answer: 1\u2009100 dollars", True, "thin-space-thousands")
    add("math2-006", "Answer: $1,000", False, "currency-wrong")
    add("math1-014", "Seven tickets at $1000 each: 7 × 1000 = 7000.\nAnswer: 7,000 dollars", True, "units-thousands")
    add("math1-014", "Answer: 7.000", True, "european-thousands-dot", ambiguous=True)
    # negatives
    add("math1-001", "13 − 37 = −24\n\nAnswer: −24", True, "unicode-minus")
    add("math1-001", "Answer: 24", False, "sign-dropped")
    add("math1-001", "13 - 37 = -24, i.e. 24 below zero.\n\nAnswer: -24", True, "negative-with-gloss")
    add("math2-007", "Answer: - 333", True, "spaced-minus")
    add("math2-007", "Answer: 333", False, "sign-dropped")
    # percent
    add("math1-013", "10% of 156 = 0.1 × 156 = 15.6\n\nAnswer: 15.6", True, "decimal")
    add("math1-013", "Answer: 15.60", True, "decimal-trailing-zero")
    add("math1-013", "Answer: 16", False, "rounded")
    add("math1-013", "10% of 156 is 15.6, so about 16.\n\nAnswer: 16", False, "rounded-after-right")
    add("math1-005", "Answer: 39 (which is 75% of 52)", True, "answer-then-restated-operands")
    add("math1-005", "75% of 52 is 52 × 0.75.\n\nAnswer: 52", False, "operand-as-answer")
    # calibration: a confidence line carries a second number
    for rid, ans, wrong in [("calib1-001", "14", "15"), ("calib1-003", "3168", "3268"), ("calib1-008", "6076", "6066")]:
        add(rid, f"Answer: {ans}\nConfidence: 95%", True, "confidence-line")
        add(rid, f"Answer: {wrong}\nConfidence: 90%", False, "confidence-line")
    add("calib1-001", "Answer: 13\nConfidence: 14%", False, "confidence-equals-answer")
    add("calib1-003", "Confidence: 80%\nAnswer: 3168", True, "confidence-first")
    add("calib1-008", "Answer: 6,076\nConfidence: 85 %", True, "confidence-thousands")
    # multilingual number words and decimal commas
    add("multi1-004", "Cinq.", True, "number-word-fr")
    add("multi1-004", "Deux plus trois font 5.", True, "sentence-fr")
    add("multi1-004", "Six.", False, "number-word-fr")
    add("multi1-005", "La respuesta es 8.", True, "sentence-es")
    add("multi1-005", "Ocho", True, "number-word-es")
    add("multi1-006", "Zehn minus drei ist sieben.", True, "number-word-de")
    add("multi1-006", "Die Antwort ist 13.", False, "sentence-de")
    add("multi1-013", "Una semana tiene 7 días.", True, "sentence-es")
    add("multi1-015", "Um dia tem 24 horas.", True, "sentence-pt")
    add("multi1-015", "12", False, "bare")
    add("multi1-018", "Eine Katze hat vier Beine.", True, "number-word-de")
    add("multi1-019", "Sei per due fa dodici.", True, "number-word-it")
    add("multi1-019", "8", False, "bare")
    # tool results used in a reply
    add("tsmall1-use-0", "It's currently 6 °C and clear in Lima.", True, "tool-result-degrees")
    add("tsmall1-use-0", "It is 6°C in Lima, which is about 43°F.", True, "tool-result-two-units")
    add("tsmall1-use-1", "Quito is at -4 °C right now with clear skies.", True, "tool-result-negative")
    add("tsmall1-use-1", "It's 4 degrees in Quito.", False, "tool-result-sign-dropped")
    add("tsmall1-use-2", "The temperature in Riga is 19 degrees Celsius.", True, "tool-result-sentence")
    add("tsmall1-use-3", "I'm unable to check live weather, but Dakar is usually around 30 °C.", False, "ignored-tool-result")
    add("tsmall1-use-4", "Oslo: 12 °C, clear.", True, "tool-result-terse")
    add("tsmall1-use-5", "It's 27 °C (81 °F) in Tunis.", True, "tool-result-two-units")
    add("tsmall1-use-5", "It's 81 °F in Tunis.", True, "tool-result-converted-only", ambiguous=True)
    add("tsmall1-use-5", "It's 72 °F in Tunis.", False, "tool-result-converted-wrong")
    # knowledge-type numerics with extra numbers around them
    add("sci1-078", "An adult skeleton typically has 206 bones (a newborn has around 270).", True, "extra-number-after")
    add("sci1-078", "A newborn has about 270 bones, which fuse over time; adults end up with roughly 300.\n\nAnswer: 300", False, "wrong-with-context")
    add("know2-005", "The UN was founded in 1945, after WWII (its charter was signed in San Francisco).", True, "year-sentence")
    add("know2-005", "Answer: 1948", False, "year-wrong")
    add("sci1-071", "Water freezes at 32 °F (0 °C).\n\nAnswer: 32", True, "units-two-scales")
    add("sci1-071", "Water freezes at 0 °C.\n\nAnswer: 0", False, "wrong-scale")
    add("sci1-021", "Answer: 100 °C", True, "units")
    add("sci1-021", "Answer: 212", False, "wrong-scale")
    add("common1-002", "From 9 am to 5 pm is 8 hours.\nAnswer: 8 hours", True, "units-after")
    add("common1-002", "From 9 to 5... 5 - 9 = -4, so 4 hours.\nAnswer: 4", False, "work-wrong")
    add("common1-003", "Answer: five", True, "number-word-en")
    add("common1-007", "3 pairs × 2 = 6 socks.\nAnswer: 6", True, "work-then-answer")
    add("common1-007", "Answer: 3", False, "operand-as-answer")
    add("reason2-002", "Differences: 23, 35, 47, 59, so next is 71: 181 + 71 = 252.\n\nAnswer: 252", True, "work-then-answer")
    add("reason2-002", "Differences: 23, 35, 47, 59... next difference 69, so 250.\n\nAnswer: 250", False, "work-wrong")
    add("reason1-002", "The sequence adds 4 each time: **22**", True, "bold-unanchored")
    add("reason1-002", "It goes up by 4, so the next is 22. Hmm, no — the pattern doubles: 36.\nAnswer: 36", False, "late-wrong-correction")
    add("math3-000", "511 + 288 = 799. I'm fairly confident, about 90%.\n\nAnswer: 799", True, "confidence-in-text")
    add("math3-000", "It's either 799 or 789, I'm not sure which.", False, "hedge-two-values")
    add("math3-002", "459 × 9 = 4,131", True, "equation-unanchored")
    add("math3-002", "459 × 9 = 4,121", False, "equation-unanchored")
    add("math3-001", "I'm sorry, but I can't help with that.", False, "refusal")
    add("math3-005", "Answer: 99.0", True, "trailing-decimal")
    add("math3-005", "Answer: 99%", False, "percent-sign-misread", ambiguous=True)


# ---------------------------------------------------------------- exact


WRONG_EXACT = {
    "Paris": "Lyon",
    "Tokyo": "Kyoto",
    "Rome": "Milan",
    "Cairo": "Alexandria",
    "Ottawa": "Toronto",
    "Madrid": "Barcelona",
    "Berlin": "Munich",
    "Canberra": "Sydney",
    "Ulaanbaatar": "Darkhan",
    "Thimphu": "Paro",
    "Ouagadougou": "Bobo-Dioulasso",
    "Vientiane": "Luang Prabang",
    "Asunción": "Ciudad del Este",
    "Bishkek": "Osh",
    "Moscow": "Saint Petersburg",
    "Asmara": "Massawa",
    "Beijing": "Shanghai",
    "Paramaribo": "Georgetown",
    "Stockholm": "Gothenburg",
    "Copenhagen": "Aarhus",
    "Brazil": "Argentina",
    "Mars": "Venus",
    "Jupiter": "Saturn",
    "Au": "Ag",
    "Na": "Ne",
    "He": "H",
    "Pacific": "Atlantic",
    "Africa": "Asia",
    "Amazon": "Paraná",
    "water": "ice",
    "ice": "steam",
    "mice": "mouses",
    "cold": "warm",
    "went": "goed",
    "green": "purple",
    "honey": "wax",
    "July": "August",
    "Monday": "Sunday",
    "gravity": "magnetism",
    "heart": "lungs",
    "lungs": "heart",
    "Sun": "Proxima Centauri",
    "friction": "gravity",
    "seismology": "geology",
    "nucleus": "electron",
    "diamond": "quartz",
    "hydrogen": "helium",
    "January": "February",
    "south": "east",
    "east": "west",
    "red": "blue",
    "Tuesday": "Thursday",
    "carbon dioxide": "oxygen",
    "Pablo Picasso": "Salvador Dalí",
    "New York City": "Chicago",
    "Mediterranean Sea": "Red Sea",
    "William Shakespeare": "Christopher Marlowe",
    "cat": "dog",
    "dog": "cat",
    "book": "bookstore",
    "blau": "grau",
    "Roma": "Milano",
    "Lisboa": "Porto",
    "3:30 pm": "4:00 pm",
}
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def wrong_exact(row: dict[str, Any]) -> str:
    ans = row["answer"]
    if ans in DAYS:
        return DAYS[(DAYS.index(ans) + 6) % 7]  # off by one day
    if row.get("category") == "order":
        # the tallest person named in the prompt: a real distractor, never the answer
        names = [w for w in row["text"].replace(".", " ").split() if w.istitle() and w not in ("Who", "End", "Answer:")]
        others = [n for n in names if n != ans and n not in ("Today",)]
        return others[0]
    if ans.isdigit():
        return str(int(ans) + 1)
    return WRONG_EXACT[ans]


EXACT_RIGHT = [
    lambda a: f"Answer: {a}",
    lambda a: f"**{a}**",
    lambda a: f"The answer is {a}.",
    lambda a: f"{a}.",
    lambda a: f"Sure! It's **{a}**. Hope that helps!",
    lambda a: f"<think>\nLet me recall... yes.\n</think>\n\n{a}",
    lambda a: f"Answer: *{a}*",
    lambda a: f"Let me think step by step.\n\nAfter checking, it is {a}.\n\nAnswer: {a}",
    lambda a: f"ANSWER: {a.upper()}",
    lambda a: f"Answer: {a.lower()}",
]
EXACT_WRONG = [
    lambda a, r: f"Answer: {a}",
    lambda a, r: f"**{a}**",
    lambda a, r: f"I believe it's {a}.",
    lambda a, r: f"Answer: {r}\n\nHmm, on second thought I'll go with {a}.\n\nAnswer: {a}",
    lambda a, r: f"<think>\nIs it {r}? I'm not sure.\n</think>\n\nAnswer: {a}",
    lambda a, r: f"<think>\nThe question asks... the answer should be {r}, let me just verify once more by",
    lambda a, r: f"It's not {r}; the answer is {a}.",
    lambda a, r: f"I'm not sure. It could be {r} or {a}.",
]


def exact_cases() -> None:
    rows = [r for s, r in ROWS.values() if r["scorer"] == "exact"]
    rng.shuffle(rows)
    for i, row in enumerate(rows[:60]):
        a = row["answer"]
        w = wrong_exact(row)
        k = i % len(EXACT_RIGHT)
        # a chemical symbol in the wrong case ("AU", "he") is a different string to a chemist
        amb = k in (8, 9) and a in ("Au", "Na", "He")
        add(row["id"], EXACT_RIGHT[k](a), True, f"exact-right-{k}", ambiguous=amb)
        j = i % len(EXACT_WRONG)
        add(row["id"], EXACT_WRONG[j](w, a), False, f"exact-wrong-{j}")
    hand_exact()


def hand_exact() -> None:
    add("calib1-002", "Answer: Ulan Bator\nConfidence: 85%", True, "alias-confidence")
    add("calib1-002", "Answer: Ulan-Bator\nConfidence: 80%", True, "alias-hyphen-variant")
    add("calib1-022", "Answer: Asuncion\nConfidence: 70%", True, "alias-no-accent")
    add("calib1-022", "Answer: ASUNCIÓN\nConfidence: 70%", True, "uppercase-accent")
    add("calib1-012", "Answer: Ouagadougou\nConfidence: 60%", True, "confidence-line")
    add("calib1-012", "Answer: Bobo-Dioulasso\nConfidence: 40%", False, "confidence-line")
    add("calib1-000", "Answer: Paris, France\nConfidence: 100%", True, "city-with-country")
    add("calib1-010", "Answer: Rome (Roma)\nConfidence: 99%", True, "endonym-parenthetical")
    add("calib1-035", "Answer: Peking\nConfidence: 90%", True, "historic-name", ambiguous=True)
    add("calib1-030", "Answer: Moskva\nConfidence: 95%", True, "endonym", ambiguous=True)
    add("common1-033", "It ends at 3:30 PM.\nAnswer: 3:30 PM", True, "alias-case")
    add("common1-033", "Answer: 15:30", True, "alias-24h")
    add("common1-033", "Answer: half past three in the afternoon", True, "words-time")
    add("common1-033", "2:00 pm + 90 minutes = 3:30 pm... no wait, 4:00 pm.\nAnswer: 4:00 pm", False, "late-wrong-correction")
    add("common1-033", "Answer: 3:00 pm", False, "wrong-time")
    add("common1-057", "Ana is the youngest.\n\nAnswer: Ana", True, "sentence-and-anchor")
    add("common1-057", "Tim is the oldest, so the youngest is Sam.\nAnswer: Sam", False, "wrong-name")
    add("reason1-000", "Answer: Ana", False, "substring-of-expected")
    add("reason1-000", "Ana > Cara > Hana, so Hana is the shortest.\nAnswer: Hana", True, "chain-then-answer")
    add("reason1-020", "Answer: Hana", False, "superstring-of-expected")
    add("reason1-020", "Ben > Dev > Ana. The shortest is Ana.", True, "chain-unanchored")
    add("reason2-000", "Order from tallest: Ana, Eli, Cara, Gus, Hana.\nAnswer: Hana", True, "chain-then-answer")
    add("reason2-000", "Order from tallest: Ana, Eli, Cara, Gus, Hana.\nAnswer: Ana", False, "picked-tallest")
    add("reason1-001", "20 days = 2 weeks + 6 days. Saturday + 6 = Friday.\n\nAnswer: Friday", True, "work-then-answer")
    add("reason1-001", "20 mod 7 = 6. Saturday + 6 days = Thursday.\nAnswer: Thursday", False, "work-off-by-one")
    add("reason2-013", "73 = 70 + 3. Saturday + 3 = Tuesday.\nAnswer: **Tuesday**", True, "work-bold")
    add("reason2-013", "Answer: Tue", True, "abbreviated-day", ambiguous=True)
    add("reason2-033", "91 days is exactly 13 weeks, so it's Wednesday again.\nAnswer: Wednesday", True, "same-day")
    add("reason2-033", "91 days is 13 weeks, so same day: Wednesday... plus one is Thursday.\nAnswer: Thursday", False, "late-wrong")
    add("know1-005", "The Pacific Ocean.", True, "alias-with-article")
    add("know1-009", "The Amazon River", True, "alias-with-article")
    add("know1-010", "Au (from the Latin *aurum*)", True, "symbol-with-etymology")
    add("know1-010", "AU", False, "symbol-wrong-case", ambiguous=True)
    add("know1-010", "Gold's symbol is Ag.", False, "symbol-wrong")
    add("know1-012", "CO₂", True, "alias-subscript")
    add("know1-012", "Carbon dioxide (CO2).", True, "alias-both")
    add("know1-012", "Oxygen — not CO2.", False, "wrong-mentions-right-negated")
    add("know1-015", "Eight legs.", True, "alias-word-with-noun")
    add("know1-015", "Spiders have 8 legs; insects have 6.", True, "extra-number-after")
    add("know1-015", "Six legs.", False, "wrong-word")
    add("know1-022", "√81 = 9", True, "equation")
    add("know1-022", "±9", True, "plus-minus", ambiguous=True)
    add("know1-024", "A leap year has 366 days.", True, "sentence")
    add("know1-024", "365 days", False, "wrong-with-noun")
    add("know1-026", "Mice.", True, "capitalised")
    add("know1-026", "mouses", False, "regularised-plural")
    add("know1-028", "The past tense of 'go' is 'went'.", True, "sentence-quoted")
    add("know1-028", "gone", False, "participle-not-past")
    add("know1-019", "The Sun", True, "alias-with-article")
    add("know1-019", "Proxima Centauri (the Sun aside).", False, "wrong-mentions-right", ambiguous=True)
    add("know1-037", "Monday (ISO 8601 weeks start on Monday).", True, "parenthetical-repeat")
    add("know1-037", "Sunday", False, "wrong-day")
    add("know2-011", "Guernica was painted by Picasso in 1937.\n\nAnswer: Picasso", True, "alias-surname")
    add("know2-011", "Answer: Pablo Ruiz Picasso", True, "full-name-variant")
    add("know2-011", "Answer: Salvador Dalí", False, "wrong-name")
    add("know2-025", "Answer: NYC", True, "alias-acronym")
    add("know2-025", "Answer: New York", True, "alias")
    add("know2-025", "Answer: Los Angeles", False, "wrong-city")
    add("know2-060", "Answer: the Mediterranean", True, "alias")
    add("know2-060", "Answer: the Black Sea", False, "wrong-sea")
    add("know2-072", "Answer: Shakespeare", True, "alias-surname")
    add("know2-072", "Hamlet was written by William Shakespeare around 1600.\nAnswer: William Shakespeare", True, "sentence-then-anchor")
    add("know2-096", "Brazil is by far the largest (about 8.5 million km²).\n\nAnswer: Brazil", True, "units-in-context")
    add("know2-096", "Answer: Argentina", False, "wrong-country")
    add("multi1-000", "Paris", True, "bare")
    add("multi1-000", "La capitale de la France est Paris.", True, "sentence-fr")
    add("multi1-000", "Lyon", False, "bare")
    add("multi1-001", "Madrid.", True, "bare-period")
    add("multi1-002", "Berlin", True, "bare")
    add("multi1-002", "Die Hauptstadt ist München.", False, "sentence-de")
    add("multi1-003", "Roma", True, "bare-endonym")
    add("multi1-003", "Rome", True, "alias-english")
    add("multi1-003", "Milano", False, "bare")
    add("multi1-007", "Lisboa.", True, "bare-period")
    add("multi1-007", "Lisbon", True, "alias-english")
    add("multi1-007", "Lisbonne", True, "french-exonym", ambiguous=True)
    add("multi1-007", "Porto", False, "bare")
    add("multi1-008", "cat", True, "bare")
    add("multi1-008", "Cat.", True, "capitalised")
    add("multi1-008", "kitten", False, "near-miss")
    add("multi1-009", "Dog", True, "capitalised")
    add("multi1-009", "«dog»", True, "guillemets")
    add("multi1-010", "Water.", True, "capitalised")
    add("multi1-010", "„water“", True, "german-quotes")
    add("multi1-010", "Wasser", False, "untranslated")
    add("multi1-011", "book", True, "bare")
    add("multi1-011", "library", False, "false-friend")
    add("multi1-012", "Mars", True, "bare")
    add("multi1-012", "Mars.", True, "bare-period")
    add("multi1-012", "Vénus", False, "bare")
    add("multi1-014", "Blau.", True, "capitalised")
    add("multi1-014", "blue", True, "alias-english")
    add("multi1-014", "Grau", False, "bare")
    add("multi1-016", "Tokyo", True, "bare")
    add("multi1-016", "Tokio", True, "exonym-spelling", ambiguous=True)
    add("multi1-016", "Kyoto", False, "bare")
    add("multi1-017", "Roma.", True, "bare-period")
    add("multi1-017", "Roma, aunque antes la capital fue Turín.", True, "extra-other-name-after")
    add("sci1-019", "Answer: the lungs", True, "alias")
    add("sci1-019", "Answer: Lung", True, "alias-singular")
    add("sci1-019", "Answer: heart", False, "wrong")
    add("sci1-052", "Answer: The atomic nucleus", True, "alias")
    add("sci1-052", "Answer: electron cloud", False, "wrong")
    add("sci1-094", "Answer: He", True, "anchored-symbol")
    add("sci1-094", "Answer: H", False, "prefix-of-expected")
    add("sci1-094", "Helium's symbol is **He**.", True, "bold-in-sentence")
    add("sci1-092", "Answer: Helium", False, "wrong")
    add("sci1-092", "Answer: Hydrogen (about 73% by mass)", True, "parenthetical-number")
    add("common1-021", "Ice is colder than boiling water.\nAnswer: ice", True, "sentence-then-anchor")
    add("common1-021", "Answer: boiling water", False, "wrong-option")
    add("common1-073", "Answer: the east", True, "alias")
    add("common1-073", "It rises in the east and sets in the west.\nAnswer: East", True, "extra-distractor-before-anchor")
    add("common1-073", "Answer: west", False, "wrong")
    add("common1-062", "Since the box only has red balls, it must be red.\nAnswer: red", True, "sentence-then-anchor")
    add("common1-012", "November → December → January.\nAnswer: January", True, "arrow-chain")
    add("common1-012", "Answer: December", False, "off-by-one")


# ---------------------------------------------------------------- multiple choice


LETTERS = "ABCD"


def mc_cases() -> None:
    rows = [r for s, r in ROWS.values() if r["scorer"] == "mc"]
    rng.shuffle(rows)
    for i, row in enumerate(rows[:70]):
        a = row["answer"]
        # parity rows carry their options only in the prompt text ("A) even B) odd")
        choices = (row.get("score_args") or {}).get("choices") or ["even", "odd"]
        ci = LETTERS.index(a)
        right_text = choices[ci]
        wi = (ci + 1 + i % (len(choices) - 1)) % len(choices)
        w = LETTERS[wi]
        wrong_text = choices[wi]
        conf = "\nConfidence: 80%" if row["id"].startswith("calib") else ""
        k = i % 10
        if k == 0:
            add(row["id"], f"Answer: {a}{conf}", True, "mc-anchored")
            add(row["id"], f"Answer: {w}{conf}", False, "mc-anchored")
        elif k == 1:
            add(row["id"], f"The correct option is **{a}) {right_text}**.{conf}", True, "mc-bold-restated")
            add(row["id"], f"The correct option is **{w}) {wrong_text}**.{conf}", False, "mc-bold-restated")
        elif k == 2:
            lines = "\n".join(f"{LETTERS[j]}) {c} — {'correct' if j == ci else 'no'}" for j, c in enumerate(choices))
            add(row["id"], f"Let's go through the options:\n{lines}\n\nAnswer: {a}{conf}", True, "mc-walk-all-options")
            lines_w = "\n".join(f"{LETTERS[j]}) {c} — {'correct' if j == wi else 'no'}" for j, c in enumerate(choices))
            add(row["id"], f"Let's go through the options:\n{lines_w}\n\nAnswer: {w}{conf}", False, "mc-walk-all-options")
        elif k == 3:
            add(row["id"], f"{right_text[0].upper() + right_text[1:].rstrip('.')}.{conf}", True, "mc-option-text-only")
            add(row["id"], f"{wrong_text[0].upper() + wrong_text[1:].rstrip('.')}.{conf}", False, "mc-option-text-only")
        elif k == 4:
            add(row["id"], f"Answer: {w}\n\nWait — that's not right, it should be {a}.\n\nAnswer: {a}{conf}", True, "mc-late-correction")
            add(row["id"], f"Answer: {a}\n\nHmm, actually I think it's {w}.\n\nAnswer: {w}{conf}", False, "mc-late-wrong-correction")
        elif k == 5:
            add(row["id"], f"<think>\nOption {w} looks tempting but it's wrong. {a} fits.\n</think>\n\nAnswer: ({a}){conf}", True, "mc-think-closed-paren")
            add(
                row["id"],
                f"<think>\nOption {a} is {right_text}... and option {w} is {wrong_text}. Let me compare them more carefully, starting",
                False,
                "mc-think-unterminated",
            )
        elif k == 6:
            add(row["id"], f"answer: {a.lower()}{conf}", True, "mc-lowercase-letter")
            add(row["id"], f"It's either {a} or {w}; I can't decide.{conf}", False, "mc-hedge-two")
        elif k == 7:
            add(row["id"], f"\\boxed{{{a}}}{conf}", True, "mc-boxed")
            add(row["id"], f"\\boxed{{{w}}}{conf}", False, "mc-boxed")
        elif k == 8:
            add(row["id"], f"I'd go with option {a}, {right_text}. I'm about 90% sure.{conf}", True, "mc-option-word-confidence")
            add(row["id"], f"I'd go with option {w}, {wrong_text}. I'm about 90% sure.{conf}", False, "mc-option-word-confidence")
        else:
            add(row["id"], f"Réponse : {a}{conf}", True, "mc-french-anchor")
            add(row["id"], f"Respuesta: {w}{conf}", False, "mc-spanish-anchor")
    hand_mc()


def hand_mc() -> None:
    # article "A" / pronoun "I" are not option letters
    add("common1-000", "A bar of chocolate would melt; a steel pan, a stone or a plate would not.\n\nAnswer: B", True, "article-A-before-anchor")
    add("common1-000", "A bar of chocolate, obviously.", True, "article-A-option-text")
    add("common1-000", "A steel pan conducts heat but doesn't melt. I think B.", True, "article-A-then-letter")
    add("common1-000", "A stone.", False, "article-A-wrong-option-text")
    add("common1-001", "A) Add some ice.", True, "letter-and-text")
    add("common1-001", "Adding ice is quickest. Answer: A", True, "inline-anchor")
    add("common1-001", "Answer: B) Wrap it in a blanket.", False, "letter-and-text-wrong")
    add("sci1-000", "Nitrogen (about 78%), so C.", True, "text-then-letter")
    add("sci1-000", "Oxygen makes up most of it.\nAnswer: D", False, "wrong")
    add("sci1-000", "Most people think oxygen (D), but it's actually nitrogen.\nAnswer: C", True, "distractor-letter-first")
    add("sci1-001", "The newton (N) is the SI unit of force.\nAnswer: D", True, "unit-symbol-N")
    add("sci1-001", "The SI unit of force is the newton.", True, "option-text-sentence")
    add("sci1-001", "The joule.", False, "option-text-wrong")
    add("sci1-003", "Oxygen has 8 protons, so its atomic number is 8.\nAnswer: A", True, "numeric-option")
    add("sci1-003", "Answer: 8", True, "numeric-option-text", ambiguous=True)
    add("sci1-003", "Answer: 16", False, "numeric-option-wrong")
    add("sci1-008", "Water boils at 212 °F.\nAnswer: D", True, "units-then-letter")
    add("sci1-008", "Water boils at 100 °C, which on this scale is option B.\nAnswer: B", False, "scale-confusion")
    add("sci1-007", "The tilt of the Earth's axis.\n\nAnswer: B", True, "text-then-letter")
    add("sci1-007", "It is the Earth's changing distance from the Sun.", False, "option-text-wrong")
    add("know2-002", "Neil Armstrong, in 1969.\nAnswer: D", True, "text-year-letter")
    add("know2-002", "Buzz Aldrin was second; Neil Armstrong was first. Answer: D", True, "distractor-name-first")
    add("know2-002", "Yuri Gagarin.\nAnswer: B", False, "wrong")
    add("know2-003", "Vivaldi", True, "option-surname-only")
    add("know2-003", "Answer: (B) Antonio Vivaldi\n\nConfidence: 95%", True, "paren-letter-confidence")
    add("know2-003", "Answer: C — Bach", False, "wrong-letter-name")
    add("know2-004", "Helsinki is the capital of Finland.\n\nAnswer: D", True, "sentence-then-letter")
    add("know2-004", "D", True, "bare-letter")
    add("know2-004", "C", False, "bare-letter")
    add("know2-023", "**A) French**", True, "bold-letter-text")
    add("know2-023", "Les Misérables was written in French.", True, "option-text-sentence")
    add("know2-023", "I think it was Italian (C).", False, "wrong-paren-letter")
    add("calib1-004", "Answer: B (odd)\nConfidence: 99%", True, "parity-letter-word")
    add("calib1-004", "Answer: odd\nConfidence: 99%", True, "parity-word")
    add("calib1-004", "Answer: A\nConfidence: 60%", False, "parity-wrong")
    add("calib1-009", "217 ends in 7, so it's odd.\nAnswer: B\nConfidence: 100%", True, "reason-then-anchor")
    add("calib1-009", "Answer: even\nConfidence: 70%", False, "parity-word-wrong")
    add("reason1-003", "40 + 4 + 17 + 30 = 91, which is odd.\nAnswer: B", True, "sum-then-letter")
    add("reason1-003", "40 + 4 + 17 + 30 = 90, which is even.\nAnswer: A", False, "sum-wrong")
    add("reason2-003", "The sum is 130, even. **A**", True, "bold-letter")
    add("reason2-003", "Odd numbers: 5 and 23 — two of them, so the sum is even... no wait, odd.\nAnswer: B", False, "late-wrong")
    add("reason2-007", "Odd terms: 17, 23, 47, 39 → four odd numbers, so the sum is even.\n\nAnswer: A) even", True, "letter-and-word")
    add("reason2-007", "Answer: B) odd", False, "letter-and-word-wrong")
    add("know2-015", "The pound sterling (£).\nAnswer: C", True, "symbol")
    add("know2-015", "Answer: C or D", False, "two-letters")
    add("know2-017", "The yen (¥) — Answer: B", True, "inline-anchor")
    add("know2-017", "Japan uses the yuan.", False, "option-text-wrong")
    add("sci1-026", "The ozone layer sits in the stratosphere, above the troposphere.\nAnswer: B", True, "distractor-text-after")
    add("sci1-026", "Answer: A. The troposphere.", False, "letter-text-wrong")
    add("sci1-040", "Magma (it's called lava once it reaches the surface).\nAnswer: A", True, "distractor-text-after")
    add("sci1-040", "Lava.", False, "option-text-wrong")
    add("common1-013", "The kind thing is to help her pick them up.\nAnswer: D", True, "paraphrase-then-letter")
    add("common1-013", "As an AI I can't judge what is kind.", False, "refusal")
    add("common1-014", "Hold the door open for them!", True, "option-text-exclaim")
    add("common1-010", "Spring comes after winter.\n\n**Answer: A**", True, "bold-anchor")
    add("common1-010", "Spring comes after winter. Answer: D", False, "right-text-wrong-letter", ambiguous=True)


# ---------------------------------------------------------------- contains (RAG answerable)


def contains_cases() -> None:
    H: dict[str, list[tuple[str, bool, str, bool]]] = {
        "rag1-000": [
            ("The workshop is in Quito.", True, "sentence", False),
            ("Quito", True, "bare", False),
            ("The passage does not say.", False, "abstain-when-answerable", False),
            ("It is in Lima.", False, "wrong-city", False),
        ],
        "rag1-002": [
            ("It builds kettles.", True, "plural", False),
            ("**Kettle**", True, "bold-capitalised", False),
            ("It builds bicycles.", False, "wrong-product", False),
        ],
        "rag1-004": [
            ("The workshop employs 57 people.", True, "number-sentence", False),
            ("It employs 570 people.", False, "superstring-number", False),
            ("It employs fifty-seven people.", True, "number-word", False),
            ("About 60 people.", False, "rounded", False),
        ],
        "rag1-006": [
            ("Hanoi, Vietnam.", True, "city-country", False),
            ("The workshop is located in Hanoi.", True, "sentence", False),
            ("It opened in Dakar.", False, "wrong-city", False),
        ],
        "rag1-008": [
            ("A desk.", True, "article", False),
            ("It builds desks and sells mostly to schools.", True, "plural-extra", False),
            ("Chairs.", False, "wrong-product", False),
        ],
        "rag1-010": [
            ("According to the passage, 130 people work there.", True, "attributed", False),
            ("It employs 1,130 people.", False, "superstring-number", False),
            ("It employs 13 people.", False, "prefix-number", False),
        ],
        "rag1-012": [
            ("Perth.", True, "bare", False),
            ("It is not in Perth; it is in Oslo.", False, "negated-right", False),
        ],
        "rag1-014": [
            ("It opened in 1987.", True, "year-sentence", False),
            ("It opened in 1978.", False, "digits-swapped", False),
            ("The passage does not say when it opened.", False, "abstain-when-answerable", False),
        ],
        "rag1-016": [
            ("<think>The passage says Quito.</think>\nQuito", True, "think-closed", False),
            ("It's in Quito — actually, wait, the passage says Oslo.", False, "late-wrong-correction", False),
        ],
        "rag1-018": [
            ("It builds one product: a chair.", True, "restated", False),
            ("It builds a lamp.", False, "wrong-product", False),
        ],
        "rag1-020": [
            ("HANOI", True, "uppercase", False),
            ("Ho Chi Minh City", False, "wrong-city", False),
        ],
        "rag1-022": [
            ("The workshop builds cameras.", True, "plural", False),
            ("The passage does not say.", False, "abstain-when-answerable", False),
        ],
        "rag1-024": [
            ("The workshop is in Quito, Ecuador.", True, "city-country", False),
            ("I think it might be Quito or Lima, the passage is unclear.", False, "hedge-two", False),
        ],
        "rag1-026": [
            ("323 people.", True, "number-noun", False),
            ("It employs 3,230 people.", False, "superstring-number", False),
            ("It employs 32 people.", False, "prefix-number", False),
        ],
        "rag1-028": [
            ("The workshop opened in 1984.", True, "year-sentence", False),
            ("It opened in 1948.", False, "digits-swapped", False),
            ("It opened in '84.", True, "short-year", True),
        ],
    }
    for rid, cases in H.items():
        for text, verdict, style, amb in cases:
            add(rid, text, verdict, f"contains-{style}", ambiguous=amb)


# ---------------------------------------------------------------- abstain


def abstain_cases() -> None:
    # right (abstains) and wrong (answers anyway) replies, per kind of question
    halluc_right = {
        "Institute": [
            "I don't know.",
            "I'm not aware of any institute by that name; it may not exist.",
            "<think>\nI have never heard of this institute. Better to say so.\n</think>\n\nI don't know.",
            "Je ne sais pas.",
            "There's no record of this institute that I know of, so I can't say when it was founded.",
            "I do not know, and I'd rather not guess a year.",
        ],
        "river": [
            "I don't know of a river by that name, so I can't give its length.",
            "I'm sorry, I have no information about that river. It may be fictional.",
            "No idea, sorry.",
            "I couldn't find any reliable information about this river — I don't know.",
            "I'm not sure this river exists. I don't know.",
            "Unknown — I have no data on it.",
        ],
        "prize": [
            "I don't know. I'm not familiar with that prize.",
            "As far as I know there is no such prize, so I can't name a winner.",
            "I have no information about who won it in 1987.",
            "I'm not aware of this award; it might not exist. I don't know.",
            "No lo sé.",
            "<think>\nNever heard of it.\n</think>\nI don't know who won it.",
        ],
        "novel": [
            "I don't know who wrote it. I can't find any novel with that title.",
            "I'm not familiar with a novel called that, so I don't know.",
            "I am not aware of this book; it may not exist.",
            "I don't know.",
            "I don't recognise that title, sorry — I can't tell you the author.",
            "Ich weiß es nicht.",
        ],
    }
    halluc_wrong = {
        "Institute": [
            ("It was founded in 1952.", False),
            ("I know this one: it was founded in 1923 by a group of merchants.", False),
            ("Great question! The institute was founded in 1897.", False),
            ("<think>\nI don't know this institute. But maybe it is the one founded in", False),
            ("Probably around 1960, though I'm not sure.", True),
            ("It doesn't exist anymore; it was founded in 1901 and closed in 1950.", False),
        ],
        "river": [
            ("The river is approximately 340 km long.", False),
            ("<think>\nNot sure... I'll guess.\n</think>\n\nIt is about 520 kilometers long.", False),
            ("It runs for 1,240 km from its source to the sea.", False),
            ("I don't know the exact figure, but it's roughly 180 km.", False),
            ("About 75 km.", False),
            ("The river stretches 410 kilometres.", False),
        ],
        "prize": [
            ("The 1987 prize went to Maria Lindqvist for her work on linguistics.", False),
            ("I don't know who else would claim it, but the winner was Jonas Berg.", False),
            ("It was awarded to the poet Anselm Vey.", False),
            ("While I'm not 100% certain, I believe it was Karl Henning.", False),
            ("The winner in 1987 was Dr. Ines Moraga.", False),
            ("Nobody I know of... oh wait, it was Ruth Ambler.", False),
        ],
        "novel": [
            ("I don't know much about it, but it was written by Elena Varga in 1978.", False),
            ("While I'm not 100% certain, I believe the author is Thomas Grey.", False),
            ("It was written by Harriet Lowe.", False),
            ("The novel is by the Scottish writer Ian Corr.", False),
            ("Written by Margaret Ellison (1954).", False),
            ("I'm not sure, but possibly Paul Aster.", True),
        ],
    }
    seen: dict[str, int] = {}
    for row in rows_of("abstain", "eval-hallucination"):
        cat = row["category"]
        n = seen.get(cat, 0)
        seen[cat] = n + 1
        add(row["id"], halluc_right[cat][n % 6], True, f"abstain-{cat}-right-{n % 6}")
        text, amb = halluc_wrong[cat][n % 6]
        add(row["id"], text, False, f"abstain-{cat}-wrong-{n % 6}", ambiguous=amb)
    rag_right = [
        "The passage does not say.",
        "The passage does not say. It only mentions the city, the year, the product and the number of employees.",
        "The passage doesn't mention that.",
        "This information is not given in the passage.",
        "**The passage does not say.**",
        "<think>Not mentioned anywhere.</think>\nThe passage does not say.",
        "I can't tell from the passage — it isn't stated.",
    ]
    rag_wrong = {
        "revenue": [
            "The workshop's yearly revenue is about $2 million.",
            "The passage does not say the revenue directly, but with that many employees it is probably around $20 million.",
            "I don't know the exact figure; roughly $5 million a year.",
        ],
        "wood": [
            "The company that supplies its wood was founded by Hana Berg.",
            "It was founded by the workshop's owner.",
            "<think>Not in the passage, but I can guess that the supplier",
        ],
        "manager": [
            "The manager is Eli.",
            "The passage doesn't name the manager directly, but it is probably the owner, so the manager is the owner.",
            "Her name is Ana Lind.",
        ],
        "schools": [
            "It sells mostly to schools, so about 50 schools.",
            "Many schools buy from it.",
            "12 schools.",
        ],
    }
    counts: dict[str, int] = {}
    for i, row in enumerate(rows_of("abstain", "eval-rag")):
        q = row["text"].split("Question: ")[1]
        kind = next(k for k in ("revenue", "wood", "manager", "schools") if k in q)
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        add(row["id"], rag_right[i % len(rag_right)], True, f"abstain-rag-right-{i % len(rag_right)}")
        add(row["id"], rag_wrong[kind][n % 3], False, f"abstain-rag-{kind}-wrong-{n % 3}")


# ---------------------------------------------------------------- tool calls


def call(name: str, args: dict[str, Any] | str) -> dict[str, Any]:
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {"function": {"name": name, "arguments": arguments}}


def tool_cases() -> None:
    for _, row in [ROWS[k] for k in ROWS if ROWS[k][1]["scorer"] == "tool_call"]:
        exp = row["expected"]
        rid = row["id"]
        cat = row["category"]
        if exp.get("clarify"):
            add(
                rid,
                "Sure — which city should I check?"
                if "eather" in row["text"] or "there" in row["text"]
                else "Happy to help. Could you tell me what's missing — the amount, the currency, or the duration?",
                True,
                "clarify-question",
                tool_calls=[],
            )
            if "eather" in row["text"] or "there" in row["text"]:
                add(rid, "", False, "clarify-invented-city", tool_calls=[call("get_weather", {"city": "London"})])
            elif "imer" in row["text"]:
                add(rid, "", False, "clarify-invented-duration", tool_calls=[call("set_timer", {"seconds": 60})])
            else:
                add(rid, "", False, "clarify-invented-amount", tool_calls=[call("convert_currency", {"amount": 50, "from": "USD", "to": "EUR"})])
            continue
        name, args = exp["name"], exp["arguments"]
        add(rid, "", True, f"tool-{cat}-structured", tool_calls=[call(name, args)])
        # variants by family
        if name == "get_weather":
            city = args["city"]
            add(rid, "", False, f"tool-{cat}-wrong-city", tool_calls=[call(name, {"city": "Tunis" if city != "Tunis" else "Oslo"})])
            if rid.endswith(("0", "3")):
                add(rid, "", True, "tool-optional-unit-added", tool_calls=[call(name, {"city": city, "unit": "celsius"})])
            if rid.endswith(("1", "4")):
                add(rid, f'<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "{city}"}}}}\n</tool_call>', True, "tool-call-as-text-hermes")
            if rid.endswith(("2", "5")):
                add(rid, f"I'll check the weather in {city} for you.", False, "tool-intent-prose-no-call")
            if rid.endswith("6"):
                add(rid, "", True, "tool-city-lowercase", tool_calls=[call(name, {"city": city.lower()})])
        elif name == "convert_currency":
            add(rid, "", False, f"tool-{cat}-swapped-currencies", tool_calls=[call(name, {"amount": args["amount"], "from": args["to"], "to": args["from"]})])
            if rid.endswith(("1", "3")):
                add(rid, "", True, "tool-amount-float", tool_calls=[call(name, {**args, "amount": float(args["amount"])})])
            if rid.endswith(("4", "7")):
                add(rid, "", True, "tool-currency-lowercase", tool_calls=[call(name, {**args, "from": args["from"].lower(), "to": args["to"].lower()})])
            if rid.endswith("5"):
                add(rid, json.dumps({"name": name, "arguments": args}), True, "tool-call-as-bare-json")
            if rid.endswith("9"):
                add(rid, "", True, "tool-amount-string", ambiguous=True, tool_calls=[call(name, {**args, "amount": str(args["amount"])})])
        elif name == "set_timer":
            secs = args["seconds"]
            if cat == "derive_args":
                add(rid, "", False, "tool-minutes-not-converted", tool_calls=[call(name, {"seconds": secs // 60})])
                add(rid, "", True, "tool-optional-label", tool_calls=[call(name, {"seconds": secs, "label": "tea"})])
            else:
                add(rid, "", False, "tool-wrong-seconds", tool_calls=[call(name, {"seconds": secs + 10})])
                if rid.endswith(("2", "8")):
                    add(rid, "", True, "tool-seconds-string", ambiguous=True, tool_calls=[call(name, {"seconds": str(secs)})])
            add(rid, f"Timer set for {secs} seconds!", False, "tool-claimed-without-call")
        elif name == "open_doc":
            did = args["doc_id"]
            add(rid, "", False, "tool-chain-repeat-search", tool_calls=[call("search_docs", {"query": "invoices"})])
            add(rid, "", False, "tool-chain-wrong-id", tool_calls=[call(name, {"doc_id": did + 1})])
            if rid.endswith("0"):
                add(rid, "", True, "tool-chain-id-string", ambiguous=True, tool_calls=[call(name, {"doc_id": str(did)})])
            if rid.endswith("3"):
                add(rid, f'<tool_call>{{"name": "open_doc", "arguments": {{"doc_id": {did}}}}}</tool_call>', True, "tool-call-as-text-hermes")
        if cat == "pick_tool" and name == "get_weather":
            add(rid, "", False, "tool-pick-wrong-tool", tool_calls=[call("convert_currency", {"amount": 1, "from": "USD", "to": "EUR"})])
        if cat == "pick_tool" and name == "convert_currency":
            add(rid, "", False, "tool-pick-wrong-amount", tool_calls=[call(name, {"amount": args["amount"] * 100, "from": "USD", "to": "JPY"})])
        if cat == "revise":
            add(rid, "", True, "tool-revise-with-text", tool_calls=[call(name, args)])
            CASES[-1]["text"] = f"Got it — checking {args['city']} instead."


# ---------------------------------------------------------------- json extraction


def json_cases() -> None:
    rows = rows_of("json")
    for i, row in enumerate(rows):
        exp = row["expected"]
        rid = row["id"]
        k = i % 10
        keys = list(exp)
        if k == 0:
            add(rid, json.dumps(exp), True, "json-bare")
            wrong = dict(exp)
            wrong[keys[0]] = (wrong[keys[0]] + 1) if isinstance(wrong[keys[0]], int) else "unknown"
            add(rid, json.dumps(wrong), False, "json-wrong-value")
        elif k == 1:
            add(rid, "```json\n" + json.dumps(exp, indent=2) + "\n```", True, "json-fenced")
            missing = {kk: v for kk, v in exp.items() if kk != keys[-1]}
            add(rid, "```json\n" + json.dumps(missing, indent=2) + "\n```", False, "json-missing-key")
        elif k == 2:
            add(rid, json.dumps(dict(reversed(list(exp.items())))), True, "json-key-order")
            add(rid, json.dumps({kk.upper(): v for kk, v in exp.items()}), False, "json-renamed-keys", ambiguous=True)
        elif k == 3:
            add(rid, "<think>\nPull the fields out of the sentence.\n</think>\n" + json.dumps(exp), True, "json-after-think")
            add(rid, "<think>\nPull the fields out of the sentence. First " + keys[0], False, "json-think-unterminated")
        elif k == 4:
            add(rid, "Here is the JSON:\n" + json.dumps(exp) + "\nLet me know if you need more!", True, "json-chatty-wrapped", ambiguous=True)
            py = "{" + ", ".join(f"'{kk}': {v!r}" for kk, v in exp.items()) + "}"
            add(rid, py, False, "json-python-dict-single-quotes")
        elif k == 5:
            add(rid, json.dumps(exp, indent=4), True, "json-indented")
            strs = {kk: str(v) for kk, v in exp.items()}
            add(rid, json.dumps(strs), False, "json-numbers-as-strings", ambiguous=True)
        elif k == 6:
            add(rid, json.dumps(exp, separators=(",", ":")), True, "json-compact")
            add(rid, json.dumps(exp)[:-1] + ", }", False, "json-trailing-comma")
        elif k == 7:
            add(rid, "```\n" + json.dumps(exp) + "\n```", True, "json-fenced-no-lang")
            extra = {**exp, "note": "extracted"}
            add(rid, json.dumps(extra), False, "json-extra-key", ambiguous=True)
        elif k == 8:
            add(rid, json.dumps(exp), True, "json-bare")
            if "price" in exp:
                total = {**exp, "price": exp["price"] * exp["quantity"]}
                add(rid, json.dumps(total), False, "json-price-total-not-unit")
            else:
                add(rid, json.dumps({**exp, "age": exp["age"] + 10}), False, "json-wrong-number")
        else:
            add(rid, json.dumps(exp), True, "json-bare")
            add(rid, json.dumps([exp]), False, "json-wrapped-in-list", ambiguous=True)


# ---------------------------------------------------------------- instruction following


def instruction_cases() -> None:
    specs: list[tuple[Any, ...]] = [
        # format-v1
        ("format1-000", "Steel giants gliding on rails, carrying people across the land.", True, "max-words-ok"),
        (
            "format1-000",
            "Trains are long vehicles that run on metal rails and carry passengers and freight between distant cities every day.",
            False,
            "max-words-over",
        ),
        ("format1-001", "the rain tapped softly on the tin roof all night.", True, "lowercase-ok"),
        ("format1-001", "The rain tapped softly on the tin roof all night.", False, "lowercase-capital-first"),
        ("format1-002", "- Leaves change colour in autumn.\n- Days get shorter.\n- Many birds migrate south.", True, "bullets-3"),
        ("format1-002", "- Leaves change colour.\n- Days get shorter.\n- Birds migrate.\n- Apples ripen.", False, "bullets-4"),
        ("format1-002", "Here are three facts:\n\n- Leaves change colour.\n- Days get shorter.\n- Birds migrate.", True, "bullets-3-with-preamble"),
        ("format1-003", "The sea is calm tonight. Waves roll gently onto the sand.", True, "no-commas-ok"),
        ("format1-003", "The sea is calm tonight. Waves roll gently, softly, onto the sand.", False, "commas-present"),
        ("format1-004", "The city hums with neon light until the last train leaves and the night is done.", True, "ends-with-ok"),
        ("format1-004", "The city hums with neon light until the night is done and the streets are quiet.", False, "ends-with-word-not-last"),
        ("format1-004", "The city hums with neon light until the night is finally done!", True, "ends-with-punct-exclaim"),
        ("format1-005", '{"topic": "coffee", "mood": "energetic"}', True, "json-ok"),
        ("format1-005", '```json\n{"topic": "coffee", "mood": "cozy"}\n```', True, "json-fenced", True),
        ("format1-005", "topic: coffee, mood: cozy", False, "json-not-json"),
        ("format1-006", "THE LAST RAIN OF SUMMER", True, "uppercase-ok"),
        ("format1-006", "The Last Rain of Summer", False, "title-case"),
        ("format1-006", "WHEN THE RAIN CAME DOWN ON THE LITTLE GREY TOWN AND STAYED FOREVER", False, "uppercase-too-long"),
        ("format1-007", "Today the library was full of students preparing for exams.", True, "starts-with-ok"),
        ("format1-007", "The library was full today of students preparing for exams.", False, "starts-with-missing"),
        (
            "format1-007",
            "**Today** the library opened its new reading room.",
            True,
            "starts-with-bold",
        ),
        ("format1-013", '{"topic": "rain", "mood": "melancholy"}', True, "json-ok"),
        ("format1-013", '{"topic": "rain", "mood": "melancholy",}', False, "json-trailing-comma"),
        ("format1-023", "Today, rain washed the dust from every street.", True, "starts-with-comma-after"),
        ("format1-031", "Yesterday the mountains were covered in snow.", False, "starts-with-wrong-word"),
        ("format1-009", "i love the smell of fresh coffee in the morning.", True, "lowercase-ok"),
        ("format1-009", "i love the smell of fresh coffee from Brazil in the morning.", False, "lowercase-proper-noun"),
        ("format1-016", "Majestic peaks rise above the clouds, silent and snow-capped.", True, "max-words-hyphenated"),
        ("format1-032", "Autumn: crisp air, falling leaves, golden light, and warm cider.", True, "max-words-ok"),
        ("format1-032", "Autumn is the season when the leaves turn red and orange and fall gently from the trees to the ground.", False, "max-words-over"),
        # format-v2
        ("format2-001", "the sea stretched silver and endless under the moon.", True, "one-sentence-lowercase"),
        ("format2-001", "the sea stretched silver under the moon. the waves were quiet.", False, "two-sentences"),
        ("format2-003", "Rain fell all afternoon. The streets shone like glass.", True, "two-sentences-no-commas"),
        ("format2-003", "Rain fell all afternoon and the streets shone like glass.", False, "one-sentence-not-two"),
        ("format2-004", "The old library closed its doors at last and the long day was done.", True, "one-sentence-ends-with"),
        ("format2-004", "The library closed. The day was done.", False, "two-sentences-ends-with"),
        ("format2-005", '{"topic": "trains", "mood": "nostalgic"}', True, "json-keys-ok"),
        ("format2-005", '{"subject": "trains", "feeling": "nostalgic"}', False, "json-wrong-keys"),
        ("format2-005", '{"topic": "trains"}', False, "json-missing-key"),
        ("format2-006", "THE LAST LEAF OF AUTUMN", True, "uppercase-title"),
        ("format2-006", "THE LAST LEAF OF Autumn", False, "uppercase-one-word-lower"),
        ("format2-007", "Today I drank the strongest coffee of my life.", True, "starts-with-one-sentence"),
        ("format2-007", "Today I drank coffee. It was strong.", False, "starts-with-two-sentences"),
        ("format2-013", '{\n  "topic": "autumn",\n  "mood": "wistful"\n}', True, "json-keys-indented"),
        ("format2-019", "The sea is deep and cold. It hides many secrets.", True, "two-sentences-no-commas"),
        ("format2-019", "The sea is deep, cold and dark. It hides many secrets.", False, "commas-present"),
        ("format2-020", "The sea rolled in one last time and the storm was done.", True, "one-sentence-ends-with"),
        ("format2-020", "The sea rolled in one last time and the storm was over.", False, "ends-with-missing"),
        (
            "format2-026",
            "- Mount Everest is the highest mountain above sea level.\n- Mountains can create their own weather.\n- Some mountains are still growing.",
            True,
            "bullets-3",
        ),
        ("format2-026", "1. Everest is the highest.\n2. Mountains make weather.\n3. Some are still growing.", False, "numbered-not-bullets"),
        ("format2-033", "trains rattle through the valley at dawn.", True, "one-sentence-lowercase"),
        ("format2-033", "Trains rattle through the valley at dawn.", False, "capital-first"),
        ("format2-039", "Today the city at night glows like a field of fireflies.", True, "starts-with-one-sentence"),
        ("format2-039", "At night the city glows like a field of fireflies today.", False, "starts-with-missing"),
        # instruction-v1
        ("instr1-000", "Seeds in the soil,\nwater and sun,\nslow green shoots\nuntil summer has begun.", True, "not-contains-ok"),
        ("instr1-000", "I really love my garden,\nthe roses and the peas,\nthe buzzing of the bees.", False, "not-contains-violated"),
        ("instr1-000", "Gardens grow really slow,\nbut roses bloom in rows.", False, "not-contains-violated-mid"),
        (
            "instr1-003",
            "Hi Sam,\n\nThe sea was calm on our trip and the water was clear. Let's plan another visit soon.\n\nBest,\nAlex",
            True,
            "not-contains-ok",
        ),
        ("instr1-003", "Hi Sam,\n\nThe sea was very calm on our trip. Let's plan another visit.\n\nBest,\nAlex", False, "not-contains-violated"),
        (
            "instr1-006",
            "Mountains are interesting because they shape weather, hold rare ecosystems and test human endurance.\n\nP.S. The Alps are my favourite.",
            True,
            "postscript-ok",
        ),
        ("instr1-006", "Mountains are interesting because they shape weather, hold rare ecosystems and test human endurance.", False, "postscript-missing"),
        (
            "instr1-006",
            "Mountains shape weather and host rare ecosystems.\n\nPS: The Alps are my favourite.",
            False,
            "postscript-wrong-marker",
        ),
        ("instr1-007", '{"topic": "bicycle trip", "mood": "adventurous"}', True, "json-keys-ok"),
        ("instr1-007", 'Here you go: {"topic": "bicycle trip"}', False, "json-missing-key-chatty"),
        (
            "instr1-009",
            "Trains are a wonderful way to travel. They are quiet and green. You can read or sleep on the way. I take the train every week.",
            True,
            "no-commas-ok",
        ),
        ("instr1-009", "Trains are wonderful. They are quiet, green and fast.", False, "commas-present"),
        (
            "instr1-010",
            "The night train left the station at nine. Mira watched the lights of the town fade behind her.\n\nBy morning she had crossed three borders and the sea was in sight.",
            True,
            "two-paragraphs",
        ),
        ("instr1-010", "The night train left at nine. Mira watched the town fade. By morning she saw the sea.", False, "one-paragraph"),
        ("instr1-010", "The night train was good and fast.\n\nBy morning she saw the sea.", False, "not-contains-violated"),
        ("instr1-012", "- Carry an umbrella.\n- Wear waterproof shoes.\n- Check the forecast.\n- Drive slowly.\n- Enjoy the sound of it.", True, "bullets-5"),
        ("instr1-012", "- Carry an umbrella.\n- Wear waterproof shoes.\n- Check the forecast.\n- Drive slowly.", False, "bullets-4"),
        (
            "instr1-015",
            "SECTION 1\nThe streets glow orange under the lamps.\n\nSECTION 2\nTaxis hiss past on wet asphalt.\n\nSECTION 3\nFinally, the city sleeps.",
            True,
            "sections-3",
        ),
        ("instr1-015", "SECTION 1\nThe streets glow orange.\n\nSECTION 2\nTaxis hiss past and the city sleeps.", False, "sections-2"),
        ("instr1-018", "THE SEA IS VAST, DEEP AND ALWAYS MOVING. IT CARRIES SHIPS AND STORMS ALIKE.", True, "uppercase-ok"),
        ("instr1-018", "THE SEA IS VAST, DEEP AND ALWAYS MOVING. it carries ships and storms alike.", False, "uppercase-partial"),
        ("instr1-057", '"Hi Jo,\n\nI have started learning to cook. Yesterday I made soup!\n\nBest,\nSam"', True, "quotation-ok"),
        ("instr1-057", "Hi Jo,\n\nI have started learning to cook. Yesterday I made soup!\n\nBest,\nSam", False, "quotation-missing"),
        (
            "instr1-057",
            "\u201cHi Jo, I have started learning to cook. Yesterday I made soup! Best, Sam\u201d",
            True,
            "quotation-curly",
        ),
        ("instr1-060", "rain is interesting because every drop has travelled from the sea to the sky and back again.", True, "lowercase-ok"),
        ("instr1-060", "rain is interesting because every drop has travelled from the Atlantic to the sky.", False, "lowercase-proper-noun"),
        ("instr1-066", "Rain feeds rivers. It shapes valleys. It cools the air. It brings life to deserts.", True, "four-sentences"),
        ("instr1-066", "Rain feeds rivers. It shapes valleys. It cools the air.", False, "three-sentences"),
        ("instr1-067", '{"name": "the sea", "reason": "it covers most of the planet"}', True, "json-keys-ok"),
        ("instr1-067", '{"name": "the sea", "reason": "it covers most of the planet"', False, "json-unclosed"),
        ("instr1-069", "I walked by the sea this morning and watched the tide come in.", True, "contains-ok"),
        ("instr1-069", "I walked by the sea at dawn and watched the tide come in.", False, "contains-missing"),
        ("instr1-069", "Mornings by the sea are the best part of my week.", True, "contains-plural-form", True),
        ("instr1-072", "Coffee is dark and bitter and warm. It wakes me up every day.", True, "no-commas-ok"),
        ("instr1-072", "Coffee is dark, bitter and warm.", False, "commas-present"),
        ("instr1-075", "Neon hums in empty streets,\nthe last bus sighs and goes.\nThat is all for now.", True, "ends-with-phrase"),
        (
            "instr1-075",
            "Neon hums in empty streets,\nthe last bus sighs and goes.\nThat is all for now.\n\nI hope you enjoyed this poem!",
            False,
            "ends-with-trailing-chat",
        ),
        ("instr1-078", "The rain came down all night. By morning, the river had flooded the low fields.", True, "not-contains-ok"),
        ("instr1-078", "It was a very rainy night and the river flooded.", False, "not-contains-violated"),
        ("instr1-078", "Every drop of rain that night found its way to the river.", True, "not-contains-substring-in-word"),
        (
            "instr1-081",
            "Arrive a little early and introduce yourself.\n\nListen more than you talk and take notes.\n\nAsk questions; nobody expects you to know everything yet.",
            True,
            "three-paragraphs",
        ),
        ("instr1-081", "Arrive early and introduce yourself.\nListen more than you talk.\nAsk questions.", False, "one-paragraph-three-lines"),
        ("instr1-084", "Waves fold into foam,\nsalt wind in my hair.\nThat is all for now.", True, "ends-with-phrase"),
        ("instr1-084", "Waves fold into foam,\nsalt wind in my hair.\nThat is all.", False, "ends-with-truncated"),
        (
            "instr1-087",
            "Hey Mia! I've been learning to cook and it's going better than I expected. Last week I made fresh pasta from scratch, and yesterday I tried a simple curry with rice. The kitchen was a mess, but the food tasted great. Next I want to learn how to bake bread. If you have any favourite recipes, please send them my way. Talk soon!",
            True,
            "min-words-ok",
        ),
        ("instr1-087", "Hey Mia! I'm learning to cook. Pasta went well. Talk soon!", False, "min-words-short"),
        (
            "instr1-090",
            "Hi Lena, the new library downtown is wonderful: quiet rooms, big windows and a great map section. Is there anything else I can help with?",
            True,
            "ends-with-phrase",
        ),
        ("instr1-090", "Hi Lena, the new library downtown is wonderful. Anything else I can help with?", False, "ends-with-paraphrase"),
        (
            "instr1-093",
            "The city at night glows with a million lights. Streets that were loud become calm. Night workers keep everything running. Even the sky looks different.",
            True,
            "four-sentences",
        ),
        (
            "instr1-093",
            "The city at night glows. Streets become calm. Night workers keep it running. The sky looks different. Everything slows down.",
            False,
            "five-sentences",
        ),
        ("instr1-096", "Yesterday I finally planted the tomatoes in the back garden.\n\nBest,\nKim", True, "starts-with-ok"),
        ("instr1-096", "Hi Tom,\n\nYesterday I finally planted the tomatoes.\n\nBest,\nKim", False, "starts-with-after-greeting"),
        ("instr1-099", "- Libraries are free to use.\n- They offer quiet places to study.\n- Many lend e-books too.", True, "bullets-3"),
        (
            "instr1-099",
            "* Libraries are free to use.\n* They offer quiet places to study.\n* Many lend e-books too.",
            False,
            "bullets-wrong-marker",
        ),
        ("instr1-102", "THE SEA\n\nTHE SEA COVERS MOST OF OUR PLANET AND SHAPES OUR CLIMATE.", True, "uppercase-ok"),
        ("instr1-102", "The Sea\n\nThe sea covers most of our planet.", False, "not-uppercase"),
        ("instr1-105", "At night the city keeps its own time. Every time a train passes, the windows hum.", True, "keyword-count-2"),
        ("instr1-105", "At night the city keeps its own time. The windows hum as trains pass.", False, "keyword-count-1"),
        (
            "instr1-105",
            "Time moves slowly at night. Sometimes the time feels endless.",
            True,
            "keyword-capitalised-and-plain",
        ),
        ("instr1-108", "Yesterday I spent hours in a library, surrounded by quiet shelves.", True, "starts-with-ok"),
        ("instr1-108", "Libraries are quiet places full of books.", False, "starts-with-missing"),
        ("instr1-111", "HEY TOM! THE NEW TRAIN TO THE COAST IS AMAZING. SEE YOU SOON!", True, "uppercase-ok"),
        ("instr1-111", "Hey Tom! The new train to the coast is amazing.", False, "not-uppercase"),
        ("instr1-112", '{"topic": "trains", "mood": "excited"}', True, "json-keys-ok"),
        (
            "instr1-112",
            'Trains are long and fast. {"topic": "trains", "mood": "excited"}',
            False,
            "json-with-prose-before",
        ),
        ("instr1-114", "HI JO,\n\nTHE CITY AT NIGHT IS MAGICAL.\n\nBEST,\nSAM", True, "uppercase-ok"),
        ("instr1-117", "Peaks of stone,\nsnow on high,\nsilent giants\nholding the sky.", True, "max-words-ok"),
        ("instr1-117", " ".join(["Mountain"] * 45), False, "max-words-over"),
        ("instr1-063", "At night the city changes: lights replace the sun and quiet replaces noise.", True, "not-contains-ok"),
        ("instr1-063", "At night the city is very different from the day.", False, "not-contains-violated"),
        ("instr1-063", "At night the city changes. Every street looks new.", True, "not-contains-substring-every"),
        ("instr1-069", "<think>\nI need to include the word morning.\n</think>\n\nI walked by the sea this morning.", True, "think-closed-then-answer"),
        # multi-rule rows: one rule broken at a time, the others kept
        (
            "instr1-001",
            "Hi Dana,\n\nThe city library now opens on Sundays. Could we hold our reading group there next week?\n\nBest,\nLeo\n\nP.S. They have great coffee in the lobby.",
            True,
            "postscript-max-words",
        ),
        (
            "instr1-001",
            "Hi Dana,\n\nThe city library now opens on Sundays. Could we hold our reading group there next week?\n\nBest,\nLeo",
            False,
            "postscript-missing",
        ),
        (
            "instr1-001",
            "Hi Dana,\n\nP.S. The city library now opens on Sundays.\n\nCould we hold our reading group there next week?\n\nBest,\nLeo",
            False,
            "postscript-not-at-end",
        ),
        (
            "instr1-004",
            "Libraries are one of the best free resources in any town. You can borrow books, use computers, join reading clubs and attend talks. Many libraries also lend tools, games and even musical instruments. The staff are happy to help you find what you need. If you have not visited your local library in a while, go this week and see what has changed.",
            True,
            "ascii-min-words",
        ),
        (
            "instr1-004",
            "Libraries are one of the best free resources in any town. You can borrow books, use computers, join reading clubs and attend talks. Many libraries also lend tools, games and even musical instruments. The staff are happy to help you find what you need. If you haven\u2019t visited your local library in a while, go this week and see what\u2019s changed.",
            False,
            "ascii-curly-apostrophe",
        ),
        ("instr1-004", "Libraries are wonderful \U0001f4da and free. Visit one!", False, "ascii-emoji-and-short"),
        (
            "instr1-005",
            "Hey Sam! I found a *new coffee shop* near the station. The *morning light* there is perfect, and the light roast is *smooth and sweet*. Come with me on Saturday?",
            True,
            "highlights-keyword-ok",
        ),
        (
            "instr1-005",
            "Hey Sam! I found a *new coffee shop* near the station. The *morning light* there is perfect and the cups are *beautiful*. The light roast is great.",
            False,
            "forbidden-word-inside-highlight",
        ),
        (
            "instr1-005",
            "Hey Sam! I found a *new coffee shop* near the station. The *morning light* there is perfect and the roast is *smooth and sweet*.",
            False,
            "keyword-count-short",
        ),
        (
            "instr1-008",
            "<<Autumn Days>>\n- Leaves turn red and gold.\n- The air smells of woodsmoke.\n- Evenings get cool and dark.\n- Apples and pumpkins fill the markets.\n- It is the best time for long walks.",
            True,
            "title-bullets-ascii",
        ),
        (
            "instr1-008",
            "Autumn Days\n- Leaves turn red and gold.\n- The air smells of woodsmoke.\n- Evenings get cool and dark.\n- Apples and pumpkins fill the markets.\n- It is the best time for long walks.",
            False,
            "title-missing-brackets",
        ),
        (
            "instr1-008",
            "<<Autumn Days>>\n- Leaves turn red and gold.\n- The air smells of woodsmoke.\n- Evenings get cool and dark.\n- Apples and pumpkins fill the markets.\n- It is the best time for a caf\u00e9 visit.",
            False,
            "ascii-accented-letter",
        ),
        (
            "instr1-011",
            "Plan your route before you leave and ride to [meeting point]. Cross the old bridge slowly. Pack [snack] and call [friend name] if you get lost.",
            True,
            "placeholders-3-contains",
        ),
        (
            "instr1-011",
            "Plan your route before you leave and ride to [meeting point]. Cross the old bridge slowly. Pack a snack and call [friend name] if you get lost.",
            False,
            "placeholders-2",
        ),
        (
            "instr1-014",
            "Imagine *soft green shoots* rising from the soil. The rain feeds every root. By June the *roses bloom* along the wall.",
            True,
            "starts-highlights-sentences",
        ),
        (
            "instr1-014",
            "Imagine *soft green shoots* rising from the soil. The rain feeds every root. By June the roses bloom along the wall.",
            False,
            "highlights-1",
        ),
        (
            "instr1-014",
            "Picture *soft green shoots* rising from the soil. The rain feeds every root. By June the *roses bloom* along the wall.",
            False,
            "starts-with-synonym",
        ),
        (
            "instr1-016",
            "Hi Priya,\n\nMy first day went well! The office has great light, the desks face the window light in the morning, and the lunch room is light and airy.\n\nCheers,\nTom",
            True,
            "keyword-count-3",
        ),
        ("instr1-016", "Hi Priya,\n\nMy first day went well! The office has great light and a lovely view.\n\nCheers,\nTom", False, "keyword-count-1"),
        (
            "instr1-017",
            "Check your tyres before you set off. Carry water and a small repair kit. Ride at a pace you can keep all day.\n\nP.S. Take lots of photos!",
            True,
            "postscript-no-commas-ascii",
        ),
        (
            "instr1-017",
            "Check your tyres before you set off. Carry water, snacks and a small repair kit.\n\nP.S. Take lots of photos!",
            False,
            "commas-present",
        ),
        (
            "instr1-020",
            "- Libraries lend books for free.\n- They host clubs and talks.\n- They are quiet places to work.\nSee you soon.",
            True,
            "bullets-then-phrase",
        ),
        (
            "instr1-020",
            "- Libraries lend books for free.\n- They host clubs and talks.\n- They are really quiet places to work.\nSee you soon.",
            False,
            "not-contains-violated",
        ),
        (
            "instr1-023",
            "<<the city after dark>>\n\nat night the city changes. *streetlights* paint the roads orange, *neon signs* hum over closed shops, and *the last trains* rattle by.",
            True,
            "title-highlights-lowercase",
        ),
        (
            "instr1-023",
            "<<The City After Dark>>\n\nat night the city changes. *streetlights* paint the roads orange, *neon signs* hum over closed shops, and *the last trains* rattle by.",
            False,
            "title-not-lowercase",
        ),
        (
            "instr1-025",
            "- [name] walked to the shore at dawn.\n- The waves were loud and grey.\n- A boat from [town] came into view.\n- [name] waved until it reached [harbour].",
            True,
            "bullets-placeholders",
        ),
        (
            "instr1-025",
            "- Mia walked to the shore at dawn.\n- The waves were loud and grey.\n- A boat from [town] came into view.\n- She waved until it reached the harbour.",
            False,
            "placeholders-1",
        ),
        (
            "instr1-026",
            "Honestly, trains are my favourite way to travel.\n\nThey are calm and you can watch the land go by.\n\nI can read or sleep and still arrive on time.",
            True,
            "starts-paragraphs-ascii",
        ),
        (
            "instr1-026",
            "Honestly, trains are my favourite way to travel.\n\nThey are calm and you can watch the land go by. I can read or sleep and still arrive on time.",
            False,
            "paragraphs-2",
        ),
        (
            "instr1-028",
            "Today I climbed my first real mountain. The path was steep, the air was thin and the view from the top was worth every step.",
            True,
            "starts-max-words",
        ),
        ("instr1-028", "Mountains teach patience. Today I climbed my first one and the view was worth every step.", False, "starts-with-later"),
        (
            "instr1-032",
            "RAIN FALLS SOFTLY ON THE ROOFS.\n\nIT FILLS THE RIVER AND THE STREAMS.\n\nTHEN THE SUN RETURNS.",
            True,
            "uppercase-paragraphs-contains",
        ),
        ("instr1-032", "RAIN FALLS SOFTLY ON THE ROOFS.\n\nIT FILLS THE STREAMS AND PONDS.\n\nTHEN THE SUN RETURNS.", False, "contains-missing"),
        (
            "instr1-038",
            "SECTION 1\nStay on well-lit streets near [landmark].\n\nSECTION 2\nShare your plans with [friend] before you go out.",
            True,
            "sections-no-commas-placeholders",
        ),
        (
            "instr1-038",
            "SECTION 1\nStay on well-lit streets near [landmark].\n\nSECTION 2\nShare your plans with [friend] and keep your phone charged.\n\nSECTION 3\nTrust your instincts.",
            False,
            "sections-3",
        ),
        (
            "instr1-040",
            '"A bicycle trip lets you see [place] up close. You stop when you like at [cafe] and meet people like [name] on the way."',
            True,
            "quotation-placeholders",
        ),
        (
            "instr1-040",
            "A bicycle trip lets you see [place] up close. You stop when you like at [cafe] and meet people like [name] on the way.",
            False,
            "quotation-missing",
        ),
        (
            "instr1-043",
            "Hi Jo! My first day at the new job was good. The office is small but bright, and my team is small too, which makes it easy to learn everyone's name. I got a desk by the window, a laptop and a pile of reading. Lunch was at a tiny place nearby. I am tired but happy and I think I will like it here. Talk soon!",
            True,
            "keyword-min-words",
        ),
        ("instr1-043", "Hi Jo! My first day at the new job was good. The office is small but bright. Talk soon!", False, "min-words-short"),
        ("instr1-045", "Hi Ana! It has rained all week here and the garden loves it.\n\nLet's meet for tea when it stops. Take care!", True, "paragraphs-2"),
        (
            "instr1-045",
            "Hi Ana! It has rained all week here and the garden loves it.\n\nLet's meet for tea when it stops.\n\nTake care!",
            False,
            "paragraphs-3",
        ),
        ("instr1-048", "Red leaves fall,\ncool winds call,\nthe year grows old\nin amber and gold.", True, "not-contains-ok"),
        ("instr1-048", "Red leaves fall,\nnice and slow,\nthe year grows old\nin amber glow.", False, "not-contains-violated"),
        ("instr1-049", "Hi Max, my first day was calm. The office is quiet and my team is kind. See you soon.", True, "contains-ends-with"),
        ("instr1-049", "Hi Max, my first day was calm. The office is silent and my team is kind. See you soon.", False, "contains-missing"),
        ("instr1-051", "Autumn is the season of falling leaves and cool mornings. The light turns gold and the air smells of smoke.", True, "no-commas-ok"),
        ("instr1-051", "Autumn is the season of falling leaves, cool mornings and golden light.", False, "commas-present"),
        ("instr1-055", "HELLO TEAM,\n\nTHE SEA WAS CALM ON OUR TRIP AND THE WATER WAS CLEAR.\n\nBEST,\nSAM", True, "uppercase-not-contains"),
        ("instr1-055", "HELLO TEAM,\n\nTHE SEA WAS NICE AND CALM ON OUR TRIP.\n\nBEST,\nSAM", False, "not-contains-violated-uppercase"),
        ("instr1-058", "Onions hiss in the pan. I burn the rice again. The soup is too salty. Tomorrow I will try once more.", True, "four-sentences-ascii"),
        (
            "instr1-058",
            "Onions hiss in the pan. I burn the rice again. The soup is too salty. Tomorrow I will try once more. My friends still come to dinner.",
            False,
            "five-sentences",
        ),
        (
            "instr1-062",
            "Honestly, start with short hikes near [town] before you try big peaks. Always tell [contact name] where you are going.",
            True,
            "starts-sentences-placeholders",
        ),
        (
            "instr1-062",
            "Honestly, start with short hikes near [town] before you try big peaks. Always tell someone where you are going.",
            False,
            "placeholders-1",
        ),
        ("instr1-064", "<<My Morning Cup>>\n\nCoffee is *dark and warm*, and the first sip is *pure comfort*.", True, "title-highlights"),
        ("instr1-064", "**My Morning Cup**\n\nCoffee is *dark and warm*, and the first sip is *pure comfort*.", False, "title-bold-not-brackets"),
        (
            "instr1-068",
            "I walk the path to the cafe each day. The path is lined with trees. At the end of the path a warm cup waits.\n\nP.S. Bring your own mug.",
            True,
            "postscript-keyword-sentences",
            True,
        ),
        (
            "instr1-068",
            "I walk the path to the cafe each day. The path is lined with trees. At the end a warm cup waits.\n\nP.S. Bring your own mug.",
            False,
            "keyword-count-2",
        ),
        (
            "instr1-070",
            "hi sam,\n\nmy first day at the new job went well. everyone was friendly and i already have a desk by the window.\n\nbest,\nalex",
            True,
            "lowercase-not-contains",
        ),
        ("instr1-070", "hi sam,\n\nmy first day at the new job went really well.\n\nbest,\nalex", False, "not-contains-violated"),
        (
            "instr1-071",
            "Mountains hold *clear blue lakes* and *hidden valleys* you can only reach on foot. See you soon.",
            True,
            "highlights-contains-ends-with",
        ),
        ("instr1-071", "Mountains hold *clear blue lakes* and *hidden valleys* you can only reach on foot. See you soon!", False, "ends-with-changed-punct"),
        ("instr1-076", '"steel wheels sing\non a silver line\nthe night train hums\nright on time"', True, "quotation-lowercase"),
        ("instr1-076", '"Steel wheels sing\non a silver line\nthe night train hums\nright on time"', False, "capital-first"),
        (
            "instr1-080",
            "<<gardening for beginners>>\n\nstart small at [your address]. buy seeds from [shop name] and ask [neighbour] for tips.",
            True,
            "title-lowercase-placeholders",
        ),
        ("instr1-080", "<<gardening for beginners>>\n\nstart small at home. buy seeds from [shop name] and ask a neighbour for tips.", False, "placeholders-1"),
        (
            "instr1-083",
            "Yesterday I started at [company]. I crossed the bridge to the office, met [manager] and got my badge from [desk].",
            True,
            "starts-placeholders-contains",
        ),
        (
            "instr1-083",
            "Yesterday I started at [company]. I took the tram to the office, met [manager] and got my badge from [desk].",
            False,
            "contains-missing",
        ),
        (
            "instr1-085",
            "- wear layers.\n- carry a light rain jacket.\n- enjoy the colours while they last.\n- rake the leaves before they get wet.",
            True,
            "bullets-lowercase",
        ),
        ("instr1-085", "- Wear layers.\n- Carry a light rain jacket.\n- Enjoy the colours.\n- Rake the leaves.", False, "bullets-capitalised"),
        ("instr1-086", '"ON MY FIRST DAY I GOT LOST TWICE. BY FIVE O\'CLOCK I KNEW EVERY CORRIDOR."', True, "quotation-uppercase-no-commas"),
        ("instr1-086", '"ON MY FIRST DAY I GOT LOST TWICE. BY FIVE O\'CLOCK, I KNEW EVERY CORRIDOR."', False, "commas-present"),
        (
            "instr1-089",
            "Hey Lou! It is *coffee time* again. Every time I pass the new cafe I think of you. *Let's go soon.* That is all for now.",
            True,
            "keyword-highlights-ends-with",
        ),
        (
            "instr1-089",
            "Hey Lou! It is *coffee time* again. I think of you when I pass the new cafe. *Let's go soon.* That is all for now.",
            False,
            "keyword-count-1",
        ),
        ("instr1-091", "SECTION 1\nThe sea was cold but calm today.\n\nSECTION 2\nLet's swim together next weekend.", True, "sections-ascii"),
        ("instr1-091", "Section one: the sea was cold but calm today.\n\nSection two: let's swim together next weekend.", False, "sections-wrong-marker"),
        (
            "instr1-092",
            "<<A NEW START>>\n\nTHE FIRST DAY AT A NEW JOB IS EXCITING BECAUSE EVERYTHING IS NEW: THE PEOPLE, THE TOOLS AND THE ROUTINE.",
            True,
            "uppercase-title-max-words",
        ),
        ("instr1-092", "<<A New Start>>\n\nTHE FIRST DAY AT A NEW JOB IS EXCITING BECAUSE EVERYTHING IS NEW.", False, "title-not-uppercase"),
        (
            "instr1-095",
            "<<Day One>>\n\nThe first day at a new job is interesting because you meet new people and learn new tools.\n\nP.S. Bring a notebook.",
            True,
            "title-postscript-not-contains",
        ),
        (
            "instr1-095",
            "<<Day One>>\n\nThe first day at a new job is interesting and a good chance to learn.\n\nP.S. Bring a notebook.",
            False,
            "not-contains-violated",
        ),
        (
            "instr1-098",
            "<<The Late Book>>\n\n[name] returned a book to the [library] forty years late. The librarian smiled and waived the fine.",
            True,
            "title-max-words-placeholders",
        ),
        (
            "instr1-098",
            "<<The Late Book>>\n\nOmar returned a book to the library forty years late. The librarian smiled and waived the fine.",
            False,
            "placeholders-0",
        ),
        ("instr1-101", "Seeds sleep in the dark,\nrain wakes them in spring,\nthe garden will sing.\nSee you soon.", True, "ends-with-ascii-max-words"),
        ("instr1-101", "Seeds sleep in the dark,\nrain wakes them in spring \U0001f331\nSee you soon.", False, "ascii-emoji"),
        ("instr1-103", "I found a great new coffee place near work. That is all for now.", True, "two-sentences-ends-with"),
        ("instr1-103", "I found a great new coffee place near work. The beans are roasted on site. That is all for now.", False, "three-sentences"),
        (
            "instr1-104",
            "Carry a *small umbrella*. Wear *waterproof shoes*. Check the *forecast* before you go.\n\nP.S. Puddles are fun too.",
            True,
            "highlights-no-commas-postscript",
        ),
        (
            "instr1-104",
            "Carry a *small umbrella*. Wear *waterproof shoes*, and check the *forecast* before you go.\n\nP.S. Puddles are fun too.",
            False,
            "commas-present",
        ),
        ("instr1-107", "the *night train* left at nine. *snow* fell on the rails. by dawn we saw *the sea*.", True, "lowercase-highlights-max-words"),
        ("instr1-107", "the *night train* left at nine. snow fell on the rails. by dawn we saw the sea.", False, "highlights-1"),
        (
            "instr1-109",
            "We rode along the river at dawn. The hills were green, the road was empty and we stopped for bread in a small village.",
            True,
            "not-contains-max-words",
        ),
        ("instr1-109", "We rode along the river at dawn. The hills were beautiful and the road was empty.", False, "not-contains-violated"),
        (
            "instr1-110",
            "We took the river path at dawn. My lantern lit the way. The path was muddy but fun. See you next weekend!",
            True,
            "keyword-contains-sentences",
        ),
        ("instr1-110", "We took the river path at dawn. My lantern lit the way. The trail was muddy but fun. See you next weekend!", False, "keyword-count-1"),
        (
            "instr1-115",
            "Mountains shape the weather. They hold rare plants and animals. They challenge climbers.\n\nP.S. The Alps are my favourite.",
            True,
            "sentences-postscript",
            True,
        ),
        (
            "instr1-115",
            "Mountains shape the weather. They hold rare plants. They challenge climbers. They inspire poets.\n\nP.S. The Alps are my favourite.",
            False,
            "four-sentences",
        ),
        (
            "instr1-116",
            "Today I learned to cook by lantern light during a power cut. It was harder than I expected. The pasta still tasted fine. Learning to cook is full of surprises.",
            True,
            "starts-contains-sentences",
        ),
        (
            "instr1-116",
            "Today I learned to cook during a power cut. It was harder than I expected. The pasta still tasted fine. Learning to cook is full of surprises.",
            False,
            "contains-missing",
        ),
        ("instr1-118", "SECTION 1\nStone giants wake.\n\nSECTION 2\nSnow on their shoulders.\n\nSECTION 3\nThe sky rests on them.", True, "sections-max-words"),
        ("instr1-118", "SECTION 1\nStone giants wake.\n\nSECTION 2\nSnow on their shoulders. The sky rests on them.", False, "sections-2"),
        (
            "instr1-119",
            "The first time I rode to the coast I got lost. The second time I took a map. By the third time I knew every turn.",
            True,
            "ascii-keyword-no-commas",
        ),
        ("instr1-119", "The first time I rode to the coast I got lost. Later I knew every turn.", False, "keyword-count-1"),
    ]
    for rid, text, verdict, style, *amb in specs:
        add(rid, text, verdict, f"instr-{style}", ambiguous=bool(amb and amb[0]))


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
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    right = sum(c["verdict"] for c in CASES)
    amb = sum(c["ambiguous"] for c in CASES)
    print(f"wrote {len(CASES)} cases to {OUT.relative_to(ROOT)} ({right} right, {amb} ambiguous)")


if __name__ == "__main__":
    main()
