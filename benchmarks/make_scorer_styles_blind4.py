"""Build benchmarks/scorer_styles_blind4.jsonl: a fourth held-out set of answer styles (issue 33).

How this set was made, and the blindness rules its author kept:
- The author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args, tools, messages), the seed text that
  says what the suites are for (/work/shared/seeds/), and the three earlier
  generators (benchmarks/make_scorer_styles_blind.py, make_scorer_styles_blind2.py,
  make_scorer_styles_blind3.py) and their .jsonl output: for the line format, and
  to list their styles and phrasings so as NOT to repeat them. The author never
  opened src/servescope/scoring/, tests/scoring/, benchmarks/scorer_styles.py,
  benchmarks/scorer_accuracy.py, benchmarks/scorer_blind_agreement.py, any scorer
  result under benchmarks/results/, benchmarks/docs/scorer*.md,
  benchmarks/README.md, docs/scored-suites*.md, or the git history of any of
  them, and never ran a scorer or a servescope eval on these cases.
- Every case is an answer a real instruct model (small or large, terse or
  chatty, reasoning or not, sometimes in another script) could give to THAT
  row's prompt. Its verdict is the one a careful human grader gives after
  reading the prompt, the expected answer and the row's rules; verdicts are
  fixed here, by construction, before anything is scored. Genuinely
  disputable cases carry "ambiguous": true.
- The styles are ones the three earlier sets do not have: a GSM8K-style
  "#### N" final line; <answer>...</answer> tags; a Python REPL transcript
  (and a final line that contradicts the transcript); a "TL;DR" first line
  (and one the final line contradicts); the therefore sign and a pointing
  emoji; a LaTeX aligned derivation (and one with a slip in its last step);
  a blockquote answer; Swiss apostrophe thousands separators; Devanagari
  digits; Korean and Greek frames; a trailing question mark on a committed
  answer; a follow-up offer that mentions another number or candidate after
  the answer; transposed digits; a sign dropped on a difference; an option
  named by its ordinal position ("the first option") with no letter, and an
  ordinal off by one; a lower-case letter in parentheses; two conflicting
  answer lines; JSON as a Python dict repr, inside <json> tags, with CRLF
  line endings, with a duplicated key, with name/city swapped, with a value
  off by one, nested under a wrapper key, as a one-element array; tool calls
  carrying the optional argument, carrying full OpenAI envelope fields, as
  Mistral-v3 "[TOOL_CALLS]" text, with a misspelt city or a string amount, and
  clarifications in Korean versus a call with an empty city; abstentions in
  Korean, as <answer>unknown</answer>, as a question back, with a "did you
  mean" pointer, versus fabrications hedged "not 100% sure", in a table, or in
  tags; needle answers digit by digit, in tags, with the neighbouring box's
  code; long-generation lines with a soft hyphen, U+FFFD, a leaked
  <|im_end|> token, a space inside a number, a split "o k", a right-to-left
  mark, versus clean but indented or markdown-escaped lines; code answers in
  idioms the earlier sets lack (functools.reduce, str.translate, divmod
  chains, dict.get counting, walrus loops) and wrong ones (banker's rounding,
  off-by-one slices, split(' ') on runs of spaces, integer division);
  instruction answers that keep every rule with unusual layout, and ones that
  break exactly one rule subtly.
- Long-generation integrity rows (token_integrity) are graded as the seed
  defines the suite: "scores token integrity, not correctness: accuracy is the
  share of generations that came back with no spliced token". A clean
  generation that only breaks the count or layout is right; those are marked
  ambiguous because a grader could disagree.
- code_exec rows: code that is wrong on inputs the prompt covers is wrong even
  where it may pass a few tests; cases where only hidden edge cases break it
  are marked ambiguous.

Run: python benchmarks/make_scorer_styles_blind4.py (deterministic, stdlib only).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind4.jsonl"

ROWS: dict[str, list[dict]] = {}
CASES: list[dict] = []
TEXT_SUITES = (
    "eval-calibration-v1 eval-code-v1 eval-code-v2 eval-commonsense-v1 eval-format-v1 eval-format-v2 "
    "eval-hallucination-v1 eval-instruction-v1 eval-json-v1 eval-knowledge-v1 eval-knowledge-v2 "
    "eval-longctx-v1 eval-longgen-integrity-v1 eval-longgen-integrity-v2 eval-math-v1 eval-math-v2 "
    "eval-math-v3 eval-multilingual-v1 eval-rag-grounded-v1 eval-reasoning-v1 eval-reasoning-v2 "
    "eval-science-v1 eval-tools-small-v1 eval-tools-v1 eval-vision-v1"
).split()


def load() -> None:
    for suite in TEXT_SUITES:
        path = DATA / f"{suite}.jsonl"
        ROWS[suite] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def add(suite: str, row: dict, text: str, verdict: bool, style: str, ambiguous: bool = False, tool_calls: list | None = None) -> None:
    case = {"suite": suite, "row_id": row["id"], "scorer": row["scorer"], "text": text, "verdict": verdict, "style": style, "ambiguous": ambiguous}
    if tool_calls is not None:
        case["tool_calls"] = tool_calls
    CASES.append(case)


def rows_of(scorer: str) -> list[tuple[str, dict]]:
    return [(s, r) for s in TEXT_SUITES for r in ROWS[s] if r["scorer"] == scorer]


def confidence_tail(suite: str, value: str, conf: int = 80) -> str:
    """Calibration rows ask for two lines; keep the answer line and add the confidence line."""
    return f"Answer: {value}\nConfidence: {conf}%" if suite == "eval-calibration-v1" else f"Answer: {value}"


# ---------------------------------------------------------------- numeric

DEVANAGARI = str.maketrans("0123456789", "०१२३४५६७८९")


def parse_num(text: str) -> Fraction | None:
    try:
        return Fraction(text.replace(",", "").strip())
    except (ValueError, ZeroDivisionError):
        return None


def render(value: Fraction, like: str) -> str:
    if "/" in like and value.denominator != 1:
        return f"{value.numerator}/{value.denominator}"
    if value.denominator == 1:
        return str(value.numerator)
    decimals = len(like.split(".")[1]) if "." in like else 2
    return f"{float(value):.{decimals}f}"


def wrong_num(value: Fraction, like: str, i: int) -> str:
    step = [1, -1, 2, 10, -2][i % 5]
    if value.denominator != 1 and "/" not in like:
        step = Fraction(1, 10) * step
    return render(value + step, like)


def transposed(text: str) -> str | None:
    digits = [c for c in text if c.isdigit()]
    if len(digits) < 2 or digits[-1] == digits[-2]:
        return None
    idx = [k for k, c in enumerate(text) if c.isdigit()]
    chars = list(text)
    chars[idx[-1]], chars[idx[-2]] = chars[idx[-2]], chars[idx[-1]]
    return "".join(chars)


def numeric_cases() -> None:
    right_styles = [
        ("num-hash-final", lambda s, v, o: f"Let me work through the quantities in the question one at a time and check the arithmetic.\n\n#### {v}"),
        ("num-answer-xml-tag", lambda s, v, o: f"<answer>{v}</answer>"),
        ("num-python-repl", lambda s, v, o: f"I checked it in a Python shell:\n\n>>> print(result)\n{v}\n\n{confidence_tail(s, v)}"),
        ("num-korean-frame", lambda s, v, o: f"계산해 보면 결과는 {v}입니다.\n\n{confidence_tail(s, v)}"),
        ("num-greek-frame", lambda s, v, o: f"Η απάντηση είναι {v}.\n{confidence_tail(s, v)}"),
        ("num-tldr-first", lambda s, v, o: f"TL;DR: {v}\n\nLonger version: I set up the quantities from the question and worked through them once, then re-checked.\n\n{confidence_tail(s, v)}"),
        ("num-therefore-sign", lambda s, v, o: f"∴ {v}"),
        ("num-pointing-emoji", lambda s, v, o: f"👉 {confidence_tail(s, v)}"),
        ("num-followup-offer-other-number", lambda s, v, o: f"{confidence_tail(s, v)}\n\nWould you like me to show how the result changes if one of the inputs were {o}?"),
        ("num-latex-aligned", lambda s, v, o: f"$$\\begin{{aligned}} x &= \\text{{(from the question)}} \\\\ &= {v} \\end{{aligned}}$$\n\n{confidence_tail(s, v)}"),
        ("num-blockquote-bold", lambda s, v, o: f"> **Answer:** {v}"),
        ("num-committed-question-mark", lambda s, v, o: f"Answer: {v}?"),
        ("num-devanagari-digits", lambda s, v, o: f"उत्तर: {v.translate(DEVANAGARI)}"),
    ]
    wrong_styles = [
        ("num-hash-final-wrong", lambda s, v, w: f"Working through it step by step gives the value below.\n\n#### {w}", False),
        ("num-answer-xml-tag-wrong", lambda s, v, w: f"<answer>{w}</answer>", False),
        ("num-repl-right-final-line-wrong", lambda s, v, w: f"Quick check in Python:\n\n>>> print(result)\n{v}\n\n{confidence_tail(s, w)}", False),
        ("num-korean-frame-wrong", lambda s, v, w: f"답은 {w}입니다.\n\n{confidence_tail(s, w)}", False),
        ("num-tldr-then-final-contradicts", lambda s, v, w: f"TL;DR: {v}\n\nActually, going back over the second step I think I slipped.\n\n{confidence_tail(s, w)}", True),
        ("num-greek-frame-wrong", lambda s, v, w: f"Η απάντηση είναι {w}.\n{confidence_tail(s, w)}", False),
        ("num-latex-aligned-last-step-slip", lambda s, v, w: f"$$\\begin{{aligned}} x &= \\text{{(from the question)}} \\\\ &= {w} \\end{{aligned}}$$\n\n{confidence_tail(s, w)}", False),
        ("num-blockquote-bold-wrong", lambda s, v, w: f"> **Answer:** {w}", False),
        ("num-two-answer-lines-last-wrong", lambda s, v, w: f"Answer: {v}\nAnswer: {w}", True),
    ]
    i = 0
    for suite, row in rows_of("numeric"):
        ans = str(row.get("answer", ""))
        value = parse_num(ans)
        if value is None:
            continue
        v = render(value, ans)
        other = wrong_num(value, ans, i + 3)
        name, fn = right_styles[i % len(right_styles)]
        if name == "num-devanagari-digits" and not v.lstrip("-").isdigit():
            name, fn = right_styles[0]
        add(suite, row, fn(suite, v, other), True, name)
        if abs(value) >= 1000 and value.denominator == 1:
            n = abs(value.numerator)
            swiss = ("-" if value < 0 else "") + f"{n:,}".replace(",", "'")
            add(suite, row, f"Answer: {swiss}", True, "num-swiss-apostrophe-thousands")
        w = wrong_num(value, ans, i)
        name, fn, amb = wrong_styles[i % len(wrong_styles)]
        add(suite, row, fn(suite, v, w), False, name, amb)
        if i % 3 == 0:
            t = transposed(v)
            if t and parse_num(t) != value:
                add(suite, row, f"Answer: {t}", False, "num-transposed-digits")
        if value < 0 and i % 2 == 0:
            add(suite, row, f"The difference between the two numbers is {-value}.\n\nAnswer: {render(-value, ans)}", False, "num-sign-dropped-difference")
        i += 1


# ---------------------------------------------------------------- exact

def exact_cases() -> None:
    rows = rows_of("exact")
    by_suite: dict[str, list[str]] = {}
    for suite, row in rows:
        by_suite.setdefault(suite + "/" + row.get("category", ""), []).append(str(row["answer"]))
    right_styles = [
        ("exact-answer-xml-tag", lambda s, v, o: f"<answer>{v}</answer>"),
        ("exact-tldr-first", lambda s, v, o: f"TL;DR: {v}\n\nI went through the clues in the question and this is the only one that fits.\n\n{confidence_tail(s, v)}"),
        ("exact-korean-frame", lambda s, v, o: f"정답은 {v}입니다.\n\n{confidence_tail(s, v)}"),
        ("exact-greek-frame", lambda s, v, o: f"Η απάντηση: {v}\n{confidence_tail(s, v)}"),
        ("exact-therefore-sign", lambda s, v, o: f"∴ {v}"),
        ("exact-pointing-emoji", lambda s, v, o: f"👉 {confidence_tail(s, v)}"),
        ("exact-hash-final", lambda s, v, o: f"Thinking about what the question asks, one candidate stands out.\n\n#### {v}"),
        ("exact-followup-offer-other-candidate", lambda s, v, o: f"{confidence_tail(s, v)}\n\nWant me to explain why it isn't {o}?"),
        ("exact-committed-question-mark", lambda s, v, o: f"Answer: {v}?"),
    ]
    wrong_styles = [
        ("exact-answer-xml-tag-wrong", lambda s, v, w: f"<answer>{w}</answer>", False),
        ("exact-tldr-wrong", lambda s, v, w: f"TL;DR: {w}\n\nThat's the one that fits best.\n\n{confidence_tail(s, w)}", False),
        ("exact-korean-frame-wrong", lambda s, v, w: f"정답은 {w}입니다.\n\n{confidence_tail(s, w)}", False),
        ("exact-hash-final-wrong", lambda s, v, w: f"#### {w}", False),
        ("exact-followup-mentions-right", lambda s, v, w: f"{confidence_tail(s, w)}\n\nWant me to explain why it isn't {v}?", False),
        ("exact-two-answer-lines-last-wrong", lambda s, v, w: f"Answer: {v}\nAnswer: {w}", True),
        ("exact-greek-frame-wrong", lambda s, v, w: f"Η απάντηση: {w}\n{confidence_tail(s, w)}", False),
    ]
    for i, (suite, row) in enumerate(rows):
        v = str(row["answer"])
        aliases = {a.lower() for a in (row.get("score_args") or {}).get("aliases", [])} | {v.lower()}
        pool = [a for a in by_suite[suite + "/" + row.get("category", "")] if a.lower() not in aliases]
        if not pool:
            pool = [str(r["answer"]) for s2, r in rows if s2 == suite and str(r["answer"]).lower() not in aliases]
        w = pool[i % len(pool)]
        name, fn = right_styles[i % len(right_styles)]
        add(suite, row, fn(suite, v, w), True, name)
        name, fn, amb = wrong_styles[i % len(wrong_styles)]
        add(suite, row, fn(suite, v, w), False, name, amb)
        if i % 4 == 1:
            name, fn = right_styles[(i + 4) % len(right_styles)]
            add(suite, row, fn(suite, v, w), True, name)


# ---------------------------------------------------------------- mc

ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]


def mc_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("mc")):
        letter = str(row["answer"]).strip().upper()
        choices = (row.get("score_args") or {}).get("choices") or []
        k = ord(letter) - ord("A")
        if not choices or not 0 <= k < len(choices):
            continue
        j = (k + 1 + i % (len(choices) - 1)) % len(choices)
        wl, wt, rt = chr(ord("A") + j), choices[j], choices[k]
        right = [
            ("mc-answer-xml-tag", f"<answer>{letter}</answer>", False),
            ("mc-ordinal-position-no-letter", f"It's the {ORDINALS[k]} option: {rt}.", False),
            ("mc-korean-frame", f"정답은 {letter}) {rt} 입니다.\n\n{confidence_tail(suite, letter)}", False),
            ("mc-greek-frame", f"Η σωστή επιλογή είναι η {letter}.\n{confidence_tail(suite, letter)}", False),
            ("mc-hash-final", f"Going through the options, only one holds up.\n\n#### {letter}", False),
            ("mc-tldr-first", f"TL;DR: {letter}\n\n{rt} is the one that matches the question.\n\n{confidence_tail(suite, letter)}", False),
            ("mc-lowercase-letter-parens", f"The answer is ({letter.lower()}) {rt}.", False),
        ]
        wrong = [
            ("mc-answer-xml-tag-wrong", f"<answer>{wl}</answer>", False),
            ("mc-ordinal-position-wrong", f"It's the {ORDINALS[j]} option: {wt}.", False),
            ("mc-ordinal-off-by-one-text-right", f"It's the {ORDINALS[j]} option, {rt}.\n\n{confidence_tail(suite, wl)}", True),
            ("mc-korean-frame-wrong", f"정답은 {wl}) {wt} 입니다.\n\n{confidence_tail(suite, wl)}", False),
            ("mc-hash-final-wrong", f"#### {wl}", False),
            ("mc-tldr-then-final-contradicts", f"TL;DR: {letter}\n\nOn second thought, {wt} fits better.\n\n{confidence_tail(suite, wl)}", True),
            ("mc-followup-offer-right-letter", f"{confidence_tail(suite, wl)}\n\nShould I also explain why {letter} is tempting but wrong?", False),
        ]
        if i % 2 == 0:
            name, text, amb = right[(i // 2) % len(right)]
            add(suite, row, text, True, name, amb)
        else:
            name, text, amb = wrong[(i // 2) % len(wrong)]
            add(suite, row, text, False, name, amb)
        if i % 5 == 0:
            add(suite, row, f"👉 {letter}) {rt}\n\n{confidence_tail(suite, letter)}", True, "mc-pointing-emoji-option-text")


def main() -> None:
    load()
    numeric_cases()
    exact_cases()
    mc_cases()
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    right = sum(c["verdict"] for c in CASES)
    amb = sum(c["ambiguous"] for c in CASES)
    print(f"wrote {len(CASES)} cases over {len({c['row_id'] for c in CASES})} rows to {OUT.relative_to(ROOT)} ({right} right, {amb} ambiguous)")


if __name__ == "__main__":
    main()
