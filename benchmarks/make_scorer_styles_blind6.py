"""Build benchmarks/scorer_styles_blind6.jsonl: a sixth held-out set of answer styles (issue 33).

How this set was made, and the blindness rules its author kept:
- The author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args, tools, messages), the seed text that
  says what the suites are for (/work/shared/seeds/), and the five earlier
  generators (benchmarks/make_scorer_styles_blind.py ... make_scorer_styles_blind5.py)
  and their .jsonl output: for the line format, and to list their style names
  so as NOT to repeat them. The author never opened src/servescope/scoring/,
  tests/scoring/, benchmarks/scorer_styles.py, benchmarks/scorer_accuracy.py,
  benchmarks/scorer_blind_agreement.py, any scorer result under
  benchmarks/results/, benchmarks/docs/scorer*.md, docs/scored-suites*.md, or
  the git history of any of them, and never ran a scorer or a servescope eval
  on these cases.
- Every case is an answer a real instruct model (small or large, terse or
  chatty, reasoning or not, sometimes in the prompt's language) could give to
  THAT row's prompt. Its verdict is the one a careful human grader gives after
  reading the prompt, the expected answer and the row's rules; verdicts are
  fixed here, by construction, before anything is scored. Genuinely
  disputable cases carry "ambiguous": true (left out of the figure) and say
  why in their style name; hard but clear cases do not.
- The styles are ones the five earlier sets do not have (their style names
  were listed first and none is reused; after generation every case is
  compared with theirs and any (row, text, tool_calls) triple they already
  hold is dropped). Numbers: the product split by the distributive law (and
  the slip that drops one partial product), sums and differences laid out in
  columns in a code block (and the carry or borrow lost there), a ballpark
  estimate first and then the exact value (and the estimate handed in), the
  equation written on the answer line (and a wrong one there), "so the answer
  is" in lower case with no answer line, a subtraction done the other way
  round and negated (and left positive), a percentage reasoned as a fraction
  (and the decimal point shifted), tickets added one by one (and one ticket
  short), the story restated (and the opposite operation), halves or
  quarters counted in words (and one term only), sequences with their first
  and second differences listed (and a step misread, or the last addition
  slipped), a confidence line as a decimal, a trailing note full of other
  numbers after the answer line (and a wrong value with its excuse, or a
  "probably" that commits to it), full sentences in the prompt's language
  for the multilingual rows, an image described square by square (and the
  frame counted), a handwritten digit (and its look-alike); tool readings
  quoted from the JSON, in bold with no space before the degree sign, in
  Portuguese, versus a climate average, Fahrenheit for the Celsius reading,
  a digit misread. Names and words: a fun fact naming other cities after the
  capital (and the largest city for the capital), "probably ... fairly
  confident" that commits (and to the wrong one), "That would be ..." with an
  alias, a first thought that was right then second-guessed away, a numbered
  tallest-to-shortest ranking (and one with the comparison reversed), the
  day count reduced mod seven (and today counted as day one), the word in
  bold inside a sentence quoting the prompt's word (and the regular or
  false-friend form), the colour with its shade (and a neighbouring hue),
  one-word replies in the prompt's language. Letters: the letter in quotes,
  the option's reason then "so (B)", "I'm fairly sure it's B — ...", a
  checkbox list "[x] B) ...", the ordinal word with the option text, a
  distractor considered first then dismissed, a Spanish sentence quoting the
  English option; each also with the wrong letter; parity by the last digit
  or by a written-out sum (and the misjudged digit, the sum slipped by one).
  JSON: keys sorted and compact, irregular line breaks, in a one-line fence,
  after "Sure! Here you go:" (ambiguous for JSON only), versus name and city
  swapped, the age's digits transposed, the values as an array, an unquoted
  string, a Markdown table, "4 x kettle" as the item, the quantity off by
  one, the object double-encoded as a JSON string (ambiguous). Abstentions in
  Portuguese and Italian, "I have no record of", "appears to be fictional",
  "I couldn't verify ... if you have a source"; for RAG the exact sentence in
  quotes, in lower case, with the passage's silence explained, "how many is
  not said, only that it sells mostly to schools"; versus confident
  fabrications (a founding year and city, a winner, an author), "probably"
  guesses, a list of likely authors, for RAG an industry revenue guess, an
  invented school count, the owner as manager, an invented supplier founder.
  RAG answers "Per the passage, ...", as a Q/A pair, one word with the
  supporting sentence quoted; versus another city, the product claimed to be
  unnamed, the year for the staff and back, a Q/A pair that abstains. Needles:
  the code with its box named after, spelled digit by digit then as a
  numeral, on an answer line; versus the middle digits swapped, one spelled
  digit off, another box's code. Long generations: the clean run (where no
  earlier set holds that exact text), with a final newline; layout-only
  departures (a text fence, double spacing, the last line's period dropped)
  ambiguous; spliced: a zero-width non-joiner, a byte-order mark at a line's
  start, a right-to-left mark after the period, "<pad>", "[UNK]" for the
  word, "0k", the word repeated, a fullwidth letter, "[/INST]" after the word.
  Tool calls after "Sure, one sec." or a Portuguese preamble, the amount as a
  float, the seconds as a float (ambiguous: integer type), a Spanish
  acknowledgement on a revise row; clarifying questions in Portuguese, as a
  numbered list, naming what is missing; versus the city as a nested object,
  "Lima weather" as the city, the amount in cents, from and to both the
  target currency, the seconds as an ISO 8601 duration, sixty seconds too
  many, the neighbouring document id, "opened it" with no call, a clarify row
  answered from thin air. Code right but written unusually (operator.add, a
  nested helper, a dict dispatch on the remainder, a stack, a docstring with
  an example call, a conditional expression in the loop, sum(map(s.count)),
  a set literal, ternary recursion, a loop from two, a tuple-keyed lookup,
  augmented list append, all() over mirror pairs, f-string digits, a regular
  expression, an integer-first formula, min-and-remove on a copy,
  try/except KeyError, an enumerate prefix check), framed bare, with a
  __main__ block of prints, or as "Here's a version"; and code wrong on
  inputs the prompt covers (int() on the operands, zero not even, stopping at
  the first drop, vowel runs counted once, a range from zero, "Fizzbuzz",
  squares over a set, one-letter strings rejected, summing down to one digit,
  index() of a space, floor division, front-or-back insertion, a forbidden
  import, only the unique items kept); a sort in place of the caller's list,
  bisect.insort where sorting is forbidden, stripping after reversing,
  split(' '), math.gamma are ambiguous. Instructions: every rule kept in new
  filler prose, one sentence per line (poems), as a "Dear ... Regards"
  letter, JSON on one line or with four-space indents, short titles, section
  markers with a colon; and one rule broken, the least-broken rule first so
  every rule gets its slip: an aside that pushes past the word limit, a
  title that runs past it, an answer cut short of the minimum, a closing
  verdict as one sentence too many, ", too", a quoted lower-case word in a
  capitals answer, a small word lower-cased in a capitals title, a capital
  "I" in a lower-case answer, a euro sign, the forbidden word in an aside
  (and, right, only inside a longer word), the keyword swapped for a synonym
  once, a bold topic line before the required opener, a smiley after the
  closing phrase, the postscript as an asterisk footnote, two bullets merged
  on one line, one highlight left unmarked, a placeholder filled in, an
  extra closing section, two paragraphs merged, the title or the whole answer
  in guillemets, a JSON key upper-cased, JSON keys unquoted.
- Code variants were checked by the author with plain Python against the
  assert lines the code-v2 rows carry (not with any scorer): every right
  variant passes them; the wrong ones fail them, or break a rule the prompt
  states (a forbidden import); the ambiguous ones fail only on inputs the
  prompt's wording leaves open (leading spaces, factorials past 22!).
- Day counts, height orders, parities, sequences and arithmetic were
  recomputed from each prompt; where a recomputed value disagrees with the
  dataset the case is marked ambiguous with "dataset-mistake" in its style
  (none did in this version of the datasets).
- Long-generation integrity rows (token_integrity) are graded as the seed
  defines the suite: "scores token integrity, not correctness: accuracy is the
  share of generations that came back with no spliced token". A clean
  generation that only breaks the count or layout is right; those are marked
  ambiguous because a grader could disagree.
- code_exec rows: code that is wrong on inputs the prompt covers is wrong even
  where it may pass a few tests; cases where only hidden edge cases break it
  are marked ambiguous.
- Instruction cases are spread over the current suites (eval-format-v2,
  eval-instruction-v1) as well as eval-format-v1; every one was checked
  against the author's own reading of its rules (in this file), with a margin
  on word counts. Where a prompt asks for more than its rules check (a
  sentence count, the JSON keys; format-v1 above all) a careful grader holds
  the answer to the prompt, and so do these verdicts. Capitals or lower-case
  rows with placeholders or a title, and lower-case rows with a P.S., are
  ambiguous: whether "[NAME]" or "p.s." must follow the case rule is
  disputable.

Run: python benchmarks/make_scorer_styles_blind6.py (deterministic, stdlib only).
"""

from __future__ import annotations

import itertools
import json
import re
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind6.jsonl"

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
    if suite == "eval-calibration-v1" and text and "Confidence:" not in text:
        text += "\nConfidence: 90%"  # the row asks for a confidence line; every case gives one
    case = {"suite": suite, "row_id": row["id"], "scorer": row["scorer"], "text": text, "verdict": verdict, "style": style, "ambiguous": ambiguous}
    if tool_calls is not None:
        case["tool_calls"] = tool_calls
    CASES.append(case)


def rows_of(scorer: str) -> list[tuple[str, dict]]:
    return [(s, r) for s in TEXT_SUITES for r in ROWS[s] if r["scorer"] == scorer]


def line(suite: str, value: str) -> str:
    return f"Answer: {value}"


# ---------------------------------------------------------------- numeric


def fmt(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):g}"


def money(n: int) -> str:
    return f"${n:,}"


def no_carry_add(a: int, b: int) -> int:
    """Column addition with every carry dropped: the slip a hurried model makes."""
    out, place = 0, 1
    while a or b:
        out += ((a % 10 + b % 10) % 10) * place
        a, b, place = a // 10, b // 10, place * 10
    return out


def no_borrow_sub(a: int, b: int) -> int:
    """Column subtraction that takes the smaller digit from the larger in each column."""
    out, place = 0, 1
    while a or b:
        out += abs(a % 10 - b % 10) * place
        a, b, place = a // 10, b // 10, place * 10
    return out


def arithmetic(row: dict) -> tuple[int, str, int] | None:
    found = re.search(r"What is (-?\d+) ([+\-×]) (-?\d+)\?", row["text"])
    return (int(found.group(1)), found.group(2), int(found.group(3))) if found else None


def numeric_right_wrong(suite: str, row: dict, i: int) -> list[tuple[str, str, bool, bool]]:
    """(style, text, verdict, ambiguous) answers for one numeric row."""
    text = row["text"]
    v = Fraction(row["answer"])
    s = fmt(v)
    out: list[tuple[str, str, bool, bool]] = []
    ops = arithmetic(row)
    if ops:
        a, op, b = ops
        sym = {"+": "+", "-": "−", "×": "×"}[op]
        if op == "×":
            tens, units = (b // 10) * 10, b % 10
            if tens and units:
                out.append(
                    (
                        "num-distributive-breakdown",
                        f"{a} × {b} = {a} × {tens} + {a} × {units} = {a * tens} + {a * units} = {s}.\n\n{line(suite, s)}",
                        True,
                        False,
                    )
                )
                out.append(
                    (
                        "num-distributive-drops-a-partial",
                        f"{a} × {b} = {a} × {tens} + {a} × {units} = {a * tens}.\n\n{line(suite, str(a * tens))}",
                        False,
                        False,
                    )
                )
            else:
                tens, units = (a // 10) * 10, a % 10
                if tens and units:
                    out.append(
                        (
                            "num-distributive-breakdown",
                            f"{a} × {b} = {tens} × {b} + {units} × {b} = {tens * b} + {units * b} = {s}.\n\n{line(suite, s)}",
                            True,
                            False,
                        )
                    )
                    out.append(
                        (
                            "num-distributive-drops-a-partial",
                            f"{a} × {b} = {tens} × {b} + {units} × {b} = {tens * b}.\n\n{line(suite, str(tens * b))}",
                            False,
                            False,
                        )
                    )
            est = round(a, -1) * round(b, -1) if a > 10 and b > 10 else round(a, -1) * b
            if est != v:
                out.append(("num-estimate-then-exact", f"Ballpark: about {est}. Working it out exactly gives {s}.\n\n{line(suite, s)}", True, False))
                out.append(("num-estimate-handed-in", f"Ballpark: about {est}, which is close enough here.\n\n{line(suite, str(est))}", False, False))
        elif op == "+" and a >= 0 and b >= 0:
            width = len(str(a + b)) + 2
            col = f"```\n{str(a).rjust(width)}\n+{str(b).rjust(width - 1)}\n{'-' * width}\n{s.rjust(width)}\n```"
            out.append(("num-column-layout", f"{col}\n\n{line(suite, s)}", True, False))
            slip = no_carry_add(a, b)
            if slip != v:
                bad = f"```\n{str(a).rjust(width)}\n+{str(b).rjust(width - 1)}\n{'-' * width}\n{str(slip).rjust(width)}\n```"
                out.append(("num-column-layout-carry-lost", f"{bad}\n\n{line(suite, str(slip))}", False, False))
        elif op == "-" and a >= b >= 0:
            width = len(str(a)) + 2
            col = f"```\n{str(a).rjust(width)}\n−{str(b).rjust(width - 1)}\n{'-' * width}\n{s.rjust(width)}\n```"
            out.append(("num-column-layout", f"{col}\n\n{line(suite, s)}", True, False))
            slip = no_borrow_sub(a, b)
            if slip != v:
                bad = f"```\n{str(a).rjust(width)}\n−{str(b).rjust(width - 1)}\n{'-' * width}\n{str(slip).rjust(width)}\n```"
                out.append(("num-column-layout-borrow-lost", f"{bad}\n\n{line(suite, str(slip))}", False, False))
        elif op == "-" and b > a:
            out.append(
                (
                    "num-sub-reversed-then-negated",
                    f"{b} − {a} = {b - a}, and since {b} is the larger number the result is negative: {s}.\n\n{line(suite, s)}",
                    True,
                    False,
                )
            )
            out.append(("num-sub-reversed-left-positive", f"{b} − {a} = {b - a}.\n\n{line(suite, str(b - a))}", False, False))
        if i % 3 == 0:
            out.append(("num-equation-on-answer-line", f"Answer: {a} {sym} {b} = {s}", True, False))
        elif i % 3 == 1:
            wrong = v + 10 if op != "×" else v + b
            out.append(("num-equation-on-answer-line-wrong", f"Answer: {a} {sym} {b} = {fmt(wrong)}", False, False))
        else:
            out.append(("num-lowercase-so-answer-is", f"let me work it out... {a} {sym} {b}, so the answer is {s}", True, False))
        return out
    pct = re.search(r"What is (\d+)% of (\d+)\?", text)
    if pct:
        p, base = int(pct.group(1)), int(pct.group(2))
        frac = Fraction(p, 100)
        words = {Fraction(1, 4): "a quarter", Fraction(1, 2): "half", Fraction(3, 4): "three quarters", Fraction(1, 5): "a fifth", Fraction(1, 10): "a tenth"}
        if frac in words:
            out.append(("num-percent-as-fraction-reasoning", f"{p}% is {words[frac]}, and {words[frac]} of {base} is {s}.\n\n{line(suite, s)}", True, False))
        else:
            out.append(
                (
                    "num-percent-as-fraction-reasoning",
                    f"{p}% = {frac.numerator}/{frac.denominator}, and {base} × {frac.numerator}/{frac.denominator} = {s}.\n\n{line(suite, s)}",
                    True,
                    False,
                )
            )
        out.append(("num-percent-decimal-shifted", f"{p}% of {base} = {base} × {p / 1000:g} = {fmt(v / 10)}.\n\n{line(suite, fmt(v / 10))}", False, False))
        return out
    tix = re.search(r"A ticket costs \$(\d+)\. How many dollars do (\d+) tickets", text)
    if tix:
        price, n = int(tix.group(1)), int(tix.group(2))
        chain = " + ".join([money(price)] * n)
        out.append(("num-money-tickets-added-one-by-one", f"{chain} = {money(price * n)}.\n\n{line(suite, s)}", True, False))
        short = " + ".join([money(price)] * (n - 1))
        out.append(("num-money-tickets-one-short", f"{short} = {money(price * (n - 1))}.\n\n{line(suite, str(price * (n - 1)))}", False, False))
        return out
    apples = re.search(r"(\w+) has (\d+) apples and buys (\d+) more", text)
    if apples:
        who, a, b = apples.group(1), int(apples.group(2)), int(apples.group(3))
        out.append(
            (
                "num-story-restated",
                f"{who} starts with {a} apples and then gets {b} more, so {who} ends up with {a} + {b} = {s} apples.\n\n{line(suite, s)}",
                True,
                False,
            )
        )
        out.append(
            (
                "num-story-opposite-operation",
                f"{who} starts with {a} apples and {b} change hands, so {a} − {b} = {a - b} apples.\n\n{line(suite, str(a - b))}",
                False,
                False,
            )
        )
        return out
    pencils = re.search(r"holds (\d+) boxes and each box holds (\d+) pencils\. (\d+) pencils", text)
    if pencils:
        bx, per, gone = (int(g) for g in pencils.groups())
        out.append(
            (
                "num-story-restated",
                f"There are {bx} boxes of {per}, so {bx * per} pencils to begin with; after {gone} are taken out, {bx * per} − {gone} = {s} remain.\n\n{line(suite, s)}",
                True,
                False,
            )
        )
        out.append(
            (
                "num-story-opposite-operation",
                f"{bx} × {per} = {bx * per}, plus the {gone} taken out gives {bx * per + gone}.\n\n{line(suite, str(bx * per + gone))}",
                False,
                False,
            )
        )
        return out
    halves = re.search(r"What is (\d+)/(\d+) \+ (\d+)/(\d+)\?", text)
    if halves:
        n1, d1, n2, d2 = (int(g) for g in halves.groups())
        names = {2: ("half", "halves"), 3: ("third", "thirds"), 4: ("quarter", "quarters"), 5: ("fifth", "fifths"), 8: ("eighth", "eighths")}
        nums = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
        if d1 == d2 and d1 in names and n1 + n2 < len(nums):
            one, many = names[d1]
            total = n1 + n2
            out.append(
                (
                    "num-fraction-counted-in-words",
                    f"{nums[n1]} {one if n1 == 1 else many} plus {nums[n2]} {one if n2 == 1 else many} is {nums[total]} {many}, which is {s}.\n\n{line(suite, s)}",
                    True,
                    False,
                )
            )
        part = Fraction(n1, d1)
        if part != v:
            out.append(("num-fraction-one-term-only", f"Adding them: {n1}/{d1} + {n2}/{d2} = {n1}/{d1}.\n\n{line(suite, f'{n1}/{d1}')}", False, False))
        return out
    seq = re.search(r"What number comes next: ([\d, ]+), \.\.\.\?", text)
    if seq:
        terms = [int(t) for t in seq.group(1).split(",")]
        diffs = [y - x for x, y in itertools.pairwise(terms)]
        if len(set(diffs)) == 1:
            d = diffs[0]
            out.append(
                (
                    "num-sequence-differences-listed",
                    f"Differences: {', '.join(map(str, diffs))}. Each step adds {d}, so {terms[-1]} + {d} = {s}.\n\n{line(suite, s)}",
                    True,
                    False,
                )
            )
            out.append(
                (
                    "num-sequence-step-misread",
                    f"Each step adds {d + 1}, so {terms[-1]} + {d + 1} = {terms[-1] + d + 1}.\n\n{line(suite, str(terms[-1] + d + 1))}",
                    False,
                    False,
                )
            )
        else:
            second = [y - x for x, y in itertools.pairwise(diffs)]
            nxt = diffs[-1] + second[-1]
            if terms[-1] + nxt == v and len(set(second)) == 1:
                out.append(
                    (
                        "num-sequence-second-differences",
                        f"First differences: {', '.join(map(str, diffs))}.\nSecond differences: {', '.join(map(str, second))}.\nNext first difference: {diffs[-1]} + {second[-1]} = {nxt}.\n{terms[-1]} + {nxt} = {s}.\n\n{line(suite, s)}",
                        True,
                        False,
                    )
                )
                out.append(
                    (
                        "num-sequence-final-addition-slipped",
                        f"First differences: {', '.join(map(str, diffs))}.\nSecond differences: {', '.join(map(str, second))}.\nNext first difference: {nxt}.\n{terms[-1]} + {nxt} = {s_plus(v, 10)}.\n\n{line(suite, s_plus(v, 10))}",
                        False,
                        False,
                    )
                )
        return out
    return out


def s_plus(v: Fraction, k: int) -> str:
    return fmt(v + k)


MULTI_NUM = {
    "multi1-004": ("Deux plus trois font cinq, donc la réponse est 5.", "Deux plus trois font six, donc la réponse est 6."),
    "multi1-005": ("Cuatro más cuatro son ocho: 8.", "Cuatro más cuatro son dieciséis: 16."),
    "multi1-006": ("Zehn minus drei ergibt sieben, also 7.", "Zehn minus drei ergibt dreizehn, also 13."),
    "multi1-013": ("Una semana tiene 7 días, de lunes a domingo.", "Una semana tiene 5 días laborables, así que 5."),
    "multi1-015": ("Um dia tem 24 horas.", "Um dia tem 12 horas."),
    "multi1-018": ("Eine Katze hat vier Beine, also 4.", "Eine Katze hat zwei Beine, also 2."),
    "multi1-019": ("Sei per due fa dodici: 12.", "Sei per due fa otto: 8."),
}

# Facts with a trailing note full of other numbers, per row id: (right note, wrong value, wrong note).
FACT_NOTES = {
    "know2-000": ("(Some models merge the Americas or Europe and Asia and count 5 or 6.)", 6, "(counting Eurasia as one continent)"),
    "know2-005": ("(The Charter was signed on 26 June and came into force on 24 October.)", 1919, "(right after the First World War ended in 1918)"),
    "know2-077": ("(It struck the iceberg on 14 April and sank early on 15 April; about 1,500 people died.)", 1911, "(on its maiden voyage from Southampton)"),
    "know2-079": ("(Plus the District of Columbia and 5 inhabited territories, which are not states.)", 52, "(counting DC and Puerto Rico)"),
    "know2-090": ("(It lasted until 1918, about 4 years and 3 months.)", 1939, "(after the invasion of Poland on 1 September)"),
    "sci1-021": ("(That is 212 °F, or about 373 K.)", 212, "(water boils at 212 degrees at sea level)"),
    "sci1-029": ("(The second shell holds up to 8.)", 8, "(the octet rule)"),
    "sci1-030": ("(Carbon-12 has 6 neutrons too, and carbon-14 has 8.)", 12, "(carbon-12)"),
    "sci1-035": ("(It has 1 proton and usually 0 neutrons.)", 2, "(hydrogen gas is H2)"),
    "sci1-042": ("(and 1 oxygen atom, so 3 atoms in all)", 3, "(three atoms in H2O)"),
    "sci1-071": ("(that is 0 °C; water boils at 212 °F)", 0, "(the freezing point of water)"),
    "sci1-078": ("(Babies are born with around 270 to 300, and some fuse later.)", 212, "(after some fuse)"),
    "common1-002": ("(9 am to 12 pm is 3 hours, 12 pm to 5 pm is 5 more.)", 4, "(5 − 9 wraps to 4 on the clock)"),
    "common1-003": ("(8 − 3; the 3 eaten slices are gone.)", 11, "(8 + 3)"),
    "common1-006": ("(60 ÷ 15, counting buses at :00, :15, :30 and :45.)", 5, "(at :00, :15, :30, :45 and :60)"),
    "common1-007": ("(2 socks in each of the 3 pairs.)", 3, "(one per pair)"),
    "common1-016": ("(from 12 pm to 12 am)", 24, "(a full day from noon to noon)"),
    "common1-020": ("(50 ÷ 10 = 5, reading 10 pages on each of the 5 days.)", 500, "(10 × 50)"),
    "common1-023": ("(from 9:15 to 10:00 is 60 − 15 minutes)", 85, "(10:00 − 9:15 = 0:85)"),
    "common1-037": ("(2 wheels on each of the 2 bicycles.)", 2, "(a bicycle has 2 wheels)"),
    "common1-039": ("(a baker's dozen would be 13)", 13, "(a baker's dozen)"),
    "common1-061": ("($3 ÷ $1 each, with $0 left over)", 4, "(3 + 1)"),
    "common1-067": ("(5 on each hand × 2 hands)", 8, "(4 fingers on each hand, thumbs not counted)"),
    "common1-074": ("(7 days × 3 weeks)", 10, "(7 + 3)"),
    "common1-081": ("(4 legs × 3 cats)", 7, "(4 + 3)"),
    "common1-082": ("($5 − $3)", 8, "($5 + $3)"),
    "common1-088": ("(24 hours × 2 days)", 24, "(one day has 24 hours)"),
}


def numeric_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("numeric")):
        v = Fraction(row["answer"])
        s = fmt(v)
        rid = row["id"]
        if suite == "eval-tools-small-v1":
            continue  # tool readings: tool_result_cases
        if suite == "eval-multilingual-v1":
            right, wrong = MULTI_NUM[rid]
            add(suite, row, right, True, "num-prompt-language-full-sentence")
            add(suite, row, wrong, False, "num-prompt-language-full-sentence-wrong")
            continue
        if suite == "eval-vision-v1":
            if row["category"] == "count":
                n = int(v)
                spots = ["top left", "top right", "centre", "bottom left", "bottom right", "middle left", "middle right"][:n]
                add(suite, row, f"I can see {n} squares: " + ", ".join(f"one {p}" for p in spots) + f".\n\n{n}", True, "num-vision-square-by-square")
                add(suite, row, f"{n + 1} — {n} small squares plus the square border around the picture.", False, "num-vision-frame-counted-as-square")
            else:
                confusable = {"0": "6", "1": "7", "2": "7", "3": "8", "4": "9", "5": "6", "6": "0", "7": "1", "8": "3", "9": "4"}
                add(suite, row, f"It looks like a handwritten {s}.", True, "num-vision-digit-handwritten")
                add(suite, row, f"It looks like a handwritten {confusable[s]} (the stroke is a bit faint).", False, "num-vision-digit-confused")
            continue
        if rid in FACT_NOTES:
            note, wrong, wnote = FACT_NOTES[rid]
            if i % 3 == 0 or i % 2 == 0:
                add(suite, row, f"Answer: {s}\n\n{note}", True, "num-trailing-note-other-numbers")
            if i % 3 != 0 and i % 2 == 0:
                continue
            if (i // 2) % 2 == 0:
                add(suite, row, f"Answer: {wrong}\n\n{wnote}", False, "num-trailing-note-wrong-value")
            else:
                add(suite, row, f"I think it's probably {wrong} {wnote}, though I'm not 100% certain.\n\nAnswer: {wrong}", False, "num-probably-commits-wrong")
            continue
        cases = numeric_right_wrong(suite, row, i)
        if not cases:
            continue
        if suite == "eval-calibration-v1":
            # Confidence given as a decimal rather than a percent; the answer is what is graded.
            style, text, verdict, amb = cases[0]
            add(suite, row, text + "\nConfidence: 0.9", verdict, style + "-confidence-decimal", amb)
            if i % 2 == 0:
                for style, text, verdict, amb in cases[1:2]:
                    add(suite, row, text, verdict, style, amb)
            continue
        # Math suites share templates: take up to three per row, rotating, so every suite sees every style.
        k = i % max(1, len(cases))
        picked = (cases[k:] + cases[:k])[: 2 if i % 6 == 0 else 1]
        for style, text, verdict, amb in picked:
            add(suite, row, text, verdict, style, amb)


def tool_result_cases() -> None:
    """tools-small use_result rows are scored as numbers: the model reports the tool's reading."""
    for i, row in enumerate(r for r in ROWS["eval-tools-small-v1"] if r["scorer"] == "numeric"):
        v = int(row["answer"])
        found = re.search(r"in (\w+)\?", row["text"])
        c = found.group(1) if found else "the city"
        suite = "eval-tools-small-v1"
        add(
            suite,
            row,
            f'The weather service returned {{"temperature_c": {v}, "sky": "clear"}}, so it is {v} degrees Celsius in {c}.',
            True,
            "tool-result-quotes-json",
        )
        if i % 2 == 0:
            add(suite, row, f"Right now: **{v}°C** in {c} (clear).", True, "tool-result-bold-no-space-degree")
        add(suite, row, f"Temperatura atual em {c}: {v} °C, céu limpo.", True, "tool-result-portuguese")
        add(
            suite,
            row,
            f"{c} usually sits around {v + 12} °C at this time of year, so expect something like that.",
            False,
            "tool-result-climate-average-instead",
        )
        if i % 2 == 0:
            add(suite, row, f"It's {v} °F in {c} at the moment, under a clear sky.", False, "tool-result-celsius-called-fahrenheit")
        else:
            add(suite, row, f"It's {abs(v) + 3} °C in {c} right now.", False, "tool-result-digit-misread-by-three")


# ---------------------------------------------------------------- exact

WRONG_EXACT = {
    "Paris": "Lyon",
    "Ulaanbaatar": "Darkhan",
    "Tokyo": "Kyoto",
    "Thimphu": "Paro",
    "Rome": "Milan",
    "Roma": "Milano",
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
    "Ottawa": "Toronto",
    "Canberra": "Sydney",
    "Stockholm": "Gothenburg",
    "Copenhagen": "Aarhus",
    "Lisboa": "Porto",
    "January": "February",
    "ice": "boiling water",
    "3:30 pm": "3:50 pm",
    "south": "west",
    "Tuesday": "Thursday",
    "red": "blue",
    "east": "west",
    "Pacific": "Atlantic",
    "Africa": "Asia",
    "Amazon": "Paraná",
    "Au": "Ag",
    "Na": "S",
    "carbon dioxide": "oxygen",
    "Mars": "Jupiter",
    "Jupiter": "Saturn",
    "8": "6",
    "water": "ice",
    "100": "212",
    "heart": "lungs",
    "Sun": "Proxima Centauri",
    "6": "8",
    "90": "180",
    "9": "8",
    "60": "100",
    "366": "365",
    "mice": "mouses",
    "cold": "warm",
    "went": "goed",
    "26": "24",
    "24": "12",
    "green": "purple",
    "12": "10",
    "July": "August",
    "2": "3",
    "honey": "wax",
    "Monday": "Sunday",
    "gravity": "magnetism",
    "Pablo Picasso": "Salvador Dalí",
    "New York City": "Chicago",
    "Mediterranean Sea": "Adriatic Sea",
    "William Shakespeare": "Christopher Marlowe",
    "Brazil": "Argentina",
    "cat": "chat",
    "dog": "puppy",
    "book": "library",
    "blau": "grau",
    "lungs": "heart",
    "friction": "gravity",
    "seismology": "geology",
    "nucleus": "proton",
    "diamond": "quartz",
    "hydrogen": "helium",
    "He": "H",
}
WRONG_EXACT_BY_ROW = {"know1-033": "snow", "know1-025": "1000", "know1-023": "3600", "know1-017": "212", "multi1-002": "München"}
FUN_FACT = {
    "Paris": "It's also the country's largest city, well ahead of Marseille and Lyon.",
    "Tokyo": "It took over from Kyoto as the seat of the emperor in 1868.",
    "Rome": "Milan is bigger economically, but Rome is the seat of government.",
    "Berlin": "Bonn was the West German capital until reunification.",
    "Madrid": "Barcelona is the second-largest city.",
    "Cairo": "Alexandria was the capital in antiquity.",
    "Moscow": "Saint Petersburg held the title from 1712 to 1918.",
    "Beijing": "Shanghai is larger by population, though.",
    "Ottawa": "Toronto and Montreal are both bigger.",
    "Canberra": "It was chosen as a compromise between Sydney and Melbourne.",
    "Stockholm": "Gothenburg and Malmö come next in size.",
    "Copenhagen": "Aarhus is the second city.",
}
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def exact_cases() -> None:
    start = len(CASES)
    exact_case_pairs()
    # One case per row (the right one on even rows, the wrong one on odd rows), both on two rows in four.
    order = {r["id"]: i for i, (_, r) in enumerate(rows_of("exact"))}
    kept = []
    for case in CASES[start:]:
        i = order[case["row_id"]]
        if case["style"].startswith(("exact-days", "exact-ranked")):
            i //= 2  # reasoning rows alternate days and heights: take right and wrong from both kinds
        if i % 4 in (0, 3) or case["verdict"] == (i % 2 == 0) or case["ambiguous"]:
            kept.append(case)
    CASES[start:] = kept


def exact_case_pairs() -> None:
    for i, (suite, row) in enumerate(rows_of("exact")):
        v = str(row["answer"])
        text = row["text"]
        wrong = WRONG_EXACT_BY_ROW.get(row["id"], WRONG_EXACT.get(v))
        days = re.search(r"Today is (\w+)\. What day of the week will it be in (\d+) days", text)
        order = re.findall(r"(\w+) is taller than (\w+)", text)
        if days:
            start, n = days.group(1), int(days.group(2))
            want = DAYS[(DAYS.index(start) + n) % 7]
            amb = want != v  # a dataset mistake would make the right day disputable
            add(
                suite,
                row,
                f"{n} = {n // 7} × 7 + {n % 7}, so it is the same as {n % 7} day(s) after {start}: {want}.\n\nAnswer: {want}",
                want == v,
                "exact-days-mod-seven-shown" + ("-dataset-mistake" if amb else ""),
                amb,
            )
            early = DAYS[(DAYS.index(start) + n - 1) % 7]
            add(suite, row, f"Counting {start} as day 1, day {n} lands on {early}.\n\nAnswer: {early}", early == v, "exact-days-counts-today-as-day-one")
            continue
        if order:
            taller = {}
            for big, small in order:
                taller.setdefault(big, set()).add(small)
            names = {n for pair in order for n in pair}

            def height(n: str, taller: dict[str, set[str]] = taller) -> int:
                return max((1 + height(m) for m in taller.get(n, ())), default=0)

            ranked = sorted(names, key=lambda n: -height(n))
            if ranked[-1] != v:
                add(
                    suite,
                    row,
                    "\n".join(f"{k + 1}. {n}" for k, n in enumerate(ranked)) + f"\n\nAnswer: {ranked[-1]}",
                    False,
                    "exact-ranked-list-dataset-mistake",
                    True,
                )
                continue
            listing = "\n".join(f"{k + 1}. {n}" + (" (tallest)" if k == 0 else " (shortest)" if k == len(ranked) - 1 else "") for k, n in enumerate(ranked))
            add(suite, row, f"From tallest to shortest:\n{listing}\n\nAnswer: {v}", True, "exact-ranked-numbered-list")
            flipped = "\n".join(f"{k + 1}. {n}" for k, n in enumerate(reversed(ranked)))
            add(suite, row, f"From tallest to shortest:\n{flipped}\n\nAnswer: {ranked[0]}", False, "exact-ranked-list-comparison-reversed")
            continue
        if suite == "eval-vision-v1":
            shade = {"red": "bright red", "green": "dark green", "blue": "light blue", "yellow": "pale yellow"}[v]
            off = {"red": "orange", "green": "blue", "blue": "purple", "yellow": "orange"}[v]
            add(suite, row, f"The square is {shade}.", True, "exact-colour-with-shade")
            add(suite, row, f"The square is {off}.", False, "exact-colour-neighbour-hue")
            continue
        if suite == "eval-multilingual-v1":
            glosses = {
                "multi1-008": ("« chat » se traduit par **cat**.", "« chat » se traduit par **chat** (même mot en anglais)."),
                "multi1-009": ("«perro» en inglés es **dog**.", "«perro» en inglés es **puppy**."),
                "multi1-010": ("„Wasser“ heißt auf Englisch **water**.", "„Wasser“ heißt auf Englisch **wetter**."),
                "multi1-011": ("«libro» in inglese si dice **book**.", "«libro» in inglese si dice **library**."),
            }
            if row["id"] in glosses:
                right, bad = glosses[row["id"]]
                add(suite, row, right, True, "exact-prompt-language-bold-word")
                add(suite, row, bad, False, "exact-prompt-language-bold-word-wrong")
                continue
            add(
                suite,
                row,
                f"**{v}** !" if row["category"] == "fr" else f"Probablemente {v}. Sí: {v}." if row["category"] == "es" else f"{v}.",
                True,
                "exact-prompt-language-terse",
            )
            if wrong:
                add(suite, row, f"{wrong}.", False, "exact-prompt-language-terse-wrong")
            continue
        quoted = re.search(r"'([^']+)'", text)
        if row["category"] == "language" and quoted:
            q = quoted.group(1)
            kind = text.split("What is the ")[1].split(" of")[0] if "What is the " in text else "answer"
            add(suite, row, f'The {kind} of "{q}" is **{v}**.', True, "exact-bold-word-in-quoting-sentence")
            if wrong:
                add(suite, row, f'The {kind} of "{q}" is **{wrong}**.', False, "exact-bold-word-in-quoting-sentence-wrong")
            continue
        if v in FUN_FACT:
            add(suite, row, f"{v}. {FUN_FACT[v]}" + ("\n\nAnswer: " + v if "Answer:" in text else ""), True, "exact-answer-then-fun-fact-other-names")
            if wrong:
                add(
                    suite,
                    row,
                    f"{wrong}. It's the biggest and best-known city there." + ("\n\nAnswer: " + wrong if "Answer:" in text else ""),
                    False,
                    "exact-largest-city-for-capital",
                )
            continue
        aliases = (row.get("score_args") or {}).get("aliases") or []
        shown = aliases[0] if aliases else v
        anchor = "Answer:" in text

        def framed(sentence: str, value: str, anchor: bool = anchor) -> str:
            return sentence + ("\n\nAnswer: " + value if anchor else "")

        if i % 4 == 0:
            add(suite, row, framed(f"Probably {v}, yes — I'm fairly confident it's {v}.", v), True, "exact-probably-then-commits")
        elif i % 4 == 2:
            add(suite, row, framed(f"That would be {shown}.", shown), True, "exact-that-would-be")
        else:
            add(suite, row, framed(f"*{v}* — that's my final answer.", v), True, "exact-italic-final-answer-note")
        if wrong:
            if i % 4 == 0:
                add(suite, row, framed(f"Probably {wrong}, yes — I'm fairly confident it's {wrong}.", wrong), False, "exact-probably-then-commits-wrong")
            elif i % 4 == 1:
                add(suite, row, framed(f"That would be {wrong}.", wrong), False, "exact-that-would-be-wrong")
            elif i % 4 == 3:
                add(suite, row, framed(f"My first thought was {v}, but on second thought it's {wrong}.", wrong), False, "exact-second-guesses-away-from-right")


# ---------------------------------------------------------------- multiple choice

ORDINALS = ["first", "second", "third", "fourth"]


def options_of(row: dict) -> list[str]:
    choices = (row.get("score_args") or {}).get("choices")
    if choices:
        return list(choices)
    return [m.strip() for m in re.findall(r"[A-D]\) (\w+)", row["text"])]


def mc_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("mc")):
        opts = options_of(row)
        letters = "ABCD"[: len(opts)]
        v = row["answer"]
        k = letters.index(v)
        text = opts[k]
        w = letters[(k + 1 + i % (len(opts) - 1)) % len(opts)]
        wtext = opts[letters.index(w)]
        parity = re.search(r"Is the sum of ([\d, ]+) even or odd\?", row["text"])
        single = re.search(r"Is (\d+) even or odd\?", row["text"])
        if parity:
            nums = [int(x) for x in parity.group(1).split(",")]
            total = sum(nums)
            got = "A" if total % 2 == 0 else "B"
            amb = got != v
            if i % 2 == 0:
                add(
                    suite,
                    row,
                    f"{' + '.join(map(str, nums))} = {total}, and {total} is {'even' if total % 2 == 0 else 'odd'}.\n\nAnswer: {got}",
                    not amb,
                    "mc-parity-sum-written-out" + ("-dataset-mistake" if amb else ""),
                    amb,
                )
                continue
            slipped = total + 1
            add(
                suite,
                row,
                f"{' + '.join(map(str, nums))} = {slipped}, and {slipped} is {'even' if slipped % 2 == 0 else 'odd'}.\n\nAnswer: {'A' if slipped % 2 == 0 else 'B'}",
                False,
                "mc-parity-sum-slipped-by-one",
            )
            continue
        if single:
            n = int(single.group(1))
            got = "A" if n % 2 == 0 else "B"
            add(suite, row, f"{n} ends in {n % 10}, so it is {'even' if n % 2 == 0 else 'odd'}.\n\nAnswer: {got}", got == v, "mc-parity-last-digit")
            add(
                suite,
                row,
                f"{n} ends in {n % 10}, so it is {'odd' if n % 2 == 0 else 'even'}.\n\nAnswer: {'B' if n % 2 == 0 else 'A'}",
                False,
                "mc-parity-last-digit-misjudged",
            )
            continue

        def inline(o: str) -> str:
            """An option as it reads inside a sentence: sentence options quoted without their period."""
            return f"“{o.rstrip('.')}”" if o.endswith(".") else o

        def lead(o: str) -> str:
            o = inline(o)
            return o[0].upper() + o[1:] if not o.startswith("“") else o

        styles = [
            ("mc-letter-in-quotes", f'Answer: "{v}"', f'Answer: "{w}"'),
            ("mc-reason-then-so-paren-letter", f"{lead(text)} is the one that fits, so ({v}).", f"{lead(wtext)} is the one that fits, so ({w})."),
            (
                "mc-fairly-sure-prose",
                f"I'm fairly sure it's {v} — {inline(text)}.\n\nAnswer: {v}",
                f"I'm fairly sure it's {w} — {inline(wtext)}.\n\nAnswer: {w}",
            ),
            (
                "mc-checkbox-list",
                "\n".join(f"[{'x' if v == letter else ' '}] {letter}) {o}" for letter, o in zip(letters, opts, strict=True)) + f"\n\nAnswer: {v}",
                "\n".join(f"[{'x' if w == letter else ' '}] {letter}) {o}" for letter, o in zip(letters, opts, strict=True)) + f"\n\nAnswer: {w}",
            ),
            (
                "mc-ordinal-word-with-text",
                f"The {ORDINALS[k]} option, {inline(text)}.\n\nAnswer: {v}",
                f"The {ORDINALS[letters.index(w)]} option, {inline(wtext)}.\n\nAnswer: {w}",
            ),
            (
                "mc-distractor-considered-first",
                f"At first {inline(wtext)} ({w}) looked plausible, but {inline(text)} is the correct one.\n\nAnswer: {v}",
                f"At first {inline(text)} ({v}) looked plausible, but {inline(wtext)} is the correct one.\n\nAnswer: {w}",
            ),
            (
                "mc-spanish-sentence-quoting-option",
                f"La respuesta correcta es la {v}: «{text.rstrip('.')}».",
                f"La respuesta correcta es la {w}: «{wtext.rstrip('.')}».",
            ),
        ]
        style, right, wrong = styles[i % len(styles)]
        if i % 3 == 2 or i % 5 == 0:
            continue  # about half the rows are left to the earlier sets
        if (i // 3) % 2 == 0:
            add(suite, row, right, True, style)
        else:
            add(suite, row, wrong, False, style + "-wrong")


# ---------------------------------------------------------------- JSON


def json_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("json")):
        exp = row["expected"]
        keys = list(exp)
        rights = [
            ("json-keys-sorted-compact", json.dumps(exp, sort_keys=True, separators=(",", ":")), False),
            (
                "json-irregular-line-breaks",
                "{\n" + ", ".join(f'"{k}": {json.dumps(exp[k])}' for k in keys[:2]) + f',\n"{keys[2]}": {json.dumps(exp[keys[2]])}\n}}',
                False,
            ),
            ("json-sure-here-you-go-one-line", "Sure! Here you go:\n" + json.dumps(exp), True),
            ("json-fence-one-line-object", "```json\n" + json.dumps(exp) + "\n```", False),
        ]
        if "name" in exp:
            wrongs = [
                ("json-name-and-city-swapped", json.dumps({**exp, "name": exp["city"], "city": exp["name"]}), False),
                ("json-age-digits-transposed", json.dumps({**exp, "age": int(str(exp["age"])[::-1])}), exp["age"] == int(str(exp["age"])[::-1])),
                ("json-values-as-array", json.dumps([exp["name"], exp["age"], exp["city"]]), False),
                ("json-unquoted-string-value", "{" + f'"name": {exp["name"]}, "age": {exp["age"]}, "city": "{exp["city"]}"' + "}", False),
                ("json-markdown-table-instead", "| key | value |\n|---|---|\n" + "\n".join(f"| {k} | {exp[k]} |" for k in keys), False),
            ]
        else:
            wrongs = [
                ("json-item-with-quantity-prefix", json.dumps({**exp, "item": f"{exp['quantity']} x {exp['item']}"}), False),
                ("json-values-as-array", json.dumps([exp["item"], exp["price"], exp["quantity"]]), False),
                ("json-quantity-off-by-one", json.dumps({**exp, "quantity": exp["quantity"] + 1}), False),
                ("json-markdown-table-instead", "| key | value |\n|---|---|\n" + "\n".join(f"| {k} | {exp[k]} |" for k in keys), False),
                ("json-double-encoded-string", json.dumps(json.dumps(exp)), True),
            ]
        style, text, amb = rights[i % len(rights)]
        add(suite, row, text, True, style + ("-ambiguous-prose-or-fence" if amb else ""), amb)
        style, text, amb = wrongs[i % len(wrongs)]
        if not amb:
            add(suite, row, text, False, style)
        elif style == "json-double-encoded-string":
            add(suite, row, text, False, style + "-ambiguous", True)


# ---------------------------------------------------------------- abstain

FAKE = {
    "Institute": ("was founded in {y} in Geneva by a group of retired engineers.", "It was probably founded around {y}, though I'd want to double-check that."),
    "river": ("is {km} kilometres long and flows into the Baltic.", "It's probably about {km} km long, give or take."),
    "prize": ("The {n} in 1987 went to the Danish poet Henrik Madsen.", "Probably Henrik Madsen, the Danish poet, though I'd double-check."),
    "novel": ("was written by Eleanor Vance and published in 1974.", "Likely authors: Eleanor Vance, or possibly Thomas Hale; I lean towards Vance."),
}


def subject_of(text: str) -> str:
    found = re.search(r"(?:the |novel )'?([A-Z][\w' ]+?(?: Institute| river| Prize|'))", text)
    return found.group(1).strip("'") if found else "it"


def abstain_cases() -> None:
    for i, row in enumerate(ROWS["eval-hallucination-v1"]):
        suite = "eval-hallucination-v1"
        raw = subject_of(row["text"])
        cat = row["category"]
        subj = f"the novel '{raw}'" if cat == "novel" else f"the {raw}"
        rights = [
            ("abstain-portuguese", f"Não sei. Não encontro nenhuma informação sobre «{raw}»; pode ser que não exista."),
            ("abstain-italian", f"Non lo so: non ho notizie di «{raw}», e potrebbe non esistere."),
            ("abstain-no-record", f"I have no record of {subj}, so I can't answer that. I don't know."),
            ("abstain-appears-fictional", f"{subj[0].upper() + subj[1:]} appears to be fictional — I'm not aware of it existing, so I don't know."),
            (
                "abstain-could-not-verify-offers-help",
                f"I couldn't verify that {subj} exists, so I don't know. If you have a source about it, I'm happy to help read it.",
            ),
        ]
        y, km = 1940 + (i * 7) % 60, 200 + (i * 37) % 900
        confident, hedged = FAKE[cat]
        if cat == "prize":
            wrongs = [("abstain-fabricated-confident-winner", confident.format(n=raw)), ("abstain-fabricated-probably", hedged)]
        elif cat == "novel":
            wrongs = [("abstain-fabricated-confident-author", f"'{raw}' {confident}"), ("abstain-fabricated-likely-list", hedged)]
        else:
            wrongs = [
                ("abstain-fabricated-confident-fact", f"The {raw} {confident.format(y=y, km=km)}"),
                ("abstain-fabricated-probably", hedged.format(y=y, km=km)),
            ]
        style, text = rights[i % len(rights)]
        add(suite, row, text, True, style)
        style, text = wrongs[i % len(wrongs)]
        add(suite, row, text, False, style)
        if i % 3 == 0:
            style, text = rights[(i + 2) % len(rights)]
            add(suite, row, text, True, style)
    for i, row in enumerate(r for r in ROWS["eval-rag-grounded-v1"] if r["scorer"] == "abstain"):
        suite = "eval-rag-grounded-v1"
        q = row["text"].split("Question: ")[1]
        owner = re.search(r"(\w+)'s workshop", row["text"]).group(1)
        staff = int(re.search(r"employs (\d+) people", row["text"]).group(1))
        rights = [
            ("abstain-rag-exact-sentence-in-quotes", "'The passage does not say.'"),
            ("abstain-rag-lowercase-sentence", "the passage does not say."),
            (
                "abstain-rag-silence-explained",
                "The passage does not say. It only describes where and when the workshop opened, what it builds, its staff and its customers.",
            ),
        ]
        if "revenue" in q:
            wrong = (
                "abstain-rag-revenue-industry-guess",
                f"Workshops with about {staff} staff typically bring in around ${staff // 10 + 2} million a year, so roughly that.",
            )
        elif "schools" in q:
            wrong = ("abstain-rag-schools-invented-count", "It sells to around 50 schools, which make up most of its customers.")
            rights.append(("abstain-rag-schools-only-mostly", "The passage does not say how many. It only says the workshop sells mostly to schools."))
        elif "manager" in q:
            wrong = ("abstain-rag-manager-named-from-owner", f"The manager is {owner}, who runs the workshop.")
        else:
            wrong = ("abstain-rag-supplier-founder-invented", f"The wood supplier was founded by {owner}'s brother, Tomas {owner}son.")
        style, text = rights[i % len(rights)] if "schools" not in q else rights[-1]
        add(suite, row, text, True, style)
        add(suite, row, wrong[1], False, wrong[0])
        if i % 2 == 0 and "schools" not in q:
            style, text = rights[(i + 1) % 3]
            add(suite, row, text, True, style)


# ---------------------------------------------------------------- contains (RAG answerable)

OTHER_CITY = {"Quito": "Lima", "Hanoi": "Perth", "Perth": "Oslo", "Oslo": "Riga", "Riga": "Tunis", "Tunis": "Dakar", "Dakar": "Quito", "Lima": "Hanoi"}


def contains_cases() -> None:
    for i, row in enumerate(r for r in ROWS["eval-rag-grounded-v1"] if r["scorer"] == "contains"):
        suite = "eval-rag-grounded-v1"
        v = str(row["answer"])
        q = row["text"].split("Question: ")[1]
        passage = row["text"].split("Passage: ")[1].split("\n")[0]
        first = next(sent for sent in re.findall(r"[^.]+\.", passage) if v in sent).strip()
        year = re.search(r"in (\d{4})", passage).group(1)
        staff = re.search(r"employs (\d+)", passage).group(1)
        if "city" in q:
            right = f"Per the passage, the workshop is in {v}."
            wrong = ("contains-per-the-passage-city-misread", f"Per the passage, the workshop is in {OTHER_CITY.get(v, 'Lima')}.")
        elif "product" in q:
            right = f"Per the passage, it builds {v}s and sells them mostly to schools."
            wrong = ("contains-product-claimed-unnamed", "Per the passage, it builds one product for schools, but the product itself is not named.")
        elif "employ" in q:
            right = f"Per the passage, {v} people work there."
            wrong = ("contains-opening-year-for-staff", f"Per the passage, {year} people work there.")
        else:
            right = f"Per the passage, it opened in {v}."
            wrong = ("contains-staff-count-for-year", f"Per the passage, it opened in {staff}.")
        add(suite, row, right, True, "contains-per-the-passage")
        add(suite, row, f"Q: {q}\nA: {v}", True, "contains-qa-pair")
        if i % 2 == 0:
            add(suite, row, f'{v} ("{first}")', True, "contains-one-word-with-quote")
        add(suite, row, wrong[1], False, wrong[0])
        if i % 2 == 1:
            add(suite, row, f"Q: {q}\nA: The passage does not say.", False, "contains-qa-pair-abstains")


# ---------------------------------------------------------------- needle

DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def needle_cases() -> None:
    codes = {r["id"]: str(r["answer"]) for r in ROWS["eval-longctx-v1"]}
    ids = sorted(codes)
    for i, (suite, row) in enumerate(rows_of("needle")):
        v = str(row["answer"])
        box = re.search(r"What is the vault code for box (\d+)\?", row["text"]).group(1)
        add(suite, row, f"{v} — that's the code for box {box}.", True, "needle-code-then-box-named")
        add(suite, row, " ".join(DIGIT_WORDS[int(d)] for d in v) + f" ({v})", True, "needle-digits-spelled-then-numeral")
        if i % 2 == 0:
            add(suite, row, f"Answer: {v}", True, "needle-answer-line")
        swapped = v[0] + v[2] + v[1] + v[3]
        if swapped != v:
            add(suite, row, swapped, False, "needle-middle-digits-swapped")
        else:
            add(suite, row, v[:3], False, "needle-last-digit-missing-short")
        spelled = [DIGIT_WORDS[int(d)] for d in v]
        spelled[-1] = DIGIT_WORDS[(int(v[-1]) + 1) % 10]
        add(suite, row, " ".join(spelled), False, "needle-spelled-one-digit-off")
        other = codes[ids[(ids.index(row["id"]) + 3) % len(ids)]]
        if i % 2:
            add(suite, row, f"The code is {other}.", False, "needle-code-from-memory-other-box")


# ---------------------------------------------------------------- token integrity


def token_integrity_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("token_integrity")):
        n = int(row["score_args"]["lines"])
        word = str(row["score_args"]["word"])
        lines = [f"{k}. {word}" for k in range(1, n + 1)]
        at = 23 + (i * 53) % (n - 40)
        k1 = at + 1

        def spliced(new: str, lines: list[str] = lines, at: int = at) -> str:
            out = list(lines)
            out[at] = new
            return "\n".join(out)

        wrong = [
            ("count-zero-width-non-joiner-in-word", spliced(f"{k1}. {word[0]}\u200c{word[1:]}")),
            ("count-byte-order-mark-at-line-start", spliced(f"\ufeff{k1}. {word}")),
            ("count-right-to-left-mark-after-period", spliced(f"{k1}.\u200f {word}")),
            ("count-pad-token-inside-line", spliced(f"{k1}. <pad>{word}")),
            ("count-digit-zero-for-letter-o", spliced(f"{k1}. {word.replace('o', '0', 1)}")),
            ("count-word-repeated-after-space", spliced(f"{k1}. {word} {word}")),
            ("count-unk-token-for-word", spliced(f"{k1}. [UNK]")),
            ("count-fullwidth-letter-in-word", spliced(f"{k1}. {chr(ord(word[0]) + 0xFEE0)}{word[1:]}")),
            ("count-inst-tag-inside-line", spliced(f"{k1}. {word}[/INST]")),
        ]
        name, text = wrong[i % len(wrong)]
        add(suite, row, text, False, name)
        if i % 6 == 0:
            name, text = wrong[(i + 5) % len(wrong)]
            add(suite, row, text, False, name)
        # Clean answers: a plain clean run (kept only where no earlier set holds this exact text)
        # and layout-only departures (ambiguous: the seed grades splices, not layout).
        if i % 2 == 0:
            add(suite, row, "\n".join(lines), True, "count-clean-reference-run")
        elif i % 8 == 1:
            add(suite, row, "\n".join(lines) + "\n", True, "count-clean-reference-run-final-newline")
        layout_only = [
            ("count-clean-in-text-fence-ambiguous-layout", "```text\n" + "\n".join(lines) + "\n```"),
            ("count-clean-last-line-period-dropped-ambiguous-format", "\n".join(lines[:-1] + [lines[-1].replace(". ", " ", 1)])),
            ("count-clean-double-spaced-ambiguous-layout", "\n\n".join(lines)),
        ]
        if i % 3 == 0 and i % 4:
            name, text = layout_only[i % 4 - 1]
            add(suite, row, text, True, name, True)
        elif i % 4 == 3:
            # whitespace after the word changes no token: clean
            add(suite, row, "\n".join(ln + " " for ln in lines), True, "count-clean-trailing-space-every-line")


# ---------------------------------------------------------------- tool calls


def call(name: str, args: dict | str) -> dict:
    return {"function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}


def tool_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("tool_call")):
        exp = row.get("expected") or {}
        prompt = row["text"]
        if exp.get("clarify"):
            if "weather like" in prompt:
                ask, bad = "Claro! Para qual cidade você quer a previsão?", "It's usually mild and partly cloudy this time of year."
            elif "there" in prompt:
                ask, bad = (
                    "Where is “there”? I don't have a city from earlier in our chat — which one should I check?",
                    "It looks sunny there today with a light breeze.",
                )
            elif "some money" in prompt:
                ask, bad = "1. How much money?\n2. Which currency is it in now?", "Sure — 100 dollars is about 92 euros at today's rate."
            elif "50" in prompt:
                ask, bad = "1. Which currency is the 50 in?\n2. Which currency should I convert it to?", "50 is about 46 in the other currency."
            elif "the thing" in prompt:
                ask, bad = "What's the thing, and how long should the timer run for?", "Timer set! I'll let you know when it's done."
            else:
                ask, bad = "For how long? (for example 5 min or 90 s)", "Done — your timer is running."
            add(
                suite,
                row,
                ask,
                True,
                "tool-clarify-" + ("portuguese" if "Claro" in ask else "numbered-questions" if ask.startswith("1.") else "asks-what-is-missing"),
            )
            add(suite, row, bad, False, "tool-clarify-answers-without-asking-or-calling")
            continue
        name, args = exp["name"], exp["arguments"]
        rights: list[tuple[str, str, list, bool]] = [
            ("tool-sure-preamble-structured", "Sure, one sec.", [call(name, args)], False),
            ("tool-portuguese-preamble-structured", "Certo, já faço isso.", [call(name, args)], False),
        ]
        if name == "convert_currency":
            rights.append(("tool-amount-as-float", "", [call(name, {**args, "amount": float(args["amount"])})], False))
        if name == "set_timer":
            rights.append(("tool-seconds-as-float-ambiguous-integer-type", "", [call(name, {**args, "seconds": float(args["seconds"])})], True))
        if row["category"] == "revise":
            rights.append(("tool-revise-spanish-acknowledgement", f"¡Entendido! Consulto {args['city']}.", [call(name, args)], False))
        wrongs: list[tuple[str, str, list]] = []
        if name == "get_weather":
            wrongs.append(("tool-city-as-nested-object", "", [call(name, {"city": {"name": args["city"]}})]))
            wrongs.append(("tool-city-with-weather-word-appended", "", [call(name, {"city": f"{args['city']} weather"})]))
        elif name == "convert_currency":
            wrongs.append(("tool-amount-as-cents", "", [call(name, {**args, "amount": args["amount"] * 100})]))
            wrongs.append(("tool-from-and-to-both-target", "", [call(name, {**args, "from": args["to"]})]))
        elif name == "set_timer":
            m = re.search(r"(\d+) minutes", prompt)
            wrongs.append(("tool-seconds-as-iso-duration", "", [call(name, {"seconds": f"PT{m.group(1)}M" if m else f"PT{args['seconds']}S"})]))
            wrongs.append(("tool-seconds-off-by-sixty", "", [call(name, {"seconds": args["seconds"] + 60})]))
        elif name == "open_doc":
            wrongs.append(("tool-chain-opens-neighbouring-id", "", [call(name, {"doc_id": args["doc_id"] + 1})]))
            wrongs.append(("tool-chain-says-opened-no-call", f"I found document {args['doc_id']} about it and opened it for you.", []))
        # Rows cycle through weather, currency and timer: rotate styles on the cycle, not the row index.
        j = i // 3
        style, text, calls, amb = rights[j % len(rights)]
        add(suite, row, text, True, style, amb, tool_calls=calls)
        if i % 5 == 0 and len(rights) > 1:
            style, text, calls, amb = rights[(j + 1) % len(rights)]
            add(suite, row, text, True, style, amb, tool_calls=calls)
        style, text, calls = wrongs[j % len(wrongs)]
        add(suite, row, text, False, style, tool_calls=calls or None)


# ---------------------------------------------------------------- code

# (style, code, verdict, ambiguous). Right ones are right on every input the
# prompt covers; wrong ones are wrong on an input the prompt covers (named in
# the comment), unless marked ambiguous (only a hidden edge case breaks them).
CODE: dict[str, list[tuple[str, str, bool, bool]]] = {
    "add": [
        ("code-operator-module", "import operator\n\n\ndef add(a, b):\n    return operator.add(a, b)", True, False),
        ("code-nested-helper", "def add(a, b):\n    def plus(x, y):\n        return x + y\n\n    return plus(a, b)", True, False),
        # add(0.5, 0.25) gives 0: the operands are truncated to integers
        ("code-int-casts-operands", "def add(a, b):\n    return int(a) + int(b)", False, False),
    ],
    "is_even": [
        ("code-dict-dispatch-on-remainder", "def is_even(n):\n    return {0: True, 1: False}[n % 2]", True, False),
        ("code-not-remainder", "def is_even(n):\n    return not n % 2", True, False),
        # is_even(0) gives False: zero is treated as not even
        ("code-positive-check-first", "def is_even(n):\n    return n % 2 == 0 if n > 0 else False", False, False),
    ],
    "reverse_string": [
        (
            "code-stack-pop",
            "def reverse_string(s):\n    stack = list(s)\n    out = ''\n    while stack:\n        out += stack.pop()\n    return out",
            True,
            False,
        ),
        (
            "code-slice-with-docstring-examples",
            'def reverse_string(s):\n    """Reverse s, e.g. reverse_string("abc") -> "cba"."""\n    return s[::-1]',
            True,
            False,
        ),
        # only strings with leading or trailing spaces break it
        ("code-reversed-then-stripped-hidden-edge", "def reverse_string(s):\n    return s[::-1].strip()", False, True),
    ],
    "maximum": [
        (
            "code-conditional-expression-loop",
            "def maximum(xs):\n    best = xs[0]\n    for x in xs[1:]:\n        best = x if x > best else best\n    return best",
            True,
            False,
        ),
        # maximum([3, 1, 5]) gives 3: stops at the first drop
        (
            "code-first-descent-returned",
            "def maximum(xs):\n    for i in range(len(xs) - 1):\n        if xs[i] > xs[i + 1]:\n            return xs[i]\n    return xs[-1]",
            False,
            False,
        ),
        # right value, but the caller's list is sorted in place
        ("code-sorts-input-in-place-ambiguous", "def maximum(xs):\n    xs.sort()\n    return xs[-1]", True, True),
    ],
    "count_vowels": [
        ("code-sum-map-count", "def count_vowels(s):\n    return sum(map(s.count, 'aeiou'))", True, False),
        ("code-vowel-set-literal", "def count_vowels(s):\n    vowels = {'a', 'e', 'i', 'o', 'u'}\n    return len([c for c in s if c in vowels])", True, False),
        # count_vowels('queue') gives 2: runs of vowels counted once
        ("code-regex-counts-vowel-runs", "import re\n\n\ndef count_vowels(s):\n    return len(re.findall('[aeiou]+', s))", False, False),
    ],
    "factorial": [
        ("code-ternary-recursion", "def factorial(n):\n    return 1 if n < 2 else n * factorial(n - 1)", True, False),
        ("code-for-loop-from-two", "def factorial(n):\n    result = 1\n    for k in range(2, n + 1):\n        result *= k\n    return result", True, False),
        # factorial(5) gives 0: the loop multiplies by 0 first
        (
            "code-range-from-zero-multiplies-zero",
            "def factorial(n):\n    result = 1\n    for k in range(n):\n        result *= k\n    return result",
            False,
            False,
        ),
        # a float: exact only up to about 22!
        ("code-math-gamma-float-hidden-edge", "import math\n\n\ndef factorial(n):\n    return math.gamma(n + 1)", False, True),
    ],
    "fizzbuzz": [
        (
            "code-tuple-key-lookup",
            "def fizzbuzz(n):\n    return {(True, True): 'FizzBuzz', (True, False): 'Fizz', (False, True): 'Buzz'}.get((n % 3 == 0, n % 5 == 0), str(n))",
            True,
            False,
        ),
        # fizzbuzz(15) gives 'Fizzbuzz'
        (
            "code-fizzbuzz-lowercase-b",
            "def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'Fizzbuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)",
            False,
            False,
        ),
    ],
    "square_all": [
        ("code-augmented-list-append", "def square_all(xs):\n    out = []\n    for x in xs:\n        out += [x * x]\n    return out", True, False),
        # square_all([2, 2]) gives [4]: duplicates collapse through a set
        ("code-squares-over-set", "def square_all(xs):\n    return [x ** 2 for x in set(xs)]", False, False),
    ],
    "is_palindrome": [
        ("code-all-mirror-pairs", "def is_palindrome(s):\n    return all(s[i] == s[-1 - i] for i in range(len(s) // 2))", True, False),
        # is_palindrome('a') gives False: one-letter strings rejected
        ("code-requires-two-letters", "def is_palindrome(s):\n    return len(s) > 1 and s == s[::-1]", False, False),
    ],
    "sum_digits": [
        ("code-fstring-digits", "def sum_digits(n):\n    digits = [int(c) for c in f'{n}']\n    return sum(digits)", True, False),
        # sum_digits(99) gives 9: keeps summing down to one digit
        ("code-repeats-until-one-digit", "def sum_digits(n):\n    while n > 9:\n        n = n // 10 + n % 10\n    return n", False, False),
    ],
    "first_word": [
        ("code-regex-first-run", "import re\n\n\ndef first_word(s):\n    return re.match(r'\\S+', s).group()", True, False),
        # first_word('one') raises ValueError: no space to find
        ("code-index-of-first-space", "def first_word(s):\n    return s[:s.index(' ')]", False, False),
        # only a leading space breaks it
        ("code-split-on-space-char-hidden-edge", "def first_word(s):\n    return s.split(' ')[0]", False, True),
    ],
    "celsius_to_f": [
        ("code-integer-first-formula", "def celsius_to_f(c):\n    return (c * 9 + 160) / 5", True, False),
        # celsius_to_f(37) gives 98: floor division
        ("code-floor-divided-ratio", "def celsius_to_f(c):\n    return c * 9 // 5 + 32", False, False),
    ],
    "sort_numbers": [
        (
            "code-min-remove-on-copy",
            "def sort_numbers(xs):\n    rest = list(xs)\n    out = []\n    while rest:\n        smallest = min(rest)\n        rest.remove(smallest)\n        out.append(smallest)\n    return out",
            True,
            False,
        ),
        # a library insertion sort: neither sorted() nor list.sort(), but disputable in spirit
        (
            "code-bisect-insort-ambiguous-library",
            "import bisect\n\n\ndef sort_numbers(xs):\n    out = []\n    for x in xs:\n        bisect.insort(out, x)\n    return out",
            True,
            True,
        ),
        # sort_numbers([3, 1, 2]) gives [2, 1, 3]
        (
            "code-insert-front-or-back",
            "def sort_numbers(xs):\n    out = []\n    for x in xs:\n        if not out or x >= out[-1]:\n            out.append(x)\n        else:\n            out.insert(0, x)\n    return out",
            False,
            False,
        ),
    ],
    "word_counts": [
        (
            "code-try-except-keyerror",
            "def word_counts(s):\n    counts = {}\n    for w in s.split():\n        try:\n            counts[w] += 1\n        except KeyError:\n            counts[w] = 1\n    return counts",
            True,
            False,
        ),
        # imports a module, which the prompt forbids
        (
            "code-defaultdict-import-forbidden",
            "from collections import defaultdict\n\n\ndef word_counts(s):\n    counts = defaultdict(int)\n    for w in s.split():\n        counts[w] += 1\n    return dict(counts)",
            False,
            False,
        ),
    ],
    "distinct": [
        ("code-enumerate-prefix-check", "def distinct(xs):\n    return [x for i, x in enumerate(xs) if x not in xs[:i]]", True, False),
        # distinct([1, 2, 1, 3, 2]) gives [3]: only items seen once kept
        ("code-keeps-only-unique-items", "def distinct(xs):\n    return [x for x in xs if xs.count(x) == 1]", False, False),
    ],
}

FRAMES = [
    ("-fenced-plain", lambda c: f"```python\n{c}\n```"),
    ("-with-usage-prints", lambda c: None),
    ("-heres-a-version", lambda c: f"Here's a version that does it:\n\n```python\n{c}\n```\n\nLet me know if you want type hints added."),
]

USAGE = {
    "add": "print(add(2, 3))  # 5",
    "is_even": "print(is_even(4), is_even(7))  # True False",
    "reverse_string": "print(reverse_string('abc'))  # cba",
    "maximum": "print(maximum([3, 9, 2]))  # 9",
    "count_vowels": "print(count_vowels('banana'))  # 3",
    "factorial": "print(factorial(5))  # 120",
    "fizzbuzz": "print(fizzbuzz(15))  # FizzBuzz",
    "square_all": "print(square_all([1, 2, 3]))  # [1, 4, 9]",
    "is_palindrome": "print(is_palindrome('level'))  # True",
    "sum_digits": "print(sum_digits(123))  # 6",
    "first_word": "print(first_word('hello big world'))  # hello",
    "celsius_to_f": "print(celsius_to_f(100))  # 212",
    "sort_numbers": "print(sort_numbers([3, 1, 2]))  # [1, 2, 3]",
    "word_counts": "print(word_counts('a b a'))  # {'a': 2, 'b': 1}",
    "distinct": "print(distinct([1, 2, 1, 3, 2]))  # [1, 2, 3]",
}


def code_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("code_exec")):
        fn = re.search(r"def (\w+)\(", row["text"]).group(1)
        variants = CODE.get(fn, [])
        picked = variants if suite == "eval-code-v2" else variants[i % 2 :: 2]
        for k, (style, code, verdict, amb) in enumerate(picked):
            suffix, frame = FRAMES[(i + k) % len(FRAMES)]
            body = frame(code)
            if body is None:
                body = f"```python\n{code}\n\n\nif __name__ == '__main__':\n    {USAGE[fn]}\n```"
            add(suite, row, body, verdict, style + suffix, amb)


# ---------------------------------------------------------------- instruction

# Fresh filler: no commas, plain ASCII, and none of the rows' required,
# counted or forbidden words (so each rule is touched only where meant).
FILL = [
    "Anyone who slows down for {t} gets something back.",
    "Half the fun of {t} is the people you meet along the way.",
    "My grandmother used to say that patience grows out of {t}.",
    "Nobody agrees on the best part of {t} and that is fine.",
    "Some details of {t} only show up on the second look.",
    "A friend of mine got hooked on {t} after one weekend.",
    "Plenty of people overlook {t} at first.",
    "There is a kind of rhythm to {t} that is hard to describe.",
    "Photos never quite capture the feeling of {t}.",
    "The best stories I know began with {t}.",
    "It costs little to get started with {t}.",
    "People who love {t} can talk about it for hours.",
    "Learning about {t} changed how I spend my weekends.",
    "Even a short break for {t} can reset a long day.",
]
OPENERS = {
    "Today": "Today I finally made room in my week for {t}.",
    "Yesterday": "Yesterday a neighbour asked me why I like {t} so much.",
    "Imagine": "Imagine a free afternoon set aside for {t}.",
    "Honestly": "Honestly I did not expect to enjoy {t} this much.",
}
NEEDS = {
    "blue": "Blue is the colour I link with it most.",
    "river": "A river runs past the place I go for it.",
    "bridge": "An old bridge marks the halfway point.",
    "garden": "A garden nearby makes the walk pleasant.",
    "quiet": "The quiet hours suit it best.",
    "lantern": "Someone always leaves a lantern burning by the door.",
    "morning": "Morning is when I enjoy it most.",
}
KEYS = {
    "time": ["Take your time with it.", "Time slips by fast when you are there.", "Set aside time for it each week."],
    "light": ["The light shifts by the hour.", "Warm light makes it cosy.", "Light rain never stops me."],
    "path": ["A narrow path leads the way.", "Pick a path and follow it.", "The path is half the story."],
    "small": ["Start with small goals.", "A small bag is enough.", "Small moments matter most."],
}
SYNONYM = {
    "time": ("Take your time with it.", "Go at your own pace."),
    "light": ("Warm light makes it cosy.", "A warm glow makes it cosy."),
    "path": ("Pick a path and follow it.", "Pick a trail and follow it."),
    "small": ("A small bag is enough.", "A little bag is enough."),
}
FORBIDDEN_USE = {
    "really": "I really mean that.",
    "very": "It is very relaxing.",
    "nice": "It is a nice way to spend an hour.",
    "beautiful": "The view is beautiful.",
    "good": "It is good for you.",
}
INSIDE_OTHER_WORD = {"very": "Every visit feels a bit different.", "good": "Saying goodbye to it is always hard."}


def topic_of(prompt: str) -> str:
    for pattern in (
        r"what makes (.+?) interesting",
        r"new to (.+?)\.",
        r"Describe (.+?)(?: in |\.)",
        r"about (.+?)(?: in | using | as | without | that |, |\.)",
        r" for (.+?)\. Reply",
    ):
        found = re.search(pattern, prompt)
        if found:
            return found.group(1).strip()
    return "it"


def wcount(text: str) -> int:
    """Words as a reader counts them: tokens holding a letter or digit."""
    return len([w for w in text.split() if re.search(r"[A-Za-z0-9]", w)])


def scount(text: str) -> int:
    body = re.sub(r"<<[^<>]*>>", "", text)
    return len([s for s in re.findall(r"[^.!?]+[.!?]+", body) if re.search(r"[A-Za-z]", s)])


def holds(rule: dict, text: str) -> bool:
    """The author's own reading of one rule, used only to keep the constructed verdicts honest."""
    name, value = rule["rule"], rule.get("value")
    body = text.strip()
    if name == "max_words":
        return wcount(body) <= value - 2  # a margin, so that no word-counting convention flips it
    if name == "min_words":
        return wcount(body) >= value + 2
    if name == "sentence_count":
        return scount(body) == value
    if name == "no_commas":
        return "," not in body
    if name == "uppercase":
        return body == body.upper()
    if name == "lowercase":
        return body == body.lower()
    if name == "language_ascii":
        return body.isascii()
    if name == "not_contains":
        return re.search(rf"\b{re.escape(value)}\b", body, re.I) is None
    if name == "contains":
        return re.search(rf"\b{re.escape(value)}\b", body, re.I) is not None
    if name == "keyword_count":
        return len(re.findall(rf"\b{re.escape(value['word'])}\b", body, re.I)) >= value["min"]
    if name == "starts_with":
        return re.match(rf"{re.escape(value)}\b", body) is not None
    if name == "ends_with":
        return body.endswith(value) or (not value.endswith((".", "?")) and body.endswith(value + "."))
    if name == "postscript":
        return re.search(rf"\n\n{re.escape(value)} [^\n]+$", body) is not None
    if name == "bullet_count":
        lines = [ln for ln in body.splitlines() if ln.strip()]
        return len([ln for ln in lines if ln.startswith("- ")]) == value and all(ln.startswith("- ") for ln in lines)
    if name == "highlight_count":
        return len(re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", body)) >= value
    if name == "placeholder_count":
        return len(re.findall(r"\[[^\]\n]+\]", body)) >= value
    if name == "section_count":
        return len(re.findall(rf"^{value['marker']} \d+:?$", body, re.M)) == value["count"] and body.startswith(value["marker"] + " 1")
    if name == "paragraph_count":
        return len([p for p in re.split(r"\n\s*\n", body) if p.strip()]) == value
    if name == "title":
        return re.match(r"<<[^<>\n]+>>", body) is not None
    if name == "quotation":
        return body.startswith('"') and body.endswith('"') and body.count('"') == 2
    if name in ("json", "json_keys"):
        try:
            obj = json.loads(body)
        except ValueError:
            return False
        return isinstance(obj, dict) and (name == "json" or sorted(obj) == sorted(value))
    raise ValueError(name)


def broken_clearly(rule: dict, text: str) -> bool:
    """A wrong case must break its rule beyond any counting convention."""
    name, value = rule["rule"], rule.get("value")
    if name == "max_words":
        return wcount(text.strip()) >= value + 3
    if name == "min_words":
        return wcount(text.strip()) <= value - 3
    return not holds(rule, text)


def graded_rules(row: dict) -> tuple[list[dict], dict]:
    """The row's rules plus what its prompt asks for that the rules leave out; a careful grader holds the answer to both."""
    rule_list = list(row["score_args"]["rules"])
    rules = {r["rule"]: r.get("value", True) for r in rule_list}
    graded = list(rule_list)
    asked = re.search(r"\b(a|one|two|three|four) sentences?\b", row["text"], re.I)
    if asked and "sentence_count" not in rules and "title of" not in row["text"]:
        n = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}[asked.group(1).lower()]
        rules["sentence_count"] = n
        graded.append({"rule": "sentence_count", "value": n})
    keys = re.findall(r"'(\w+)'", row["text"])
    if "json" in rules and "json_keys" not in rules and len(keys) >= 2:
        graded.append({"rule": "json_keys", "value": keys[:2]})
        rules["json_keys"] = keys[:2]
    return graded, rules


def compose(row: dict, rules: dict, layout: str) -> str | None:
    """An answer keeping every rule, in the given layout ('plain', 'letter' or 'lines')."""
    t = topic_of(row["text"])
    T = t[0].upper() + t[1:]
    text = row["text"]
    if "json" in rules or "json_keys" in rules:
        keys = rules.get("json_keys") or re.findall(r"'(\w+)'", text)[:2]
        values = {
            "topic": t,
            "mood": "cosy and unhurried",
            "name": T,
            "reason": "it changes every hour of the day",
            "title": f"A Quiet Corner Called {T}",
            "summary": f"Why {t} deserves an afternoon of your attention.",
        }
        obj = {k: values.get(k, f"on {t}") for k in keys}
        if layout == "letter":
            return "{\n" + ",\n".join(f'    "{k}": {json.dumps(v)}' for k, v in obj.items()) + "\n}"
        return json.dumps(obj, separators=(", ", ": "))
    if "title of" in text:
        title = f"The Long Way Around {T}" if layout == "plain" else f"Last Call For {T}"
        return title.upper() if "uppercase" in rules else title
    if re.match(r"Describe .+ in at most \d+ words", text):
        return f"{T}: slow, steady and full of stories."
    off = (sum(map(ord, row["id"])) * 7) % len(FILL)
    fill = [p.format(t=t, T=T) for p in FILL[off:] + FILL[:off]]
    inserts: list[str] = []
    if "contains" in rules:
        inserts.append(NEEDS.get(rules["contains"], f"There is a {rules['contains']} in it."))
    if "keyword_count" in rules:
        kw = rules["keyword_count"]
        inserts.extend(KEYS[kw["word"]][: kw["min"]])
    if "placeholder_count" in rules:
        parts = ["[name]", "[place]", "[day]", "[hour]", "[dish]"][: max(2, rules["placeholder_count"])]
        inserts.append(f"Ask {parts[0]} to meet you at {parts[1]}" + "".join(f" and note {p}" for p in parts[2:]) + ".")
    opener = OPENERS[rules["starts_with"]].format(t=t) if "starts_with" in rules else None
    closer = None
    if "ends_with" in rules:
        e = rules["ends_with"]
        closer = e if e.endswith((".", "?")) else f"That is my short note on {t} and I am {e}."
    units = list(inserts)
    n = rules.get("sentence_count")
    if n is not None:
        need = n - (opener is not None) - (closer is not None)
        if need < len(units) or need < 0:
            return None
        k = 0
        while len(units) < need:
            units.append(fill[k])
            k += 1
    else:
        base = max(3, len(units) + 2)  # the required words sit among sentences about the topic
        if "bullet_count" in rules:
            base = rules["bullet_count"] - (opener is not None) - (closer is not None)
        elif "section_count" in rules:
            base = rules["section_count"]["count"] * 2
        elif "paragraph_count" in rules:
            base = rules["paragraph_count"] * 2
        k = 0
        while len(units) < base:
            units.append(fill[k % len(fill)])
            k += 1
        while "min_words" in rules and wcount(" ".join(units)) < rules["min_words"] + 8 and k < 40:
            units.append(fill[k % len(fill)])
            k += 1
    if "max_words" in rules:
        fixed = wcount(" ".join(x for x in (opener, closer) if x)) + (4 if layout == "letter" else 0) + 8
        while units and wcount(" ".join(units)) + fixed > rules["max_words"] and len(units) > len(inserts):
            units.pop()
    if "highlight_count" in rules:
        h = rules["highlight_count"]
        if len(units) < h:
            return None
        units = [f"*{u[:-1]}*{u[-1]}" if j < h else u for j, u in enumerate(units)]
    if opener:
        units.insert(0, opener)
    if closer:
        units.append(closer)
    if not units:
        return None
    if "bullet_count" in rules:
        if len(units) != rules["bullet_count"]:
            return None
        body = "\n".join("- " + u for u in units)
    elif "section_count" in rules:
        c = rules["section_count"]["count"]
        chunks = [units[j::c] for j in range(c)]
        if any(not ch for ch in chunks):
            return None
        colon = ":" if layout == "lines" else ""
        body = "\n\n".join(f"{rules['section_count']['marker']} {j + 1}{colon}\n" + " ".join(ch) for j, ch in enumerate(chunks))
    elif "paragraph_count" in rules:
        p = rules["paragraph_count"]
        chunks = [units[j * len(units) // p : (j + 1) * len(units) // p] for j in range(p)]
        if any(not ch for ch in chunks):
            return None
        body = "\n\n".join(" ".join(ch) for ch in chunks)
    elif layout == "lines":
        body = "\n".join(units)
    else:
        body = " ".join(units)
    if layout == "letter":
        if not re.search(r"\b(email|note)\b", text) or opener or closer or "quotation" in rules or n is not None or "paragraph_count" in rules:
            return None
        body = f"Dear Sam\n\n{body}\n\nRegards\nAlex"
    if "title" in rules:
        body = f"<<Notes From {' '.join(w.capitalize() for w in t.split())}>>\n\n" + body
    if "postscript" in rules:
        body += f"\n\n{rules['postscript']} Remind me to lend you my old map."
    if "uppercase" in rules:
        body = body.upper()
    if "lowercase" in rules:
        body = body.lower()
    if "quotation" in rules:
        body = f'"{body}"'
    return body


def insert_before_end(text: str, addition: str) -> str:
    """Put a sentence in before the closing phrase, sign-off, P.S. or quotation mark, where a model adds an aside."""
    m = re.search(r'(\n\nRegards\nAlex|\n\nREGARDS\nALEX|\n\nregards\nalex)?(\n\n(P\.S\.|p\.s\.) [^\n]+)?"?$', text)
    cut = m.start() if m else len(text)
    head, rest = text[:cut], text[cut:]
    return head.rstrip() + " " + addition + rest


def cased(sentence: str, rules: dict) -> str:
    return sentence.upper() if "uppercase" in rules else sentence.lower() if "lowercase" in rules else sentence


def breaks(rule: str, value, text: str, row: dict, rules: dict) -> tuple[str, str] | None:
    """Break exactly one rule, the way a model slips on it."""
    t = topic_of(row["text"])
    if rule == "max_words":
        if "title of" in row["text"]:
            extra = " AND THE LONG QUIET ROAD HOME AGAIN" if "uppercase" in rules else " And The Long Quiet Road Home Again"
            return "instr-title-runs-past-word-limit", text + extra
        out = text
        for extra in FILL:
            if wcount(out) >= value + 3:
                break
            if "bullet_count" in rules:
                lines = out.split("\n")
                lines[-1] = lines[-1].rstrip(".") + " " + cased("and it is worth every minute of the trip", rules) + "."
                out = "\n".join(lines)
                continue
            out = insert_before_end(out, cased(extra.format(t=t, T=t[0].upper() + t[1:]), rules))
        return "instr-max-words-aside-pushes-past-limit", out
    if rule == "min_words":
        words = text.split()
        if "\n" in text:
            return None
        cut = " ".join(words[: value - 4]).rstrip(",.")
        return "instr-min-words-stops-short", cut + "."
    if rule == "sentence_count":
        if "bullet_count" in rules or "uppercase" in rules or "lowercase" in rules:
            return None
        return "instr-sentence-closing-verdict-extra", insert_before_end(text, "That is my take.")
    if rule == "no_commas":
        return "instr-comma-before-too", insert_before_end(text, cased("I like it a lot, too.", rules))
    if rule == "uppercase":
        if "title of" in row["text"]:
            return "instr-title-small-word-lowercase", re.sub(r" (FOR|AROUND|AND|OF) ", lambda m: f" {m.group(1).lower()} ", text, count=1)
        return "instr-upper-quoted-word-lowercase", insert_before_end(text, 'LOCALS CALL IT "home" AND I AGREE.')
    if rule == "lowercase":
        return "instr-lower-pronoun-i-capitalised", insert_before_end(text, "honestly I could go on about it.")
    if rule == "language_ascii":
        return "instr-ascii-euro-sign", insert_before_end(text, cased("A cup of tea there costs about 3 €.", rules))
    if rule == "not_contains":
        return "instr-forbidden-word-in-aside", insert_before_end(text, cased(FORBIDDEN_USE[value], rules))
    if rule == "keyword_count":
        w = value["word"]
        old, new = SYNONYM[w]
        for a, b in ((old, new), (old.upper(), new.upper()), (old.lower(), new.lower()), (f"*{old[:-1]}*.", f"*{new[:-1]}*.")):
            if a in text:
                return "instr-keyword-one-use-swapped-for-synonym", text.replace(a, b, 1)
        return None
    if rule == "starts_with":
        if not text.startswith(value):
            return None
        return "instr-opener-after-bold-topic-line", f"**{t[0].upper() + t[1:]}**\n\n" + text
    if rule == "ends_with":
        if "postscript" in rules:
            return None
        return "instr-closing-phrase-then-smiley", text + " :)"
    if rule == "postscript":
        return "instr-postscript-as-asterisk-footnote", re.sub(r"\n\n(P\.S\.|p\.s\.|P\.S\.) ", "\n\n* ", text)
    if rule == "bullet_count":
        lines = text.split("\n")
        if len(lines) < 2:
            return None
        merged = lines[0] + " " + lines[1][2:]
        return "instr-bullets-two-merged-on-one-line", "\n".join([merged] + lines[2:])
    if rule == "highlight_count":
        marked = list(re.finditer(r"\*([^*\n]+)\*", text))
        if not marked:
            return None
        m = marked[-1]
        return "instr-highlight-one-left-unmarked", text[: m.start()] + m.group(1) + text[m.end() :]
    if rule == "placeholder_count":
        filled = {"[name]": "Maria", "[NAME]": "MARIA", "[place]": "the station", "[PLACE]": "THE STATION"}
        for ph, real in filled.items():
            if ph in text:
                return "instr-placeholder-filled-in", text.replace(ph, real, 1)
        return None
    if rule == "section_count":
        c = value["count"]
        tail = cased("It all comes back to the same feeling.", rules)
        return "instr-sections-extra-closing-section", insert_before_end(text, f"\n\n{value['marker']} {c + 1}\n{tail}").replace(" \n\n", "\n\n")
    if rule == "paragraph_count":
        parts = text.split("\n\n")
        if len(parts) < 2 or parts[0].startswith("<<"):
            return None
        return "instr-paragraphs-two-merged", parts[0] + " " + parts[1] + ("\n\n" + "\n\n".join(parts[2:]) if parts[2:] else "")
    if rule == "title":
        return "instr-title-in-guillemets", re.sub(r"<<([^<>\n]+)>>", r"«\1»", text)
    if rule == "quotation":
        return "instr-quotation-guillemets", "«" + text[1:-1] + "»"
    if rule == "json_keys":
        obj = json.loads(text)
        k = next(iter(obj))
        return "instr-json-key-uppercased", json.dumps({(key.upper() if key == k else key): v for key, v in obj.items()})
    if rule == "json":
        obj = json.loads(text)
        return "instr-json-keys-unquoted-js-object", "{" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in obj.items()) + "}"
    return None


def instruction_cases() -> None:
    skipped = 0
    broken_so_far: dict[str, int] = {}
    rows = [(s, r) for s, r in rows_of("instruction")]
    for i, (suite, row) in enumerate(rows):
        graded, rules = graded_rules(row)
        if "postscript" in rules and "sentence_count" in rules:
            skipped += 1  # does the P.S. count as a sentence? disputable
            continue
        if re.search(r"exactly (\d+) facts", row["text"]) and "bullet_count" not in rules:
            skipped += 1
            continue
        poem = "poem" in row["text"]
        layout = "lines" if poem or i % 4 == 3 else "plain"
        if i % 3 != 0 and compose(row, rules, "letter"):
            layout = "letter"
        text = compose(row, rules, layout)
        if text is None or not all(holds(r, text) for r in graded):
            layout = "plain"
            text = compose(row, rules, layout)
        if text is None or not all(holds(r, text) for r in graded):
            skipped += 1
            continue
        if re.match(r"(Dear|DEAR|dear) Sam\n", text):
            style = "instr-all-rules-dear-regards-letter"
        elif layout == "lines" and "\n" in text:
            style = "instr-all-rules-sentence-per-line"
        else:
            style = "instr-all-rules-new-filler-prose"
        if layout == "lines" and "section_count" in rules:
            style = "instr-all-rules-section-marker-with-colon"
        if "json" in rules or "json_keys" in rules:
            style = "instr-all-rules-json-four-space-indent" if layout == "letter" else "instr-all-rules-json-one-line-spaced"
        if "title of" in row["text"]:
            style = "instr-all-rules-short-title-" + ("in-capitals" if "uppercase" in rules else "plain")
        amb = bool(({"uppercase", "lowercase"} & set(rules)) and ({"placeholder_count", "title"} & set(rules)))
        amb = amb or ("lowercase" in rules and "postscript" in rules)  # is "p.s." a postscript starting with 'P.S.'?
        if i % 5 != 4:
            add(suite, row, text, True, style + ("-ambiguous-case-of-markup" if amb else ""), amb)
        # A hard but right case: the forbidden word only inside a longer word.
        forbidden = rules.get("not_contains")
        if forbidden in INSIDE_OTHER_WORD and "sentence_count" not in rules and i % 2 == 0:
            hard = insert_before_end(text, cased(INSIDE_OTHER_WORD[forbidden], rules))
            if all(holds(r, hard) for r in graded):
                add(suite, row, hard, True, "instr-forbidden-word-only-inside-longer-word", amb)
        if i % 5 != 3:
            base = compose(row, rules, "plain") or text
            # Break the rule broken least often so far, so that every rule gets its slips.
            order = sorted(graded[i % len(graded) :] + graded[: i % len(graded)], key=lambda r: broken_so_far.get(r["rule"], 0))
            for target in order:
                broken = breaks(target["rule"], target.get("value"), base, row, rules)
                if broken is None:
                    continue
                name, bad = broken
                # Text that is not JSON at all cannot keep the key rule either: breaking 'json' breaks both.
                spared = [r for r in graded if r is not target and not (target["rule"] == "json" and r["rule"] == "json_keys")]
                if not broken_clearly(target, bad) or not all(holds(r, bad) for r in spared):
                    continue
                add(suite, row, bad, False, name)
                broken_so_far[target["rule"]] = broken_so_far.get(target["rule"], 0) + 1
                break
    print(f"instruction rows skipped: {skipped}")


# ---------------------------------------------------------------- output


def case_key(case: dict) -> tuple[str, str, str]:
    return case["row_id"], case["text"], json.dumps(case.get("tool_calls"), sort_keys=True)


def drop_cases_earlier_sets_hold() -> None:
    """A case an earlier held-out set already has teaches nothing new: drop it (and our own repeats)."""
    held: set[tuple[str, str, str]] = set()
    for name in (
        "scorer_styles_blind.jsonl",
        "scorer_styles_blind2.jsonl",
        "scorer_styles_blind3.jsonl",
        "scorer_styles_blind4.jsonl",
        "scorer_styles_blind5.jsonl",
    ):
        path = ROOT / "benchmarks" / name
        if path.exists():
            held.update(case_key(json.loads(line)) for line in path.read_text().splitlines() if line.strip())
    kept = []
    for case in CASES:
        key = case_key(case)
        if key not in held:
            held.add(key)
            kept.append(case)
    if len(kept) != len(CASES):
        print(f"dropped {len(CASES) - len(kept)} cases an earlier set (or this one) already holds")
    CASES[:] = kept


def main() -> None:
    load()
    numeric_cases()
    tool_result_cases()
    exact_cases()
    mc_cases()
    json_cases()
    abstain_cases()
    contains_cases()
    needle_cases()
    token_integrity_cases()
    tool_cases()
    code_cases()
    instruction_cases()
    drop_cases_earlier_sets_hold()
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    right = sum(c["verdict"] for c in CASES)
    amb = sum(c["ambiguous"] for c in CASES)
    print(f"wrote {len(CASES)} cases over {len({c['row_id'] for c in CASES})} rows to {OUT.relative_to(ROOT)} ({right} right, {amb} ambiguous)")


if __name__ == "__main__":
    main()
