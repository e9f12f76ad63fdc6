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
- The styles are ones the three earlier sets do not have (their style names
  were listed first; after generation every case was compared with theirs and
  any (row, text, tool_calls) triple they already hold was dropped): a
  GSM8K-style "#### N" final line; <answer>...</answer> tags; a Python REPL
  transcript (and a final line that contradicts the transcript); a "TL;DR"
  first line (and one the final line contradicts); the therefore sign and a
  pointing emoji; a LaTeX aligned derivation (and one with a slip in its last
  step); a bold blockquote answer; Devanagari digits; Korean and Greek frames;
  a trailing question mark on a committed answer; a follow-up offer naming
  another number or candidate after the answer (and a wrong answer whose
  follow-up names the right one); transposed digits; a sign dropped on a
  difference; two answer lines that disagree; an option named only by its
  ordinal position ("the first option"), and an ordinal off by one from the
  letter; a lower-case letter in parentheses; exact wrong answers that are the
  near miss a model makes on THAT question (the largest city for the capital,
  the neighbouring weekday, another name from the puzzle); JSON with CRLF line
  endings, in <json> tags, as a Python dict repr, with a duplicated key whose
  last value is right, in the prompt's key order compacted, with a value off
  by one, with two values swapped and tab indentation, nested under a wrapper
  key, with a key missing in repr form; tool calls in the full OpenAI envelope
  (id, type), after a Korean preamble, as a ```tool_code``` text block, with a
  misspelt city, a "location" argument name, both the old and the revised
  city, transposed amount digits, minutes times a hundred, a dropped digit, a
  query string as the doc id, and clarifications (with country, in Korean,
  offering units) versus calls for "current location" or "here"; tool results
  reported in Korean or with a follow-up offer versus misread by ten or off
  by one in tags; abstentions in Korean or Greek, as <answer>unknown</answer>,
  as a question back, as a "you may be thinking of" pointer, and for the RAG
  suite a TL;DR that lists what the passage does say, versus fabrications
  hedged "not 100% sure", in a table, in tags, in Korean, or after "I don't
  know for certain"; RAG answers in tags, Korean, after a quoted sentence,
  versus another field of the same passage or the owner's name; needle
  answers in tags, digit by digit, with a Korean label, versus the code of
  another row, a dropped last digit or transposed digits; long-generation
  lines with a soft hyphen, U+FFFD, a leaked <|im_end|> token, a space inside
  a number, a split word, a letter O for a zero, one letter substituted,
  versus clean lines that are indented, grouped by blank lines, stop at a
  round number or carry two spaces after the period; code answers in idioms
  the earlier sets lack (functools.reduce, operator.add, s[~i] mirrors,
  ord(c) - 48, map(pow, ...), heapq, insertion sort, dict.fromkeys,
  dict.get counting, "Fizz" * bool) and wrong ones (int() casts on floats, a
  positive-only guard, s[-1:0:-1], a zero start for max, counting consonants
  via translate, factorial(0) == 0, 15 checked last, zeros filtered, halves
  compared with an odd middle, n % 9, floor division, a single bubble pass,
  split(" ") on runs of whitespace, last occurrences kept), in a plain fence,
  after a Korean note or with a usage comment; instruction answers that keep
  every rule (and the sentence count the prompt itself asks for, "Write one
  sentence ...") woven in prose, one sentence per line, padded with blank
  lines, as bullets a blank line apart, as JSON with three-space indents, and
  ones that break exactly one rule subtly (a comma after "Still", one trailing
  afterthought sentence, whole sentences over the word limit, sentences
  dropped under the minimum, "pm" left lower-case, a capitalised proper noun,
  a degree sign in an aside, the forbidden word as an intensifier, a synonym
  for the required word, a keyword swapped for a synonym once, a synonym of
  the required opener, an emoji after the closing phrase, the P.S. moved to
  the top, one extra summary bullet, one highlight unmarked, a placeholder in
  curly braces, the last SECTION marker missing, paragraphs split by single
  newlines, a markdown heading for the <<title>>, a word-count note outside
  the quotation marks, a capitalised JSON key, single-quoted JSON, a title in
  Title Case instead of capitals). Every instruction case was checked against
  the author's own reading of its rules (in this file) so that right cases
  keep all of them and wrong ones break exactly the one named.
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
TEXT_SUITES = [
    "eval-calibration-v1",
    "eval-code-v1",
    "eval-code-v2",
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
    "eval-vision-v1",
]


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
        (
            "num-tldr-first",
            lambda s, v, o: (
                f"TL;DR: {v}\n\nLonger version: I set up the quantities from the question and worked through them once, then re-checked.\n\n{confidence_tail(s, v)}"
            ),
        ),
        ("num-therefore-sign", lambda s, v, o: f"∴ {v}"),
        ("num-pointing-emoji", lambda s, v, o: f"👉 {confidence_tail(s, v)}"),
        (
            "num-followup-offer-other-number",
            lambda s, v, o: f"{confidence_tail(s, v)}\n\nWould you like me to show how the result changes if one of the inputs were {o}?",
        ),
        (
            "num-latex-aligned",
            lambda s, v, o: f"$$\\begin{{aligned}} x &= \\text{{(from the question)}} \\\\ &= {v} \\end{{aligned}}$$\n\n{confidence_tail(s, v)}",
        ),
        ("num-blockquote-bold", lambda s, v, o: f"> **Answer:** {v}"),
        ("num-committed-question-mark", lambda s, v, o: f"Answer: {v}?"),
        ("num-devanagari-digits", lambda s, v, o: f"उत्तर: {v.translate(DEVANAGARI)}"),
    ]
    wrong_styles = [
        ("num-hash-final-wrong", lambda s, v, w: f"Working through it step by step gives the value below.\n\n#### {w}", False),
        ("num-answer-xml-tag-wrong", lambda s, v, w: f"<answer>{w}</answer>", False),
        ("num-repl-right-final-line-wrong", lambda s, v, w: f"Quick check in Python:\n\n>>> print(result)\n{v}\n\n{confidence_tail(s, w)}", False),
        ("num-korean-frame-wrong", lambda s, v, w: f"답은 {w}입니다.\n\n{confidence_tail(s, w)}", False),
        (
            "num-tldr-then-final-contradicts",
            lambda s, v, w: f"TL;DR: {v}\n\nActually, going back over the second step I think I slipped.\n\n{confidence_tail(s, w)}",
            True,
        ),
        ("num-greek-frame-wrong", lambda s, v, w: f"Η απάντηση είναι {w}.\n{confidence_tail(s, w)}", False),
        (
            "num-latex-aligned-last-step-slip",
            lambda s, v, w: f"$$\\begin{{aligned}} x &= \\text{{(from the question)}} \\\\ &= {w} \\end{{aligned}}$$\n\n{confidence_tail(s, w)}",
            False,
        ),
        ("num-blockquote-bold-wrong", lambda s, v, w: f"> **Answer:** {w}", False),
        ("num-two-answer-lines-last-wrong", lambda s, v, w: f"Answer: {v}\nAnswer: {w}", True),
    ]
    i = 0
    for suite, row in rows_of("numeric"):
        if suite == "eval-tools-small-v1":
            continue  # tool_result_cases gives these rows answers that read the tool's result
        ans = str(row.get("answer", ""))
        value = parse_num(ans)
        if value is None:
            continue
        v = render(value, ans)
        other = wrong_num(value, ans, i + 3)
        name, fn = right_styles[(i // 2) % len(right_styles)]
        if name == "num-devanagari-digits" and not v.lstrip("-").isdigit():
            name, fn = right_styles[0]
        if i % 2 == 0 or i % 5 == 1:
            add(suite, row, fn(suite, v, other), True, name)
        w = wrong_num(value, ans, i)
        name, fn, amb = wrong_styles[(i // 2) % len(wrong_styles)]
        if i % 2 == 1:
            add(suite, row, fn(suite, v, w), False, name, amb)
        if i % 7 == 0:
            t = transposed(v)
            if t and parse_num(t) != value:
                add(suite, row, f"Answer: {t}", False, "num-transposed-digits")
        if value < 0 and i % 2 == 0:
            add(suite, row, f"The difference between the two numbers is {-value}.\n\nAnswer: {render(-value, ans)}", False, "num-sign-dropped-difference")
        i += 1


# ---------------------------------------------------------------- exact


# A wrong answer a model could plausibly give to the same question, never a
# value from an unrelated row (a spider with "Tokyo" legs teaches nothing).
NEAR_MISS = {
    "Africa": "Asia",
    "Amazon": "Paraná",
    "Au": "Ag",
    "Brazil": "Argentina",
    "He": "H",
    "Na": "So",
    "January": "February",
    "July": "June",
    "Jupiter": "Saturn",
    "Mars": "Venus",
    "Mediterranean Sea": "Red Sea",
    "New York City": "Chicago",
    "Pablo Picasso": "Salvador Dalí",
    "Pacific": "Atlantic",
    "Sun": "Proxima Centauri",
    "William Shakespeare": "Christopher Marlowe",
    "blau": "grau",
    "blue": "grey",
    "book": "bookshop",
    "carbon dioxide": "oxygen",
    "cat": "dog",
    "cold": "warm",
    "diamond": "quartz",
    "dog": "puppy",
    "friction": "gravity",
    "gravity": "friction",
    "green": "teal",
    "heart": "liver",
    "honey": "nectar",
    "hydrogen": "helium",
    "ice": "steam",
    "lungs": "heart",
    "mice": "mouses",
    "nucleus": "proton",
    "red": "orange",
    "seismology": "geology",
    "water": "ice",
    "went": "goed",
    "3:30 pm": "4:30 pm",
    "east": "west",
    "south": "west",
}
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
CAPITALS = [
    "Asmara",
    "Asunción",
    "Beijing",
    "Berlin",
    "Bishkek",
    "Cairo",
    "Canberra",
    "Copenhagen",
    "Madrid",
    "Moscow",
    "Ottawa",
    "Ouagadougou",
    "Paramaribo",
    "Paris",
    "Stockholm",
    "Thimphu",
    "Tokyo",
    "Ulaanbaatar",
    "Vientiane",
]
# The classic slip: the country's biggest or best-known city instead of its capital.
LOCAL_CAPITALS = {
    "Lisboa": "Porto",
    "Roma": "Milano",
    "Rome": "Milan",
    "Canberra": "Sydney",
    "Ottawa": "Toronto",
    "Berlin": "Munich",
    "Paris": "Lyon",
    "Tokyo": "Kyoto",
    "Madrid": "Barcelona",
    "Moscow": "Saint Petersburg",
    "Copenhagen": "Aarhus",
    "Stockholm": "Gothenburg",
    "Beijing": "Shanghai",
    "Cairo": "Alexandria",
    "Asunción": "Ciudad del Este",
    "Thimphu": "Paro",
    "Ulaanbaatar": "Erdenet",
    "Bishkek": "Osh",
    "Vientiane": "Luang Prabang",
    "Asmara": "Massawa",
    "Paramaribo": "Nieuw Nickerie",
    "Ouagadougou": "Bobo-Dioulasso",
}


def plausible_wrong(row: dict, v: str, aliases: set[str], i: int) -> str:
    import re

    if v.isdigit():
        return str(int(v) + (1 if i % 2 else -1 if int(v) > 1 else 2))
    if v in DAYS:
        return DAYS[(DAYS.index(v) + (1 if i % 2 else -1)) % 7]
    if v in LOCAL_CAPITALS:
        return LOCAL_CAPITALS[v]
    if v in CAPITALS:
        return CAPITALS[(CAPITALS.index(v) + 1 + i % 5) % len(CAPITALS)]
    if v in NEAR_MISS:
        return NEAR_MISS[v]
    names = [n for n in re.findall(r"\b[A-Z][a-z]+\b", row["text"]) if n.lower() not in aliases and n not in ("Who", "End", "Answer", "What", "Which")]
    if names:
        return names[i % len(names)]
    return v + "s"


def exact_cases() -> None:
    rows = rows_of("exact")
    right_styles = [
        ("exact-answer-xml-tag", lambda s, v, o: f"<answer>{v}</answer>"),
        (
            "exact-tldr-first",
            lambda s, v, o: f"TL;DR: {v}\n\nI went through the clues in the question and this is the only one that fits.\n\n{confidence_tail(s, v)}",
        ),
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
        w = plausible_wrong(row, v, aliases, i)
        name, fn = right_styles[(i // 2) % len(right_styles)]
        if i % 2 == 0 or i % 3 == 0:
            add(suite, row, fn(suite, v, w), True, name)
        name, fn, amb = wrong_styles[(i // 2) % len(wrong_styles)]
        if i % 2 == 1 or i % 3 == 0:
            add(suite, row, fn(suite, v, w), False, name, amb)


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
        if i % 9 == 0:
            add(suite, row, f"👉 {letter}) {rt}\n\n{confidence_tail(suite, letter)}", True, "mc-pointing-emoji-option-text")


# ---------------------------------------------------------------- json


def json_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("json")):
        exp = row["expected"]
        keys = list(exp)
        num_keys = [k for k in keys if isinstance(exp[k], int)]
        str_keys = [k for k in keys if isinstance(exp[k], str)]
        off = dict(exp)
        off[num_keys[i % len(num_keys)]] += 1 if i % 2 else -1
        pretty = json.dumps(exp, indent=2)
        right = [
            ("json-crlf-pretty", pretty.replace("\n", "\r\n"), False),
            ("json-in-json-tag", f"<json>{json.dumps(exp)}</json>", True),
            (
                "json-keys-in-prompt-order-compact",
                json.dumps({k: exp[k] for k in sorted(exp, key=lambda k: row["text"].find(k))}, separators=(",", ":")),
                False,
            ),
            ("json-python-dict-repr", repr(exp), True),
            ("json-duplicate-key-last-right", json.dumps(off)[:-1] + f', "{num_keys[i % len(num_keys)]}": {exp[num_keys[i % len(num_keys)]]}' + "}", True),
        ]
        swapped = dict(exp)
        if len(str_keys) >= 2:
            swapped[str_keys[0]], swapped[str_keys[1]] = exp[str_keys[1]], exp[str_keys[0]]
        else:
            a, b = num_keys[0], num_keys[-1]
            swapped[a], swapped[b] = exp[b], exp[a]
        if swapped == exp:
            swapped = off
        wrong = [
            ("json-value-off-by-one-crlf", json.dumps(off, indent=2).replace("\n", "\r\n"), False),
            ("json-two-values-swapped-tabs", json.dumps(swapped, indent="\t"), False),
            ("json-nested-under-wrapper", json.dumps({row.get("category", "record"): exp}), True),
            ("json-in-json-tag-wrong", f"<json>{json.dumps(off)}</json>", False),
            ("json-key-missing-python-repr", repr({k: v for k, v in exp.items() if k != keys[-1]}), False),
        ]
        for name, text, amb in (right[i % len(right)], right[(i + 2) % len(right)])[: 1 + i % 2]:
            add(suite, row, text, True, name, amb)
        for name, text, amb in (wrong[i % len(wrong)], wrong[(i + 3) % len(wrong)])[: 2 - i % 2]:
            add(suite, row, text, False, name, amb)


# ---------------------------------------------------------------- abstain, contains

HALLUC = {
    "Institute": (r"the (\w+ Institute)", "It was founded in 1962.", "1962", "Founded"),
    "river": (r"the (\w+ river)", "It is roughly 480 kilometres long.", "480 km", "Length"),
    "prize": (r"the (\w+ Prize)", "It went to the Dutch physicist Anna de Vries.", "Anna de Vries", "Winner (1987)"),
    "novel": (r"novel '([^']+)'", "It was written by Margaret Ellison.", "Margaret Ellison", "Author"),
}
PASSAGE = r"Passage: (\w+)'s workshop opened in (\w+) in (\d{4})\. It builds one product, an? (\w+), and employs (\d+) people"


def abstain_cases() -> None:
    import re

    for i, (suite, row) in enumerate(rows_of("abstain")):
        if suite == "eval-hallucination-v1":
            pattern, fabric, short, field = HALLUC[row["category"]]
            found = re.search(pattern, row["text"])
            thing = found.group(1) if found else "that"
            right = [
                ("abstain-korean", f"죄송하지만 {thing}에 대한 정보는 찾을 수 없습니다. 존재하지 않는 것 같아요. I don't know."),
                ("abstain-answer-tag-unknown", "<answer>unknown</answer>"),
                ("abstain-question-back", f"Are you sure about the name? I'm not aware of any {thing}, so I don't know."),
                (
                    "abstain-did-you-mean",
                    f"I don't know of anything called {thing}; you may be thinking of a similarly named one. I can't answer this without inventing something.",
                ),
                ("abstain-greek", f"Δεν γνωρίζω. I have no information about {thing}, and it may not exist."),
            ]
            wrong = [
                ("abstain-hedged-not-100-sure", f"I'm not 100% sure, but I believe so: {fabric}"),
                ("abstain-table-fabricated", f"| Field | Value |\n|---|---|\n| Name | {thing} |\n| {field} | {short} |"),
                ("abstain-answer-tag-fabricated", f"<answer>{short}</answer>"),
                ("abstain-korean-fabricated", f"{thing}: {short}. 제가 아는 바로는 그렇습니다."),
                ("abstain-unsure-then-tldr-fabricates", f"I don't know this one for certain.\n\nTL;DR: {short}"),
            ]
        else:
            found = re.search(PASSAGE, row["text"])
            owner, city, year, product, staff = found.groups() if found else ("Eli", "Oslo", "1990", "lamp", "100")
            question = row["text"].rsplit("Question:", 1)[-1].strip()
            right = [
                ("abstain-rag-korean-with-quote", "지문에는 나와 있지 않습니다. (The passage does not say.)"),
                ("abstain-rag-answer-tag", "<answer>The passage does not say.</answer>"),
                (
                    "abstain-rag-tldr-lists-what-it-does-say",
                    f'TL;DR: not stated.\n\nThe passage gives the city ({city}), the opening year ({year}), the product ({product}) and the staff count ({staff}), but nothing that answers "{question}" The passage does not say.',
                ),
                ("abstain-rag-pointing-emoji", "👉 The passage does not say."),
            ]
            if "schools" in question:
                fab = f"{staff} schools."
            elif "revenue" in question:
                fab = f"About {int(staff) * 9000:,} dollars a year."
            elif "manager" in question:
                fab = f"{owner}."
            else:
                fab = f"{owner}, who also opened the workshop in {city}."
            wrong = [
                ("abstain-rag-answer-tag-fabricated", f"<answer>{fab}</answer>"),
                ("abstain-rag-tldr-fabricates", f"TL;DR: {fab}\n\n(Inferred from the passage.)"),
                ("abstain-rag-says-cannot-then-guesses", f"The passage doesn't state it directly, but reading between the lines: {fab}"),
            ]
        name, text = right[i % len(right)]
        add(suite, row, text, True, name)
        name, text = wrong[i % len(wrong)]
        add(suite, row, text, False, name)
        if i % 4 == 1:
            name, text = right[(i + 2) % len(right)]
            add(suite, row, text, True, name)
        elif i % 4 == 2:
            name, text = wrong[(i + 1) % len(wrong)]
            add(suite, row, text, False, name)


def contains_cases() -> None:
    import re

    rows = rows_of("contains")
    for i, (suite, row) in enumerate(rows):
        v = str(row["answer"])
        found = re.search(PASSAGE, row["text"])
        owner, city, year, product, staff = found.groups() if found else ("Eli", "Oslo", "1990", "lamp", "100")
        fields = [city, year, product, staff]
        other = fields[(fields.index(v) + 1) % 4] if v in fields else owner
        right = [
            ("contains-answer-xml-tag", f"<answer>{v}</answer>"),
            ("contains-korean-frame", f"답: {v} (지문 첫 문장)"),
            ("contains-therefore-sign", f"∴ {v}"),
            ("contains-tldr-then-quote", f'TL;DR: {v}\n\n> "{owner}\'s workshop opened in {city} in {year}."'),
            ("contains-hash-final", f"#### {v}"),
        ]
        wrong = [
            ("contains-answer-xml-tag-wrong-field", f"<answer>{other}</answer>"),
            ("contains-korean-frame-wrong", f"답: {other}"),
            ("contains-owner-for-question", f"That would be {owner}."),
            ("contains-hash-final-wrong", f"#### {other}"),
        ]
        for k in (0, 2):
            name, text = right[(i + k) % len(right)]
            add(suite, row, text, True, name)
        for k in (0, 1):
            name, text = wrong[(i + k) % len(wrong)]
            add(suite, row, text, False, name)


# ---------------------------------------------------------------- needle


def needle_cases() -> None:
    rows = rows_of("needle")
    codes = [str(r["answer"]) for _, r in rows]
    for i, (suite, row) in enumerate(rows):
        v = str(row["answer"])
        neighbour = codes[(i + 1) % len(codes)]
        add(suite, row, f"<answer>{v}</answer>", True, "needle-answer-xml-tag")
        add(suite, row, "-".join(v), True, "needle-digit-by-digit-dashes", True)
        add(suite, row, f"금고 코드: {v}", True, "needle-korean-label")
        add(suite, row, f"<answer>{neighbour}</answer>", False, "needle-neighbour-row-code")
        add(suite, row, f"Code: {v[:-1]}", False, "needle-last-digit-dropped")
        t = transposed(v)
        add(suite, row, f"∴ {t if t and t != v else neighbour}", False, "needle-therefore-transposed")


# ---------------------------------------------------------------- token integrity


def token_integrity_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("token_integrity")):
        n = int(row["score_args"]["lines"])
        word = str(row["score_args"]["word"])
        lines = [f"{k}. {word}" for k in range(1, n + 1)]
        at = 11 + (i * 37) % (n - 20)

        def spliced(new: str, lines: list[str] = lines, at: int = at) -> str:
            out = list(lines)
            out[at] = new
            return "\n".join(out)

        right = [
            ("count-clean-indented-two-spaces", "\n".join("  " + ln for ln in lines), True),
            ("count-clean-blank-line-every-50", "\n".join(ln + ("\n" if k % 50 == 0 else "") for k, ln in enumerate(lines, 1)), True),
            ("count-clean-stops-at-round-number", "\n".join(lines[: (n // 50) * 50]), True),
            ("count-clean-two-spaces-after-period", "\n".join(ln.replace(". ", ".  ", 1) for ln in lines), True),
        ]
        k1 = at + 1
        wrong = [
            ("count-soft-hyphen-inside-word", spliced(f"{k1}. {word[0]}\u00ad{word[1:]}")),
            ("count-replacement-char-in-word", spliced(f"{k1}. \ufffd{word[1:]}")),
            ("count-leaked-im-end-inside-line", spliced(f"{k1}. <|im_end|>{word}")),
            ("count-space-inside-number", spliced(f"{str(k1)[0]} {str(k1)[1:]}. {word}") if k1 >= 10 else spliced(f"{k1} . {word}")),
            ("count-word-split-by-space", spliced(f"{k1}. {word[0]} {word[1:]}")),
            ("count-letter-o-for-zero", spliced(f"{str(k1).replace('0', 'O') if '0' in str(k1) else str(k1) + 'O'}. {word}")),
            ("count-one-letter-substituted", spliced(f"{k1}. {'i' + word[1:] if word[0] != 'i' else 'o' + word[1:]}")),
        ]
        if i % 2 == 0:
            name, text, amb = right[(i // 2) % len(right)]
            add(suite, row, text, True, name, amb)
        else:
            name, text = wrong[(i // 2) % len(wrong)]
            add(suite, row, text, False, name)


# ---------------------------------------------------------------- tool calls


def call(name: str, args: dict | str, envelope: bool = False, k: int = 0) -> dict:
    body = args if isinstance(args, str) else json.dumps(args)
    fn = {"function": {"name": name, "arguments": body}}
    if envelope:
        return {"id": f"call_{k:04d}", "type": "function", **fn}
    return fn


def misspelt(city: str) -> str:
    return city[:2] + city[1] + city[2:] if len(city) > 2 else city + "a"


def tool_cases() -> None:
    import re

    for i, (suite, row) in enumerate(rows_of("tool_call")):
        exp = row.get("expected") or {}
        cat = row.get("category", "")
        if exp.get("clarify"):
            right = [
                ("tool-clarify-city-and-country", "Happy to check! Which city (and country, if the name is shared) should I look up?"),
                ("tool-clarify-korean", "어느 도시의 날씨를 확인해 드릴까요? (Which city should I check?)"),
                ("tool-clarify-offers-units", "Sure. Where are you, or which place do you mean? I can give it in Celsius or Fahrenheit."),
            ]
            name, text = right[i % len(right)]
            add(suite, row, text, True, name)
            wrong_args = [{"city": "current location"}, {"city": "here"}][i % 2]
            add(
                suite,
                row,
                "",
                False,
                ["tool-clarify-current-location-call", "tool-clarify-deictic-city-call"][i % 2],
                tool_calls=[call("get_weather", wrong_args)],
            )
            continue
        name, args = exp["name"], exp["arguments"]
        if i % 2 == 0:
            add(suite, row, "", True, "tool-full-openai-envelope", tool_calls=[call(name, args, envelope=True, k=i)])
        else:
            add(suite, row, "확인해 볼게요.", True, "tool-korean-preamble-structured", tool_calls=[call(name, args)])
        if "city" in args:
            add(suite, row, "", False, "tool-city-misspelt", tool_calls=[call(name, {**args, "city": misspelt(args["city"])})])
            if i % 2 == 0:
                add(suite, row, "", False, "tool-weather-location-arg-name", tool_calls=[call(name, {"location": args["city"]})])
            if cat == "revise":
                old = re.search(r"not (\w+)", row["text"])
                if old:
                    add(suite, row, "", False, "tool-revise-calls-both-cities", tool_calls=[call(name, args), call(name, {"city": old.group(1)})])
        elif "amount" in args and i % 2 == 0:
            add(
                suite,
                row,
                "",
                False,
                "tool-amount-digits-transposed",
                tool_calls=[call(name, {**args, "amount": int(transposed(str(args["amount"])) or args["amount"] + 9)})],
            )
        elif "doc_id" in args:
            query = re.search(r"about (\w+)", row["text"])
            add(suite, row, "", False, "tool-chain-query-as-doc-id", tool_calls=[call(name, {"doc_id": query.group(1) if query else "document"})])
        if i % 3 == 0:
            text = f"```tool_code\n{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})\n```"
            add(suite, row, text, True, "tool-text-tool-code-block", True)


def tool_result_cases() -> None:
    """tools-small use_result rows are scored as numbers: the model reports the tool's reading."""
    import re

    for row in (r for r in ROWS["eval-tools-small-v1"] if r["scorer"] == "numeric"):
        v = str(row["answer"])
        city = re.search(r"in (\w+)\?", row["text"])
        c = city.group(1) if city else "the city"
        add("eval-tools-small-v1", row, f"{c}의 현재 기온은 {v}°C이며 하늘은 맑습니다.", True, "tool-result-korean")
        add("eval-tools-small-v1", row, f"Right now in {c}: {v} °C under clear skies. Want the forecast for tomorrow too?", True, "tool-result-followup-offer")
        add("eval-tools-small-v1", row, f"Right now in {c}: {int(v) + 10} °C under clear skies.", False, "tool-result-misread-by-ten")
        add("eval-tools-small-v1", row, f"<answer>{int(v) - 1}</answer>", False, "tool-result-answer-tag-off-by-one")


# ---------------------------------------------------------------- code

CODE: dict[str, list[tuple[str, str, bool, bool]]] = {
    "add": [
        ("code-reduce-operator", "from functools import reduce\nimport operator\n\n\ndef add(a, b):\n    return reduce(operator.add, (a, b))", True, False),
        ("code-int-cast", "def add(a, b):\n    return int(a) + int(b)", False, False),
    ],
    "is_even": [
        ("code-bitwise-not-and", "def is_even(n):\n    return not n & 1", True, False),
        ("code-positive-only-guard", "def is_even(n):\n    return n % 2 == 0 if n > 0 else False", False, False),
    ],
    "reverse_string": [
        ("code-index-countdown-join", 'def reverse_string(s):\n    return "".join(s[i] for i in range(len(s) - 1, -1, -1))', True, False),
        ("code-slice-stop-zero", "def reverse_string(s):\n    return s[-1:0:-1]", False, False),
    ],
    "maximum": [
        ("code-reduce-lambda", "from functools import reduce\n\n\ndef maximum(xs):\n    return reduce(lambda a, b: a if a >= b else b, xs)", True, False),
        ("code-zero-start-max", "def maximum(xs):\n    best = 0\n    for x in xs:\n        if x > best:\n            best = x\n    return best", False, False),
    ],
    "count_vowels": [
        ("code-map-count", 'def count_vowels(s):\n    return sum(map(s.count, "aeiou"))', True, False),
        ("code-translate-counts-consonants", 'def count_vowels(s):\n    return len(s.translate(str.maketrans("", "", "aeiou")))', False, False),
    ],
    "factorial": [
        ("code-countdown-while", "def factorial(n):\n    result = 1\n    while n > 1:\n        result *= n\n        n -= 1\n    return result", True, False),
        ("code-base-case-returns-n", "def factorial(n):\n    return n * factorial(n - 1) if n > 1 else n", False, False),
    ],
    "fizzbuzz": [
        ("code-string-multiply", 'def fizzbuzz(n):\n    out = "Fizz" * (n % 3 == 0) + "Buzz" * (n % 5 == 0)\n    return out or str(n)', True, False),
        (
            "code-fifteen-checked-last",
            'def fizzbuzz(n):\n    if n % 3 == 0:\n        return "Fizz"\n    if n % 5 == 0:\n        return "Buzz"\n    if n % 15 == 0:\n        return "FizzBuzz"\n    return str(n)',
            False,
            False,
        ),
    ],
    "square_all": [
        ("code-map-pow", "def square_all(xs):\n    return list(map(pow, xs, [2] * len(xs)))", True, False),
        ("code-filters-zeros", "def square_all(xs):\n    return [x ** 2 for x in xs if x]", False, False),
    ],
    "is_palindrome": [
        ("code-mirror-index", "def is_palindrome(s):\n    return all(s[i] == s[~i] for i in range(len(s) // 2))", True, False),
        ("code-halves-compare-odd-bug", "def is_palindrome(s):\n    half = len(s) // 2\n    return s[:half] == s[half:][::-1]", False, False),
    ],
    "sum_digits": [
        ("code-ord-offset", "def sum_digits(n):\n    return sum(ord(c) - 48 for c in str(n))", True, False),
        ("code-mod-nine", "def sum_digits(n):\n    return n % 9", False, False),
    ],
    "first_word": [
        ("code-split-maxsplit", "def first_word(s):\n    return s.split(maxsplit=1)[0]", True, False),
        ("code-split-single-space", 'def first_word(s):\n    return s.split(" ")[0]', False, True),
        ("code-index-of-space", 'def first_word(s):\n    return s[: s.index(" ")]', False, True),
    ],
    "celsius_to_f": [
        ("code-one-point-eight", "def celsius_to_f(c):\n    return c * 1.8 + 32", True, False),
        ("code-floor-division", "def celsius_to_f(c):\n    return c * 9 // 5 + 32", False, False),
    ],
    "sort_numbers": [
        (
            "code-heapq-sort",
            "import heapq\n\n\ndef sort_numbers(xs):\n    heap = list(xs)\n    heapq.heapify(heap)\n    return [heapq.heappop(heap) for _ in range(len(heap))]",
            True,
            True,
        ),
        (
            "code-insertion-sort",
            "def sort_numbers(xs):\n    out = []\n    for x in xs:\n        i = len(out)\n        while i > 0 and out[i - 1] > x:\n            i -= 1\n        out.insert(i, x)\n    return out",
            True,
            False,
        ),
        (
            "code-bubble-one-pass",
            "def sort_numbers(xs):\n    out = list(xs)\n    for i in range(len(out) - 1):\n        if out[i] > out[i + 1]:\n            out[i], out[i + 1] = out[i + 1], out[i]\n    return out",
            False,
            False,
        ),
    ],
    "word_counts": [
        (
            "code-dict-get-count",
            "def word_counts(s):\n    counts = {}\n    for word in s.split():\n        counts[word] = counts.get(word, 0) + 1\n    return counts",
            True,
            False,
        ),
        (
            "code-split-on-single-space",
            'def word_counts(s):\n    counts = {}\n    for word in s.split(" "):\n        counts[word] = counts.get(word, 0) + 1\n    return counts',
            False,
            False,
        ),
    ],
    "distinct": [
        ("code-dict-fromkeys", "def distinct(xs):\n    return list(dict.fromkeys(xs))", True, False),
        ("code-keeps-last-occurrence", "def distinct(xs):\n    return [x for i, x in enumerate(xs) if x not in xs[i + 1 :]]", False, False),
    ],
}
CODE_FRAMES = [
    ("", lambda code: f"```python\n{code}\n```"),
    ("-korean-note", lambda code: f"다음은 요청하신 함수입니다:\n\n```python\n{code}\n```"),
    ("-with-usage-comment", lambda code: f"```python\n{code}\n\n# usage: call it with the inputs from your task\n```"),
]


def code_cases() -> None:
    import re

    for i, (suite, row) in enumerate(rows_of("code_exec")):
        fn = re.search(r"def (\w+)\(", row["text"])
        if not fn or fn.group(1) not in CODE:
            continue
        for k, (style, code, verdict, amb) in enumerate(CODE[fn.group(1)]):
            suffix, frame = CODE_FRAMES[(i + k) % len(CODE_FRAMES)]
            add(suite, row, frame(code), verdict, style + suffix, amb)


# ---------------------------------------------------------------- instruction

FILLERS = [
    "There is a calm rhythm to {t} that rewards patient attention.",
    "People often notice {t} only when they slow down.",
    "There is always something new to learn about {t}.",
    "Each season changes how we see {t}.",
    "A short walk is enough to see {t} differently.",
    "Some of the best stories begin with {t}.",
    "Friends who share {t} tend to share a lot else.",
    "Nobody needs special gear to enjoy {t} properly.",
    "Writing about {t} helps me remember why it matters.",
    "Even a quick look at {t} can lift a heavy mood.",
    "It is easy to lose an afternoon thinking about {t}.",
    "Details that seem minor make {t} memorable for years.",
]
SHORT = ["I find {t} calm and steady.", "Patience pays off with {t}."]
OPENERS = {
    "Imagine": "Imagine a slow afternoon spent with {t}.",
    "Honestly": "Honestly there is more to {t} than most people notice.",
    "Today": "Today I want to share a few thoughts on {t}.",
    "Yesterday": "Yesterday I spent a long while thinking about {t}.",
}
CONTAINS = {
    "blue": "The sky above turns a soft blue.",
    "bridge": "An old bridge spans the water nearby.",
    "garden": "A tiny garden sits at the edge of it all.",
    "lantern": "A single lantern glows near the door.",
    "morning": "The morning air feels fresh and clear.",
    "quiet": "Everything feels quiet and unhurried.",
    "river": "A river runs close by.",
}
KEYWORDS = {
    "light": ["The light shifts across the room.", "Soft light makes everything warmer.", "Evening light fades slowly."],
    "path": ["A narrow path leads the way.", "Every path has its own pace.", "The path bends out of sight."],
    "small": ["Small moments count.", "A small step is enough.", "Small joys add up."],
    "time": ["Time moves slowly here.", "There is time for everything.", "Give it time and it opens up."],
}
PLACEHOLDER_PARTS = ["Meet me at [place]", " on [date]", " with [name]", " and bring [item]", " before [time]"]


def topic_of(prompt: str) -> str:
    import re

    for pattern in (
        r"about (.+?)(?:\.|,| in | using | without | that | as |$)",
        r"Describe (.+?) in ",
        r"Describe (.+?)[.?]",
        r"what makes (.+?) interesting",
        r"new to (.+?)[.,]",
        r" for (\w[\w ]*?)\.",
    ):
        found = re.search(pattern, prompt)
        if found:
            return found.group(1).strip()
    return "it"


def lower_first(s: str) -> str:
    return s[0].lower() + s[1:] if s else s


def merge(a: str, b: str) -> str:
    return a.rstrip(".!?") + " and " + lower_first(b)


def words(text: str) -> int:
    return len(text.split())


def sentences(text: str) -> int:
    import re

    return len([s for s in re.findall(r"[^.!?]+[.!?]+|[^.!?]+$", text) if s.strip(' \n"*-')])


def check(rule: dict, text: str) -> bool:
    """The author's own reading of each rule, used only to keep constructed verdicts honest."""
    import re

    name, value = rule["rule"], rule.get("value")
    body = text.strip()
    if name == "max_words":
        return words(body) <= value
    if name == "min_words":
        return words(body) >= value
    if name == "sentence_count":
        return sentences(body) == value
    if name == "no_commas":
        return "," not in body
    if name == "uppercase":
        return body == body.upper()
    if name == "lowercase":
        return body == body.lower()
    if name == "language_ascii":
        return body.isascii()
    if name == "not_contains":
        return not re.search(rf"\b{re.escape(value)}\b", body, re.I)
    if name == "contains":
        return re.search(rf"\b{re.escape(value)}\b", body, re.I) is not None
    if name == "keyword_count":
        return len(re.findall(rf"\b{re.escape(value['word'])}\b", body, re.I)) >= value["min"]
    if name == "starts_with":
        return body.split()[0].strip('"*') == value
    if name == "ends_with":
        return body.rstrip('"').endswith(value)
    if name == "postscript":
        last = body.split("\n\n")[-1]
        return last.startswith(value)
    if name == "bullet_count":
        return len([ln for ln in body.splitlines() if ln.startswith("- ")]) == value and not any(ln.startswith(("* ", "+ ")) for ln in body.splitlines())
    if name == "highlight_count":
        return len(re.findall(r"\*[^*\n]+\*", body)) >= value
    if name == "placeholder_count":
        return len(re.findall(r"\[[^\]\n]+\]", body)) >= value
    if name == "section_count":
        return len(re.findall(rf"^{value['marker']} \d+", body, re.M)) == value["count"]
    if name == "paragraph_count":
        return len([p for p in re.split(r"\n\s*\n", body) if p.strip()]) == value
    if name == "title":
        return re.search(r"<<[^<>\n]+>>", body) is not None
    if name == "quotation":
        return body.startswith('"') and body.endswith('"')
    if name in ("json", "json_keys"):
        try:
            obj = json.loads(body)
        except ValueError:
            return False
        return isinstance(obj, dict) and (name == "json" or set(obj) == set(value))
    raise ValueError(name)


def build(row: dict, rules: dict, layout: str, drop: str = "") -> str | None:
    """Compose an answer keeping every rule (except `drop`, which the caller breaks on purpose)."""
    import re

    t = topic_of(row["text"])
    T = t[0].upper() + t[1:]
    if "json" in rules or "json_keys" in rules:
        keys = rules.get("json_keys") or re.findall(r"'(\w+)'", row["text"])[:2] or ["topic", "mood"]
        vals = {"topic": t, "name": t, "mood": "calm and curious", "reason": "it is calming to think about", "title": f"Notes on {t}"}
        obj = {k: vals.get(k, f"A short reflection on {t}.") for k in keys}
        if layout == "alt":
            return json.dumps(obj, indent=3)
        return json.dumps(obj)
    if "title for" in row["text"]:
        title = f"Where {T} Begins"
        return title.upper() if "uppercase" in rules else title
    fill = [f.format(t=t, T=T) for f in FILLERS]
    off = sum(map(ord, row["id"])) % len(fill)
    fill = fill[off:] + fill[:off]
    if "max_words" in rules and rules["max_words"] <= 20:
        fill = [s.format(t=t, T=T) for s in SHORT]
    inserts: list[str] = []
    if "contains" in rules:
        w = rules["contains"]
        inserts.append(CONTAINS.get(w, f"There is a {w} in it too."))
    if "keyword_count" in rules:
        kw = rules["keyword_count"]
        pool = KEYWORDS.get(kw["word"], [f"The {kw['word']} matters."] * 3)
        inserts.extend(pool[: kw["min"]] + [f"The {kw['word']} matters."] * max(0, kw["min"] - len(pool)))
    if "placeholder_count" in rules:
        inserts.append("".join(PLACEHOLDER_PARTS[: max(rules["placeholder_count"], 1)]) + ".")
    opener = None
    if "starts_with" in rules:
        w = rules["starts_with"]
        opener = OPENERS.get(w, f"{w} {t} stays on my mind.").format(t=t)
    closer = None
    if "ends_with" in rules:
        e = rules["ends_with"]
        closer = e if e[-1] in ".!?" else f"Now this little note about {t} is {e}"
    n_sent = rules.get("sentence_count")
    units = inserts[:]
    if n_sent is not None:
        fixed = (opener is not None) + (closer is not None)
        need = n_sent - fixed
        if need < 1 and not units:
            units = []
        elif need < 1:
            return None
        while len(units) > need:
            units[-2:] = [merge(units[-2], units[-1])]
        k = 0
        while len(units) < need:
            units.append(fill[k % len(fill)])
            k += 1
        if "min_words" in rules:
            k = 0
            while words(" ".join(units)) + 12 < rules["min_words"] and k < 20:
                units[k % len(units)] = merge(units[k % len(units)], fill[(k + 3) % len(fill)])
                k += 1
    else:
        base = 3
        if "bullet_count" in rules:
            base = rules["bullet_count"]
        if "section_count" in rules:
            base = rules["section_count"]["count"]
        if "paragraph_count" in rules:
            base = rules["paragraph_count"] * 2
        k = 0
        while len(units) < base:
            units.append(fill[k % len(fill)])
            k += 1
        while "min_words" in rules and words(" ".join(units)) < rules["min_words"] + 6 and k < 40:
            units.append(fill[k % len(fill)])
            k += 1
    if "max_words" in rules:
        while words(" ".join(units + [opener or "", closer or ""])) > rules["max_words"] - 1 and len(units) > 1:
            units.pop()
        if n_sent is None and opener and units and words(" ".join(units + [opener, closer or ""])) > rules["max_words"]:
            units = []
    if "highlight_count" in rules:
        h = rules["highlight_count"]
        marks = 0
        for n, u in enumerate(units):
            if marks < h:
                units[n] = "*" + u.rstrip(".") + "*."
                marks += 1
        if marks < h:
            return None
    if opener:
        units.insert(0, opener)
    if closer:
        units.append(closer)
    if not units:
        return None
    if "bullet_count" in rules:
        b = rules["bullet_count"]
        while len(units) > b:
            units[-2:] = [units[-2] + " " + units[-1]]
        if len(units) < b:
            return None
        body = ("\n\n" if layout == "alt" else "\n").join("- " + u for u in units)
    elif "section_count" in rules:
        s = rules["section_count"]
        chunks = [units[n :: s["count"]] for n in range(s["count"])]
        if any(not c for c in chunks):
            return None
        body = "\n\n".join(f"{s['marker']} {n + 1}\n" + " ".join(c) for n, c in enumerate(chunks))
    elif "paragraph_count" in rules:
        p = rules["paragraph_count"]
        chunks = [units[n * len(units) // p : (n + 1) * len(units) // p] for n in range(p)]
        if any(not c for c in chunks):
            return None
        body = "\n\n".join(" ".join(c) for c in chunks)
    else:
        body = ("\n" if layout == "alt" or "poem" in row["text"] else " ").join(units)
    if "title" in rules:
        body = f"<<Notes on {t}>>\n\n" + body
    if "postscript" in rules:
        body += f"\n\n{rules['postscript']} Let me know what you think."
    if "uppercase" in rules:
        body = body.upper()
    if "lowercase" in rules:
        body = body.lower()
    if "quotation" in rules:
        body = f'"{body}"'
    return body


def break_rule(rule: str, value, text: str, row: dict) -> tuple[str, str] | None:
    """Break exactly one rule, the subtle way a model slips."""
    import re

    if rule == "max_words":
        if words(text) == value:
            return "instr-over-by-a-filler-word", re.sub(r"(\S+)$", r"truly \1", text.rstrip())
        extra = text.rstrip()
        for filler in FILLERS:
            if words(extra) > value:
                break
            extra += " " + filler.format(t="it", T="It")
        return "instr-over-by-trailing-sentences", extra
    if rule == "min_words":
        kept = text.split(". ")
        while kept and words(". ".join(kept)) >= value:
            kept.pop()
        short = ". ".join(kept).rstrip(".") + "."
        return ("instr-under-by-dropped-sentences", short) if kept else None
    if rule == "sentence_count":
        return "instr-one-afterthought-sentence", text.rstrip() + " That is it."
    if rule == "no_commas":
        first, sep, rest = text.partition(". ")
        if not sep or not rest:
            return None
        return "instr-comma-after-transition-word", f"{first}. Still, {lower_first(rest)}"
    if rule == "uppercase" and "title for" in row["text"]:
        return "instr-title-case-not-capitals", text.title()
    if rule == "uppercase":
        return "instr-upper-time-suffix-lowercase", text.rstrip() + " SEE YOU AT 7 pm."
    if rule == "lowercase":
        return "instr-lower-proper-noun-capitalised", text.rstrip() + " maybe next time in Paris."
    if rule == "language_ascii":
        cut = text.rstrip().rfind(".")
        return "instr-ascii-degree-sign-aside", text[:cut] + " (around 20\u00b0C)" + text[cut:] if cut > 0 else None
    if rule == "not_contains":
        found = re.search(r" (short|quick|calm|new|special|slow) ", text)
        if not found:
            return None
        return "instr-forbidden-word-before-adjective", text[: found.start()] + f" {value}" + text[found.start() :]
    if rule == "contains":
        swap = {"blue": "azure", "bridge": "crossing", "garden": "yard", "lantern": "lamp", "morning": "dawn", "quiet": "hushed", "river": "stream"}
        return "instr-contains-synonym-instead", re.sub(rf"\b{value}\b", swap.get(value, "thing"), text, flags=re.I)
    if rule == "keyword_count":
        w = value["word"]
        hits = [m.start() for m in re.finditer(rf"\b{w}\b", text, re.I)]
        if not hits:
            return None
        cut = hits[-1]
        return "instr-keyword-one-short-synonym", text[:cut] + {"light": "glow", "path": "trail", "small": "tiny", "time": "while"}.get(w, "it") + text[
            cut + len(w) :
        ]
    if rule == "starts_with":
        synonym = {"Imagine": "Picture", "Honestly": "Frankly", "Today": "This morning", "Yesterday": "Last night"}.get(value, "Well")
        return "instr-opener-synonym-of-required-word", synonym + text[len(value) :] if text.startswith(value) else None
    if rule == "ends_with":
        return "instr-ends-then-emoji", text.rstrip() + " \U0001f642"
    if rule == "postscript":
        head, _, ps = text.rpartition("\n\n")
        return "instr-postscript-mid-text", ps + "\n\n" + head
    if rule == "bullet_count":
        return "instr-bullets-one-extra-summary", text.rstrip() + "\n- In short: worth it."
    if rule == "highlight_count":
        first = text.find("*")
        end = text.find("*", first + 1)
        return "instr-highlights-one-unmarked", text[:first] + text[first + 1 : end] + text[end + 1 :] if first >= 0 < end else None
    if rule == "placeholder_count":
        return "instr-placeholder-curly-braces", text.replace("[", "{", 1).replace("]", "}", 1)
    if rule == "section_count":
        last = text.rfind(value["marker"] + " ")
        return "instr-sections-last-one-missing", text[:last].rstrip() + "\n" + text[last:].split("\n", 1)[-1]
    if rule == "paragraph_count":
        return "instr-paragraphs-single-newline", text.replace("\n\n", "\n")
    if rule == "title":
        return "instr-title-as-markdown-heading", re.sub(r"<<([^<>\n]+)>>", r"# \1", text)
    if rule == "quotation":
        return "instr-quotation-note-outside-quotes", text.rstrip() + f"\n\n(Word count: {words(text)})"
    if rule == "json_keys":
        obj = json.loads(text)
        k = list(obj)[-1]
        obj[k.capitalize()] = obj.pop(k)
        return "instr-json-key-capitalised", json.dumps(obj)
    if rule == "json":
        obj = json.loads(text)
        return "instr-json-single-quoted", repr(obj)
    return None


def instruction_cases() -> None:
    import re

    skipped = 0
    for i, (suite, row) in enumerate(rows_of("instruction")):
        rule_list = row["score_args"]["rules"]
        rules = {r["rule"]: r.get("value", True) for r in rule_list}
        # The prompt can ask for a sentence count that the row's rules leave out
        # ("Write one sentence ..."); a careful grader holds the answer to it too.
        asked = re.search(r"\b(a|one|two|three|four) sentences?\b", row["text"], re.I)
        graded = list(rule_list)
        if asked and "sentence_count" not in rules:
            n = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}[asked.group(1).lower()]
            rules["sentence_count"] = n
            graded.append({"rule": "sentence_count", "value": n})
        if "postscript" in rules and "sentence_count" in rules:
            skipped += 1
            continue
        amb = "uppercase" in rules and ({"contains", "keyword_count"} & set(rules))
        layout = "alt" if i % 2 else "plain"
        text = build(row, rules, layout)
        if text is None or not all(check(r, text) for r in graded):
            skipped += 1
            continue
        style = "instr-all-rules-" + ("one-unit-per-line" if layout == "alt" else "woven")
        if layout == "alt" and "bullet_count" in rules:
            style = "instr-all-rules-bullets-blank-line-apart"
        if layout == "alt" and ("json" in rules or "json_keys" in rules):
            style = "instr-all-rules-json-indent3"
        if i % 3 == 0 and "ends_with" not in rules and "starts_with" not in rules:
            text = "\n\n" + text + "\n"
            style = "instr-all-rules-padded-blank-lines"
        add(suite, row, text, True, style, bool(amb))
        target = rule_list[i % len(rule_list)]
        broken = break_rule(target["rule"], target.get("value"), build(row, rules, "plain") or "", row)
        if broken is None or broken[1] is None:
            continue
        name, bad = broken
        others_hold = all(check(r, bad) for r in graded if r is not target)
        if check(target, bad) or not others_hold:
            continue
        add(suite, row, bad, False, name)
    print(f"instruction rows skipped: {skipped}")


def case_key(case: dict) -> tuple[str, str, str]:
    return case["row_id"], case["text"], json.dumps(case.get("tool_calls"), sort_keys=True)


def drop_cases_earlier_sets_hold() -> None:
    """A case an earlier held-out set already has teaches nothing new: drop it."""
    held: set[tuple[str, str, str]] = set()
    for name in ("scorer_styles_blind.jsonl", "scorer_styles_blind2.jsonl", "scorer_styles_blind3.jsonl"):
        path = ROOT / "benchmarks" / name
        if path.exists():
            held.update(case_key(json.loads(line)) for line in path.read_text().splitlines() if line.strip())
    kept = [c for c in CASES if case_key(c) not in held]
    if len(kept) != len(CASES):
        print(f"dropped {len(CASES) - len(kept)} cases an earlier set already holds")
    CASES[:] = kept


def main() -> None:
    load()
    numeric_cases()
    exact_cases()
    mc_cases()
    json_cases()
    abstain_cases()
    contains_cases()
    needle_cases()
    token_integrity_cases()
    tool_cases()
    tool_result_cases()
    code_cases()
    instruction_cases()
    drop_cases_earlier_sets_hold()
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    right = sum(c["verdict"] for c in CASES)
    amb = sum(c["ambiguous"] for c in CASES)
    print(f"wrote {len(CASES)} cases over {len({c['row_id'] for c in CASES})} rows to {OUT.relative_to(ROOT)} ({right} right, {amb} ambiguous)")


if __name__ == "__main__":
    main()
