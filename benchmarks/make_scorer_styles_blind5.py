"""Build benchmarks/scorer_styles_blind5.jsonl: a fifth held-out set of answer styles (issue 33).

How this set was made, and the blindness rules its author kept:
- The author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args, tools, messages), the seed text that
  says what the suites are for (/work/shared/seeds/), and the four earlier
  generators (benchmarks/make_scorer_styles_blind.py ... make_scorer_styles_blind4.py)
  and their .jsonl output: for the line format, and to list their styles so as
  NOT to repeat them. The author never opened src/servescope/scoring/,
  tests/scoring/, benchmarks/scorer_styles.py, benchmarks/scorer_accuracy.py,
  benchmarks/scorer_blind_agreement.py, any scorer result under
  benchmarks/results/, benchmarks/docs/scorer*.md, docs/scored-suites*.md, or
  the git history of any of them, and never ran a scorer or a servescope eval
  on these cases.
- Every case is an answer a real instruct model (small or large, terse or
  chatty, reasoning or not, sometimes in the prompt's language or another one)
  could give to THAT row's prompt. Its verdict is the one a careful human
  grader gives after reading the prompt, the expected answer and the row's
  rules; verdicts are fixed here, by construction, before anything is scored.
  Genuinely disputable cases carry "ambiguous": true (left out of the figure);
  hard but clear cases do not.
- The styles are ones the four earlier sets do not have (their style names
  were listed first; after generation every case was compared with theirs and
  any (row, text, tool_calls) triple they already hold was dropped). Numbers,
  names and letters: the prompt's question quoted as a blockquote before the
  answer; frames in Japanese, Hindi, Turkish, Dutch, Polish, Vietnamese,
  Indonesian and Swahili, and in the prompt's own language for the
  multilingual rows (a translation row shows "Wasser → water"); "wait,
  actually" self-corrections that land on the right value, and ones that talk
  themselves out of it; answers torn between two values that commit clearly
  (and ones that commit to the wrong one, or never commit); a check by the
  inverse operation (and a bogus check under a wrong value); scientific
  notation with a superscript exponent (and one a power of ten off); a
  Roman-numeral gloss; units abbreviated (hrs, min, USD, pcs); a bulleted
  Question / Working / Result summary; fractions reduced and glossed in words;
  a rounded aside after the exact value; the slip a model makes on THAT
  question (the carry or borrow dropped, one factor too many, the percent's
  complement, one ticket too many, the total before the pencils were taken
  out, the sequence extended with the last difference, the Fahrenheit boiling
  point, "libro" as "library"); options named by a 1-based number (and a
  0-based one, ambiguous), by a circled or bracketed letter, a letter with
  why the others fail, and wrong letters whose aside names the right option.
  JSON: a \\u-escaped letter, spaces inside the braces and before colons,
  one key per line without indent, a bold heading over a fence and a sentence
  restating the source (both ambiguous for "JSON only"), versus the age as
  words or "62 years", a key renamed, a value nested in an object, output cut
  off mid-string, the age ten off, the item pluralised, the price times the
  quantity, the price as "311 dollars". Abstentions in Spanish, French,
  German, Japanese and Hindi, as a list of what was checked, as a training
  cutoff note, and for RAG the question restated, "not stated" paraphrased,
  the fields the passage does give; versus fabrications as a timeline, with a
  made-up URL, as a bullet profile, in Japanese, "roughly speaking", "not
  certain, but", and for RAG figures derived from the staff count, after a
  quote, labelled an estimate. RAG answers with the question restated, in a
  Spanish sentence, with passage context after, as bullets, after a "wait,
  actually"; versus the country for the city, the staff count for the year
  and back, the customers for the product, an abstention in Spanish, the
  owner. Needle codes in the passage's sentence, in backticks, with a hash
  sign, in Spanish; versus a digit repeated, rounded to hundreds, the box
  number. Long generations clean end to end, with a trailing blank line, or
  under a one-line preamble (ambiguous); versus a Greek omicron, a fullwidth
  digit, "57.ok" fused, "&nbsp;", "</s>", "<|eot_id|>" or "<|endoftext|>"
  inside a line, a combining accent, a word joiner, a letter upper-cased
  mid-word, the word cut to one letter, an emoji for the word. Tool calls
  with the arguments as an object rather than a JSON string, keys in reverse
  order, a Japanese or Hindi preamble, a confirming sentence; clarifying
  questions in Japanese, Hindi or naming the missing field; versus a
  required argument missing, seconds as a nested {"minutes": n}, ten times the
  seconds or the amount, the amount as "7 USD", yen read as yuan, "weather in
  Lima" as the city, an extra query argument on open_doc (ambiguous), a
  clarify row answered by a call that states its assumption or by a call
  with empty arguments; tool readings reported in Japanese with ℃, in
  Spanish, with the unit spelled out, versus misread by ten, the sign
  flipped, the "feels like" figure. Code right but written unusually (type
  hints and a docstring with doctest calls, sum of a tuple, a last-digit
  lookup, a class with a static helper, reduce prepending, list.reverse,
  recursive halving, a while index, regular expressions, a helper predicate,
  math.factorial, lru_cache, indexing a list of four answers, a __main__
  block with prints, a generator, recursive trimming, recursion on n // 10,
  divmod, a character loop, quick and merge sorts, comprehension counting,
  a seen list), framed with a one-line intro or an explanation after; and
  code wrong on inputs the prompt covers (abs() on the operands, Peano
  recursion on negative numbers, one-character strings emptied, only the two
  ends compared, the last element skipped, distinct vowels counted, "u" left
  out, reduce without an initial value on 0, "Fizz Buzz" with a space, an int
  returned for str(n), the squares sorted, only the outer letters compared,
  first plus last digit, n % 10 + n // 10, find() returning -1, capitalize(),
  the double-plus-thirty rule of thumb, 5/9 for 9/5, a sorter that empties its
  input, duplicates dropped, an import the prompt forbids, lower-cased
  counts, only neighbours de-duplicated, first-appearance order lost), with
  float halving (only past 2**53) and heapq.nsmallest (not sorted() but a
  sort all the same) ambiguous. Instructions kept in fresh prose, as an email
  with greeting and sign-off (no comma after either), as bullets with bold
  lead-ins, titles in capitals, JSON with two-space indents; and ones that
  break exactly one rule subtly: a closing remark or sign-off that pushes the
  word count over, a terse version under the minimum, an interjection
  ("Wow!") as one sentence too many, a comma after the greeting or in a date,
  "e.g." inside an all-capitals answer, "vs" in a capitals title, "TV" in a
  lower-case answer, an arrow symbol in an ASCII answer, the forbidden word
  inside quoted speech, the keyword one use short, "Just"/"Even"/"Only"
  before the required opener, a P.S. after the closing phrase, "N.B." for
  "P.S.", one bullet missing, one highlight spanning the whole text,
  placeholders in parentheses, section markers spelled out, a greeting as an
  extra paragraph, the title in double square brackets, the opening quotation
  mark missing, a JSON key pluralised, the JSON object wrapped in an array.
  Every instruction case was checked against the author's own reading of its
  rules (in this file), with a margin on word counts, so that right cases
  keep all of them and wrong ones break exactly the one named.
- The code variants were checked by the author with plain Python against the
  assert lines the code-v2 rows carry (not with any scorer): every right
  variant passes them; the wrong ones fail them, or are wrong on an input the
  prompt covers that the asserts leave out (the squares sorted: [3, 1]), or
  break a rule the prompt states (an import the prompt forbids).
- Long-generation integrity rows (token_integrity) are graded as the seed
  defines the suite: "scores token integrity, not correctness: accuracy is the
  share of generations that came back with no spliced token". A clean
  generation that only breaks the count or layout is right; those are marked
  ambiguous because a grader could disagree.
- code_exec rows: code that is wrong on inputs the prompt covers is wrong even
  where it may pass a few tests; cases where only hidden edge cases break it
  are marked ambiguous.

Run: python benchmarks/make_scorer_styles_blind5.py (deterministic, stdlib only).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind5.jsonl"

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
        text += "\nConfidence: 80%"  # the row asks for a confidence line; every case gives one
    case = {"suite": suite, "row_id": row["id"], "scorer": row["scorer"], "text": text, "verdict": verdict, "style": style, "ambiguous": ambiguous}
    if tool_calls is not None:
        case["tool_calls"] = tool_calls
    CASES.append(case)


def rows_of(scorer: str) -> list[tuple[str, dict]]:
    return [(s, r) for s in TEXT_SUITES for r in ROWS[s] if r["scorer"] == scorer]


def tail(suite: str, value: str, conf: int = 85) -> str:
    """The answer line the prompt asks for; calibration rows also want a confidence line."""
    return f"Answer: {value}\nConfidence: {conf}%" if suite == "eval-calibration-v1" else f"Answer: {value}"


def question_line(prompt: str) -> str:
    """The question sentence of a prompt, without the answer-format instruction."""
    head = prompt.split("?")[0]
    return head.strip() + "?"


# ---------------------------------------------------------------- numeric

SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
FRACTION_WORDS = {
    Fraction(1, 4): "one quarter",
    Fraction(1, 2): "one half",
    Fraction(3, 4): "three quarters",
    Fraction(1): "one",
    Fraction(6, 5): "one and one fifth",
    Fraction(3, 2): "one and a half",
    Fraction(2): "two",
    Fraction(5, 2): "two and a half",
    Fraction(4): "four",
    Fraction(5): "five",
}


def roman(n: int) -> str:
    out = ""
    for value, letters in ROMAN:
        while n >= value:
            out += letters
            n -= value
    return out


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


def sci(value: Fraction, shift: int = 0) -> str | None:
    """8.41 × 10² for 841; None when the value is not a whole number of three or more digits."""
    if value.denominator != 1 or abs(value) < 100:
        return None
    digits = str(abs(value.numerator)).rstrip("0")
    exponent = len(str(abs(value.numerator))) - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sign = "-" if value < 0 else ""
    return f"{sign}{mantissa} × 10{str(exponent + shift).translate(SUPERSCRIPT)}"


def slip(row: dict, value: Fraction, i: int) -> tuple[Fraction, str]:
    """The wrong value a model plausibly reaches on THIS question, and how it got there."""
    text = row["text"]
    ops = re.search(r"What is (-?\d+) ([+\-×]) (-?\d+)\?", text)
    if ops:
        a, op, b = int(ops.group(1)), ops.group(2), int(ops.group(3))
        if op == "×":
            return Fraction(a * (b + 1)), "the multiplication"
        if op == "+":
            carry = (a % 10 + b % 10) >= 10
            return (value - 10 if carry else value + 10), "the carry"
        return value + (10 if i % 2 else -10), "the borrow"
    frac = re.search(r"What is (\d+)/(\d+) \+ (\d+)/(\d+)\?", text)
    if frac:
        return Fraction(int(frac.group(1)), int(frac.group(2))), "the second fraction"
    pct = re.search(r"What is (\d+)% of (\d+)\?", text)
    if pct:
        p, n = int(pct.group(1)), int(pct.group(2))
        if p == 50:
            return Fraction(p * n, 10), "the decimal point"
        return Fraction((100 - p) * n, 100), "the percentage"
    ticket = re.search(r"costs \$(\d+)\. How many dollars do (\d+) tickets", text)
    if ticket:
        return Fraction(int(ticket.group(1)) * (int(ticket.group(2)) + 1)), "the number of tickets"
    shelf = re.search(r"holds (\d+) boxes and each box holds (\d+) pencils\. (\d+) pencils", text)
    if shelf:
        return Fraction(int(shelf.group(1)) * int(shelf.group(2))), "the pencils taken out"
    seq = re.search(r"comes next: ([\d, ]+), \.\.\.", text)
    if seq:
        terms = [int(t) for t in seq.group(1).split(",")]
        repeated = Fraction(terms[-1] + terms[-1] - terms[-2])
        if repeated != value:
            return repeated, "the pattern of differences"
        return value + (terms[-1] - terms[-2]), "the step size"
    if "Sam has" in text:
        return value + (10 if i % 2 else -10), "the carry"
    step = [1, -1, 2, -2][i % 4]
    if value + step <= 0:
        step = abs(step)
    return value + step, "the count"


def inverse_check(row: dict, v: str) -> str | None:
    ops = re.search(r"What is (-?\d+) ([+\-×]) (-?\d+)\?", row["text"])
    if not ops:
        return None
    a, op, b = ops.group(1), ops.group(2), ops.group(3)
    if op == "+":
        return f"{v} − {b} = {a}"
    if op == "-":
        return f"{v} + {b} = {a}"
    return f"{v} ÷ {b} = {a}"


UNIT_OF = [
    (r"How many apples", "apples", "apples"),
    (r"How many dollars", "USD", "USD"),
    (r"How many hours", "hrs", "hours"),
    (r"How many minutes", "min", "minutes"),
    (r"How many days", "days", "days"),
    (r"How many pencils", "pcs", "pencils"),
    (r"How many legs", "legs", "legs"),
    (r"How many slices", "slices", "slices"),
]
FRAMES = [
    ("japanese", "答えは {v} です。", "答え：{v}"),
    ("hindi", "उत्तर {v} है।", "उत्तर: {v}"),
    ("turkish", "Cevap {v} olur.", "Cevap: {v}"),
    ("dutch", "Het antwoord is {v}.", "Antwoord: {v}"),
    ("polish", "Wynik to {v}.", "Odpowiedź: {v}"),
    ("vietnamese", "Kết quả là {v}.", "Đáp án: {v}"),
    ("indonesian", "Jawabannya adalah {v}.", "Jawaban: {v}"),
    ("swahili", "Jibu ni {v}.", "Jibu: {v}"),
]

LOCAL_FRAMES = {
    "fr": ("Réponse : {v}", "C'est {v}."),
    "es": ("Respuesta: {v}", "Es {v}."),
    "de": ("Antwort: {v}", "Das ist {v}."),
    "it": ("Risposta: {v}", "È {v}."),
    "pt": ("Resposta: {v}", "É {v}."),
}


def numeric_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("numeric")):
        if suite == "eval-tools-small-v1":
            continue  # tool_result_cases reads these rows' tool results
        ans = str(row["answer"])
        value = parse_num(ans)
        if value is None:
            continue
        v = render(value, ans)
        wv, how = slip(row, value, i)
        assert wv != value, row["id"]
        w = render(wv, ans)
        q = question_line(row["text"])
        lang, sentence, label = FRAMES[i % len(FRAMES)]
        if suite == "eval-multilingual-v1":
            lang = "prompt-language"
            label, sentence = LOCAL_FRAMES[row["category"]]
        check = inverse_check(row, v)
        s = sci(value)
        rights: list[tuple[str, str, bool]] = [
            ("num-quotes-prompt-then-answer", f"> {q}\n\nWorking it through, that comes to {v}.\n\n{tail(suite, v)}", False),
            (f"num-{lang}-frame", f"{sentence.format(v=v)}\n\n{label.format(v=v)}", False),
            (
                "num-wait-actually-lands-right",
                f"First pass: {w}.\n\nWait, actually, I slipped on {how}. Doing it again carefully gives {v}.\n\n{tail(suite, v)}",
                False,
            ),
            ("num-torn-then-commits", f"I wavered between {w} and {v}, but re-checking {how} settles it: {v} is correct.\n\n{tail(suite, v)}", False),
            (
                "num-bullet-summary",
                f"- **Question:** {q}\n- **Working:** step by step, double-checked\n- **Result:** {v}\n\n{tail(suite, v)}",
                False,
            ),
        ]
        if abs(value) >= 20 and value.denominator == 1 and value % 10:
            rights.append(("num-rounded-aside", f"{tail(suite, v)}\n\n(That is about {round(float(value), -1):g} if you only need a rough figure.)", False))
        if check:
            rights.append(("num-inverse-check", f"{v}\n\nCheck: {check} ✓\n\n{tail(suite, v)}", False))
        if s:
            rights.append(("num-sci-notation-superscript", f"{s}\n\n(i.e. {v})", False))
        if value.denominator == 1 and 0 < value < 4000:
            rights.append(("num-roman-gloss", tail(suite, f"{v} (in Roman numerals: {roman(int(value))})"), False))
        for pattern, abbrev, _ in UNIT_OF:
            if re.search(pattern, row["text"]):
                unit = f"{v} {abbrev}" if abbrev != "USD" else f"USD {int(value):,}"
                rights.append(("num-unit-abbreviated", f"{tail(suite, unit)}", False))
        if "/" in ans and value in FRACTION_WORDS:
            reduced = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
            rights.append(("num-fraction-reduced-with-words", f"{ans} simplifies to {reduced} ({FRACTION_WORDS[value]}).\n\n{tail(suite, reduced)}", False))
        wrongs: list[tuple[str, str, bool]] = [
            ("num-quotes-prompt-then-slip", f"> {q}\n\nWorking it through, that comes to {w}.\n\n{tail(suite, w)}", False),
            (f"num-{lang}-frame-wrong", f"{sentence.format(v=w)}\n\n{label.format(v=w)}", False),
            (
                "num-wait-actually-talks-out-of-right",
                f"First pass: {v}.\n\nWait, actually, I think I forgot {how}. Fixing that gives {w}.\n\n{tail(suite, w)}",
                False,
            ),
            ("num-torn-then-commits-wrong", f"I wavered between {v} and {w}; on balance I'll go with {w}.\n\n{tail(suite, w)}", False),
            ("num-slip-on-this-question", f"Taking care with {how}, the result is {w}.\n\n{tail(suite, w)}", False),
            ("num-never-commits-between-two", f"It's either {v} or {w}, I can't pin it down more than that.", False),
        ]
        if check:
            bogus = inverse_check(row, w)
            if bogus:
                first = bogus.split(" = ")[0]
                wrongs.append(("num-bogus-check-under-wrong-value", f"{w}\n\nCheck: {first} = {check.split(' = ')[1]} ✓\n\n{tail(suite, w)}", False))
        if s:
            wrongs.append(("num-sci-notation-power-off", f"{sci(value, 1)}", False))
        if wv.denominator == 1 and 0 < wv < 4000:
            wrongs.append(("num-roman-gloss-wrong", tail(suite, f"{w} (in Roman numerals: {roman(int(wv))})"), False))
        if i % 2 == 0 or i % 10 == 3:
            r = rights[(i // 2) % len(rights)]
            add(suite, row, r[1], True, r[0], r[2])
        if i % 2 == 1 or i % 10 == 0:
            x = wrongs[(i // 2) % len(wrongs)]
            add(suite, row, x[1], False, x[0], x[2])


# ---------------------------------------------------------------- exact

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
# The wrong answer a model plausibly gives to the same question.
NEAR = {
    "Paris": "Lyon",
    "Tokyo": "Osaka",
    "Rome": "Milan",
    "Roma": "Milano",
    "Cairo": "Giza",
    "Ottawa": "Toronto",
    "Madrid": "Barcelona",
    "Berlin": "Hamburg",
    "Canberra": "Sydney",
    "Ulaanbaatar": "Darkhan",
    "Thimphu": "Punakha",
    "Ouagadougou": "Bobo-Dioulasso",
    "Vientiane": "Luang Prabang",
    "Asunción": "Encarnación",
    "Bishkek": "Osh",
    "Moscow": "St Petersburg",
    "Asmara": "Keren",
    "Beijing": "Shanghai",
    "Paramaribo": "Lelydorp",
    "Stockholm": "Uppsala",
    "Copenhagen": "Odense",
    "Lisboa": "Porto",
    "Pacific": "Atlantic",
    "Africa": "Asia",
    "Amazon": "Orinoco",
    "Au": "Ag",
    "Na": "S",
    "He": "H",
    "carbon dioxide": "nitrogen",
    "Mars": "Jupiter",
    "Jupiter": "Saturn",
    "water": "steam",
    "heart": "lungs",
    "lungs": "diaphragm",
    "Sun": "Alpha Centauri",
    "mice": "mouses",
    "cold": "warm",
    "went": "gone",
    "green": "brown",
    "ice": "frost",
    "July": "August",
    "January": "February",
    "honey": "wax",
    "Monday": "Sunday",
    "gravity": "magnetism",
    "friction": "inertia",
    "seismology": "volcanology",
    "nucleus": "core",
    "diamond": "corundum",
    "hydrogen": "helium",
    "Brazil": "Argentina",
    "Pablo Picasso": "Joan Miró",
    "New York City": "Chicago",
    "Mediterranean Sea": "Black Sea",
    "William Shakespeare": "Ben Jonson",
    "cat": "kitten",
    "dog": "hound",
    "book": "novel",
    "blau": "grau",
    "red": "orange",
    "blue": "purple",
    "yellow": "orange",
    "east": "west",
    "south": "southeast",
    "3:30 pm": "3:00 pm",
    "8": "6",
    "100": "1000",
    "6": "8",
    "90": "180",
    "9": "8",
    "60": "3600",
    "366": "365",
    "26": "24",
    "24": "12",
    "12": "13",
    "2": "3",
}
GLOSS = {
    "Thimphu": " (pronounced TIM-poo)",
    "Ouagadougou": " (pronounced wah-gah-DOO-goo)",
    "Ulaanbaatar": " (pronounced oo-LAHN-bah-tar)",
    "Vientiane": " (pronounced vyen-TYAHN)",
    "Asmara": " (15.3° N, 38.9° E)",
    "Ottawa": " (45.4° N, 75.7° W)",
    "Canberra": " (35.3° S, 149.1° E)",
    "Bishkek": " (42.9° N, 74.6° E)",
    "Paramaribo": " (5.9° N, 55.2° W)",
    "Copenhagen": " (55.7° N, 12.6° E)",
}


def near_miss(row: dict, v: str, i: int) -> str:
    if "boiling" in row["text"]:
        return "212"  # the Fahrenheit figure, for a question in degrees Celsius
    if v in DAYS:
        return DAYS[(DAYS.index(v) + (1 if i % 2 else -1)) % 7]
    if v in NEAR:
        return NEAR[v]
    names = [n for n in re.findall(r"\b([A-Z][a-z]+) is taller", row["text"]) if n != v]
    return names[i % len(names)] if names else v + "s"


def exact_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("exact")):
        v = str(row["answer"])
        w = near_miss(row, v, i)
        q = question_line(row["text"])
        lang, sentence, label = FRAMES[(i + 3) % len(FRAMES)]
        if suite == "eval-multilingual-v1":
            frame, frame2 = LOCAL_FRAMES[row["category"]]
            source = re.search(r"[«„]\s*([^»“]+?)\s*[»“]", row["text"])
            if source:  # a translation row: the model shows the word it translated
                frame2 = f"{source.group(1)} → {{v}}"
                w = {"book": "library", "dog": "puppy", "water": "wet"}.get(v, w)  # "libro" → "library": the false friend
            rights = [("exact-prompt-language-frame", frame.format(v=v)), ("exact-prompt-language-sentence", frame2.format(v=v))]
            wrongs = [("exact-prompt-language-frame-wrong", frame.format(v=w)), ("exact-prompt-language-sentence-wrong", frame2.format(v=w))]
        else:
            rights = [
                ("exact-quotes-prompt-then-answer", f"> {q}\n\n{v}.\n\n{tail(suite, v)}"),
                (f"exact-{lang}-frame", f"{sentence.format(v=v)}\n\n{label.format(v=v)}"),
                ("exact-wait-actually-lands-right", f"{w}... wait, actually, no. That's a common mix-up; the right answer is {v}.\n\n{tail(suite, v)}"),
                ("exact-torn-then-commits", f"I hesitated between {w} and {v}, but I'm confident it's {v}.\n\n{tail(suite, v)}"),
                ("exact-bullet-summary", f"- **Question:** {q}\n- **Answer:** {v}"),
            ]
            if v in GLOSS:
                rights.append(("exact-answer-with-gloss", f"{tail(suite, v + GLOSS[v])}"))
            wrongs = [
                ("exact-quotes-prompt-then-near-miss", f"> {q}\n\n{w}.\n\n{tail(suite, w)}"),
                (f"exact-{lang}-frame-wrong", f"{sentence.format(v=w)}\n\n{label.format(v=w)}"),
                ("exact-wait-actually-talks-out-of-right", f"{v}... wait, actually, no, I mixed those up. It's {w}.\n\n{tail(suite, w)}"),
                ("exact-torn-then-commits-wrong", f"I hesitated between {v} and {w}; I'll go with {w}.\n\n{tail(suite, w)}"),
                ("exact-never-commits-between-two", f"It's either {v} or {w}, I'm honestly not sure which."),
            ]
        if i % 2 == 0 or i % 6 == 3:
            r = rights[(i // 2) % len(rights)]
            add(suite, row, r[1], True, r[0])
        if i % 2 == 1 or i % 6 == 0:
            x = wrongs[(i // 2) % len(wrongs)]
            add(suite, row, x[1], False, x[0])


# ---------------------------------------------------------------- mc

CIRCLED = {"A": "Ⓐ", "B": "Ⓑ", "C": "Ⓒ", "D": "Ⓓ", "E": "Ⓔ"}


def mc_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("mc")):
        letter = str(row["answer"]).strip().upper()
        choices = (row.get("score_args") or {}).get("choices") or []
        k = ord(letter) - ord("A")
        if not choices or not 0 <= k < len(choices):
            continue
        j = (k + 1 + i % (len(choices) - 1)) % len(choices)
        wl, wt, rt = chr(ord("A") + j), choices[j].rstrip("."), choices[k].rstrip(".")
        q = question_line(row["text"])
        lang, sentence, label = FRAMES[(i + 5) % len(FRAMES)]
        rights = [
            ("mc-option-number-one-based", f"Option {k + 1} ({rt}).\n\n{tail(suite, letter)}"),
            ("mc-circled-letter", f"{CIRCLED[letter]} {rt}"),
            ("mc-bracketed-letter", f"[{letter}] {rt}\n\n{tail(suite, letter)}"),
            (f"mc-{lang}-frame", f"{sentence.format(v=letter)}\n\n{label.format(v=letter)}"),
            ("mc-wait-actually-lands-right", f"{wl}... wait, actually, no: {wt} doesn't fit. It has to be {letter}, {rt}.\n\n{tail(suite, letter)}"),
            ("mc-quotes-prompt-then-letter", f"> {q}\n\n{rt.capitalize()} ({letter}).\n\n{tail(suite, letter)}"),
            ("mc-torn-then-commits", f"Torn between {wl} and {letter} at first, but {rt} is clearly the better fit.\n\n{tail(suite, letter)}"),
            (
                "mc-letter-then-why-not-others",
                f"{tail(suite, letter)}\n\nWhy not the others: {wt} and the remaining options don't match what the question asks.",
            ),
        ]
        wrongs = [
            ("mc-option-number-one-based-wrong", f"Option {j + 1} ({wt}).\n\n{tail(suite, wl)}"),
            ("mc-circled-letter-wrong", f"{CIRCLED[wl]} {wt}"),
            ("mc-bracketed-letter-wrong", f"[{wl}] {wt}\n\n{tail(suite, wl)}"),
            (f"mc-{lang}-frame-wrong", f"{sentence.format(v=wl)}\n\n{label.format(v=wl)}"),
            ("mc-wait-actually-talks-out-of-right", f"{letter}... wait, actually, no: {wt} fits better. It's {wl}.\n\n{tail(suite, wl)}"),
            ("mc-wrong-letter-reason-names-right-text", f"{tail(suite, wl)}\n\n({rt} was tempting, but {wt} is the better match.)"),
            ("mc-never-commits-between-two", f"Either {letter} or {wl}; both look plausible to me."),
        ]
        if i % 3 == 2:
            continue  # a third of the rows sit out: the suites are large and the styles repeat
        if i % 3 == 0:
            r = rights[(i // 3) % len(rights)]
            add(suite, row, r[1], True, r[0])
        else:
            x = wrongs[(i // 3) % len(wrongs)]
            add(suite, row, x[1], False, x[0])
        if i % 12 == 0:
            add(suite, row, f"Option {k} ({rt}).", True, "mc-option-number-zero-based-text-right", True)


# ---------------------------------------------------------------- json


def json_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("json")):
        exp = row["expected"]
        keys = list(exp)
        src = re.search(r'from: "([^"]+)"', row["text"])
        source = src.group(1) if src else ""
        person = "name" in exp
        val = exp["city" if person else "item"]
        escaped = json.dumps(exp).replace(f'"{val}"', f'"\\u{ord(val[0]):04x}{val[1:]}"', 1)
        rights = [
            ("json-unicode-escaped-letter", escaped, False),
            ("json-spaces-inside-braces", "{ " + ", ".join(f'"{k}" : {json.dumps(exp[k])}' for k in keys) + " }", False),
            ("json-one-key-per-line-no-indent", "{\n" + ",\n".join(f'"{k}": {json.dumps(exp[k])}' for k in keys) + "\n}", False),
            ("json-bold-heading-then-fence", "**JSON:**\n\n```json\n" + json.dumps(exp, indent=2) + "\n```", True),
            ("json-source-restated-then-object", f'From "{source}":\n\n{json.dumps(exp)}', True),
        ]
        if person:
            words = {18: "eighteen", 31: "thirty-one", 32: "thirty-two", 35: "thirty-five", 39: "thirty-nine", 40: "forty", 43: "forty-three"}
            age_word = words.get(exp["age"], "sixty-two")
            wrongs = [
                ("json-age-as-words", json.dumps({**exp, "age": age_word if exp["age"] in words else f"{exp['age']} years"})),
                ("json-key-renamed-years", json.dumps({"name": exp["name"], "years": exp["age"], "city": exp["city"]})),
                ("json-city-nested-object", json.dumps({"name": exp["name"], "age": exp["age"], "city": {"name": exp["city"]}})),
                ("json-cut-off-mid-string", json.dumps(exp)[: json.dumps(exp).index(exp["city"]) + 2]),
                ("json-age-off-by-ten", json.dumps({**exp, "age": exp["age"] + 10}, indent=2)),
            ]
        else:
            wrongs = [
                ("json-item-pluralised", json.dumps({**exp, "item": exp["item"] + "s"})),
                ("json-price-times-quantity", json.dumps({**exp, "price": exp["price"] * exp["quantity"]})),
                (
                    "json-quantity-nested-object",
                    json.dumps({"item": exp["item"], "price": exp["price"], "quantity": {"value": exp["quantity"], "unit": "pcs"}}),
                ),
                ("json-cut-off-mid-string", json.dumps(exp)[: json.dumps(exp).index(exp["item"]) + 2]),
                ("json-price-with-currency-word", json.dumps({**exp, "price": f"{exp['price']} dollars"})),
            ]
        if exp.get("quantity") == 1:
            wrongs[1] = ("json-price-off-by-ten", json.dumps({**exp, "price": exp["price"] + 10}))
        name, text, amb = rights[i % len(rights)]
        add(suite, row, text, True, name, amb)
        name, text = wrongs[(i + i // 5) % len(wrongs)]
        add(suite, row, text, False, name)


# ---------------------------------------------------------------- abstain, contains, needle

HALLUC = {
    "Institute": (r"the ([\w ]+? Institute)", "founded", "It was founded in 1923 by a group of engineers.", "1923"),
    "river": (r"the ([\w ]+? river)", "long", "It is about 312 kilometres long.", "312 km"),
    "prize": (r"the ([\w ]+? Prize)", "won", "It went to the Norwegian chemist Lars Eikrem.", "Lars Eikrem"),
    "novel": (r"novel '([^']+)'", "written", "It was written by Edith Marlowe in 1954.", "Edith Marlowe"),
}
PASSAGE = r"Passage: (\w+)'s workshop opened in (\w+) in (\d{4})\. It builds one product, an? (\w+), and employs (\d+) people"


def abstain_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("abstain")):
        if suite == "eval-hallucination-v1":
            pattern, verb, fabric, short = HALLUC[row["category"]]
            found = re.search(pattern, row["text"])
            thing = found.group(1) if found else "it"
            rights = [
                ("abstain-spanish", f"No lo sé: no encuentro ningún dato sobre {thing} y es posible que no exista."),
                ("abstain-french", f"Je ne sais pas. Je n'ai aucune information fiable sur {thing} ; il se peut que cela n'existe pas."),
                ("abstain-german", f"Das weiß ich nicht. Zu {thing} habe ich keine verlässlichen Informationen, vielleicht gibt es das gar nicht."),
                ("abstain-japanese-may-not-exist", f"{thing}については情報がなく、わかりません。存在しない可能性があります。"),
                ("abstain-hindi", f"मुझे नहीं पता। {thing} के बारे में मेरे पास कोई जानकारी नहीं है।"),
                (
                    "abstain-lists-what-was-checked",
                    f"I checked what I know about institutes, rivers, prizes and novels with that name and found nothing on {thing}. I don't know; it may not exist.",
                ),
                (
                    "abstain-knowledge-cutoff-note",
                    f"I don't know. Nothing about {thing} appears in what I learned up to my training cutoff, so it may be fictional or very obscure.",
                ),
            ]
            wrongs = [
                ("abstain-fabricated-timeline", f"Timeline of {thing}:\n- Origins: 1890s\n- Key fact: {fabric}\n- Today: well documented in regional sources."),
                ("abstain-fabricated-with-url", f"{fabric} (source: https://en.wikipedia.org/wiki/{thing.replace(' ', '_')})"),
                ("abstain-fabricated-bullet-profile", f"**{thing}**\n- {verb.capitalize()}: {short}\n- Notes: widely cited in its field."),
                ("abstain-fabricated-japanese", f"{thing}：{short}。"),
                ("abstain-fabricated-roughly", f"Roughly speaking, {fabric[0].lower() + fabric[1:]}"),
                ("abstain-says-unsure-then-answers", f"I'm not certain, and you should double-check, but {short} is the answer."),
            ]
        else:
            found = re.search(PASSAGE, row["text"])
            owner, city, year, _product, staff = found.groups() if found else ("Eli", "Oslo", "1990", "lamp", "100")
            question = row["text"].rsplit("Question:", 1)[-1].strip()
            rights = [
                ("abstain-rag-restates-question", f'"{question}" The passage does not say.'),
                ("abstain-rag-spanish", "El pasaje no lo dice. (The passage does not say.)"),
                ("abstain-rag-not-stated-paraphrase", "That isn't stated anywhere in the passage, so I can't answer it from the text."),
                (
                    "abstain-rag-lists-known-fields",
                    f"The passage covers where and when the workshop opened ({city}, {year}), what it builds and how many people it employs. The passage does not say.",
                ),
                ("abstain-rag-german", "Der Text sagt dazu nichts. The passage does not say."),
            ]
            if "revenue" in question:
                fab = f"Roughly {int(staff) * 52000:,} dollars a year."
            elif "schools" in question:
                fab = f"About {int(staff) // 3} schools."
            elif "manager" in question:
                fab = f"The manager is {owner}."
            else:
                fab = f"{owner} founded the wood supplier."
            wrongs = [
                ("abstain-rag-fabricates-from-staff-count", f"Based on the passage: {fab}"),
                ("abstain-rag-fabricates-after-quote", f'The passage says it "employs {staff} people", so: {fab}'),
                ("abstain-rag-guess-labelled-estimate", f"The passage doesn't give it, but a reasonable estimate: {fab}"),
                ("abstain-rag-fabricates-terse", fab),
            ]
        r = rights[i % len(rights)]
        add(suite, row, r[1], True, r[0])
        x = wrongs[i % len(wrongs)]
        add(suite, row, x[1], False, x[0])
        if i % 4 == 0:
            r = rights[(i + 3) % len(rights)]
            add(suite, row, r[1], True, r[0])
        if i % 4 == 2:
            x = wrongs[(i + 2) % len(wrongs)]
            add(suite, row, x[1], False, x[0])


def contains_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("contains")):
        v = str(row["answer"])
        found = re.search(PASSAGE, row["text"])
        owner, city, year, product, staff = found.groups() if found else ("Eli", "Oslo", "1990", "lamp", "100")
        question = row["text"].rsplit("Question:", 1)[-1].strip()
        country = {"Quito": "Ecuador", "Hanoi": "Vietnam", "Perth": "Australia", "Oslo": "Norway", "Dakar": "Senegal", "Riga": "Latvia"}
        country.update({"Tunis": "Tunisia", "Lima": "Peru"})
        # The slip a reader makes on THIS question: the country for the city,
        # the staff count for the year and back, the customers for the product.
        other = {city: country.get(city, "Europe"), year: staff, staff: year, product: "school supplies"}.get(v, owner)
        rights = [
            ("contains-question-restated", f"{question} — {v}."),
            ("contains-spanish-sentence", f"Según el pasaje, la respuesta es {v}."),
            ("contains-with-passage-context", f"{v}. (The passage also mentions it sells mostly to schools and closes every August.)"),
            ("contains-wait-actually-lands-right", f"{other}... wait, actually, no, that's not what it asks. The answer is {v}."),
            ("contains-bullet-answer", f"- Answer: {v}\n- Source: first two sentences of the passage"),
        ]
        wrongs = [
            ("contains-next-field-over", f"According to the passage, {other}."),
            ("contains-wait-actually-talks-out-of-right", f"{v}... wait, actually, no. The answer is {other}."),
            ("contains-abstains-when-stated-spanish", "El pasaje no lo dice."),
            ("contains-owner-instead", f"{owner}'s workshop: that's what the passage says."),
        ]
        for k in (0, 2):
            r = rights[(i + k) % len(rights)]
            add(suite, row, r[1], True, r[0])
        for k in (0, 1)[: 1 + i % 2]:
            x = wrongs[(i + k) % len(wrongs)]
            add(suite, row, x[1], False, x[0])


def needle_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("needle")):
        v = str(row["answer"])
        box = re.search(r"What is the vault code for box (\d+)\?", row["text"])
        b = box.group(1) if box else "1"
        add(suite, row, f"The vault code for box {b} is {v}.", True, "needle-passage-sentence-quoted")
        add(suite, row, f"`{v}`", True, "needle-backticks")
        if i % 2:
            add(suite, row, f"#{v}", True, "needle-hash-prefix")
        add(suite, row, f"El código es {v}.", True, "needle-spanish-sentence")
        add(suite, row, f"{v[:2]}{v[1]}{v[2:]}", False, "needle-digit-repeated")
        add(suite, row, f"About {round(int(v), -2)}.", False, "needle-rounded-to-hundreds")
        add(suite, row, f"Box {b}.", False, "needle-box-number-given")


# ---------------------------------------------------------------- token integrity


def token_integrity_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("token_integrity")):
        n = int(row["score_args"]["lines"])
        word = str(row["score_args"]["word"])
        lines = [f"{k}. {word}" for k in range(1, n + 1)]
        at = 17 + (i * 41) % (n - 30)
        k1 = at + 1

        def spliced(new: str, lines: list[str] = lines, at: int = at) -> str:
            out = list(lines)
            out[at] = new
            return "\n".join(out)

        digits = str(k1)
        fullwidth = digits[:-1] + chr(ord(digits[-1]) + 0xFEE0)
        wrong = [
            ("count-greek-omicron-in-word", spliced(f"{k1}. {word.replace('o', 'ο', 1)}")),
            ("count-fullwidth-digit-in-number", spliced(f"{fullwidth}. {word}")),
            ("count-number-fused-to-word", spliced(f"{k1}.{word}")),
            ("count-html-entity-leaked", spliced(f"{k1}.&nbsp;{word}")),
            ("count-eos-token-s-inside-line", spliced(f"{k1}. {word}</s>")),
            ("count-eot-id-token-inside-line", spliced(f"{k1}. <|eot_id|>{word}")),
            ("count-endoftext-token-inside-line", spliced(f"{k1}. {word}<|endoftext|>")),
            ("count-combining-accent-on-letter", spliced(f"{k1}. {word}\u0301")),
            ("count-word-joiner-inside-word", spliced(f"{k1}. {word[0]}\u2060{word[1:]}")),
            ("count-one-letter-upper-mid-word", spliced(f"{k1}. {word[0]}{word[1:].upper()}")),
            ("count-word-cut-to-one-letter", spliced(f"{k1}. {word[0]}")),
            ("count-emoji-in-place-of-word", spliced(f"{k1}. 👍")),
        ]
        right = [
            ("count-clean-end-to-end", "\n".join(lines), False),
            ("count-clean-under-one-line-preamble", f"Here are all {n} lines:\n\n" + "\n".join(lines), True),
            ("count-clean-with-final-newline-and-blank-line", "\n".join(lines) + "\n\n", False),
        ]
        if i % 2 == 0:
            name, text, amb = right[(i // 2) % len(right)]
            add(suite, row, text, True, name, amb)
        name, text = wrong[i % len(wrong)]
        add(suite, row, text, False, name)


# ---------------------------------------------------------------- tool calls


def call(name: str, args: dict | str, as_object: bool = False) -> dict:
    if as_object:
        return {"function": {"name": name, "arguments": args}}
    return {"function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}


CONFIRM = {
    "get_weather": "Checking the current weather in {city} for you.",
    "convert_currency": "Converting {amount} {from} to {to} now.",
    "set_timer": "Starting a {seconds}-second timer.",
    "open_doc": "Opening document {doc_id}.",
}


def tool_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("tool_call")):
        exp = row.get("expected") or {}
        if exp.get("clarify"):
            prompt = row["text"]
            if "weather" in prompt:
                ask, assumed = "天気を確認したい場所（都市名）を教えてください。", ("get_weather", {"city": "London"}, "Assuming you mean London:")
            elif "timer" in prompt:
                ask, assumed = "How long should the timer run?\n- minutes, or\n- seconds?", ("set_timer", {"seconds": 300}, "I'll assume the usual 5 minutes:")
            elif "50" in prompt:
                ask, assumed = (
                    "50 of which currency, and into which one?",
                    ("convert_currency", {"amount": 50, "from": "USD", "to": "EUR"}, "Assuming US dollars to euros:"),
                )
            else:
                ask, assumed = (
                    "कितनी राशि और किस मुद्रा से? (How much, and from which currency?)",
                    ("convert_currency", {"amount": 100, "from": "USD", "to": "EUR"}, "Assuming 100 US dollars:"),
                )
            add(suite, row, ask, True, "tool-clarify-asks-" + ("japanese" if "天気" in ask else "hindi" if "मुद्रा" in ask else "specific-missing-field"))
            add(suite, row, assumed[2], False, "tool-clarify-states-assumption-then-calls", tool_calls=[call(assumed[0], assumed[1])])
            if i % 2:
                add(suite, row, "", False, "tool-clarify-calls-with-empty-arguments", tool_calls=[call(assumed[0], {})])
            continue
        name, args = exp["name"], exp["arguments"]
        styles = [
            ("tool-arguments-as-object", "", [call(name, args, as_object=True)]),
            (
                ("tool-arguments-reverse-key-order", "", [call(name, dict(reversed(list(args.items()))))])
                if len(args) > 1
                else ("tool-arguments-as-object-with-preamble", "One moment.", [call(name, args, as_object=True)])
            ),
            ("tool-japanese-preamble-structured", "確認します。", [call(name, args)]),
            ("tool-hindi-preamble-structured", "मैं अभी देखता हूँ।", [call(name, args)]),
            ("tool-confirming-sentence-with-call", CONFIRM[name].format(**args), [call(name, args)]),
        ]
        style, text, calls = styles[i % len(styles)]
        add(suite, row, text, True, style, tool_calls=calls)
        wrongs: list[tuple[str, str, list, bool]] = []
        if name == "convert_currency":
            wrongs.append(("tool-required-argument-missing", "", [call(name, {"amount": args["amount"], "from": args["from"]})], False))
            wrongs.append(("tool-amount-with-currency-string", "", [call(name, {**args, "amount": f"{args['amount']} {args['from']}"})], False))
            if args["to"] == "JPY":
                wrongs.append(("tool-yen-read-as-yuan", "", [call(name, {**args, "to": "CNY"})], False))
            else:
                wrongs.append(("tool-amount-one-zero-too-many", "", [call(name, {**args, "amount": args["amount"] * 10})], False))
        elif name == "set_timer":
            minutes = re.search(r"(\d+) minutes", row["text"])
            if minutes:
                wrongs.append(("tool-seconds-as-nested-minutes", "", [call(name, {"seconds": {"minutes": int(minutes.group(1))}})], False))
            wrongs.append(("tool-seconds-one-zero-too-many", "", [call(name, {**args, "seconds": args["seconds"] * 10})], False))
            wrongs.append(("tool-required-argument-missing", "Timer started.", [call(name, {"label": "timer"})], False))
        elif name == "get_weather":
            wrongs.append(("tool-required-argument-missing", "", [call(name, {"unit": "celsius"})], False))
            wrongs.append(("tool-city-with-question-words", "", [call(name, {"city": f"weather in {args['city']}"})], False))
        elif name == "open_doc":
            wrongs.append(("tool-doc-id-in-list", "", [call(name, {"doc_id": [args["doc_id"]]})], False))
            wrongs.append(("tool-opens-with-extra-query-arg", "", [call(name, {"doc_id": args["doc_id"], "query": "document"})], True))
        for k in (0,) if i % 3 else (0, 1):
            style, text, calls, amb = wrongs[(i + k) % len(wrongs)]
            add(suite, row, text, False, style, amb, tool_calls=calls)
        if i % 6 == 0:
            style, text, calls = styles[(i + 2) % len(styles)]
            add(suite, row, text, True, style, tool_calls=calls)


def tool_result_cases() -> None:
    """tools-small use_result rows are scored as numbers: the model reports the tool's reading."""
    for i, row in enumerate(r for r in ROWS["eval-tools-small-v1"] if r["scorer"] == "numeric"):
        v = int(row["answer"])
        found = re.search(r"in (\w+)\?", row["text"])
        c = found.group(1) if found else "the city"
        suite = "eval-tools-small-v1"
        add(suite, row, f"{c}の現在の気温は{v}℃で、晴れています。", True, "tool-result-japanese-celsius-sign")
        add(suite, row, f"En {c} hace {v} grados centígrados y el cielo está despejado.", True, "tool-result-spanish-spelled-unit")
        add(suite, row, f"It's {v} degrees Celsius in {c} right now, with clear skies.", True, "tool-result-unit-spelled-out")
        add(suite, row, f"It's {v + 10} degrees Celsius in {c} right now, with clear skies.", False, "tool-result-spelled-unit-misread")
        add(suite, row, f"{c}の現在の気温は{-v if v else 1}℃です。", False, "tool-result-japanese-sign-flipped")
        if i % 2:
            add(suite, row, f"Clear skies in {c}; it feels like about {v + 5} °C.", False, "tool-result-feels-like-instead")


# ---------------------------------------------------------------- code

# (style, code, verdict, ambiguous). Right ones are right on every input the
# prompt covers; wrong ones are wrong on an input the prompt covers (named in
# the comment), unless marked ambiguous (only a hidden edge case breaks them).
CODE: dict[str, list[tuple[str, str, bool, bool]]] = {
    "add": [
        (
            "code-typed-docstring-doctest",
            'def add(a: float, b: float) -> float:\n    """Return the sum of a and b.\n\n    >>> add(2, 3)\n    5\n    >>> add(-1, 1)\n    0\n    """\n    return a + b',
            True,
            False,
        ),
        ("code-sum-of-tuple", "def add(a, b):\n    return sum((a, b))", True, False),
        # add(-1, 1) gives 2
        ("code-abs-on-operands", "def add(a, b):\n    return abs(a) + abs(b)", False, False),
    ],
    "is_even": [
        ("code-last-digit-lookup", 'def is_even(n):\n    return str(n)[-1] in "02468"', True, False),
        (
            "code-class-static-helper",
            "class Parity:\n    @staticmethod\n    def even(n):\n        return n % 2 == 0\n\n\ndef is_even(n):\n    return Parity.even(n)",
            True,
            False,
        ),
        # is_even(-2) never reaches 0: RecursionError on a negative integer
        ("code-peano-recursion", "def is_even(n):\n    if n == 0:\n        return True\n    return not is_even(n - 1)", False, False),
        # float division only fails for integers past 2**53
        ("code-float-halves-compare", "def is_even(n):\n    return n / 2 == n // 2", False, True),
    ],
    "reverse_string": [
        ("code-reduce-prepend", 'from functools import reduce\n\n\ndef reverse_string(s):\n    return reduce(lambda acc, ch: ch + acc, s, "")', True, False),
        ("code-list-reverse-in-place", "def reverse_string(s):\n    chars = list(s)\n    chars.reverse()\n    return ''.join(chars)", True, False),
        # reverse_string('a') gives ''
        ("code-short-strings-emptied", 'def reverse_string(s):\n    return s[::-1] if len(s) > 1 else ""', False, False),
    ],
    "maximum": [
        (
            "code-recursive-halving",
            "def maximum(xs):\n    if len(xs) == 1:\n        return xs[0]\n    mid = len(xs) // 2\n    left, right = maximum(xs[:mid]), maximum(xs[mid:])\n    return left if left >= right else right",
            True,
            False,
        ),
        (
            "code-while-index",
            "def maximum(xs):\n    i, best = 1, xs[0]\n    while i < len(xs):\n        if xs[i] > best:\n            best = xs[i]\n        i += 1\n    return best",
            True,
            False,
        ),
        # maximum([3, 9, 2]) gives 3: only the two ends are compared
        ("code-compares-ends-only", "def maximum(xs):\n    return xs[0] if xs[0] >= xs[-1] else xs[-1]", False, False),
        # maximum([1, 3, 5]) gives 3: the last element is never looked at
        (
            "code-loop-skips-last",
            "def maximum(xs):\n    best = xs[0]\n    for i in range(1, len(xs) - 1):\n        if xs[i] > best:\n            best = xs[i]\n    return best",
            False,
            False,
        ),
    ],
    "count_vowels": [
        ("code-regex-findall", 'import re\n\n\ndef count_vowels(s):\n    return len(re.findall(r"[aeiou]", s))', True, False),
        (
            "code-helper-predicate",
            'def is_vowel(ch):\n    return ch in "aeiou"\n\n\ndef count_vowels(s):\n    return sum(1 for ch in s if is_vowel(ch))',
            True,
            False,
        ),
        # count_vowels('banana') gives 1: distinct letters counted
        ("code-counts-distinct-vowels", 'def count_vowels(s):\n    return len(set(s) & set("aeiou"))', False, False),
        # count_vowels('queue') gives 1: 'u' left out
        ("code-vowel-set-missing-u", 'def count_vowels(s):\n    return sum(ch in "aeio" for ch in s)', False, False),
    ],
    "factorial": [
        ("code-math-factorial-call", "import math\n\n\ndef factorial(n):\n    return math.factorial(n)", True, False),
        (
            "code-lru-cache-recursion",
            "from functools import lru_cache\n\n\n@lru_cache(maxsize=None)\ndef factorial(n):\n    return 1 if n < 2 else n * factorial(n - 1)",
            True,
            False,
        ),
        # factorial(0) raises TypeError: reduce of an empty range without an initial value
        (
            "code-reduce-no-initial",
            "from functools import reduce\nfrom operator import mul\n\n\ndef factorial(n):\n    return reduce(mul, range(1, n + 1))",
            False,
            False,
        ),
    ],
    "fizzbuzz": [
        ("code-index-into-list", 'def fizzbuzz(n):\n    return [str(n), "Fizz", "Buzz", "FizzBuzz"][(n % 3 == 0) + 2 * (n % 5 == 0)]', True, False),
        (
            "code-main-block-prints",
            'def fizzbuzz(n):\n    if n % 15 == 0:\n        return "FizzBuzz"\n    if n % 3 == 0:\n        return "Fizz"\n    if n % 5 == 0:\n        return "Buzz"\n    return str(n)\n\n\nif __name__ == "__main__":\n    for i in range(1, 16):\n        print(fizzbuzz(i))',
            True,
            False,
        ),
        # fizzbuzz(15) gives 'Fizz Buzz'
        (
            "code-space-between-words",
            'def fizzbuzz(n):\n    words = []\n    if n % 3 == 0:\n        words.append("Fizz")\n    if n % 5 == 0:\n        words.append("Buzz")\n    return " ".join(words) or str(n)',
            False,
            False,
        ),
        # fizzbuzz(7) gives the int 7, not '7'
        (
            "code-returns-int-for-plain",
            'def fizzbuzz(n):\n    if n % 15 == 0:\n        return "FizzBuzz"\n    if n % 3 == 0:\n        return "Fizz"\n    if n % 5 == 0:\n        return "Buzz"\n    return n',
            False,
            False,
        ),
    ],
    "square_all": [
        (
            "code-append-loop-typed",
            "def square_all(xs: list[float]) -> list[float]:\n    out: list[float] = []\n    for x in xs:\n        out.append(x * x)\n    return out",
            True,
            False,
        ),
        (
            "code-generator-to-list",
            "def square_all(xs):\n    def squares():\n        for x in xs:\n            yield x ** 2\n    return list(squares())",
            True,
            False,
        ),
        # square_all([3, 1]) gives [1, 9]: the squares come back sorted
        ("code-sorts-the-squares", "def square_all(xs):\n    return sorted(x * x for x in xs)", False, False),
    ],
    "is_palindrome": [
        ("code-reversed-join-compare", 'def is_palindrome(s):\n    return s == "".join(reversed(s))', True, False),
        (
            "code-recursive-trim",
            "def is_palindrome(s):\n    if len(s) < 2:\n        return True\n    return s[0] == s[-1] and is_palindrome(s[1:-1])",
            True,
            False,
        ),
        # is_palindrome('abca') gives True: only the outer letters compared
        ("code-outer-letters-only", "def is_palindrome(s):\n    return len(s) < 2 or s[0] == s[-1]", False, False),
    ],
    "sum_digits": [
        ("code-recursive-mod-ten", "def sum_digits(n):\n    return n if n < 10 else n % 10 + sum_digits(n // 10)", True, False),
        (
            "code-divmod-while",
            "def sum_digits(n):\n    total = 0\n    while n:\n        n, d = divmod(n, 10)\n        total += d\n    return total",
            True,
            False,
        ),
        # sum_digits(123) gives 4: first plus last digit
        ("code-first-plus-last-digit", "def sum_digits(n):\n    s = str(n)\n    return int(s[0]) + int(s[-1]) if len(s) > 1 else n", False, False),
        # sum_digits(123) gives 15: 3 + 12
        ("code-last-digit-plus-rest", "def sum_digits(n):\n    return n % 10 + n // 10", False, False),
    ],
    "first_word": [
        ("code-regex-non-space", 'import re\n\n\ndef first_word(s):\n    return re.match(r"\\S+", s).group()', True, False),
        (
            "code-loop-until-space",
            'def first_word(s):\n    word = ""\n    for ch in s:\n        if ch == " ":\n            break\n        word += ch\n    return word',
            True,
            False,
        ),
        # first_word('one') gives 'on': find() returns -1 when there is no space
        ("code-find-minus-one", 'def first_word(s):\n    return s[: s.find(" ")]', False, False),
        # first_word('hello big world') gives 'Hello'
        ("code-capitalizes-word", "def first_word(s):\n    return s.split()[0].capitalize()", False, False),
    ],
    "celsius_to_f": [
        ("code-thirty-two-first", "def celsius_to_f(c):\n    return 32 + c * 9 / 5", True, False),
        (
            "code-typed-docstring-doctest",
            'def celsius_to_f(c: float) -> float:\n    """Convert Celsius to Fahrenheit.\n\n    >>> celsius_to_f(100)\n    212.0\n    """\n    return c * 9 / 5 + 32',
            True,
            False,
        ),
        # celsius_to_f(100) gives 230: the double-plus-thirty rule of thumb
        ("code-rule-of-thumb", "def celsius_to_f(c):\n    return c * 2 + 30", False, False),
        # celsius_to_f(100) gives 87.55...: 5/9 used instead of 9/5
        ("code-ratio-inverted", "def celsius_to_f(c):\n    return c * 5 / 9 + 32", False, False),
    ],
    "sort_numbers": [
        (
            "code-quicksort-comprehensions",
            "def sort_numbers(xs):\n    if len(xs) <= 1:\n        return list(xs)\n    pivot, rest = xs[0], xs[1:]\n    return sort_numbers([x for x in rest if x < pivot]) + [pivot] + sort_numbers([x for x in rest if x >= pivot])",
            True,
            False,
        ),
        (
            "code-merge-sort",
            "def sort_numbers(xs):\n    if len(xs) <= 1:\n        return list(xs)\n    mid = len(xs) // 2\n    a, b = sort_numbers(xs[:mid]), sort_numbers(xs[mid:])\n    out = []\n    while a and b:\n        out.append(a.pop(0) if a[0] <= b[0] else b.pop(0))\n    return out + a + b",
            True,
            False,
        ),
        # the caller's list is emptied: the prompt asks for a new list
        (
            "code-selection-sort-consumes-input",
            "def sort_numbers(xs):\n    out = []\n    while xs:\n        smallest = xs[0]\n        for x in xs:\n            if x < smallest:\n                smallest = x\n        xs.remove(smallest)\n        out.append(smallest)\n    return out",
            False,
            False,
        ),
        # sort_numbers([2, 2, 1]) gives [1, 2]: duplicates dropped
        (
            "code-dict-keys-drop-duplicates",
            "def sort_numbers(xs):\n    out = []\n    for x in dict.fromkeys(xs):\n        i = 0\n        while i < len(out) and out[i] < x:\n            i += 1\n        out.insert(i, x)\n    return out",
            False,
            False,
        ),
        # heapq is neither sorted() nor list.sort(), but sorts for the caller: disputable
        ("code-heapq-nsmallest", "import heapq\n\n\ndef sort_numbers(xs):\n    return heapq.nsmallest(len(xs), xs)", True, True),
    ],
    "word_counts": [
        (
            "code-membership-then-increment",
            "def word_counts(s):\n    counts = {}\n    for word in s.split():\n        if word in counts:\n            counts[word] += 1\n        else:\n            counts[word] = 1\n    return counts",
            True,
            False,
        ),
        ("code-dict-comprehension-count", "def word_counts(s):\n    words = s.split()\n    return {w: words.count(w) for w in words}", True, False),
        # imports collections although the prompt forbids importing any module
        ("code-imports-counter", "from collections import Counter\n\n\ndef word_counts(s):\n    return dict(Counter(s.split()))", False, False),
        # word_counts('Hi hi') gives {'hi': 2}: the prompt says case is kept
        (
            "code-lowercases-words",
            "def word_counts(s):\n    counts = {}\n    for word in s.lower().split():\n        counts[word] = counts.get(word, 0) + 1\n    return counts",
            False,
            False,
        ),
    ],
    "distinct": [
        (
            "code-seen-list",
            "def distinct(xs):\n    seen = []\n    for x in xs:\n        if x not in seen:\n            seen.append(x)\n    return seen",
            True,
            False,
        ),
        ("code-prefix-membership", "def distinct(xs):\n    return [x for i, x in enumerate(xs) if x not in xs[:i]]", True, False),
        # distinct([1, 2, 1, 3, 2]) gives [1, 2, 1, 3, 2]: only neighbours compared
        ("code-consecutive-only", "def distinct(xs):\n    return [x for i, x in enumerate(xs) if i == 0 or x != xs[i - 1]]", False, False),
        # distinct([3, 2, 1]) gives [1, 2, 3]: first-appearance order lost
        ("code-sorted-dict-keys", "def distinct(xs):\n    return sorted(dict.fromkeys(xs))", False, False),
    ],
}
CODE_FRAMES = [
    ("", lambda code: f"```python\n{code}\n```"),
    ("-one-line-intro", lambda code: f"Here you go:\n\n```python\n{code}\n```"),
    ("-explained-after", lambda code: f"```python\n{code}\n```\n\nThe function handles every input the task describes."),
    ("-example-calls-after", lambda code: f"```python\n{code}\n```\n\nTry it with a couple of the examples from the task to see it work."),
]


def code_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("code_exec")):
        fn = re.search(r"def (\w+)\(", row["text"])
        if not fn or fn.group(1) not in CODE:
            continue
        variants = CODE[fn.group(1)]
        # code-v1 and code-v2 share prompts: v1 rows take every other variant,
        # v2 rows all of them, so the two suites differ in what they hold.
        picked = variants if suite == "eval-code-v2" else variants[i % 2 :: 2]
        for k, (style, code, verdict, amb) in enumerate(picked):
            suffix, frame = CODE_FRAMES[(i + k) % len(CODE_FRAMES)]
            add(suite, row, frame(code), verdict, style + suffix, amb)


# ---------------------------------------------------------------- instruction

POOL = [
    "Anyone who pays attention to {t} gets something back.",
    "Most people underestimate how much {t} can teach them.",
    "I keep coming back to {t} whenever I need a change of pace.",
    "There is always one more detail about {t} worth noticing.",
    "Talking about {t} with friends makes it even more fun.",
    "You do not need much money to enjoy {t}.",
    "The first impression of {t} is rarely the last one.",
    "Each visit to {t} feels a little different from the one before.",
    "Learning the basics of {t} takes less effort than most expect.",
    "Stories about {t} tend to stay with people for years.",
    "A calm mind notices things about {t} that a busy one misses.",
    "Start slowly and let {t} surprise you.",
    "Ask an expert about {t} and you will hear a dozen opinions.",
    "Notes about {t} fill half of my old notebooks.",
]
OPEN = {
    "Imagine": "Imagine spending a whole weekend on {t}.",
    "Honestly": "Honestly I did not expect to care about {t} this much.",
    "Today": "Today I want to write down what I love about {t}.",
    "Yesterday": "Yesterday I spent the whole afternoon thinking about {t}.",
}
BLUNT_OPENER = {"Imagine": "Just imagine", "Honestly": "Quite honestly", "Today": "Even today", "Yesterday": "Only yesterday"}
NEEDS = {
    "blue": "The sky over it was a clear blue.",
    "bridge": "We crossed an old stone bridge on the way.",
    "garden": "A garden full of herbs sits nearby.",
    "lantern": "A lantern hung by the door all evening.",
    "morning": "The morning is the best part of the day for it.",
    "quiet": "Everything around it felt quiet and slow.",
    "river": "A river winds along the edge of it all.",
}
KEYS = {
    "light": ["The light changes by the hour.", "Soft light makes it warmer.", "Evening light suits it best."],
    "path": ["One path leads there.", "That path is worth the walk.", "Any path will do at first."],
    "small": ["Start with small steps.", "A small notebook helps.", "Small wins add up."],
    "time": ["Give it time.", "Time passes fast there.", "Take your time."],
}
SIGN_OFF = "\n\nTake care and talk to you again soon my friend\nAlex"


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
    """Words as a reader counts them: tokens holding a letter or digit (a lone '-' bullet is not a word)."""
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
        return body.endswith(value) or (not value.endswith(".") and body.endswith(value + "."))
    if name == "postscript":
        return re.search(rf"\n\n{re.escape(value)} [^\n]+$", body) is not None
    if name == "bullet_count":
        lines = [ln for ln in body.splitlines() if ln.strip()]
        return len([ln for ln in lines if ln.startswith("- ")]) == value and all(ln.startswith("- ") for ln in lines if not ln.startswith("<<"))
    if name == "highlight_count":
        return len(re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", body)) >= value
    if name == "placeholder_count":
        return len(re.findall(r"\[[^\]\n]+\]", body)) >= value
    if name == "section_count":
        return len(re.findall(rf"^{value['marker']} \d+$", body, re.M)) == value["count"] and body.startswith(value["marker"] + " 1")
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


def compose(row: dict, rules: dict, layout: str) -> str | None:
    """An answer keeping every rule, in the given layout ('plain', 'email' or 'bold-bullets')."""
    t = topic_of(row["text"])
    T = t[0].upper() + t[1:]
    text = row["text"]
    if "json" in rules or "json_keys" in rules:
        keys = rules.get("json_keys") or re.findall(r"'(\w+)'", text)[:2]
        values = {
            "topic": t,
            "mood": "calm and a little dreamy",
            "name": t,
            "reason": "it never looks the same twice",
            "title": f"Notes on {t}",
            "summary": f"A short look at why {t} is worth your attention.",
        }
        obj = {k: values.get(k, f"about {t}") for k in keys}
        return json.dumps(obj, indent=2) if layout == "email" else json.dumps(obj)
    if "title for" in text or "title of" in text:
        title = f"The Long Road Through {T}" if layout == "plain" else f"What {T} Left Behind"
        return title.upper() if "uppercase" in rules else title
    off = sum(map(ord, row["id"])) % len(POOL)
    fill = [p.format(t=t, T=T) for p in POOL[off:] + POOL[:off]]
    inserts: list[str] = []
    if "contains" in rules:
        inserts.append(NEEDS.get(rules["contains"], f"There is a {rules['contains']} in it."))
    if "keyword_count" in rules:
        kw = rules["keyword_count"]
        inserts.extend(KEYS[kw["word"]][: kw["min"]])
    if "placeholder_count" in rules:
        parts = ["[name]", "[place]", "[date]", "[time of day]", "[item]"][: max(2, rules["placeholder_count"])]
        inserts.append(f"Bring {parts[0]} and meet me at {parts[1]}" + "".join(f" then {p}" for p in parts[2:]) + ".")
    opener = OPEN[rules["starts_with"]].format(t=t) if "starts_with" in rules else None
    closer = None
    if "ends_with" in rules:
        e = rules["ends_with"]
        closer = e if e.endswith(".") else f"I wrote this about {t} and now I am {e}."
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
        base = 3
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
        fixed = wcount(" ".join(x for x in (opener, closer) if x)) + (8 if layout == "email" else 0) + 6
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
        b = rules["bullet_count"]
        if len(units) != b:
            return None
        if layout == "bold-bullets" and "highlight_count" not in rules:
            labels = ["First", "Next", "Also", "Then", "Finally"]
            body = "\n".join(f"- **{labels[j % 5]}:** {u}" for j, u in enumerate(units))
        else:
            body = "\n".join("- " + u for u in units)
    elif "section_count" in rules:
        c = rules["section_count"]["count"]
        chunks = [units[j::c] for j in range(c)]
        if any(not ch for ch in chunks):
            return None
        body = "\n\n".join(f"{rules['section_count']['marker']} {j + 1}\n" + " ".join(ch) for j, ch in enumerate(chunks))
    elif "paragraph_count" in rules:
        p = rules["paragraph_count"]
        chunks = [units[j * len(units) // p : (j + 1) * len(units) // p] for j in range(p)]
        if any(not ch for ch in chunks):
            return None
        body = "\n\n".join(" ".join(ch) for ch in chunks)
    else:
        body = " ".join(units)
    if layout == "email":
        if not re.search(r"\b(email|note)\b", text) or opener or closer or "quotation" in rules or n is not None or "paragraph_count" in rules:
            return None
        body = f"Hi Sam\n\n{body}\n\nBest\nAlex"
    if "title" in rules:
        body = f"<<A Few Words on {' '.join(w.capitalize() for w in t.split())}>>\n\n" + body
    if "postscript" in rules:
        body += f"\n\n{rules['postscript']} I still owe you a coffee."
    if "uppercase" in rules:
        body = body.upper()
    if "lowercase" in rules:
        body = body.lower()
    if "quotation" in rules:
        body = f'"{body}"'
    return body


def insert_before_end(text: str, addition: str) -> str:
    """Put a sentence in before the closing phrase, P.S. or quotation mark, where a model adds an aside."""
    m = re.search(r'(\n\nP\.S\. [^\n]+|\n\nN\.B\. [^\n]+)?"?$', text)
    cut = m.start() if m else len(text)
    head, rest = text[:cut], text[cut:]
    return head.rstrip() + " " + addition + rest


def breaks(rule: str, value, text: str, row: dict, rules: dict) -> tuple[str, str] | None:
    """Break exactly one rule, the way a model slips on it."""
    if rule == "max_words":
        out = text
        for extra in POOL:
            if wcount(out) + 14 >= value + 3:
                break
            out = insert_before_end(out, extra.format(t="it", T="It"))
        if re.search(r"\b(email|note)\b", row["text"]):
            return "instr-max-words-signoff-pushes-over", out + SIGN_OFF
        return "instr-max-words-closing-remark-pushes-over", out + "\n\nThanks for reading all the way to the end of this one friend."
    if rule == "min_words":
        units = re.findall(r"[^.!?]+[.!?]+", text)
        while units and wcount(" ".join(units)) > value - 3:
            units.pop(len(units) // 2)
        return ("instr-under-minimum-terse-version", " ".join(u.strip() for u in units)) if units else None
    if rule == "sentence_count":
        if text.startswith(tuple(OPEN)):
            return None
        return "instr-interjection-sentence-too-many", "Wow! " + text
    if rule == "no_commas":
        if text.startswith(("Hi Sam\n", "hi sam\n", "HI SAM\n")):
            return "instr-comma-after-greeting", text.replace("\n", ",\n", 1)
        return "instr-comma-in-date-aside", insert_before_end(text, "I first tried it on Monday, June 3.")
    if rule == "uppercase":
        if "title" in row["text"] and ("title for" in row["text"] or "title of" in row["text"]):
            return "instr-title-lowercase-vs", text.replace(" THROUGH ", " vs ").replace(" LEFT ", " vs ")
        return "instr-upper-lowercase-abbreviation", insert_before_end(text, "BRING THE BASICS (e.g. A WARM COAT).")
    if rule == "lowercase":
        return "instr-lower-acronym-kept-caps", insert_before_end(text, "i first saw it on TV.")
    if rule == "language_ascii":
        return "instr-ascii-arrow-symbol", insert_before_end(text, "Plan first → enjoy later.")
    if rule == "not_contains":
        line = f'My neighbour always calls it "{value} special" and I agree.'
        return "instr-forbidden-word-in-quoted-speech", insert_before_end(text, line)
    if rule == "keyword_count":
        w = value["word"]
        hits = list(re.finditer(rf"\b{w}\b", text, re.I))
        if not hits:
            return None
        last = [u for u in KEYS[w] if u.lower() in text.lower()][-1:]
        if not last:
            return None
        at = text.lower().index(last[0].lower())
        swap = "Nobody rushes through it."
        swap = swap.upper() if text.isupper() else swap.lower() if text.islower() else swap
        return "instr-keyword-one-use-short", text[:at] + swap + text[at + len(last[0]) :]
    if rule == "starts_with":
        if not text.startswith(value):
            return None
        return "instr-opener-adverb-before-word", BLUNT_OPENER[value] + text[len(value) :]
    if rule == "ends_with":
        if "postscript" in rules:
            return None
        return "instr-ends-then-postscript", text + "\n\nP.S. Say hi to everyone for me."
    if rule == "postscript":
        return "instr-nb-instead-of-ps", text.replace("\n\nP.S. ", "\n\nN.B. ")
    if rule == "bullet_count":
        lines = text.split("\n")
        bullets = [j for j, ln in enumerate(lines) if ln.startswith("- ")]
        drop = bullets[len(bullets) // 2]
        return "instr-bullets-one-short", "\n".join(ln for j, ln in enumerate(lines) if j != drop)
    if rule == "highlight_count":
        plain = text.replace("*", "")
        title = re.match(r"<<[^<>\n]+>>\n\n", plain)
        start = title.end() if title else 0
        ps = re.search(r"\n\n(P\.S\.|p\.s\.) [^\n]+$", plain)
        end = ps.start() if ps else len(plain.rstrip())
        return "instr-one-highlight-spans-all", plain[:start] + "*" + plain[start:end] + "*" + plain[end:]
    if rule == "placeholder_count":
        return "instr-placeholders-parentheses", re.sub(r"\[([^\]\n]+)\]", r"(\1)", text)
    if rule == "section_count":
        words = {1: "ONE", 2: "TWO", 3: "THREE", 4: "FOUR"}
        marker = value["marker"]
        return "instr-section-markers-spelled-out", re.sub(rf"^{marker} (\d)$", lambda m: f"{marker} {words[int(m.group(1))]}", text, flags=re.M)
    if rule == "paragraph_count":
        if text.startswith(tuple(OPEN)) or "lowercase" in rules or "uppercase" in rules:
            return None
        return "instr-greeting-own-paragraph", "Hi Sam\n\n" + text
    if rule == "title":
        return "instr-title-double-square-brackets", re.sub(r"<<([^<>\n]+)>>", r"[[\1]]", text)
    if rule == "quotation":
        return "instr-opening-quote-missing", text[1:]
    if rule == "json_keys":
        obj = json.loads(text)
        k = list(obj)[-1]
        plural = k[:-1] + "ies" if k.endswith("y") else k + "s"
        obj = {(plural if key == k else key): v for key, v in obj.items()}
        return "instr-json-key-pluralised", json.dumps(obj)
    if rule == "json":
        return "instr-json-object-wrapped-in-array", "[" + text + "]"
    return None


def instruction_cases() -> None:
    skipped = 0
    for i, (suite, row) in enumerate(rows_of("instruction")):
        rule_list = list(row["score_args"]["rules"])
        rules = {r["rule"]: r.get("value", True) for r in rule_list}
        # The prompt can ask for a sentence count or a layout that the row's
        # rules leave out ("Write one sentence ...", "keys 'topic' and 'mood'");
        # a careful grader holds the answer to it too.
        graded = list(rule_list)
        asked = re.search(r"\b(a|one|two|three|four) sentences?\b", row["text"], re.I)
        if asked and "sentence_count" not in rules:
            n = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}[asked.group(1).lower()]
            rules["sentence_count"] = n
            graded.append({"rule": "sentence_count", "value": n})
        keys = re.findall(r"'(\w+)'", row["text"])
        if "json" in rules and "json_keys" not in rules and len(keys) >= 2:
            graded.append({"rule": "json_keys", "value": keys[:2]})
            rules["json_keys"] = keys[:2]
        facts = re.search(r"exactly (\d+) facts", row["text"])
        if "postscript" in rules and "sentence_count" in rules:
            skipped += 1
            continue
        layout = "plain"
        if i % 3 != 2 and compose(row, rules, "email"):
            layout = "email"
        elif i % 2 and "bullet_count" in rules and "highlight_count" not in rules:
            layout = "bold-bullets"
        text = compose(row, rules, layout)
        if text is None or not all(holds(r, text) for r in graded):
            skipped += 1
            continue
        if facts and "bullet_count" not in rules:
            skipped += 1
            continue
        style = {
            "plain": "instr-all-rules-fresh-prose",
            "email": "instr-all-rules-email-greeting-signoff",
            "bold-bullets": "instr-all-rules-bold-lead-in-bullets",
        }[layout]
        if layout == "email" and ("json" in rules or "json_keys" in rules):
            style = "instr-all-rules-json-two-space-indent"
        if layout == "bold-bullets" and "bullet_count" not in rules:
            style = "instr-all-rules-fresh-prose"
        if "title for" in row["text"] or "title of" in row["text"]:
            style = "instr-all-rules-title-" + ("capitals" if "uppercase" in rules else "title-case")
        # Lower-case or capitals rules with a required word, a title or a
        # placeholder: whether "[NAME]" or "<<TITLE>>" must change case is disputable.
        amb = bool(({"uppercase", "lowercase"} & set(rules)) and ({"placeholder_count", "title"} & set(rules)))
        amb = amb or ("lowercase" in rules and "postscript" in rules)  # is "p.s." a postscript starting with 'P.S.'?
        if i % 2 == 0 or i % 5 == 1:
            add(suite, row, text, True, style, amb)
        if i % 2 == 1 or i % 5 == 2:
            base = compose(row, rules, "plain") if layout != "email" or "no_commas" not in rules else text
            order = graded[i % len(graded) :] + graded[: i % len(graded)]
            for target in order:
                broken = breaks(target["rule"], target.get("value"), base or "", row, rules)
                if broken is None:
                    continue
                name, bad = broken
                if not broken_clearly(target, bad) or not all(holds(r, bad) for r in graded if r is not target):
                    continue
                add(suite, row, bad, False, name)
                break
    print(f"instruction rows skipped: {skipped}")


# ---------------------------------------------------------------- output


def case_key(case: dict) -> tuple[str, str, str]:
    return case["row_id"], case["text"], json.dumps(case.get("tool_calls"), sort_keys=True)


def drop_cases_earlier_sets_hold() -> None:
    """A case an earlier held-out set already has teaches nothing new: drop it (and our own repeats)."""
    held: set[tuple[str, str, str]] = set()
    for name in ("scorer_styles_blind.jsonl", "scorer_styles_blind2.jsonl", "scorer_styles_blind3.jsonl", "scorer_styles_blind4.jsonl"):
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
