"""Build benchmarks/scorer_styles_blind7.jsonl: a seventh held-out set of answer styles (issue 33).

How this set was made, and the blindness rules its author kept:
- The author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args, tools, messages), the seed text that
  says what the suites are for (/work/shared/seeds/), and the six earlier
  generators (benchmarks/make_scorer_styles_blind.py ... make_scorer_styles_blind6.py)
  with their .jsonl output: for the line format, and to avoid their templates.
  The author never opened src/servescope/scoring/, tests/scoring/,
  benchmarks/scorer_styles.py, benchmarks/scorer_accuracy.py,
  benchmarks/scorer_blind_agreement.py, any scorer result under
  benchmarks/results/, benchmarks/docs/scorer*.md, docs/scored-suites*.md, or
  the git history of any of them, and never ran a scorer or a servescope eval
  on these cases.
- Every case is an answer a real instruct model (small or large, terse or
  chatty, reasoning or not, sometimes in the prompt's language) could give to
  THAT row's prompt. The set leans toward the shapes today's instruct models
  write most: a reasoning trace in <think> tags before the answer, Markdown
  headings and tables, a bold value, a restatement of the question, a
  self-correction ("wait, actually"), a hedge that ends in one committed
  value, answers in the prompt's language. Wrong answers are the plausible
  slip for THAT question (a carry dropped, the neighbouring option, the
  minutes handed to a seconds argument, curly quotes in an ASCII-only
  answer, a greeting line that makes one paragraph too many), not exotic
  corruption. Verdicts are the ones a careful human grader gives after
  reading the prompt, the expected answer and the row's rules; they are fixed
  here, by construction, before anything is scored. Genuinely disputable
  cases carry "ambiguous": true (left out of the figure) and say why in their
  style name; hard but clear cases do not.
- New styles. The six earlier sets' style names were listed first; no name
  here repeats one of theirs, and after generation every (row, text,
  tool_calls) triple an earlier set already holds is dropped. Numbers: a
  <think> trace before the answer line, the question restated ("You asked:
  ..."), a first answer line taken back by "Wait, actually" (right when the
  take-back lands on the right value), a hedge between two values that ends
  "I'll go with", a Markdown table of working with the result in its last
  row, a "### Result" heading, fractions written as a fraction where the
  prompt allows it, sentences and number words in the prompt's language, a
  tool reading with Fahrenheit in brackets, in Spanish, as a Markdown list;
  wrong: the plausible slip for THAT question (a carry dropped, a borrow
  forgotten, one group or one ticket too many, tops and bottoms of two
  fractions added, the complementary percentage, a decimal point shifted, a
  sequence term skipped or its last difference repeated, the pencils taken
  out added, clock times subtracted as numbers, a baker's dozen, thumbs left
  out, Fahrenheit for Celsius, the outer shell's capacity, the mass number
  for the protons, the sign of a reading dropped), inside a trace, after a
  take-back, as the hedge's choice, after the restated question. Names: a
  trace, "Final answer — X", a table row, the rival named after the answer,
  an alias on the answer line, the number word with its digit, one-line
  sentences in the prompt's language; wrong: the plausible neighbour (the
  largest city, the tallest for the shortest, the month after, a look-alike
  symbol) terse, after a take-back, or as the end of a trace. Letters: the
  option's text alone on the answer line, an ordinal word with the letter, a
  Markdown table of options with a tick, a French or a German sentence, a
  trace that weighs two letters then commits; wrong: the neighbouring option
  by text, by ordinal, by a take-back, by a trace that talks itself out of
  the right one. JSON: pretty with keys reversed, tab-indented, one line
  with keys rotated, compact, fenced after a trace (ambiguous: prose around
  JSON-only); wrong: cut off before the closing brace, wrapped under a
  "result" key, keys capitalised, price and quantity swapped, the order's
  total as the price. Abstentions in Dutch, Polish and Turkish, "What I
  know / What I don't know" bullets, "I can't find any reliable
  information"; RAG abstentions that list what the passage does say, in
  Spanish; wrong: an invention after "I'm not 100% sure", in German, a
  revenue or count estimated from the passage's other facts, the owner as
  founder or manager. RAG facts with the sentence quoted, in Spanish; wrong:
  another fact of the same passage, a false "The passage does not say."
  Needles: "Box N -> code", a code span; wrong: the digits rotated, the last
  two swapped after a trace. Long generations: the clean run, with a final
  newline; CRLF line endings and a "Here are the lines:" preface (ambiguous:
  layout only), cut short (ambiguous: count only); spliced: a byte-pair
  marker "Ġok", a line cut mid-word, two lines glued, the word split by a
  space, "</s>" inside a line, a Cyrillic letter, a soft hyphen. Tool calls:
  compact JSON arguments after "On it, one moment.", arguments in reverse
  order, the whole OpenAI shape with id and type, a label the prompt states,
  clarifying questions in Italian or offering options, an acknowledgement in
  Spanish on a revise row, an extra unit argument (ambiguous); wrong:
  argument names guessed (location, duration, from_currency, id), the answer
  made up in text with no call, the minutes as seconds, from and to swapped,
  the country for the city, a country code for a currency, the old city on
  a revise row, the search repeated or the result's position as the id on a
  chain row, guessed arguments on a clarify row. Code right but written as a
  class with a static method, functools.reduce, divmod, a bitmask with type
  hints and a doctest, recursion on halves, a while loop, math.prod, a
  lambda assigned to the name, two pointers, insertion and selection sorts on
  a copy, framed bare, after "Here's a clean way to do it", or after a
  trace; partition(' ') and dict.fromkeys are ambiguous (only a leading
  space or unhashable items break them); wrong on inputs the prompt covers:
  int() on the operands, the remainder returned, the test inverted, words
  reversed, a maximum that starts at zero, distinct vowels, 0! as 0, a range
  one short, FizzBuzz checked last, doubling, first and last letters only,
  the last digit left out, the last word, integer division, 32 added before
  scaling, one bubble pass, split(' ') on tabs, lower-casing, repeated items
  dropped entirely. Instructions: every rule kept in new filler prose (one
  paragraph, two paragraphs, one line per sentence for poems, a "Hi Sam ...
  Take care" note for emails and notes); one rule broken, rotating over the
  row's rules: an aside past the word limit, a follow-up question as one
  sentence too many, a comma in a list, "in London" in a lower-case answer,
  "AT 9 pm" in a capitals answer, curly quotes around the topic in an
  ASCII-only answer, the forbidden word slipped into a sentence or a closing
  line, the required word swapped for a synonym, the keyword once short, a
  Markdown heading before the required first word, a sign-off after the
  required ending, the P.S. forgotten, one bullet with a "•" marker, one
  highlight left plain, a placeholder in round brackets, the last section
  dropped, a greeting line as an extra paragraph, a title in single angle
  brackets, the closing quote before the last sentence, a JSON key renamed,
  JSON cut off before its closing brace.
- Code variants were checked by the author with plain Python against the
  assert lines the code-v2 rows carry (not with any scorer): every right
  variant passes them, every wrong one fails at least one of them (the
  script checks this each time it runs and stops if not). The same variants
  go to the code-v1 rows, whose fewer asserts some wrong ones pass; a
  careful grader still marks them wrong, since the prompt covers the inputs
  they fail on.
- The set is thinned to about 1,400 cases by a fixed hash of each case, per
  scorer family (and for eval-instruction-v1 apart from the format suites),
  so that the large families do not swamp the figure (the small multilingual
  and vision suites keep every case).
- Arithmetic, fractions, percentages, word problems, sequences, parities and
  height or age orders were recomputed from each prompt; where a recomputed
  value disagrees with the dataset, or the story has no sensible answer (more
  pencils taken out than the shelf holds), the case is marked ambiguous with
  "dataset-mistake" in its style.
- Long-generation integrity rows (token_integrity) are graded as the seed
  defines the suite: "scores token integrity, not correctness". A clean
  generation that only breaks the count, adds a preface or ends its lines
  with CRLF is marked ambiguous; any spliced, garbled, merged or truncated
  token is wrong (the seed: spliced tokens are what the suite looks for).
- Instruction cases are spread over eval-format-v2 and eval-instruction-v1 as
  much as eval-format-v1; each text was checked against the author's own
  reading of its rules (in this file, with a margin of two words on word
  limits). Case rules with placeholders, a title or a P.S. are ambiguous
  (whether "[name]" or "P.S." must follow the case rule is disputable), and
  so are sentence counts on answers with a P.S. (whether it counts is
  disputable).

Run: python benchmarks/make_scorer_styles_blind7.py (deterministic, stdlib only).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind7.jsonl"
EARLIER = [f"scorer_styles_blind{n}.jsonl" for n in ("", "2", "3", "4", "5", "6")]

ROWS: dict[str, list[dict]] = {}
CASES: list[dict] = []


def load() -> None:
    for path in sorted(DATA.glob("eval-*.jsonl")):
        ROWS[path.stem] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def add(suite: str, row: dict, text: str, verdict: bool, style: str, ambiguous: bool = False, tool_calls: list | None = None) -> None:
    if suite == "eval-calibration-v1" and "Confidence:" not in text:
        # the row asks for a confidence line; every case gives one, its number varied so it cannot be told from the answer by value
        text += f"\nConfidence: {(60, 75, 85, 95, 99)[sum(map(ord, text)) % 5]}%"
    case = {"suite": suite, "row_id": row["id"], "scorer": row["scorer"], "text": text, "verdict": verdict, "style": style, "ambiguous": ambiguous}
    if tool_calls is not None:
        case["tool_calls"] = tool_calls
    CASES.append(case)


def rows_of(scorer: str) -> list[tuple[str, dict]]:
    return [(s, r) for s in sorted(ROWS) for r in ROWS[s] if r.get("scorer") == scorer]


def question_of(text: str) -> str:
    """The prompt's question, without its answer-format instruction."""
    q = re.split(r" (?:End with a line|Reply in exactly|Reply with the letter|Answer in one)", text)[0]
    return q.strip()


# ---------------------------------------------------------------- numeric


def fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def carry_dropped(a: int, b: int) -> int:
    out, place = 0, 1
    while a or b:
        out += ((a % 10 + b % 10) % 10) * place
        a, b, place = a // 10, b // 10, place * 10
    return out


SLIP = {
    # the slip a model plausibly makes on THAT question (value, what it is)
    "common1-003": (11, "slices-added"),
    "common1-007": (3, "pairs-not-socks"),
    "common1-016": (11, "hours-between-counted-short"),
    "common1-023": (85, "clock-times-subtracted-as-numbers"),
    "common1-039": (13, "bakers-dozen"),
    "common1-067": (8, "thumbs-left-out"),
    "common1-082": (8, "price-and-bill-added"),
    "know2-000": (6, "americas-merged"),
    "sci1-021": (212, "fahrenheit-for-celsius"),
    "sci1-029": (8, "outer-shell-capacity"),
    "sci1-030": (12, "mass-number-for-protons"),
    "sci1-071": (0, "celsius-for-fahrenheit"),
}


def recompute(row: dict) -> tuple[Fraction | None, Fraction | None, str]:
    """(value recomputed from the prompt or None, the plausible slip, what the slip is)."""
    text = row["text"]
    v = Fraction(row["answer"])
    m = re.search(r"What is (-?\d+) ([+\-×*]) (-?\d+)\?", text)
    if m:
        a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
        if op == "+":
            slip = carry_dropped(a, b) if a >= 0 and b >= 0 else a + b
            if slip != a + b:
                return Fraction(a + b), Fraction(slip), "carry-dropped"
            return Fraction(a + b), Fraction(a + b + 10), "tens-digit-slip"
        if op == "-":
            return Fraction(a - b), Fraction(a - b + 10), "borrow-forgotten"
        return Fraction(a * b), Fraction(a * b + a), "one-group-too-many"
    m = re.search(r"What is (\d+)/(\d+) \+ (\d+)/(\d+)\?", text)
    if m:
        a, b, c, d = (int(g) for g in m.groups())
        naive = Fraction(a + c, b + d)
        return Fraction(a, b) + Fraction(c, d), naive, "numerators-and-denominators-added"
    m = re.search(r"What is (\d+)% of (\d+)\?", text)
    if m:
        pct, whole = int(m.group(1)), int(m.group(2))
        exact = Fraction(pct * whole, 100)
        if pct in (25, 75):
            return exact, Fraction((100 - pct) * whole, 100), "complement-percentage"
        return exact, exact * 10, "decimal-shifted"
    if row["id"] in SLIP:
        value, name = SLIP[row["id"]]
        return None, Fraction(value), name
    m = re.search(r"has (\d+) apples and buys (\d+) more", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        slip = carry_dropped(a, b)
        if slip != a + b:
            return Fraction(a + b), Fraction(slip), "carry-dropped"
        return Fraction(a + b), Fraction(a + b - 10), "tens-digit-slip"
    m = re.search(r"ticket costs \$(\d+)\. How many dollars do (\d+) tickets", text)
    if m:
        p, n = int(m.group(1)), int(m.group(2))
        return Fraction(p * n), Fraction(p * (n + 1)), "one-ticket-too-many"
    m = re.search(r"holds (\d+) boxes and each box holds (\d+) pencils\. (\d+) pencils are taken out", text)
    if m:
        b, e, t = (int(g) for g in m.groups())
        return Fraction(b * e - t), Fraction(b * e + t), "taken-out-added"
    m = re.search(r"comes next: ([-\d, ]+), \.\.\.", text)
    if m:
        seq = [int(x) for x in m.group(1).split(",")]
        d1 = [y - x for x, y in itertools.pairwise(seq)]
        d2 = [y - x for x, y in itertools.pairwise(d1)]
        if len(set(d1)) == 1:
            return Fraction(seq[-1] + d1[-1]), Fraction(seq[-1] + 2 * d1[-1]), "skipped-a-term"
        if len(set(d2)) == 1:
            return Fraction(seq[-1] + d1[-1] + d2[-1]), Fraction(seq[-1] + d1[-1]), "last-difference-repeated"
        if all(x and y % x == 0 for x, y in itertools.pairwise(seq)):
            r = seq[1] // seq[0]
            if all(y == x * r for x, y in itertools.pairwise(seq)):
                return Fraction(seq[-1] * r), Fraction(seq[-1] + d1[-1]), "added-instead-of-multiplied"
        return None, v + 1, "off-by-one"
    return None, v + 1 if v.denominator == 1 else v * 10, "off-by-one" if v.denominator == 1 else "decimal-shifted"


def num_rights(q: str, s: str, other: str) -> list[tuple[str, str]]:
    return [
        ("num-think-trace-then-answer", f"<think>\n{q} Let me check it twice. A first pass gives {s}; a second pass agrees.\n</think>\n\nAnswer: {s}"),
        ("num-restate-question-then-answer", f"You asked: {q}\n\nWorking it out step by step gives {s}.\n\nAnswer: {s}"),
        ("num-wait-actually-corrected-to-right", f"Answer: {other}\n\nWait, actually, I slipped there. Redoing it carefully gives {s}.\n\nAnswer: {s}"),
        ("num-hedge-then-commit", f"My first instinct was {other}, but checking it properly it has to be {s}. I'll go with {s}.\n\nAnswer: {s}"),
        ("num-markdown-table-working", f"| Step | Value |\n|------|-------|\n| Question | {q} |\n| Result | {s} |\n\nAnswer: {s}"),
        ("num-result-heading", f"### Result\n\n{q}\n\nThe value is **{s}**.\n\nAnswer: {s}"),
    ]


def num_wrongs(q: str, s: str, w: str, slip: str) -> list[tuple[str, str]]:
    return [
        (f"num-think-trace-{slip}", f"<think>\n{q} Working through it, I get {w}.\n</think>\n\nAnswer: {w}"),
        (f"num-wait-actually-to-the-{slip}", f"Answer: {s}\n\nWait, actually, let me recheck... no, it should be {w}.\n\nAnswer: {w}"),
        (f"num-hedge-commits-to-the-{slip}", f"It's either {s} or {w}. Going over it once more, I'll go with {w}.\n\nAnswer: {w}"),
        (f"num-restated-question-{slip}", f"You asked: {q}\n\nThat comes to {w}.\n\nAnswer: {w}"),
    ]


def numeric_cases() -> None:
    i = 0
    for suite, row in rows_of("numeric"):
        if suite in ("eval-multilingual-v1", "eval-vision-v1", "eval-tools-small-v1"):
            continue
        v = Fraction(row["answer"])
        got, slipv, slip = recompute(row)
        mistake = got is not None and got != v
        # a story that takes out more pencils than the shelf holds has no sensible answer: the dataset's own slip
        mistake = mistake or ("pencils are taken out" in row["text"] and v < 0)
        s, w = fmt(v), fmt(slipv)
        fr = re.search(r"What is (\d+)/(\d+) \+ (\d+)/(\d+)\?", row["text"])
        if fr:
            a, b, c, d = (int(g) for g in fr.groups())
            w = f"{a + c}/{b + d}"  # the unreduced fraction a model writes when it adds tops and bottoms
            if v.denominator != 1 and i % 2:
                s = f"{v.numerator}/{v.denominator}"  # the prompt allows a fraction or a decimal
        q = question_of(row["text"])
        rights = num_rights(q, s, w)
        wrongs = num_wrongs(q, s, w, slip)
        unit = re.search(
            r"How many (hours|minutes|days|slices|buses|socks|apples|pencils|dollars|eggs|fingers|legs|wheels|bones|protons|electrons|states|continents)\b",
            row["text"],
        )
        if unit and suite != "eval-calibration-v1":
            rights.append(("num-answer-with-unit-word", f"That works out to {s} {unit.group(1)}.\n\nAnswer: {s} {unit.group(1)}"))
            wrongs.append((f"num-answer-with-unit-word-{slip}", f"That works out to {w} {unit.group(1)}.\n\nAnswer: {w} {unit.group(1)}"))
        for k in (i % len(rights), (i + 3) % len(rights)):
            style, text = rights[k]
            add(suite, row, text, True, style + ("-dataset-mistake" if mistake else ""), mistake)
        style, text = wrongs[i % len(wrongs)]
        add(suite, row, text, False, style + ("-dataset-mistake" if mistake else ""), mistake)
        style, text = wrongs[(i + 1) % len(wrongs)]
        add(suite, row, text, False, style + ("-dataset-mistake" if mistake else ""), mistake)
        i += 1


NUM_WORDS = {
    "fr": ["zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze", "douze"],
    "es": ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once", "doce"],
    "de": ["null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf"],
    "it": ["zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove", "dieci", "undici", "dodici"],
    "pt": ["zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove", "dez", "onze", "doze"],
}
RESULT_IS = {"fr": "Le résultat est", "es": "El resultado es", "de": "Das Ergebnis ist", "it": "Il risultato è", "pt": "O resultado é"}


def multilingual_numeric_cases() -> None:
    for suite, row in rows_of("numeric"):
        if suite != "eval-multilingual-v1":
            continue
        lang, v = row["category"], int(row["answer"])
        add(suite, row, f"{RESULT_IS[lang]} {v}.", True, "num-sentence-in-prompt-language")
        add(suite, row, f"**{v}**", True, "num-bold-bare-number")
        if v < len(NUM_WORDS[lang]):
            add(suite, row, f"{v} ({NUM_WORDS[lang][v]})", True, "num-digit-with-word-in-prompt-language")
        add(suite, row, f"{RESULT_IS[lang]} {v + 1}.", False, "num-sentence-in-prompt-language-off-by-one")
        if v - 1 < len(NUM_WORDS[lang]):
            add(suite, row, f"{NUM_WORDS[lang][v - 1].capitalize()}.", False, "num-word-in-prompt-language-one-less")


def vision_numeric_cases() -> None:
    for suite, row in rows_of("numeric"):
        if suite != "eval-vision-v1":
            continue
        v = int(row["answer"])
        q = row["text"]
        if "square" in q:
            add(suite, row, f"I count {v} squares in the image.", True, "vision-count-sentence")
            add(suite, row, f"{v}\n\n(They are spread over a plain background.)", True, "vision-count-bare-with-note")
            add(suite, row, f"I count {v + 1} squares in the image.", False, "vision-count-one-too-many")
        else:
            add(suite, row, f"The digit shown is {v}.", True, "vision-digit-sentence")
            add(suite, row, f"It looks like a {v}.", True, "vision-digit-looks-like")
            look = {1: 7, 7: 1, 3: 8, 8: 3, 5: 6, 6: 5, 9: 4, 4: 9, 0: 6, 2: 7}[v]
            add(suite, row, f"It looks like a {look}.", False, "vision-digit-look-alike")


def use_result_cases() -> None:
    for suite, row in rows_of("numeric"):
        if suite != "eval-tools-small-v1":
            continue
        t = int(row["answer"])
        result = json.loads(row["messages"][-1]["content"])
        city, sky = result["city"], result.get("sky", "clear")
        f = round(t * 9 / 5 + 32)
        add(suite, row, f"Right now it's {t} °C in {city} ({f} °F), and the sky is {sky}.", True, "tool-reading-celsius-then-fahrenheit-in-brackets")
        add(suite, row, f"En {city} hace {t} grados ahora mismo, con cielo {'despejado' if sky == 'clear' else sky}.", True, "tool-reading-spanish-sentence")
        add(suite, row, f"### {city}\n- Temperature: **{t}°C**\n- Sky: {sky}", True, "tool-reading-markdown-list")
        wrong = -t if t < 0 else t + 10
        what = "minus-sign-dropped" if t < 0 else "tens-digit-slip"
        add(suite, row, f"Right now it's {wrong} °C in {city}, and the sky is {sky}.", False, f"tool-reading-{what}")


# ---------------------------------------------------------------- exact

NEIGHBOUR = {
    "Paris": "Lyon",
    "Tokyo": "Osaka",
    "Rome": "Milan",
    "Cairo": "Alexandria",
    "Ottawa": "Toronto",
    "Pacific": "Atlantic",
    "Africa": "Asia",
    "Madrid": "Barcelona",
    "Berlin": "Munich",
    "Amazon": "Paraná",
    "Au": "Ag",
    "Na": "K",
    "carbon dioxide": "oxygen",
    "Mars": "Venus",
    "Jupiter": "Saturn",
    "water": "steam",
    "heart": "lungs",
    "Sun": "Proxima Centauri",
    "mice": "mouses",
    "cold": "warm",
    "went": "goed",
    "green": "teal",
    "ice": "frost",
    "July": "August",
    "honey": "wax",
    "Monday": "Sunday",
    "gravity": "magnetism",
    "Canberra": "Sydney",
    "Pablo Picasso": "Salvador Dalí",
    "New York City": "Chicago",
    "Stockholm": "Gothenburg",
    "Mediterranean Sea": "Red Sea",
    "William Shakespeare": "Christopher Marlowe",
    "Copenhagen": "Aarhus",
    "Brazil": "Argentina",
    "lungs": "heart",
    "friction": "gravity",
    "seismology": "volcanology",
    "nucleus": "electron shell",
    "diamond": "quartz",
    "hydrogen": "helium",
    "He": "H",
    "January": "December",
    "south": "west",
    "Tuesday": "Thursday",
    "red": "blue",
    "east": "west",
    "Ulaanbaatar": "Darkhan",
    "Thimphu": "Paro",
    "Ouagadougou": "Bobo-Dioulasso",
    "Vientiane": "Luang Prabang",
    "Asunción": "Ciudad del Este",
    "Bishkek": "Osh",
    "Moscow": "Saint Petersburg",
    "Asmara": "Massawa",
    "Beijing": "Shanghai",
    "Paramaribo": "Nieuw Nickerie",
    "3:30 pm": "3:00 pm",
    "cat": "dog",
    "dog": "cat",
    "book": "library",
    "Roma": "Milano",
    "Lisboa": "Porto",
    "blau": "grau",
    "yellow": "orange",
}
NUMBER_WORD = {"2": "two", "6": "six", "8": "eight", "9": "nine", "12": "twelve", "24": "twenty-four", "26": "twenty-six", "60": "sixty"}
TRANSLATE_SENT = {"fr": "En anglais : {x}.", "es": "En inglés: {x}.", "de": "Auf Englisch: {x}.", "it": "In inglese: {x}.", "pt": "Em inglês: {x}."}
LANG_SENT = {"fr": "C'est {x}.", "es": "Es {x}.", "de": "Das ist {x}.", "it": "È {x}.", "pt": "É {x}."}


def order_names(text: str) -> tuple[list[str], str] | None:
    """Names from tallest (or oldest) to shortest (or youngest), recomputed from the comparisons."""
    pairs = re.findall(r"(\w+) is (?:taller|older) than (\w+)", text)
    if not pairs:
        return None
    names = sorted({n for p in pairs for n in p})
    above = {n: set() for n in names}
    for a, b in pairs:
        above[b].add(a)
    changed = True
    while changed:
        changed = False
        for n in names:
            extra = set().union(*(above[m] for m in above[n])) - above[n] if above[n] else set()
            if extra:
                above[n] |= extra
                changed = True
    ranked = sorted(names, key=lambda n: len(above[n]))
    asks_low = re.search(r"Who is the (shortest|youngest)", text) is not None
    return ranked, ranked[-1] if asks_low else ranked[0]


def exact_cases() -> None:
    i = 0
    for suite, row in rows_of("exact"):
        if suite == "eval-multilingual-v1":
            x = row["answer"]
            sent = TRANSLATE_SENT[row["category"]] if re.match(r"(Tradu|Übersetze)", row["text"]) else LANG_SENT[row["category"]]
            add(suite, row, sent.format(x=x), True, "exact-short-sentence-in-prompt-language")
            add(suite, row, f"**{x}**", True, "exact-bold-one-word")
            if NEIGHBOUR.get(x):
                add(suite, row, sent.format(x=NEIGHBOUR[x]), False, "exact-neighbour-in-prompt-language")
            continue
        if suite == "eval-vision-v1":
            x = row["answer"]
            add(suite, row, f"The square is {x}.", True, "vision-colour-sentence")
            add(suite, row, x.capitalize(), True, "vision-colour-capitalised-word")
            hue = {"red": "orange", "green": "teal", "blue": "purple", "yellow": "orange"}.get(x)
            if hue:
                add(suite, row, hue.capitalize(), False, "vision-colour-neighbouring-hue")
            continue
        x = row["answer"]
        q = question_of(row["text"])
        mistake = False
        wrong = NEIGHBOUR.get(x)
        order = order_names(row["text"])
        if order:
            ranked, got = order
            mistake = got != x
            wrong = ranked[0] if got == ranked[-1] else ranked[-1]
        tail = "-dataset-mistake" if mistake else ""
        short = suite == "eval-knowledge-v1"
        alias = (row.get("score_args") or {}).get("aliases") or []
        rights = [
            (
                "exact-think-trace-then-answer",
                f"<think>\n{q} I recall this clearly.\n</think>\n\n{x}"
                if short
                else f"<think>\n{q} Let me lay it out before answering.\n</think>\n\nAnswer: {x}",
            ),
            ("exact-final-answer-em-dash", f"Final answer — {x}" if short else f"{q}\n\nFinal answer — {x}\n\nAnswer: {x}"),
            ("exact-table-row", f"| Question | Answer |\n|---|---|\n| {q} | {x} |" + ("" if short else f"\n\nAnswer: {x}")),
        ]
        if wrong:
            rights.append(
                (
                    "exact-rival-named-after-answer",
                    f"{x[0].upper() + x[1:]}. (Not {wrong}, which people sometimes mix it up with.)"
                    if short
                    else f"It's {x}, not {wrong} — an easy one to mix up.\n\nAnswer: {x}",
                )
            )
        if alias and not short:
            rights.append(("exact-alias-on-answer-line", f"That's {alias[0]}.\n\nAnswer: {alias[0]}"))
        if x in NUMBER_WORD and short:
            rights.append(("exact-number-word-with-digit", f"{NUMBER_WORD[x].capitalize()} ({x})."))
        for k in (i % len(rights), (i + 2) % len(rights)):
            style, text = rights[k]
            add(suite, row, text, True, style + tail, mistake)
        if wrong:
            wrongs = [
                ("exact-plausible-neighbour-terse", f"{wrong}" if short else f"Answer: {wrong}"),
                (
                    "exact-wait-actually-to-neighbour",
                    f"{x}... wait, actually no — it's {wrong}."
                    if short
                    else f"Answer: {x}\n\nWait, actually, I mixed that up. It's {wrong}.\n\nAnswer: {wrong}",
                ),
                (
                    "exact-think-trace-lands-on-neighbour",
                    f"<think>\nIt could be {x} or {wrong}. I think {wrong}.\n</think>\n\n{wrong}"
                    if short
                    else f"<think>\nIt could be {x} or {wrong}. I think {wrong}.\n</think>\n\nAnswer: {wrong}",
                ),
            ]
            style, text = wrongs[i % 3]
            add(suite, row, text, False, style + tail, mistake)
            if i % 2 == 1:
                style, text = wrongs[(i + 1) % 3]
                add(suite, row, text, False, style + tail, mistake)
        i += 1


# ---------------------------------------------------------------- mc

ORDINAL = ["first", "second", "third", "fourth", "fifth"]


def mc_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("mc")):
        choices = (row.get("score_args") or {}).get("choices") or [
            c for _, c in re.findall(r"([A-E])\) (.+?)(?=\s+[A-E]\)|\s+End with|\s+Reply|\n|$)", row["text"])
        ]
        letters = "ABCDE"[: len(choices)]
        right = row["answer"]
        mistake = False
        m = re.search(r"sum of ([\d, ]+) even or odd", row["text"]) or re.search(r"Is (\d+) even or odd", row["text"])
        if m and choices == ["even", "odd"]:
            total = sum(int(x) for x in m.group(1).split(","))
            mistake = ("A" if total % 2 == 0 else "B") != right
        tail = "-dataset-mistake" if mistake else ""
        r_i = letters.index(right)
        w_i = (r_i + 1) % len(letters)
        wrong = letters[w_i]
        rt, wt = choices[r_i].rstrip("."), choices[w_i].rstrip(".")
        rights = [
            ("mc-option-text-only-on-answer-line", f"The correct option is {rt}.\n\nAnswer: {rt}"),
            ("mc-ordinal-word-with-letter", f"It's the {ORDINAL[r_i]} option, {rt}.\n\nAnswer: {right}"),
            (
                "mc-table-with-tick",
                "| Option | Correct? |\n|---|---|\n"
                + "\n".join(f"| {L}) {c} | {'✓' if right == L else ''} |" for L, c in zip(letters, choices, strict=True))
                + f"\n\nAnswer: {right}",
            ),
            ("mc-french-sentence", f"La bonne réponse est {right} ({rt}).\n\nAnswer: {right}"),
            ("mc-think-weighs-two-then-commits", f"<think>\n{wrong} ({wt}) is tempting, but {right} ({rt}) is the one that fits.\n</think>\n\nAnswer: {right}"),
            ("mc-german-sentence", f"Richtig ist {right}: {rt}.\n\nAnswer: {right}"),
        ]
        wrongs = [
            ("mc-neighbour-option-text-only", f"The correct option is {wt}.\n\nAnswer: {wt}"),
            (
                "mc-think-talks-itself-out-of-right",
                f"<think>\n{right} ({rt}) looks right at first, but on reflection {wrong} ({wt}) fits better.\n</think>\n\nAnswer: {wrong}",
            ),
            ("mc-ordinal-word-neighbour", f"It's the {ORDINAL[w_i]} option, {wt}.\n\nAnswer: {wrong}"),
            ("mc-wait-actually-to-neighbour", f"Answer: {right}\n\nWait, actually, I think it's {wrong} — {wt}.\n\nAnswer: {wrong}"),
        ]
        if row["scorer"] == "mc" and suite == "eval-calibration-v1":
            rights = [r for r in rights if "table" not in r[0]]
        style, text = rights[i % len(rights)]
        add(suite, row, text, True, style + tail, mistake)
        if i % 2 == 0:
            style, text = rights[(i + 3) % len(rights)]
            add(suite, row, text, True, style + tail, mistake)
        style, text = wrongs[i % len(wrongs)]
        add(suite, row, text, False, style + tail, mistake)
        if i % 2 == 1:
            style, text = wrongs[(i + 2) % len(wrongs)]
            add(suite, row, text, False, style + tail, mistake)


# ---------------------------------------------------------------- json


def json_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("json")):
        exp = row["expected"]
        keys = list(exp)
        rev = {k: exp[k] for k in reversed(keys)}
        add(suite, row, json.dumps(rev, indent=2, ensure_ascii=False), True, "json-pretty-keys-reversed")
        add(suite, row, json.dumps(exp, indent="\t", ensure_ascii=False), True, "json-tab-indented")
        middle_first = {k: exp[k] for k in keys[1:] + keys[:1]}
        add(suite, row, json.dumps(middle_first, ensure_ascii=False), True, "json-one-line-keys-rotated")
        if i % 2 == 0:
            add(suite, row, json.dumps(exp, separators=(",", ":"), ensure_ascii=False), True, "json-compact-no-spaces")
        else:
            add(
                suite,
                row,
                "<think>\nPull the three fields out of the sentence.\n</think>\n\n```json\n" + json.dumps(exp, indent=2, ensure_ascii=False) + "\n```",
                True,
                "json-fenced-after-think-trace-ambiguous-prose",
                True,
            )
        pretty = json.dumps(exp, indent=2, ensure_ascii=False)
        add(suite, row, pretty[: pretty.rfind("\n")], False, "json-cut-before-closing-brace")
        nums = [int(n) for n in re.findall(r"\d+", row["text"])]
        numeric_keys = [k for k in keys if isinstance(exp[k], int)]
        if len(numeric_keys) >= 2 and exp[numeric_keys[0]] != exp[numeric_keys[1]] and i % 2 == 0:
            a, b = numeric_keys[:2]
            swapped = dict(exp, **{a: exp[b], b: exp[a]})
            add(suite, row, json.dumps(swapped, ensure_ascii=False), False, "json-two-numbers-swapped")
        elif i % 2 == 1:
            add(suite, row, json.dumps({"result": exp}, ensure_ascii=False), False, "json-wrapped-under-result-key")
        if "price" in exp and "quantity" in exp and exp["quantity"] != 1 and i % 2 == 1:
            total = dict(exp, price=exp["price"] * exp["quantity"])
            add(suite, row, json.dumps(total, indent=2, ensure_ascii=False), False, "json-price-as-order-total")
        if "age" in exp and i % 2 == 0 and nums:
            add(suite, row, json.dumps({k.capitalize(): v for k, v in exp.items()}, ensure_ascii=False), False, "json-keys-capitalised")


# ---------------------------------------------------------------- abstain / contains / needle

ABSTAIN_RIGHT = [
    ("abstain-dutch", "Dat weet ik niet. Ik kan er geen betrouwbare informatie over vinden; misschien bestaat het niet eens."),
    ("abstain-polish", "Nie wiem. Nie znalazłem wiarygodnych informacji na ten temat; możliwe, że to w ogóle nie istnieje."),
    ("abstain-turkish", "Bilmiyorum; bununla ilgili güvenilir bir bilgi bulamadım, böyle bir şey hiç olmayabilir."),
    ("abstain-known-unknown-bullets", "- What I know: nothing reliable about this.\n- What I don't know: the answer — I don't know, and it may not exist."),
    ("abstain-cant-find-reliable-info", "I can't find any reliable information about that, so I don't know. It may not exist."),
]


def abstain_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("abstain")):
        text = row["text"]
        if suite == "eval-rag-grounded-v1":
            q = text.split("Question:")[-1].strip()
            add(
                suite,
                row,
                "The passage does not say. It gives the city, the year, the product and the staff, but nothing on that.",
                True,
                "rag-abstain-with-what-it-does-say",
            )
            add(suite, row, "El pasaje no lo dice.", True, "rag-abstain-spanish")
            m = re.search(r"employs (\d+) people", text)
            staff = int(m.group(1)) if m else 100
            owner = re.search(r"Passage: (\w+)'s", text)
            if "revenue" in q:
                guess = f"Probably around ${staff * 85_000:,} a year, given {staff} employees."
            elif re.search(r"\b(Who|name)\b", q) and owner:
                guess = f"That would be {owner.group(1)}, the workshop's owner."
            else:
                guess = f"Most likely {staff // 4}, judging by the size of the workshop."
            add(suite, row, guess, False, "rag-estimate-from-other-facts")
            continue
        style, ans = ABSTAIN_RIGHT[i % len(ABSTAIN_RIGHT)]
        add(suite, row, ans, True, style)
        style, ans = ABSTAIN_RIGHT[(i + 2) % len(ABSTAIN_RIGHT)]
        add(suite, row, ans, True, style)
        subject = re.sub(r"\?.*", "", text, flags=re.S)
        year = 1890 + (i * 17) % 120
        if "river" in text:
            fake = f"I'm not completely sure, but it's roughly {140 + i * 23} km long."
            de = f"Soweit ich weiß, etwa {140 + i * 23} Kilometer."
        elif "year" in text:
            fake = f"I'm not 100% sure, but I believe it was {year}."
            de = f"Soweit ich weiß, im Jahr {year}."
        elif re.search(r"\bWho\b", text):
            fake = "I'm not certain, but it was most likely Dr. Helena Marsh."
            de = "Soweit ich weiß, war es Helena Marsh."
        else:
            fake = f"I can't be sure, but the most likely answer is {year}."
            de = f"Soweit ich weiß: {year}."
        add(suite, row, fake, False, "abstain-hedged-invention")
        if i % 2 == 0:
            add(suite, row, de, False, "abstain-german-invention")
        _ = subject


def passage_facts(text: str) -> dict:
    m = re.search(
        r"Passage: (\w+)'s (\w+) opened in (\w+) in (\d{4})\. It (?:builds|makes|sells|bakes|brews|repairs) one product, an? ([\w ]+?), and employs (\d+) people",
        text,
    )
    if not m:
        return {}
    return {"owner": m.group(1), "city": m.group(3), "year": m.group(4), "product": m.group(5), "staff": m.group(6)}


def contains_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("contains")):
        x = row["answer"]
        facts = passage_facts(row["text"])
        sent = next((s for s in re.split(r"(?<=\.) ", row["text"].split("Passage: ")[-1].split("\n\nQuestion")[0]) if x in s), "")
        add(suite, row, f'{x}.\n\nFrom the passage: "{sent}"', True, "rag-fact-then-sentence-quoted")
        add(suite, row, f"Según el pasaje: {x}.", True, "rag-spanish")
        others = [v for k, v in facts.items() if v != x and k != "owner"]
        if others:
            same_kind = [o for o in others if o.isdigit() == x.isdigit()]
            pick = (same_kind or others)[i % len(same_kind or others)]
            add(suite, row, f"{pick}.", False, "rag-other-fact-of-same-passage")
        add(suite, row, "The passage does not say.", False, "rag-false-abstain")


def needle_cases() -> None:
    for suite, row in rows_of("needle"):
        x = row["answer"]
        m = re.search(rf"The vault code for box (\d+) is {x}", row["text"])
        box = m.group(1) if m else "1"
        add(suite, row, f"Box {box} -> {x}", True, "needle-arrow")
        add(suite, row, f"The vault code is `{x}`.", True, "needle-code-span")
        add(suite, row, f"The vault code is `{x[1:] + x[0]}`.", False, "needle-digits-rotated")
        add(
            suite,
            row,
            f"<think>\nThe note about box {box} is the one.\n</think>\n\nThe code is {x[:2]}{x[3]}{x[2]}.",
            False,
            "needle-last-two-digits-swapped-after-trace",
        )


# ---------------------------------------------------------------- token integrity


def run_lines(n: int, word: str) -> list[str]:
    return [f"{k}. {word}" for k in range(1, n + 1)]


def token_integrity_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("token_integrity")):
        n, word = row["score_args"]["lines"], row["score_args"]["word"]
        lines = run_lines(n, word)
        k = 7 + (i * 37) % (n - 10)
        add(suite, row, "\n".join(lines), True, "integrity-clean-run")
        add(suite, row, "\n".join(lines) + "\n", True, "integrity-clean-run-final-newline")
        add(suite, row, "\r\n".join(lines), True, "integrity-clean-windows-line-endings-ambiguous-layout", True)
        if i % 2 == 1:
            add(suite, row, "Here are the lines:\n\n" + "\n".join(lines), True, "integrity-clean-with-preface-ambiguous-layout", True)
        else:
            add(suite, row, "\n".join(lines[: n - 3]), True, "integrity-clean-cut-short-ambiguous-count", True)
        splices = [
            ("integrity-bpe-marker-before-word", lambda ln, word=word: ln.replace(f". {word}", f". Ġ{word}")),
            ("integrity-line-truncated-mid-word", lambda ln: ln[:-1]),
            ("integrity-word-split-by-space", lambda ln, word=word: ln.replace(word, word[0] + " " + word[1:])),
            ("integrity-eos-token-inside-line", lambda ln: ln + "</s>"),
            ("integrity-cyrillic-letter-in-word", lambda ln: ln.replace("o", "о", 1) if "o" in ln else ln + "о"),
            ("integrity-soft-hyphen-in-word", lambda ln, word=word: ln.replace(word, word[0] + "\u00ad" + word[1:])),
        ]
        for j in (i % len(splices), (i + 2) % len(splices)):
            style, fn = splices[j]
            bad = list(lines)
            bad[k] = fn(bad[k])
            if bad[k] == lines[k]:
                continue
            add(suite, row, "\n".join(bad), False, style)
        glued = list(lines)
        glued[k : k + 2] = [glued[k] + glued[k + 1]]
        if i % 2 == 0:
            add(suite, row, "\n".join(glued), False, "integrity-two-lines-glued")


# ---------------------------------------------------------------- tool calls


def call(name: str, args: dict) -> dict:
    """A tool call as servers that emit compact JSON arguments send it."""
    return {"function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False, separators=(",", ":"))}}


def full_call(name: str, args: dict, k: int) -> dict:
    """The whole OpenAI shape, id and type included, arguments with spaces."""
    return {"id": f"call_{k:04d}", "type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}


GUESSED_NAMES = {"city": "location", "seconds": "duration", "amount": "value", "from": "from_currency", "to": "to_currency", "doc_id": "id"}


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


def tool_cases() -> None:
    for i, (suite, row) in enumerate(rows_of("tool_call")):
        exp = row["expected"]
        if exp.get("clarify"):
            t = row["text"]
            kind = "weather" if re.search(r"weather", t) else "money" if re.search(r"money|Convert", t) else "timer"
            italian = {
                "weather": "Certo! Per quale città vuoi sapere il meteo?",
                "money": "Certo! Quanto vuoi convertire, e da quale valuta a quale?" if "50" not in t else "Certo! 50 in quale valuta, e in quale la converto?",
                "timer": "Certo! Per quanto tempo imposto il timer?",
            }[kind]
            options = {
                "weather": "Happy to check. Do you mean where you are now, or another place? Just tell me the city.",
                "money": "I can do that. Which currency are you starting from, and into which one?"
                if "50" in t
                else "I can do that. How much is it, and in which currency? Is it going into euros?",
                "timer": "Sure. How long should it run: a few minutes, or a set number of seconds?",
            }[kind]
            add(suite, row, italian, True, "tool-clarify-italian")
            add(suite, row, options, True, "tool-clarify-offers-options")
            if "weather" in t:
                guess = call("get_weather", {"city": "London"})
            elif "money" in t or "Convert" in t:
                guess = call("convert_currency", {"amount": 50 if "50" in t else 100, "from": "USD", "to": "EUR"})
            else:
                guess = call("set_timer", {"seconds": 300})
            add(suite, row, "", False, "tool-clarify-row-guessed-arguments", tool_calls=[guess])
            continue
        name, args = exp["name"], exp["arguments"]
        rev = dict(reversed(list(args.items())))
        add(suite, row, "", True, "tool-arguments-in-reverse-order" if len(args) > 1 else "tool-arguments-compact-json", tool_calls=[call(name, rev)])
        add(suite, row, "On it, one moment.", True, "tool-short-preamble-then-call", tool_calls=[call(name, args)])
        add(suite, row, "", True, "tool-call-full-openai-shape", tool_calls=[full_call(name, args, i)])
        guessed = {GUESSED_NAMES.get(k, k) if k != "amount" else k: v for k, v in args.items()}
        add(suite, row, "", False, "tool-argument-names-guessed", tool_calls=[full_call(name, guessed, i)])
        t = row["text"]
        made_up = {
            "set_timer": f"Done! ⏰ Your timer is set for {args.get('seconds')} seconds.",
            "convert_currency": f"{args.get('amount')} {args.get('from')} is about {round(args.get('amount', 1) * (150 if args.get('to') == 'JPY' else 0.92), 2)} {args.get('to')} at today's rate.",
            "get_weather": f"It's currently sunny and about 24 °C in {args.get('city')}.",
            "open_doc": f"Here's document {args.get('doc_id')} — it's the one you asked for.",
        }[name]
        add(suite, row, made_up, False, "tool-answered-in-text-without-calling")
        if name == "set_timer":
            if "tea" in t:
                add(suite, row, "", True, "tool-timer-label-from-prompt", tool_calls=[call(name, dict(args, label="tea"))])
                mins = int(re.search(r"(\d+) minutes", t).group(1))
                add(suite, row, "", False, "tool-minutes-passed-as-seconds", tool_calls=[call(name, {"seconds": mins})])
        elif name == "convert_currency":
            add(suite, row, "", False, "tool-from-and-to-swapped", tool_calls=[call(name, dict(args, **{"from": args["to"], "to": args["from"]}))])
            if args["to"] == "JPY":
                add(suite, row, "", False, "tool-country-code-for-currency", tool_calls=[call(name, dict(args, to="JPN"))])
        elif name == "get_weather":
            city = args["city"]
            if city in COUNTRY:
                add(suite, row, "", False, "tool-country-for-city", tool_calls=[call(name, {"city": COUNTRY[city]})])
            old = re.search(r"not (\w+)", t)
            if old:
                add(suite, row, "", False, "tool-revise-row-old-city", tool_calls=[call(name, {"city": old.group(1)})])
                add(suite, row, "Vale, lo miro para " + city + ".", True, "tool-revise-spanish-ack", tool_calls=[call(name, args)])
            elif i % 2 == 0:
                add(suite, row, "", True, "tool-weather-unit-celsius-extra-ambiguous", True, tool_calls=[call(name, dict(args, unit="celsius"))])
        elif name == "open_doc":
            add(suite, row, "", False, "tool-chain-row-search-repeated", tool_calls=[call("search_docs", {"query": re.search(r"about (\w+)", t).group(1)})])
            add(suite, row, "", False, "tool-chain-result-position-as-id", tool_calls=[call(name, {"doc_id": 0})])


# ---------------------------------------------------------------- code

CODE = {
    "add": (
        [
            ("code-class-static-method", "class Calc:\n    @staticmethod\n    def add(a, b):\n        return a + b\n\n\nadd = Calc.add"),
            ("code-reduce-over-pair", "from functools import reduce\nimport operator\n\n\ndef add(a, b):\n    return reduce(operator.add, (a, b))"),
        ],
        [("code-add-int-cast-drops-floats", "def add(a, b):\n    return int(a) + int(b)")],
    ),
    "is_even": (
        [
            (
                "code-bitmask-with-hints",
                'def is_even(n: int) -> bool:\n    """Return True for even n.\n\n    >>> is_even(4)\n    True\n    """\n    return (n & 1) == 0',
            ),
            ("code-divmod-remainder", "def is_even(n):\n    _, r = divmod(n, 2)\n    return r == 0"),
        ],
        [("code-is-even-returns-remainder", "def is_even(n):\n    return n % 2"), ("code-is-even-inverted", "def is_even(n):\n    return n % 2 == 1")],
    ),
    "reverse_string": (
        [
            ("code-join-reversed", "def reverse_string(s):\n    return ''.join(reversed(s))"),
            (
                "code-recursive-halves-reverse",
                "def reverse_string(s):\n    if len(s) <= 1:\n        return s\n    mid = len(s) // 2\n    return reverse_string(s[mid:]) + reverse_string(s[:mid])",
            ),
        ],
        [("code-reverse-words-not-chars", "def reverse_string(s):\n    return ' '.join(s.split(' ')[::-1])")],
    ),
    "maximum": (
        [
            ("code-reduce-max", "from functools import reduce\n\n\ndef maximum(xs):\n    return reduce(lambda a, b: a if a >= b else b, xs)"),
            (
                "code-while-index-max",
                "def maximum(xs):\n    best, i = xs[0], 1\n    while i < len(xs):\n        if xs[i] > best:\n            best = xs[i]\n        i += 1\n    return best",
            ),
        ],
        [("code-max-starts-at-zero", "def maximum(xs):\n    best = 0\n    for x in xs:\n        if x > best:\n            best = x\n    return best")],
    ),
    "count_vowels": (
        [
            ("code-generator-sum-vowels", "def count_vowels(s: str) -> int:\n    return sum(1 for ch in s if ch in 'aeiou')"),
            ("code-vowel-set-list-comprehension", "def count_vowels(s):\n    return len([c for c in s if c in set('aeiou')])"),
        ],
        [("code-vowels-distinct-only", "def count_vowels(s):\n    return len(set(s) & set('aeiou'))")],
    ),
    "factorial": (
        [
            ("code-while-loop-factorial", "def factorial(n):\n    result = 1\n    while n > 1:\n        result *= n\n        n -= 1\n    return result"),
            ("code-math-prod-range", "import math\n\n\ndef factorial(n):\n    return math.prod(range(1, n + 1))"),
        ],
        [
            ("code-factorial-base-returns-zero", "def factorial(n):\n    if n <= 1:\n        return 0 if n == 0 else 1\n    return n * factorial(n - 1)"),
            ("code-factorial-range-one-short", "def factorial(n):\n    out = 1\n    for k in range(1, n):\n        out *= k\n    return out"),
        ],
    ),
    "fizzbuzz": (
        [
            (
                "code-fizzbuzz-string-concat",
                "def fizzbuzz(n):\n    out = ('Fizz' if n % 3 == 0 else '') + ('Buzz' if n % 5 == 0 else '')\n    return out or str(n)",
            ),
            (
                "code-fizzbuzz-mod-15-first",
                "def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    elif n % 3 == 0:\n        return 'Fizz'\n    elif n % 5 == 0:\n        return 'Buzz'\n    return str(n)",
            ),
        ],
        [
            (
                "code-fizzbuzz-order-swapped",
                "def fizzbuzz(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)",
            )
        ],
    ),
    "square_all": (
        [
            ("code-map-lambda-square", "def square_all(xs):\n    return list(map(lambda x: x * x, xs))"),
            ("code-lambda-assigned", "square_all = lambda xs: [x ** 2 for x in xs]"),
        ],
        [("code-square-all-doubles", "def square_all(xs):\n    return [x * 2 for x in xs]")],
    ),
    "is_palindrome": (
        [
            (
                "code-palindrome-two-pointers",
                "def is_palindrome(s):\n    i, j = 0, len(s) - 1\n    while i < j:\n        if s[i] != s[j]:\n            return False\n        i += 1\n        j -= 1\n    return True",
            ),
            ("code-palindrome-reversed-join", "def is_palindrome(s: str) -> bool:\n    return s == ''.join(reversed(s))"),
        ],
        [("code-palindrome-first-last-only", "def is_palindrome(s):\n    return s[:1] == s[-1:]")],
    ),
    "sum_digits": (
        [
            (
                "code-sum-digits-divmod-loop",
                "def sum_digits(n):\n    total = 0\n    while n:\n        n, d = divmod(n, 10)\n        total += d\n    return total",
            ),
            ("code-sum-digits-map-int", "def sum_digits(n):\n    return sum(map(int, str(n)))"),
        ],
        [
            (
                "code-sum-digits-stops-before-last",
                "def sum_digits(n):\n    total = 0\n    while n >= 10:\n        total += n % 10\n        n //= 10\n    return total",
            )
        ],
    ),
    "first_word": (
        [
            ("code-first-word-partition-ambiguous-leading-space", "def first_word(s):\n    return s.partition(' ')[0]"),
            ("code-first-word-split-maxsplit", "def first_word(s):\n    return s.split(maxsplit=1)[0]"),
        ],
        [("code-first-word-last-instead", "def first_word(s):\n    return s.split()[-1]")],
    ),
    "celsius_to_f": (
        [
            (
                "code-celsius-nine-fifths",
                'def celsius_to_f(c: float) -> float:\n    """Fahrenheit from Celsius, e.g. celsius_to_f(100) gives 212."""\n    return c * 9 / 5 + 32',
            ),
            ("code-celsius-times-1-8", "def celsius_to_f(c):\n    return c * 1.8 + 32"),
        ],
        [
            ("code-celsius-integer-division", "def celsius_to_f(c):\n    return c * 9 // 5 + 32"),
            ("code-celsius-plus-before-times", "def celsius_to_f(c):\n    return (c + 32) * 9 / 5"),
        ],
    ),
    "sort_numbers": (
        [
            (
                "code-insertion-sort-copy",
                "def sort_numbers(xs):\n    out = []\n    for x in xs:\n        i = 0\n        while i < len(out) and out[i] <= x:\n            i += 1\n        out.insert(i, x)\n    return out",
            ),
            (
                "code-selection-sort-copy",
                "def sort_numbers(xs):\n    rest, out = list(xs), []\n    while rest:\n        low = rest[0]\n        for x in rest:\n            if x < low:\n                low = x\n        rest.remove(low)\n        out.append(low)\n    return out",
            ),
        ],
        [
            (
                "code-sort-one-bubble-pass",
                "def sort_numbers(xs):\n    out = list(xs)\n    for i in range(len(out) - 1):\n        if out[i] > out[i + 1]:\n            out[i], out[i + 1] = out[i + 1], out[i]\n    return out",
            )
        ],
    ),
    "word_counts": (
        [
            (
                "code-word-counts-get",
                "def word_counts(s):\n    counts = {}\n    for w in s.split():\n        counts[w] = counts.get(w, 0) + 1\n    return counts",
            )
        ],
        [
            (
                "code-word-counts-split-space",
                "def word_counts(s):\n    counts = {}\n    for w in s.split(' '):\n        if w:\n            counts[w] = counts.get(w, 0) + 1\n    return counts",
            ),
            (
                "code-word-counts-lowercased",
                "def word_counts(s):\n    counts = {}\n    for w in s.lower().split():\n        counts[w] = counts.get(w, 0) + 1\n    return counts",
            ),
        ],
    ),
    "distinct": (
        [
            ("code-distinct-dict-fromkeys-ambiguous-unhashable-items", "def distinct(xs):\n    return list(dict.fromkeys(xs))"),
            (
                "code-distinct-seen-list",
                "def distinct(xs):\n    out = []\n    for x in xs:\n        if x not in out:\n            out.append(x)\n    return out",
            ),
        ],
        [("code-distinct-drops-repeated-entirely", "def distinct(xs):\n    return [x for x in xs if xs.count(x) == 1]")],
    ),
}
FRAMES = [
    ("fenced", lambda c: f"```python\n{c}\n```"),
    ("chatty", lambda c: f"Here's a clean way to do it:\n\n```python\n{c}\n```\n\nIt handles the usual cases; let me know if you need tests."),
    ("think", lambda c: f"<think>\nStraightforward; write it and check a couple of inputs mentally.\n</think>\n\n```python\n{c}\n```"),
]


def passes(code: str, tests: str) -> bool:
    env: dict = {}
    try:
        exec(code, env)
        exec(tests, env)
    except Exception:
        return False
    return True


def code_cases() -> None:
    v2_tests = {re.search(r"def (\w+)", r["text"]).group(1): r["score_args"]["tests"] for r in ROWS["eval-code-v2"]}
    for i, (suite, row) in enumerate(rows_of("code_exec")):
        fn = re.search(r"def (\w+)", row["text"]).group(1)
        rights, wrongs = CODE[fn]
        tests = v2_tests[fn]
        for j, (style, code) in enumerate(rights):
            assert passes(code, tests), (fn, style)
            frame, wrap = FRAMES[(i + j) % len(FRAMES)]
            # right on every input the prompt covers; "-ambiguous-" ones break only on inputs it leaves open
            add(suite, row, wrap(code), True, f"{style}-{frame}", "-ambiguous-" in style)
        for j, (style, code) in enumerate(wrongs):
            assert not passes(code, tests), (fn, style)
            frame, wrap = FRAMES[(i + j + 1) % len(FRAMES)]
            forbidden = "set(" in code and "without using set()" in row["text"]
            add(suite, row, wrap(code), False, f"{style}-{frame}" + ("-forbidden-call" if forbidden else ""))


# ---------------------------------------------------------------- instructions

TOPICS = [
    "the first day at a new job",
    "a bicycle trip",
    "a city at night",
    "learning to cook",
    "gardening",
    "libraries",
    "mountains",
    "autumn",
    "coffee",
    "rain",
    "the sea",
    "trains",
]
BODY = [
    "There is something about {t} that changes how a whole day feels.",
    "Most people notice {t} only when they stop and pay attention.",
    "There is always something new to learn about {t}.",
    "A slow hour spent with {t} can clear a busy mind.",
    "Friends often share their own stories about {t}.",
    "Tiny details make {t} worth a second look.",
    "Each season brings a different side of {t} into view.",
    "It is easy to overlook what {t} adds to our routines.",
    "Writers have returned to {t} again and again for ideas.",
    "Even a short moment with {t} can stay with you for years.",
    "Some of my calmest memories are tied to {t}.",
    "Nobody needs special skills to enjoy {t}.",
    "Talking about {t} with a neighbor can start a long conversation.",
    "Photos rarely capture what {t} feels like in person.",
]
SHORT = "{T}: calm moments and tiny surprises."
OPENERS = {
    "Today": "Today I kept thinking about {t}.",
    "Honestly": "Honestly {t} deserves more attention than it gets.",
    "Yesterday": "Yesterday I spent an hour thinking about {t}.",
    "Imagine": "Imagine {t} on a quiet morning.",
}
CONTAINS = {
    "quiet": ("The quiet moments are the ones I remember.", "The calm moments are the ones I remember."),
    "blue": ("Everything looked blue in the early hours.", "Everything looked grey in the early hours."),
    "river": ("A river nearby adds its own soft sound.", "A stream nearby adds its own soft sound."),
    "garden": ("A small garden of thoughts grows from it.", "A little patch of thoughts grows from it."),
    "bridge": ("It works like a bridge between busy days.", "It works like a link between busy days."),
    "morning": ("Every morning feels a bit different because of it.", "Every dawn feels a bit different because of it."),
    "lantern": ("I picture a lantern glowing at the window.", "I picture a lamp glowing at the window."),
}
KEYWORD = {
    "light": ["Soft light falls across the room.", "The light changes everything.", "Morning light makes it feel new.", "Even dim light helps."],
    "small": ["Small moments matter most.", "A small detail can shift the mood.", "Even a small step counts.", "Small pleasures add up."],
    "time": ["Time moves slower here.", "Take your time with it.", "There is always time for one more look.", "Time well spent stays with you."],
    "path": ["The path winds on ahead.", "Every path starts somewhere.", "Follow the path you like.", "A narrow path leads on."],
}
FORBIDDEN_IN = {
    "really": "It is really easy to overlook what {t} adds to our routines.",
    "very": "It is very easy to overlook what {t} adds to our routines.",
    "nice": "A slow hour spent with {t} is nice and can clear a busy mind.",
    "good": "A slow hour spent with {t} is good for a busy mind.",
    "beautiful": "A slow hour spent with {t} is a beautiful way to clear a busy mind.",
}
PLACEHOLDER_SENTENCE = ["Ask [name]", "to meet you at [place]", "on [date]", "at [time]"]


def topic_of(prompt: str) -> str:
    return next(t for t in TOPICS if t in prompt)


def wcount(text: str) -> int:
    return len([w for w in text.split() if re.search(r"[A-Za-z0-9]", w)])


def scount(text: str) -> int:
    body = re.sub(r"<<[^<>]*>>", "", text)
    body = re.sub(r"^SECTION \d+$", "", body, flags=re.M)
    return len([s for s in re.findall(r"[^.!?]+[.!?]+", body) if re.search(r"[A-Za-z]", s)])


def holds(rule: str, value, text: str) -> bool:
    """The author's own reading of one rule, used only to keep the constructed verdicts honest."""
    body = text.strip()
    if rule == "max_words":
        return wcount(body) <= value - 2
    if rule == "min_words":
        return wcount(body) >= value + 2
    if rule == "sentence_count":
        return scount(body) == value
    if rule == "no_commas":
        return "," not in body
    if rule == "uppercase":
        return body == body.upper()
    if rule == "lowercase":
        return body == body.lower()
    if rule == "language_ascii":
        return body.isascii()
    if rule == "not_contains":
        return re.search(rf"\b{value}\b", body, re.I) is None
    if rule == "contains":
        return re.search(rf"\b{value}\b", body, re.I) is not None
    if rule == "keyword_count":
        return len(re.findall(rf"\b{value['word']}\b", body, re.I)) >= value["min"]
    if rule == "starts_with":
        return re.match(rf"\"?{value}\b", body, re.I) is not None
    if rule == "ends_with":
        return body.rstrip('"').lower().endswith(value.lower()) or body.rstrip('"').lower().endswith(value.lower() + ".")
    if rule == "postscript":
        return re.search(r"\n\nP\.S\. [^\n]+\"?$", body, re.I) is not None
    if rule == "bullet_count":
        lines = [ln for ln in body.splitlines() if ln.strip() and not ln.startswith("<<")]
        return len(lines) == value and all(ln.startswith("- ") for ln in lines)
    if rule == "highlight_count":
        return len(re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", body)) >= value
    if rule == "placeholder_count":
        return len(re.findall(r"\[[^\]\n]+\]", body)) >= value
    if rule == "section_count":
        return len(re.findall(rf"^{value['marker']} \d+$", body, re.M)) == value["count"] and body.startswith(value["marker"] + " 1")
    if rule == "paragraph_count":
        return len([p for p in re.split(r"\n\s*\n", body) if p.strip()]) == value
    if rule == "title":
        return re.match(r"\"?<<[^<>\n]+>>", body) is not None
    if rule == "quotation":
        return body.startswith('"') and body.endswith('"') and body.count('"') == 2
    if rule in ("json", "json_keys"):
        try:
            obj = json.loads(body)
        except ValueError:
            return False
        return isinstance(obj, dict) and (rule == "json" or sorted(obj) == sorted(value))
    raise ValueError(rule)


def graded(row: dict) -> dict:
    """The row's rules plus what its prompt asks for that the rules leave out; a careful grader holds the answer to both."""
    rules = {r["rule"]: r.get("value", True) for r in row["score_args"]["rules"]}
    asked = re.search(r"\b(a|one|two|three|four) sentences?\b", row["text"], re.I)
    if asked and "sentence_count" not in rules and "title" not in row["text"]:
        rules["sentence_count"] = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}[asked.group(1).lower()]
    keys = re.findall(r"'(\w+)'", row["text"])
    if "json" in rules and "json_keys" not in rules and len(keys) >= 2:
        rules["json_keys"] = keys[:2]
    return rules


def body_sentences(t: str, n: int, skip: int = 0) -> list[str]:
    T = t[0].upper() + t[1:]
    return [BODY[(skip + k) % len(BODY)].format(t=t, T=T) for k in range(n)]


def compose(row: dict, rules: dict, layout: str, short_of_min: bool = False) -> str:
    """An answer meant to keep every rule, in a layout ('prose', 'lines' or 'note')."""
    prompt = row["text"]
    t = topic_of(prompt)
    T = t[0].upper() + t[1:]
    if "json_keys" in rules:
        keys = rules["json_keys"]
        vals = {
            "topic": t,
            "mood": "calm",
            "title": f"Notes on {t}",
            "summary": f"A short look at what makes {t} worth noticing.",
            "name": t,
            "reason": f"People return to {t} for the calm it brings.",
        }
        obj = {k: vals.get(k, f"{k} of {t}") for k in keys}
        if layout == "prose":
            return json.dumps(dict(reversed(list(obj.items()))), indent=2)
        return json.dumps(obj, separators=(", ", ": "))
    if "title" in prompt and "uppercase" in rules and "max_words" in rules and "sentence" not in prompt:
        return ["WHAT {} REMEMBERS", "NOTES ON {} AFTER DARK", "A LONG STORY OF {}"][len(layout) % 3].format(t.upper())
    seed = sum(map(ord, row["id"])) % len(BODY)
    extras: list[str] = []
    if "contains" in rules:
        extras.append(CONTAINS[rules["contains"]][0])
    if "keyword_count" in rules:
        extras += KEYWORD[rules["keyword_count"]["word"]][: rules["keyword_count"]["min"]]
    if "placeholder_count" in rules:
        extras.append(" ".join(PLACEHOLDER_SENTENCE[: rules["placeholder_count"]]) + ".")
    opener = OPENERS[rules["starts_with"]].format(t=t) if "starts_with" in rules else None
    closer = None
    if "ends_with" in rules:
        end = rules["ends_with"]
        closer = f"My thoughts on {t} are finally {end}." if end == "done" else end
    # how many sentences
    if "bullet_count" in rules:
        units = rules["bullet_count"]
    elif "section_count" in rules:
        units = rules["section_count"]["count"] * 2
    elif "paragraph_count" in rules:
        units = rules["paragraph_count"] * 2
    elif "sentence_count" in rules:
        units = rules["sentence_count"]
    elif "max_words" in rules and rules["max_words"] <= 12:
        units = 1
    else:
        units = 4
    fixed = [s for s in (opener, closer) if s] + extras
    n_body = max(units - len(fixed), 0)
    if "sentence_count" not in rules and "bullet_count" not in rules and "min_words" in rules:
        target = rules["min_words"] + (-6 if short_of_min else 6)
        while wcount(" ".join(fixed + body_sentences(t, n_body, seed))) < target:
            n_body += 1
        if short_of_min:
            n_body = max(n_body - 1, 0)
    if "max_words" in rules and rules["max_words"] <= 12 and not fixed:
        sents = [SHORT.format(T=T)]
    else:
        sents = body_sentences(t, n_body, seed)
    if "not_contains" in rules and rules["not_contains"] == "very" and layout == "lines":
        sents = [s.replace("Each season", "Every season") for s in sents]
    middle = extras + sents
    ordered = ([opener] if opener else []) + middle + ([closer] if closer else [])
    if "highlight_count" in rules:
        k = 0
        for j, s in enumerate(ordered):
            if s in (opener, closer) or k >= rules["highlight_count"]:
                continue
            ordered[j] = "*" + s[:-1] + "*" + s[-1]
            k += 1
    if "bullet_count" in rules:
        text = "\n".join("- " + s for s in ordered)
    elif "section_count" in rules:
        c = rules["section_count"]["count"]
        per = max(len(ordered) // c, 1)
        chunks = [ordered[j * per : (j + 1) * per] if j < c - 1 else ordered[j * per :] for j in range(c)]
        text = "\n\n".join(f"SECTION {j + 1}\n" + " ".join(ch) for j, ch in enumerate(chunks))
    elif "paragraph_count" in rules:
        c = rules["paragraph_count"]
        per = max(len(ordered) // c, 1)
        chunks = [ordered[j * per : (j + 1) * per] if j < c - 1 else ordered[j * per :] for j in range(c)]
        text = "\n\n".join(" ".join(ch) for ch in chunks)
    elif layout == "lines":
        text = "\n".join(ordered)
    elif layout == "note":
        text = "Hi Sam\n\n" + " ".join(ordered) + "\n\nTake care\nLee"
    elif layout == "paras" and len(ordered) >= 4:
        half = len(ordered) // 2
        text = " ".join(ordered[:half]) + "\n\n" + " ".join(ordered[half:])
    else:
        text = " ".join(ordered)
    if "title" in rules:
        text = f"<<Thoughts on {t}>>\n\n" + text
    if "postscript" in rules:
        text += f"\n\nP.S. I will tell you more about {t} soon."
    if "uppercase" in rules:
        text = text.upper()
    if "lowercase" in rules:
        text = text.lower()
    if "quotation" in rules:
        text = f'"{text}"'
    return text


def resolve_layout(row: dict, rules: dict, wanted: str) -> str:
    """The layout a model would pick for this prompt: lines for poems, a note for emails and notes, else paragraphs."""
    prompt = row["text"]
    if wanted == "lines" and "poem" not in prompt:
        wanted = "paras"
    if wanted == "note":
        fits = not any(
            k in rules for k in ("starts_with", "ends_with", "quotation", "sentence_count", "bullet_count", "section_count", "paragraph_count", "json")
        )
        if not (fits and re.search(r"\b(email|note)\b", prompt) and rules.get("max_words", 99) >= 40):
            wanted = "paras"
    if wanted == "paras" and any(k in rules for k in ("paragraph_count", "bullet_count", "section_count", "sentence_count", "max_words")):
        wanted = "prose"
    return wanted


def case_rule_ambiguous(rules: dict) -> bool:
    return ("uppercase" in rules or "lowercase" in rules) and any(k in rules for k in ("placeholder_count", "title", "postscript"))


ASIDES = [
    "Worth every minute, I promise you.",
    "Honestly, it is worth every single minute you give it.",
    "I could watch it for hours and never get bored of it, not even once.",
    "Everyone should try it at least once, ideally on a slow weekend with nothing else planned.",
    "That is the part people tend to remember long after the day is over, and it is the part I come back to most.",
]


RENAMED = {"mood": "feeling", "topic": "subject", "title": "heading", "summary": "description", "name": "title", "reason": "why"}


def add_closing(text: str, sentence: str) -> str:
    """A sentence added at the end of the body: before a note's sign-off or P.S., inside the quotation marks."""
    for tail in ("\n\nTake care", "\n\nP.S.", "\n\nTAKE CARE", "\n\nP.S.".lower(), "\n\ntake care"):
        if tail in text:
            at = text.index(tail)
            return text[:at] + " " + sentence + text[at:]
    if text.endswith('"'):
        return text[:-1] + " " + sentence + '"'
    return text + " " + sentence


def breaks(rule: str, value, text: str, t: str) -> tuple[str, str] | None:
    """(style, text) breaking one rule the way a model slips on it."""
    T = t[0].upper() + t[1:]
    if rule == "max_words":
        fits = [a for a in ASIDES if wcount(text) + wcount(a) >= value + 3]
        aside = min(fits, key=wcount) if fits else " ".join(ASIDES)
        return "instr-closing-aside-past-word-limit", add_closing(text, aside)
    if rule == "sentence_count":
        return "instr-follow-up-question-as-extra-sentence", add_closing(text, "Want another one?")
    if rule == "no_commas":
        return "instr-comma-in-a-list", text.replace(f" {t}", f" {t}, tea and a good book" if "good" not in text else f" {t}, tea and a book", 1)
    if rule == "lowercase":
        return "instr-proper-noun-capitalised", text.replace(f" {t}", f" {t} in London", 1)
    if rule == "uppercase":
        last = text.rstrip('."')
        return "instr-unit-lower-case-in-capitals", text.replace(last, last + " AT 9 pm", 1)
    if rule == "language_ascii":
        return "instr-curly-quotes-around-topic", text.replace(f" {t}", f" \u201c{t}\u201d", 1)
    if rule == "not_contains":
        source = "It is easy to overlook what {t} adds to our routines." if value in ("really", "very") else "A slow hour spent with {t} can clear a busy mind."
        for cased in (str, str.upper, str.lower):
            old, new = cased(source.format(t=t)), cased(FORBIDDEN_IN[value].format(t=t))
            if old in text:
                return "instr-forbidden-word-slipped-into-a-sentence", text.replace(old, new, 1)
        closing = f"It is {value} worth it." if value in ("really", "very") else f"It is all so {value}."
        return "instr-forbidden-word-in-closing-line", add_closing(text, closing)
    if rule == "contains":
        a, b = CONTAINS[value]
        for x, y in ((a, b), (a.upper(), b.upper()), (a.lower(), b.lower())):
            if x in text:
                return "instr-required-word-swapped-for-synonym", text.replace(x, y)
        return None
    if rule == "keyword_count":
        first = KEYWORD[value["word"]][0]
        for x in (first, first.upper(), first.lower()):
            if x in text:
                return "instr-keyword-once-short", text.replace(
                    x, "It all feels calm." if x == first else ("IT ALL FEELS CALM." if x.isupper() else "it all feels calm.")
                )
        return None
    if rule == "starts_with":
        return "instr-markdown-heading-before-required-word", f"## {T}\n\n" + text
    if rule == "ends_with":
        return "instr-sign-off-after-required-ending", text.rstrip('"') + "\n\n- Lee" + ('"' if text.endswith('"') else "")
    if rule == "postscript":
        return "instr-postscript-forgotten", re.sub(r"\n\nP\.S\. [^\n]*$", "", text, flags=re.I)
    if rule == "bullet_count":
        at = text.rfind("\n- ")
        return ("instr-one-bullet-with-dot-marker", text[: at + 1] + "• " + text[at + 3 :]) if at >= 0 else None
    if rule == "highlight_count":
        m = re.search(r"\*([^*\n]+)\*", text)
        return ("instr-one-highlight-left-plain", text[: m.start()] + m.group(1) + text[m.end() :]) if m else None
    if rule == "placeholder_count":
        return "instr-placeholder-in-round-brackets", text.replace("[place]", "(place)").replace("[PLACE]", "(PLACE)")
    if rule == "section_count":
        last = text.rfind("\n\nSECTION ")
        return ("instr-last-section-dropped", text[:last]) if last > 0 else None
    if rule == "paragraph_count":
        return "instr-greeting-line-as-extra-paragraph", "Hi Sam\n\n" + text
    if rule == "title":
        return "instr-title-in-single-angle-brackets", re.sub(r"<<([^<>]+)>>", r"<\1>", text, count=1)
    if rule == "quotation":
        body = text[1:-1]
        cut = body.rfind(". ") + 1
        return ("instr-closing-quote-before-last-sentence", '"' + body[:cut] + '"' + body[cut:]) if cut > 0 else None
    if rule in ("json", "json_keys"):
        obj = json.loads(text)
        keys = list(obj)
        if rule == "json_keys":
            return "instr-json-key-renamed", json.dumps({RENAMED.get(k, k + "_text"): v for k, v in obj.items()}) if len(keys) > 1 else None
        pretty = json.dumps(obj, indent=2)
        return "instr-json-cut-before-closing-brace", pretty[: pretty.rfind("\n")]
    return None


def instruction_cases() -> None:
    skipped = 0
    n = 0
    for suite, row in rows_of("instruction"):
        rules = graded(row)
        t = topic_of(row["text"])
        amb = case_rule_ambiguous(rules) or ("sentence_count" in rules and "postscript" in rules)
        why = "-ambiguous-case-rule-on-markers" if case_rule_ambiguous(rules) else ("-ambiguous-ps-in-sentence-count" if amb else "")
        layouts = ["prose", "lines", "note"]
        right_layouts = [layouts[n % 3]] + ([layouts[(n + 1) % 3]] if n % 3 == 0 else [])
        for wanted in right_layouts:
            layout = resolve_layout(row, rules, wanted)
            text = compose(row, rules, layout)
            if all(holds(r, v, text) for r, v in rules.items()):
                shape = ("json-pretty-keys-reversed" if layout == "prose" else "json-one-line") if "json_keys" in rules else layout
                add(suite, row, text, True, f"instr-all-rules-{shape}" + why, amb)
            else:
                skipped += 1
        base_layout = resolve_layout(row, rules, layouts[(n + 2) % 3])
        base = compose(row, rules, base_layout)
        if not all(holds(r, v, base) for r, v in rules.items()):
            skipped += 1
            n += 1
            continue
        order = list(rules)
        done = 0
        for j in range(len(order)):
            target = order[(n + n // 8 + j) % len(order)]
            if target == "min_words":
                bad = compose(row, rules, base_layout, short_of_min=True)
                got = ("instr-answer-cut-short-of-minimum", bad) if wcount(bad) <= rules["min_words"] - 3 else None
            elif target == "json" and "json_keys" in rules:
                got = breaks("json", True, base, t)
            else:
                got = breaks(target, rules[target], base, t)
            if not got or got[1] == base:
                continue
            style, bad = got
            clear = not holds(target, rules[target], bad) and (target != "max_words" or wcount(bad) >= rules["max_words"] + 3)
            others = all(holds(r, v, bad) for r, v in rules.items() if r != target and not (target == "json" and r == "json_keys"))
            if clear and others:
                add(suite, row, bad, False, style + why, amb)
                done += 1
                if done >= (2 if n % 4 == 0 else 1):
                    break
        n += 1
    print(f"instruction cases skipped: {skipped}")


# ---------------------------------------------------------------- output


def case_key(case: dict) -> tuple[str, str, str]:
    return case["row_id"], case["text"], json.dumps(case.get("tool_calls"), sort_keys=True)


def drop_cases_earlier_sets_hold() -> None:
    """A case an earlier held-out set already has teaches nothing new: drop it (and our own repeats)."""
    held: set[tuple[str, str, str]] = set()
    for name in EARLIER:
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


TARGET = {"numeric": 190, "mc": 145, "exact": 100, "token_integrity": 80, "abstain": 70, "json": 62, "tool_call": 150}
TARGET_INSTRUCTION_V1 = 160


def thin() -> None:
    """Keep the set near 1,200 cases: a fixed pseudo-random share of each large family, every row still in reach."""

    def rank(case: dict) -> str:
        return hashlib.sha256(f"{case['row_id']}|{case['style']}|{case['text']}".encode()).hexdigest()

    keep: set[int] = set()
    groups: dict[str, list[int]] = {}
    for k, case in enumerate(CASES):
        if case["suite"] in ("eval-multilingual-v1", "eval-vision-v1"):
            continue  # small suites keep every case
        group = "instruction-v1" if case["suite"] == "eval-instruction-v1" else case["scorer"]
        groups.setdefault(group, []).append(k)
    for group, idx in groups.items():
        limit = TARGET_INSTRUCTION_V1 if group == "instruction-v1" else TARGET.get(group, len(idx))
        keep.update(sorted(idx, key=lambda k: rank(CASES[k]))[:limit])
    CASES[:] = [c for k, c in enumerate(CASES) if k in keep or c["suite"] in ("eval-multilingual-v1", "eval-vision-v1")]


def main() -> None:
    load()
    numeric_cases()
    multilingual_numeric_cases()
    vision_numeric_cases()
    use_result_cases()
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
    thin()
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    right = sum(c["verdict"] for c in CASES)
    amb = sum(c["ambiguous"] for c in CASES)
    print(f"wrote {len(CASES)} cases over {len({c['row_id'] for c in CASES})} rows to {OUT.relative_to(ROOT)} ({right} right, {amb} ambiguous)")


if __name__ == "__main__":
    main()
