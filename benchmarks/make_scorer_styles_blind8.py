"""Build benchmarks/scorer_styles_blind8.jsonl: an eighth held-out set of answer styles (issue 33).

How this set was made, and the blindness rules its author kept:
- The author read only the eval datasets (src/servescope/data/datasets/eval-*.jsonl:
  prompt text, answer/expected, score_args, tools, messages), the seed text that
  says what the suites are for (/work/shared/seeds/), and the seven earlier
  generators (benchmarks/make_scorer_styles_blind.py ... make_scorer_styles_blind7.py)
  with their .jsonl output: for the line format, and to avoid their templates.
  The author never opened src/servescope/scoring/, tests/scoring/,
  benchmarks/scorer_styles.py, benchmarks/scorer_accuracy.py,
  benchmarks/scorer_blind_agreement.py, any scorer result under
  benchmarks/results/, benchmarks/docs/scorer*.md, docs/scored-suites*.md, or
  the git history of any of them, and never ran a scorer or a servescope eval
  on these cases.
- Every case is an answer a real instruct model could give to THAT row's
  prompt, weighted toward the shapes today's chat models write: a short
  lead-in sentence, Markdown bold labels ("**Answer:** X"), a check line
  after the answer that carries other numbers, thousands separators, a
  "## Answer" heading, a reasoning paragraph that ends "So the answer is X.",
  a numbered list of steps, replies in the prompt's language. Wrong answers
  are the plausible slip for THAT question (an operand as the answer, a
  carry dropped, a day of the week one off, the tallest for the shortest, the
  next option down, a field of the passage that answers another question, a
  digit of the needle swapped), never exotic corruption.
- Verdicts are fixed here by construction, before anything is scored: the
  verdict a careful grader gives after reading the prompt, the expected answer
  and the row's rules. Genuinely disputable cases carry "ambiguous": true and
  say why in their style name; a case whose correctness hangs on a dataset's
  own mistake (a recomputed sum, weekday or height order that disagrees with
  the dataset) is ambiguous with "dataset-mistake" in its style.
- Long-generation rows (token_integrity) are graded as the seed defines them:
  token integrity, not correctness. A clean run that only misses the count or
  wraps itself in a code fence is ambiguous; any spliced, merged, garbled or
  truncated token is wrong.
- Code variants are checked by the script itself with plain Python against
  the assert lines of the code-v2 and code-v3 rows (not with any scorer):
  every right variant passes every code-v2 assert, every wrong one fails at
  least one; a right variant that only fails a code-v3 edge assert is marked
  ambiguous there (hidden edge case). The code-v1 rows get the same verdicts.
- Instruction texts are composed from rule-free sentences and checked by the
  author's own reading of each rule (in this file); a right text passes every
  rule, a wrong text breaks exactly one. Case rules together with placeholders,
  titles or a P.S. are ambiguous, as are sentence counts with a P.S.
- Every style name starts with "b8-" and no style name repeats an earlier
  set's; after generation every (row, text, tool_calls) triple an earlier set
  already holds is dropped. New shapes here: numbers as a "Let's see. <the
  question> ... So the answer is X." paragraph, a bold "**Answer:**" label with
  thousands separators, a "## Answer" heading, a numbered list of steps, an
  answer line followed by a check line naming the question's operands, a
  reading converted to Fahrenheit after it, a lead sentence and label in the
  prompt's language; wrong: the carry or borrow slip, a partial product, a
  sequence difference repeated once too often, the operand echoed, a first
  right value talked out of. Names: "It's X.", a bold name, "X -- that's the
  one.", an answer followed by "(Not to be confused with Y.)", "I considered
  X first, but settled on Y"; wrong: the plausible neighbour (largest city for
  the capital, the neighbouring planet, the false friend "library" for
  "libro", "mouses", "goed", the tallest for the shortest, a weekday one
  off). Letters: "(B)", "B) text", "The correct option is B, text.", a French,
  Spanish or German sentence before the label, "**B** -- text"; wrong: the next
  option in the same shapes, "It's between A and B; I'd say ... fits better";
  letter and text that disagree (ambiguous). RAG and abstentions: "Based on
  the passage, the answer is **X**.", a bare answer with a source note, the
  fixed phrase plus a summary of what the passage does say, "**Not stated.**",
  German "Ich weiss es nicht", "I'd rather not guess"; wrong: another field of
  the passage, a false "I'm not able to tell", revenue extrapolated from the
  staff count, the owner as the supplier's founder or the manager, a one-line
  invention or one after a hedge. Needles: a bold code sentence, "Found it in
  the text: X." with an aside; wrong: middle digits swapped, last digit
  dropped. JSON: four-space indent with keys reversed, a fenced one-liner;
  wrong: a trailing comma, a number off by one, the last key missing;
  ambiguous: a number as a string, a prose preface. Tool calls: a lead-in
  sentence with the call, pretty-printed arguments, arguments reordered,
  clarifying questions; wrong: minutes left unconverted, currencies swapped,
  the old city on a revise row, the search repeated on a chain row, the
  weather tool picked for a currency question, guessed arguments on a clarify
  row, "I'd call X but can't run tools"; ambiguous: an extra unit argument, an
  id as a string. Code: right as sum of a tuple with type hints and a
  docstring example, augmented assignment, bitwise not, early return, join of
  reversed, head/tail recursion, star unpacking, reduce, set literal,
  math.factorial, a mod-15 lookup, map with lambda, quicksort, repeated min,
  Counter, dict.get, maxsplit, an enumerate prefix test, with a trailing
  print line or a "Here's a compact version" frame; wrong on covered inputs:
  abs on operands, the odd test, words reversed, ends swapped only, second
  largest, last item skipped, y counted, u forgotten, range one short, 0! as
  0, FizzBuzz unreachable, an int returned, doubling, repeats dropped by a
  set, ends or halves compared, the last digit left out, digits counted, the
  last word, s.find on a one-word sentence, 32 added before scaling, 5/9,
  reversing, min first only, lower-casing, every count 1, sorted order.
  Long generations: the clean run after a leading newline or with a trailing
  blank line; spliced: "<|im_end|>" leaked after a word, a zero-width space
  inside the word, the word doubled and glued, the word cut to one letter,
  the line number split by a space, a CJK byte after the word; ambiguous: a
  code fence, a closing remark, three lines short. Instructions: every rule
  kept in plain sentences laid out as one block or one line per sentence,
  with the required first word led in naturally ("Today I noticed that"), the
  required word in its own sentence, "Every" on a row that forbids "very"
  (a hard-but-clear right); one rule broken: a closing line that pushes past
  the word limit, stopping whole sentences short of the minimum, one capital
  letter, "min" left lower-case in a capitals answer, ", and", a closing
  sentence with a comma, one bullet too many, a chatty offer after the
  required ending, "Sure!" before the required first word, "I hope that
  helps." as one sentence too many, the forbidden word in a closing sentence,
  the required word swapped for a synonym, the keyword one use short, one
  highlight left plain, placeholder brackets dropped, "PS:" for "P.S.", two
  paragraphs run together, the last section dropped, a bold title for
  <<title>>, the closing quote missing, an em dash in an ASCII-only answer, a
  JSON trailing comma, a JSON key capitalised.

Run: python benchmarks/make_scorer_styles_blind8.py (deterministic, stdlib only).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "servescope" / "data" / "datasets"
OUT = ROOT / "benchmarks" / "scorer_styles_blind8.jsonl"
EARLIER = [f"scorer_styles_blind{n}.jsonl" for n in ("", "2", "3", "4", "5", "6", "7")]

ROWS: dict[str, list[dict]] = {}
CASES: list[dict] = []
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def load() -> None:
    for path in sorted(DATA.glob("eval-*.jsonl")):
        ROWS[path.stem] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def pick(key: str, n: int) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % n


def add(suite: str, row: dict, text: str, verdict: bool, style: str, ambiguous: bool = False, tool_calls: list | None = None) -> None:
    if suite == "eval-calibration-v1" and "Confidence:" not in text:
        text += f"\nConfidence: {(55, 70, 80, 90, 97)[pick(text, 5)]}%"
    case = {"suite": suite, "row_id": row["id"], "scorer": row["scorer"], "text": text, "verdict": verdict, "style": "b8-" + style, "ambiguous": ambiguous}
    if tool_calls is not None:
        case["tool_calls"] = tool_calls
    CASES.append(case)


def rows_of(scorer: str) -> list[tuple[str, dict]]:
    return [(s, r) for s in sorted(ROWS) for r in ROWS[s] if r.get("scorer") == scorer]


def question_of(text: str) -> str:
    q = re.split(r" (?:End with a line|Reply in exactly|Reply with the letter|Answer in one)", text)[0]
    return q.strip()


# ---------------------------------------------------------------- numeric


def recompute(row: dict) -> tuple[int | None, int | None]:
    """(recomputed value, plausible slip) for simple arithmetic and sequences; None when not parsed."""
    m = re.match(r"What is (\d+) ([+\-×x*]) (\d+)\?", row["text"])
    if m:
        a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
        if op == "+":
            return a + b, a + b - 10 if (a % 10 + b % 10) >= 10 else a + b + 10
        if op == "-":
            return a - b, a - b + 10 if (a % 10) < (b % 10) else a - b - 1
        return a * b, a * b - a
    m = re.match(r"What number comes next: ([\d, ]+), \.\.\.\?", row["text"])
    if m:
        xs = [int(x) for x in m.group(1).split(",") if x.strip()]
        d = [y - x for x, y in itertools.pairwise(xs)]
        if len(set(d)) == 1:
            return xs[-1] + d[-1], xs[-1] + d[-1] + d[-1]
        dd = [y - x for x, y in itertools.pairwise(d)]
        if len(set(dd)) == 1:
            return xs[-1] + d[-1] + dd[-1], xs[-1] + d[-1]
    return None, None


def thousands(v: str) -> str:
    return f"{int(v):,}" if re.fullmatch(r"-?\d{4,}", v) else v


LEAD_NUM = {
    "fr": ("Le résultat est {v}.", "Réponse : {v}"),
    "es": ("El resultado es {v}.", "Respuesta: {v}"),
    "de": ("Das Ergebnis ist {v}.", "Antwort: {v}"),
    "it": ("Il risultato è {v}.", "Risposta: {v}"),
    "pt": ("O resultado é {v}.", "Resposta: {v}"),
    "ja": ("答えは{v}です。", "答え: {v}"),
}


def numeric_cases() -> None:
    for suite, row in rows_of("numeric"):
        ans = str(row.get("answer"))
        if ans in ("None", ""):
            continue
        value, slip = recompute(row)
        mistake = value is not None and str(value) != ans
        unit = (row.get("score_args") or {}).get("unit", "")
        q = question_of(row["text"])
        try:
            n = int(ans)
        except ValueError:
            n = None
        wrong = str(slip) if slip is not None and str(slip) != ans else (str(n + 1) if n is not None else None)
        sfx = "-dataset-mistake" if mistake else ""
        k = pick(row["id"], 4)
        if suite == "eval-multilingual-v1":
            lang = row.get("category", "")
            lead, line = LEAD_NUM.get(lang, ("The result is {v}.", "Answer: {v}"))
            add(suite, row, f"{lead.format(v=ans)}\n\n{line.format(v=ans)}", True, "num-prompt-language-lead-and-label" + sfx, mistake)
            add(suite, row, f"**{ans}**", True, "num-bold-bare-number" + sfx, mistake)
            if wrong:
                add(suite, row, f"{lead.format(v=wrong)}", False, "num-prompt-language-slip" + sfx, mistake)
            continue
        if suite.startswith("eval-tools-small") or suite == "eval-vision-v1":
            add(
                suite,
                row,
                f"Right now it's {ans}{unit or ' degrees'} there." if suite.startswith("eval-tools") else f"I count **{ans}**.",
                True,
                "num-short-chat-sentence" + sfx,
                mistake,
            )
            if wrong:
                add(
                    suite,
                    row,
                    f"Right now it's {wrong}{unit or ' degrees'} there." if suite.startswith("eval-tools") else f"I count **{wrong}**.",
                    False,
                    "num-short-chat-sentence-off-by-one",
                )
            if n is not None and suite.startswith("eval-tools"):
                add(
                    suite,
                    row,
                    f"The reading came back as {ans} — in Fahrenheit that is about {round(n * 9 / 5 + 32)}°F.",
                    True,
                    "num-reading-then-conversion-with-other-number",
                )
            continue
        # right shapes
        shapes = [
            (f"Let's see. {q}\n\nSo the answer is {ans}.\n\nAnswer: {ans}", "num-reasoning-paragraph-so-the-answer"),
            (f"**Answer:** {thousands(ans)}", "num-bold-label-thousands-separator"),
            (f"## Answer\n\n{ans}\n\nAnswer: {ans}", "num-heading-then-label"),
            (f"1. Read the question.\n2. Work it out.\n3. Check it: it comes to {ans}.\n\nAnswer: {ans}", "num-numbered-steps-list"),
        ]
        t, s = shapes[k]
        add(suite, row, t, True, s + sfx, mistake)
        if value is not None and not mistake:
            a_b = re.findall(r"\d+", q)
            add(suite, row, f"Answer: {ans}\n\n(Check: I used {', '.join(a_b)} from the question.)", True, "num-answer-then-check-line-with-operands")
        if wrong:
            wshapes = [
                (f"Let's see. {q}\n\nSo the answer is {wrong}.\n\nAnswer: {wrong}", "num-reasoning-paragraph-plausible-slip"),
                (f"**Answer:** {thousands(wrong)}", "num-bold-label-plausible-slip"),
                (
                    f"My first pass gave {ans}, but I think I mis-added somewhere; redoing it I get {wrong}.\n\nAnswer: {wrong}",
                    "num-talks-itself-out-of-right-value",
                ),
                (f"## Answer\n\n{wrong}\n\nAnswer: {wrong}", "num-heading-plausible-slip"),
            ]
            t, s = wshapes[pick(row["id"] + "w", 4)]
            add(suite, row, t, False, s + sfx, mistake)
        nums = re.findall(r"\d+", q)
        if nums and nums[-1] != ans and value is not None:
            add(suite, row, f"Answer: {nums[-1]}", False, "num-operand-echoed-as-answer")


# ---------------------------------------------------------------- exact


def order_answer(text: str, which: str) -> str | None:
    pairs = re.findall(r"(\w+) is taller than (\w+)\.", text)
    names = {n for p in pairs for n in p}
    taller = {a for a, _ in pairs}
    shorter = {b for _, b in pairs}
    if which == "shortest":
        c = [n for n in names if n not in taller]
    else:
        c = [n for n in names if n not in shorter]
    return c[0] if len(c) == 1 else None


# the plausible wrong answer for THAT question (largest city for the capital, the
# neighbouring planet, the false friend, the regular past tense, ...)
PLAUSIBLE = {
    "Paris": "Lyon",
    "Ulaanbaatar": "Erdenet",
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
    "3:30 pm": "3:50 pm",
    "south": "west",
    "Tuesday": "Thursday",
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
    "cold": "warm",
    "went": "goed",
    "26": "24",
    "24": "12",
    "green": "orange",
    "12": "13",
    "July": "August",
    "2": "3",
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
    "Roma": "Milano",
    "Lisboa": "Porto",
    "cat": "kitten",
    "dog": "puppy",
    "book": "library",
    "blau": "grau",
    "lungs": "heart",
    "friction": "gravity",
    "seismology": "volcanology",
    "nucleus": "electron",
    "diamond": "quartz",
    "hydrogen": "helium",
    "He": "H",
    "blue": "purple",
    "yellow": "orange",
}


def exact_cases() -> None:
    for suite, row in rows_of("exact"):
        ans = row["answer"]
        text = row["text"]
        wrong = None
        mistake = False
        m = re.search(r"Who is the (shortest|tallest)\?", text)
        if m:
            truth = order_answer(text, m.group(1))
            mistake = truth is not None and truth != ans
            other = order_answer(text, "tallest" if m.group(1) == "shortest" else "shortest")
            wrong = other if other and other != ans else None
        m = re.search(r"Today is (\w+)\. What day of the week will it be in (\d+) days\?", text)
        if m and m.group(1) in DAYS:
            truth = DAYS[(DAYS.index(m.group(1)) + int(m.group(2))) % 7]
            mistake = truth != ans
            wrong = DAYS[(DAYS.index(m.group(1)) + int(m.group(2)) - 1) % 7]
        if wrong is None:
            wrong = PLAUSIBLE.get(ans)
        sfx = "-dataset-mistake" if mistake else ""
        k = pick(row["id"], 3)
        if suite == "eval-multilingual-v1":
            add(suite, row, f"{ans}.", True, "exact-one-word-with-full-stop")
            if wrong:
                add(suite, row, f"{wrong}.", False, "exact-one-word-neighbour")
            continue
        if suite == "eval-knowledge-v1" or suite == "eval-vision-v1":
            right = [(f"It's {ans}.", "exact-its-sentence"), (f"**{ans}**", "exact-bold-only"), (f"{ans} — that's the one.", "exact-dash-aside")][k]
            add(suite, row, right[0], True, right[1])
            if wrong:
                add(suite, row, f"It's {wrong}.", False, "exact-its-sentence-neighbour")
            continue
        right = [
            (f"Good question! Thinking it through, the answer is {ans}.\n\n**Answer:** {ans}", "exact-chatty-bold-label"),
            (f"Answer: {ans}\n\n(Not to be confused with {wrong}.)" if wrong else f"Answer: {ans}", "exact-answer-then-rival-aside"),
            (f"## Final answer\n\nAnswer: {ans}", "exact-final-heading"),
        ][k]
        add(suite, row, right[0], True, right[1] + sfx, mistake)
        if wrong:
            w = [
                (f"Good question! Thinking it through, the answer is {wrong}.\n\n**Answer:** {wrong}", "exact-chatty-bold-label-neighbour"),
                (f"I considered {ans} first, but settled on {wrong}.\n\nAnswer: {wrong}", "exact-considered-right-settled-wrong"),
                (f"## Final answer\n\nAnswer: {wrong}", "exact-final-heading-neighbour"),
            ][pick(row["id"] + "w", 3)]
            add(suite, row, w[0], False, w[1] + sfx, mistake)


# ---------------------------------------------------------------- mc


MC_LANG = [
    ("fr", "La bonne réponse est {l}) {t}.\n\nAnswer: {l}"),
    ("es", "La opción correcta es la {l}: {t}.\n\nAnswer: {l}"),
    ("de", "Richtig ist {l} ({t}).\n\nAnswer: {l}"),
]


def mc_cases() -> None:
    for suite, row in rows_of("mc"):
        choices = (row.get("score_args") or {}).get("choices") or re.findall(r"[A-D]\) (\w+)", row["text"])
        ans = row["answer"]
        i = ord(ans) - 65
        text_ans = choices[i]
        j = (i + 1) % len(choices)
        wl, wt = chr(65 + j), choices[j]
        mistake = False
        m = re.match(r"Is the sum of ([\d, ]+) even or odd\?", row["text"]) or re.match(r"Is (\d+) even or odd\?", row["text"])
        if m:
            s = sum(int(x) for x in m.group(1).split(","))
            mistake = choices[s % 2] != text_ans
        sfx = "-dataset-mistake" if mistake else ""
        k = pick(row["id"], 5)
        right = [
            (f"Answer: ({ans})", "mc-letter-in-parentheses"),
            (f"Answer: {ans}) {text_ans}", "mc-letter-with-option-echo"),
            (f"The correct option is {ans}, {text_ans}.\n\nAnswer: {ans}", "mc-sentence-letter-comma-text"),
            (MC_LANG[pick(row["id"] + "l", 3)][1].format(l=ans, t=text_ans), "mc-foreign-language-sentence-then-label"),
            (f"**{ans}** — {text_ans}\n\nAnswer: {ans}", "mc-bold-letter-dash-text"),
        ][k]
        add(suite, row, right[0], True, right[1] + sfx, mistake)
        wrong = [
            (f"Answer: ({wl})", "mc-neighbour-letter-in-parentheses"),
            (f"Answer: {wl}) {wt}", "mc-neighbour-letter-with-option-echo"),
            (f"It's between {ans} and {wl}; I'd say \"{wt.rstrip('.')}\" fits better.\n\nAnswer: {wl}", "mc-weighs-two-commits-wrong"),
            (f"The correct option is {wl}, {wt}.\n\nAnswer: {wl}", "mc-sentence-neighbour"),
        ][pick(row["id"] + "w", 4)]
        add(suite, row, wrong[0], False, wrong[1] + sfx, mistake)
        if k == 0:
            add(suite, row, f"Answer: {ans}) {wt}", False, "mc-letter-and-text-disagree-ambiguous", True)


# ---------------------------------------------------------------- rag, abstain, needle


def passage_facts(text: str) -> dict[str, str]:
    m = re.search(r"Passage: (\w+)'s workshop opened in (\w+) in (\d+)\. It builds one product, an? (\w+), and employs (\d+) people", text)
    if not m:
        return {}
    return {"owner": m.group(1), "city": m.group(2), "year": m.group(3), "product": m.group(4), "staff": m.group(5)}


def rag_cases() -> None:
    for suite, row in rows_of("contains"):
        ans = row["answer"]
        f = passage_facts(row["text"])
        add(suite, row, f"Based on the passage, the answer is **{ans}**.", True, "rag-based-on-passage-bold")
        add(suite, row, f"{ans}\n\nSource: the first two sentences of the passage.", True, "rag-bare-then-source-note")
        others = [v for k, v in f.items() if v != ans and k not in ("owner",)]
        if others:
            w = others[pick(row["id"], len(others))]
            add(suite, row, f"Based on the passage, the answer is **{w}**.", False, "rag-other-field-of-passage")
        add(suite, row, "I'm not able to tell from this passage.", False, "rag-false-abstain-informal")
    for suite, row in rows_of("abstain"):
        f = passage_facts(row["text"])
        if suite == "eval-rag-grounded-v1":
            add(
                suite,
                row,
                "The passage does not say.\n\nIt only mentions where the workshop is, what it builds and how many people work there.",
                True,
                "abstain-rag-phrase-plus-summary",
            )
            add(suite, row, "**Not stated.** The passage never mentions this.", True, "abstain-rag-bold-not-stated")
            q = row["text"].split("Question:")[1]
            if "revenue" in q and f:
                add(
                    suite, row, f"Roughly ${int(f['staff']) * 90_000:,} a year, given {f['staff']} staff.", False, "abstain-rag-revenue-extrapolated-from-staff"
                )
            elif "founded" in q and f:
                add(suite, row, f"{f['owner']} founded it.", False, "abstain-rag-owner-named-as-wood-supplier-founder")
            elif "manager" in q and f:
                add(suite, row, f"The manager is {f['owner']}.", False, "abstain-rag-owner-as-manager-bare")
            else:
                add(suite, row, "It is probably about 40.", False, "abstain-rag-guess")
            continue
        q = row["text"].split("?")[0]
        add(suite, row, "I don't know — I have no record of that, and it may not exist.", True, "abstain-dash-no-record")
        add(suite, row, "Ich weiß es nicht; dazu finde ich keine verlässlichen Angaben.", True, "abstain-german-short")
        add(suite, row, "Hmm, that doesn't ring a bell. I'd rather not guess, so: I don't know.", True, "abstain-rather-not-guess")
        if "year" in q:
            fake = "It was founded in 1911."
        elif "long" in q:
            fake = "It is about 340 km long."
        elif "won" in q:
            fake = "It was won by Marta Lindqvist."
        elif "wrote" in q:
            fake = "It was written by Henrik Aalto."
        else:
            fake = "As far as I recall, the answer is 42."
        add(suite, row, fake, False, "abstain-confident-invention-one-line")
        add(suite, row, f"I don't have much on this, but most sources agree: {fake[0].lower() + fake[1:]}", False, "abstain-hedge-then-invention")


def needle_cases() -> None:
    for suite, row in rows_of("needle"):
        ans = row["answer"]
        swapped = ans[:1] + ans[2] + ans[1] + ans[3:] if len(ans) > 2 and ans[1] != ans[2] else ans[:-1] + str((int(ans[-1]) + 1) % 10)
        add(suite, row, f"The code is **{ans}**.", True, "needle-bold-code-sentence")
        add(suite, row, f"Found it in the text: {ans}. (Other boxes mention different numbers.)", True, "needle-found-it-with-aside")
        add(suite, row, f"The code is **{swapped}**.", False, "needle-middle-digits-swapped")
        add(suite, row, f"The code is **{ans[:-1]}**.", False, "needle-last-digit-dropped")


# ---------------------------------------------------------------- json


def json_cases() -> None:
    for suite, row in rows_of("json"):
        exp = row["expected"]
        keys = list(exp)
        rev = {k: exp[k] for k in reversed(keys)}
        add(suite, row, json.dumps(rev, indent=4, ensure_ascii=False), True, "json-four-space-indent-reversed")
        add(suite, row, "```json\n" + json.dumps(exp, separators=(", ", ": "), ensure_ascii=False) + "\n```", True, "json-fenced-one-line")
        body = json.dumps(exp, indent=2, ensure_ascii=False)
        add(suite, row, body[:-2] + ",\n}", False, "json-trailing-comma-invalid")
        num = [k for k in keys if isinstance(exp[k], int)]
        if num:
            bad = dict(exp)
            bad[num[0]] = exp[num[0]] + 1
            add(suite, row, json.dumps(bad, ensure_ascii=False), False, "json-number-off-by-one")
            s = dict(exp)
            s[num[0]] = str(exp[num[0]])
            add(suite, row, json.dumps(s, ensure_ascii=False), True, "json-number-as-string-ambiguous", True)
        miss = {k: exp[k] for k in keys[:-1]}
        add(suite, row, json.dumps(miss, ensure_ascii=False), False, "json-last-key-missing")
        add(suite, row, "Here is the extracted data:\n\n" + json.dumps(exp, ensure_ascii=False), True, "json-prose-preface-ambiguous-json-only", True)


# ---------------------------------------------------------------- tool calls


def call(name: str, args: dict | str) -> list:
    return [{"function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}]


def tool_cases() -> None:
    for suite, row in rows_of("tool_call"):
        exp = row["expected"]
        cat = row.get("category", "")
        if exp.get("clarify"):
            add(
                suite,
                row,
                "Sure — which city (or amount and currency) do you mean? I need that before I can look it up.",
                True,
                "tool-clarify-combined-question",
            )
            add(suite, row, "Happy to help! Could you tell me the missing detail first?", True, "tool-clarify-missing-detail")
            names = [t["function"]["name"] for t in row["tools"]]
            if "convert" in row["text"].lower() or "money" in row["text"].lower():
                add(suite, row, "", False, "tool-clarify-guessed-amount", tool_calls=call("convert_currency", {"amount": 100, "from": "USD", "to": "EUR"}))
            elif "weather" in row["text"].lower():
                add(suite, row, "", False, "tool-clarify-guessed-city", tool_calls=call("get_weather", {"city": "London"}))
            else:
                add(
                    suite,
                    row,
                    "Done!",
                    False,
                    "tool-clarify-claims-done-without-asking",
                    tool_calls=call(names[-1], {"seconds": 300}) if "set_timer" in names else None,
                )
            continue
        name, args = exp["name"], exp["arguments"]
        add(suite, row, "Let me check that for you.", True, "tool-lead-in-sentence-with-call", tool_calls=call(name, args))
        spaced = json.dumps(args, indent=2)
        add(suite, row, "", True, "tool-arguments-pretty-printed", tool_calls=call(name, spaced))
        if len(args) > 1:
            add(suite, row, "", True, "tool-arguments-reordered", tool_calls=call(name, dict(reversed(list(args.items())))))
        # wrong: the plausible slip for this row
        k0 = next(iter(args))
        v0 = args[k0]
        if isinstance(v0, int) and k0 == "seconds":
            add(suite, row, "", False, "tool-minutes-left-unconverted", tool_calls=call(name, {k0: v0 // 60}))
        elif isinstance(v0, int):
            add(suite, row, "", False, "tool-integer-as-string-type", tool_calls=call(name, {**args, k0: str(v0)}), ambiguous=True)
        elif k0 == "city":
            add(suite, row, "", True, "tool-extra-unit-celsius-ambiguous", tool_calls=call(name, {**args, "unit": "celsius"}), ambiguous=True)
        if cat == "revise":
            prev = re.search(r"not (\w+)\.", row["text"])
            if prev:
                add(suite, row, "Got it, switching cities.", False, "tool-revise-repeats-old-city", tool_calls=call(name, {"city": prev.group(1)}))
        if cat == "chain":
            add(suite, row, "", False, "tool-chain-searches-again", tool_calls=call("search_docs", {"query": "invoices"}))
        if cat == "pick_tool" and name != "get_weather":
            add(suite, row, "", False, "tool-pick-wrong-tool", tool_calls=call("get_weather", {"city": "Tokyo"}))
        if "from" in args and "to" in args:
            add(suite, row, "", False, "tool-currency-direction-swapped", tool_calls=call(name, {**args, "from": args["to"], "to": args["from"]}))
        add(suite, row, f"I'd call {name} for this, but I can't run tools right now.", False, "tool-describes-call-no-call")


# ---------------------------------------------------------------- code

CODE: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {
    "add": (
        [
            ('def add(a: float, b: float) -> float:\n    """add(2, 3) -> 5"""\n    return sum((a, b))', "sum-of-tuple-docstring"),
            ("def add(a, b):\n    result = a\n    result += b\n    return result", "augmented-assignment"),
        ],
        [("def add(a, b):\n    return abs(a) + abs(b)", "abs-on-operands"), ("def add(a, b):\n    return a + b if a > 0 else b", "positive-only-branch")],
    ),
    "is_even": (
        [("def is_even(n):\n    return not n & 1", "bitwise-not"), ("def is_even(n):\n    if n % 2:\n        return False\n    return True", "early-return")],
        [("def is_even(n):\n    return n % 2 == 1", "tests-odd"), ("def is_even(n):\n    return str(n)[-1] in '02468' and n > 0", "last-digit-positive-only")],
    ),
    "reverse_string": (
        [
            ("def reverse_string(s):\n    return ''.join(reversed(s))", "join-reversed"),
            ("def reverse_string(s):\n    if not s:\n        return s\n    return reverse_string(s[1:]) + s[0]", "recursion-head-tail"),
        ],
        [
            ("def reverse_string(s):\n    return ' '.join(s.split()[::-1])", "reverses-words"),
            ("def reverse_string(s):\n    return s[-1] + s[1:-1] + s[0] if len(s) > 1 else s", "swaps-ends-only"),
        ],
    ),
    "maximum": (
        [
            ("def maximum(xs):\n    best, *rest = xs\n    for x in rest:\n        best = x if x > best else best\n    return best", "star-unpack"),
            ("from functools import reduce\n\n\ndef maximum(xs):\n    return reduce(lambda a, b: a if a >= b else b, xs)", "reduce-ternary"),
        ],
        [
            ("def maximum(xs):\n    return sorted(xs)[-2] if len(xs) > 1 else xs[0]", "second-largest"),
            ("def maximum(xs):\n    m = xs[0]\n    for x in xs[1:-1]:\n        if x > m:\n            m = x\n    return m", "skips-last"),
        ],
    ),
    "count_vowels": (
        [
            ("def count_vowels(s):\n    return sum(1 for ch in s if ch in 'aeiou')", "generator-sum"),
            ("def count_vowels(s):\n    return len([c for c in s if c in {'a', 'e', 'i', 'o', 'u'}])", "set-literal"),
        ],
        [
            ("def count_vowels(s):\n    return sum(1 for ch in s if ch in 'aeiouy')", "counts-y"),
            ("def count_vowels(s):\n    return sum(s.count(v) for v in 'aeio')", "forgets-u"),
        ],
    ),
    "factorial": (
        [
            ("def factorial(n):\n    return 1 if n < 2 else n * factorial(n - 1)", "one-line-recursion"),
            ("import math\n\n\ndef factorial(n):\n    return math.factorial(n)", "math-factorial"),
        ],
        [
            ("def factorial(n):\n    r = 1\n    for i in range(1, n):\n        r *= i\n    return r", "range-stops-early"),
            ("def factorial(n):\n    return n * factorial(n - 1) if n > 1 else n", "zero-gives-zero"),
        ],
    ),
    "fizzbuzz": (
        [
            ("def fizzbuzz(n):\n    out = ('Fizz' if n % 3 == 0 else '') + ('Buzz' if n % 5 == 0 else '')\n    return out or str(n)", "string-concat"),
            (
                "def fizzbuzz(n):\n    return {0: 'FizzBuzz', 3: 'Fizz', 5: 'Buzz', 6: 'Fizz', 9: 'Fizz', 10: 'Buzz', 12: 'Fizz'}.get(n % 15, str(n))",
                "lookup-mod-15",
            ),
        ],
        [
            (
                "def fizzbuzz(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)",
                "fizzbuzz-unreachable",
            ),
            ("def fizzbuzz(n):\n    out = ('Fizz' if n % 3 == 0 else '') + ('Buzz' if n % 5 == 0 else '')\n    return out or n", "returns-int"),
        ],
    ),
    "square_all": (
        [
            ("def square_all(xs):\n    return list(map(lambda x: x * x, xs))", "map-lambda"),
            ("def square_all(xs):\n    out = []\n    for x in xs:\n        out.append(x ** 2)\n    return out", "append-loop"),
        ],
        [
            ("def square_all(xs):\n    return [x * 2 for x in xs]", "doubles"),
            ("def square_all(xs):\n    return [abs(x) ** 2 for x in set(xs)]", "set-drops-repeats"),
        ],
    ),
    "is_palindrome": (
        [
            ("def is_palindrome(s):\n    return all(s[i] == s[-1 - i] for i in range(len(s) // 2))", "all-half-compare"),
            ("def is_palindrome(s):\n    return list(s) == list(reversed(s))", "list-reversed"),
        ],
        [
            ("def is_palindrome(s):\n    return s[0] == s[-1] if s else True", "ends-only"),
            ("def is_palindrome(s):\n    return s[:len(s) // 2] == s[len(s) // 2:]", "halves-equal"),
        ],
    ),
    "sum_digits": (
        [
            ("def sum_digits(n):\n    return sum(map(int, str(n)))", "map-int-str"),
            ("def sum_digits(n):\n    return 0 if n == 0 else n % 10 + sum_digits(n // 10)", "recursion-mod"),
        ],
        [
            ("def sum_digits(n):\n    total = 0\n    while n > 9:\n        total += n % 10\n        n //= 10\n    return total", "stops-before-last-digit"),
            ("def sum_digits(n):\n    return len(str(n))", "counts-digits"),
        ],
    ),
    "first_word": (
        [
            ("def first_word(s):\n    return s.split()[0]", "split-index"),
            ("def first_word(s):\n    words = s.split(maxsplit=1)\n    return words[0]", "maxsplit"),
        ],
        [("def first_word(s):\n    return s.split()[-1]", "last-word"), ("def first_word(s):\n    return s[:s.find(' ')]", "find-space-no-space-case")],
    ),
    "celsius_to_f": (
        [("def celsius_to_f(c):\n    return 32 + 1.8 * c", "decimal-factor-first"), ("def celsius_to_f(c):\n    return c * 9 / 5 + 32", "nine-fifths")],
        [("def celsius_to_f(c):\n    return (c + 32) * 9 / 5", "adds-before-scaling"), ("def celsius_to_f(c):\n    return c * 5 / 9 + 32", "inverted-factor")],
    ),
    "sort_numbers": (
        [
            (
                "def sort_numbers(xs):\n    xs = list(xs)\n    out = []\n    while xs:\n        m = min(xs)\n        xs.remove(m)\n        out.append(m)\n    return out",
                "repeated-min",
            ),
            (
                "def sort_numbers(xs):\n    if len(xs) <= 1:\n        return list(xs)\n    p, rest = xs[0], xs[1:]\n    return sort_numbers([x for x in rest if x < p]) + [p] + sort_numbers([x for x in rest if x >= p])",
                "quicksort",
            ),
        ],
        [
            ("def sort_numbers(xs):\n    return list(reversed(xs))", "reverses-only"),
            (
                "def sort_numbers(xs):\n    out = []\n    for x in xs:\n        if x not in out:\n            out.append(x)\n    return [min(out)] + [x for x in out if x != min(out)]",
                "min-first-only",
            ),
        ],
    ),
    "word_counts": (
        [
            ("from collections import Counter\n\n\ndef word_counts(s):\n    return dict(Counter(s.split()))", "counter"),
            ("def word_counts(s):\n    d = {}\n    for w in s.split():\n        d[w] = d.get(w, 0) + 1\n    return d", "dict-get"),
        ],
        [
            ("def word_counts(s):\n    d = {}\n    for w in s.lower().split():\n        d[w] = d.get(w, 0) + 1\n    return d", "lower-cases"),
            ("def word_counts(s):\n    return {w: 1 for w in s.split()}", "always-one"),
        ],
    ),
    "distinct": (
        [
            ("def distinct(xs):\n    out = []\n    for x in xs:\n        if x not in out:\n            out.append(x)\n    return out", "not-in-list"),
            ("def distinct(xs):\n    return [x for i, x in enumerate(xs) if x not in xs[:i]]", "enumerate-prefix"),
        ],
        [
            ("def distinct(xs):\n    return [x for x in xs if xs.count(x) == 1]", "drops-repeated"),
            ("def distinct(xs):\n    return sorted(dict.fromkeys(xs))", "sorted-order"),
        ],
    ),
}


def runs(code: str, tests: str) -> bool:
    env: dict = {}
    try:
        exec(code, env)  # the author's own fixed snippets
        exec(tests, env)
    except Exception:  # noqa: BLE001 - any failure means the asserts do not pass
        return False
    return True


def code_cases() -> None:
    for suite, row in rows_of("code_exec"):
        fn = re.search(r"def (\w+)\(", row["text"]).group(1)
        if fn not in CODE:
            continue
        v2 = next(r for r in ROWS["eval-code-v2"] if re.search(rf"def {fn}\(", r["text"]))
        tests_v2 = v2["score_args"]["tests"]
        tests_here = row["score_args"]["tests"]
        right, wrong = CODE[fn]
        for i, (src, name) in enumerate(right):
            if not runs(src, tests_v2):
                raise SystemExit(f"right variant {fn}/{name} fails code-v2 asserts")
            edge = not runs(src, tests_here)
            frame = [
                "```python\n{c}\n```",
                "Here's a compact version:\n\n```python\n{c}\n```\n\nExample: it handles the cases in the prompt.",
                "```python\n{c}\n\n\nprint({fn}.__name__, 'ready')\n```",
            ][(i + pick(row["id"], 3)) % 3]
            add(suite, row, frame.format(c=src, fn=fn), True, f"code-right-{name}" + ("-only-hidden-edge-fails-ambiguous" if edge else ""), edge)
        for src, name in wrong:
            if runs(src, tests_v2):
                raise SystemExit(f"wrong variant {fn}/{name} passes code-v2 asserts")
            frame = ["```python\n{c}\n```", "Sure! This should do it:\n\n```python\n{c}\n```"][pick(row["id"] + name, 2)]
            add(suite, row, frame.format(c=src), False, f"code-wrong-{name}")


# ---------------------------------------------------------------- long generations


def longgen_cases() -> None:
    for suite, row in rows_of("token_integrity"):
        n, word = row["score_args"]["lines"], row["score_args"]["word"]
        lines = [f"{i}. {word}" for i in range(1, n + 1)]
        clean = "\n".join(lines)
        at = 7 + pick(row["id"], n - 14)
        add(suite, row, clean, True, "longgen-clean-no-final-newline")
        add(suite, row, clean + "\n\n", True, "longgen-clean-then-blank-line")
        add(suite, row, "\n" + clean, True, "longgen-clean-after-leading-newline")
        add(suite, row, clean + f"\n\nAll {n} lines done.", True, "longgen-clean-then-closing-remark-ambiguous-nothing-else", True)

        def spliced(new: str, lines: list[str] = lines, at: int = at) -> str:
            return "\n".join([*lines[:at], new, *lines[at + 1 :]])

        k = pick(row["id"] + "k", 6)
        wrong = [
            (f"{at + 1}. {word}<|im_end|>", "longgen-special-token-leaked-mid-run"),
            (f"{at + 1}. {word[:-1]}\u200b{word[-1]}", "longgen-zero-width-space-inside-word"),
            (f"{at + 1}. {word}{word}", "longgen-word-doubled-glued"),
            (f"{at + 1}. {word[0]}", "longgen-word-truncated-one-letter"),
            (f"{str(at + 1)[:-1]} {str(at + 1)[-1]}. {word}" if at + 1 >= 10 else f"{at + 1}.. {word}", "longgen-number-split-by-space"),
            (f"{at + 1}. {word}的", "longgen-cjk-byte-after-word"),
        ]
        t, s = wrong[k]
        add(suite, row, spliced(t), False, s)
        t, s = wrong[(k + 3) % 6]
        add(suite, row, spliced(t), False, s)
        add(suite, row, "```\n" + clean + "\n```", True, "longgen-fenced-ambiguous-layout", True)
        add(suite, row, "\n".join(lines[:-3]), True, "longgen-three-short-ambiguous-count-only", True)


# ---------------------------------------------------------------- instructions

BANK = [
    "There is a calm rhythm to {t}",
    "Most people notice {t} only when they slow down",
    "I keep coming back to {t} on quiet weekends",
    "The details of {t} reward a second look",
    "A friend once told me that {t} teaches patience",
    "Small moments with {t} stay with you for years",
    "Nobody needs special gear to enjoy {t}",
    "The best part of {t} is how simple it can be",
    "Every season gives {t} a different mood",
    "You learn the most about {t} by trying it yourself",
    "Early evenings are my favourite hour for {t}",
    "Even a short walk can turn into a lesson about {t}",
    "My neighbour says {t} is the reason she moved here",
    "It costs little to get started with {t}",
    "Half the fun of {t} is talking about it afterwards",
    "Children seem to understand {t} faster than adults",
    "On grey days {t} lifts my mood",
    "Some of my best memories involve {t}",
]
NEED_SENTENCE = {
    "river": "A walk by the river clears my head",
    "bridge": "The old stone bridge is worth a stop",
    "garden": "A little garden nearby makes it better",
    "quiet": "It is best on a quiet day",
    "lantern": "Bring a lantern for the walk home",
    "morning": "The morning is the calmest part of it",
    "blue": "The sky turns a soft blue at the end",
}


def topic_of(text: str) -> str:
    m = re.search(r"JSON object with (?:the )?keys .* for (.+?)\.", text) or re.search(r"^Describe (.+?)(?: in at most| in your own words|\.)", text)
    if m:
        return m.group(1)
    for pat in (r"about (.+)", r"Describe (.+) in your own words", r"makes (.+) interesting", r"new to (.+?)\."):
        m = re.search(pat, text)
        if m:
            return re.split(r" (?:that|using|in|without|as|with)\b|[.',]", m.group(1))[0].strip()
    return "this"


def words_of(text: str) -> int:
    return len(text.split())


def sentences_of(text: str) -> int:
    body = re.sub(r"^<<.*?>>\s*", "", text.strip().strip('"'))
    body = re.sub(r"SECTION \d+", "", body)
    return len([s for s in re.split(r"(?<=[.!?])\s+", body.strip()) if re.search(r"\w", s)])


def check(rule: dict, text: str) -> bool:
    r, v = rule["rule"], rule.get("value")
    body = text.strip()
    if r == "max_words":
        return words_of(text) <= v
    if r == "min_words":
        return words_of(text) >= v
    if r == "lowercase":
        return text == text.lower()
    if r == "uppercase":
        return text == text.upper()
    if r == "no_commas":
        return "," not in text
    if r == "bullet_count":
        return len([ln for ln in text.splitlines() if ln.startswith("- ")]) == v and not any(re.match(r"\s*[*•+] ", ln) for ln in text.splitlines())
    if r == "ends_with":
        return body.strip('"').rstrip().endswith(v) if v != "done" else re.search(r"\bdone[.!]?$", body.strip('"')) is not None
    if r == "starts_with":
        first = re.sub(r"^<<.*?>>\s*", "", body.lstrip('"')).split()
        return bool(first) and first[0].strip(",.!").lower() == v.lower()
    if r == "sentence_count":
        return sentences_of(text) == v
    if r == "not_contains":
        return re.search(rf"\b{v}\b", text, re.I) is None
    if r == "contains":
        return re.search(rf"\b{v}\b", text, re.I) is not None
    if r == "keyword_count":
        return len(re.findall(rf"\b{v['word']}\b", text, re.I)) >= v["min"]
    if r == "highlight_count":
        return len(re.findall(r"(?<!\*)\*[^*\n]+\*(?!\*)", text)) >= v
    if r == "placeholder_count":
        return len(re.findall(r"\[[^\]]+\]", text)) >= v
    if r == "postscript":
        return re.search(r"^P\.S\.", text, re.M) is not None
    if r == "paragraph_count":
        return len([p for p in re.split(r"\n\s*\n", body) if p.strip()]) == v
    if r == "section_count":
        return len(re.findall(rf"^{v['marker']} \d+", text, re.M)) == v["count"]
    if r == "title":
        return re.search(r"<<[^<>]+>>", text) is not None
    if r == "quotation":
        return len(body) > 1 and body[0] == '"' and body[-1] == '"'
    if r == "language_ascii":
        return all(ord(c) < 128 for c in text)
    if r == "json" or r == "json_keys":
        try:
            obj = json.loads(body)
        except ValueError:
            return False
        return isinstance(obj, dict) and (r == "json" or all(k in obj for k in v))
    raise SystemExit(f"unknown rule {r}")


def implied_rules(row: dict) -> list[dict]:
    """Counts the prompt states that its rules leave out ("Write two sentences ..."): a grader still holds the answer to them."""
    names = {r["rule"] for r in row["score_args"]["rules"]}
    m = re.match(r"Write (a|one|two) sentences? ", row["text"])
    if m and "sentence_count" not in names:
        return [{"rule": "sentence_count", "value": {"a": 1, "one": 1, "two": 2}[m.group(1)]}]
    return []


def compose(row: dict, variant: int) -> str | None:
    """A text that keeps every rule of the row, laid out the way a chat model would."""
    rules = {r["rule"]: r.get("value") for r in row["score_args"]["rules"] + implied_rules(row)}
    t = topic_of(row["text"])
    if re.match(r"Write a (?:short )?title", row["text"]):
        title = [f"The Quiet Side of {t.title()}", f"Where {t.title()} Begins", f"A Long Night With {t.title()}"][variant % 3]
        return title.upper() if "uppercase" in rules else title
    if "json" in rules or "json_keys" in rules:
        keys = rules.get("json_keys") or re.findall(r"'(\w+)'", row["text"]) or ["topic", "mood"]
        values = {
            "topic": t,
            "mood": "calm",
            "title": f"Notes on {t}",
            "summary": f"A short look at {t} and why it matters.",
            "name": t,
            "reason": f"People enjoy {t} for its quiet pace.",
        }
        obj = {k: values.get(k, t) for k in keys}
        return json.dumps(obj, indent=2) if variant % 2 else json.dumps(obj)
    order = [(i + variant * 5) % len(BANK) for i in range(len(BANK))]
    sents = [BANK[i].format(t=t) for i in order]
    need = []
    if "contains" in rules:
        need.append(NEED_SENTENCE.get(rules["contains"], f"The word {rules['contains']} comes to mind with {t}"))
    if "keyword_count" in rules:
        kw = rules["keyword_count"]
        need += [f"Give it {kw['word']} and it will give you {kw['word']} back"] + [f"Each {kw['word']} counts" for _ in range(max(0, kw["min"] - 2))]
    pool = need + sents
    if "sentence_count" in rules:
        count = rules["sentence_count"] - (1 if rules.get("ends_with", "done") != "done" else 0)
        if len(need) > count:
            pool = [" and ".join(need[: len(need) - count + 1])] + need[len(need) - count + 1 :] + sents
    elif "bullet_count" in rules:
        count = rules["bullet_count"]
    elif "section_count" in rules:
        count = rules["section_count"]["count"] * max(2, -(-(rules.get("min_words", 0) // 8 + 2) // rules["section_count"]["count"]))
    elif "paragraph_count" in rules:
        count = rules["paragraph_count"] * max(2, -(-(rules.get("min_words", 0) // 8 + 2) // rules["paragraph_count"]))
    elif "max_words" in rules and rules["max_words"] <= 12:
        count = 1
    elif "min_words" in rules:
        count = rules["min_words"] // 8 + 2
    else:
        count = 3 if "max_words" not in rules else max(1, min(5, rules["max_words"] // 14))
    count = max(count, len(need)) if "sentence_count" not in rules else count
    while len(pool) < count:
        pool += sents
    chosen = pool[:count]
    if "ends_with" in rules and rules["ends_with"] == "done":
        chosen[-1] = chosen[-1] + " and now I am done"
    if "highlight_count" in rules:
        for i in range(rules["highlight_count"]):
            s = chosen[i % len(chosen)]
            w = s.split()
            if i < len(chosen):
                w[-2] = "*" + w[-2]
                w[-1] = w[-1] + "*"
            else:
                w[0] = "*" + w[0]
                w[1] = w[1] + "*"
            chosen[i % len(chosen)] = " ".join(w)
    if "placeholder_count" in rules:
        for i, ph in enumerate(["[name]", "[place]", "[date]", "[time]"][: rules["placeholder_count"]]):
            chosen[i % len(chosen)] += f" with {ph}"
    if "starts_with" in rules:
        lead = {"Today": "Today I noticed that", "Yesterday": "Yesterday I learned that", "Honestly": "Honestly I think", "Imagine": "Imagine a day when"}.get(
            rules["starts_with"], rules["starts_with"]
        )
        chosen[0] = f"{lead} {chosen[0][0].lower()}{chosen[0][1:]}"
    if "max_words" in rules and rules["max_words"] <= 12:
        chosen = [next(c for c in pool if words_of(c) <= rules["max_words"])]
    marks = ["."] * len(chosen)
    if "sentence_count" not in rules and variant % 3 == 1 and len(chosen) > 1:
        marks[0] = "!"
    parts = [c + m for c, m in zip(chosen, marks, strict=True)]
    if "bullet_count" in rules:
        text = "\n".join("- " + p for p in parts)
    elif "section_count" in rules:
        sc = rules["section_count"]
        per = len(parts) // sc["count"]
        text = "\n\n".join(f"{sc['marker']} {i + 1}\n" + " ".join(parts[per * i : per * (i + 1)]) for i in range(sc["count"]))
    elif "paragraph_count" in rules:
        per = len(parts) // rules["paragraph_count"]
        text = "\n\n".join(" ".join(parts[per * i : per * (i + 1)]) for i in range(rules["paragraph_count"]))
    elif variant % 2 and "sentence_count" not in rules and "max_words" not in rules:
        text = "\n".join(parts)
    else:
        text = " ".join(parts)
    if "title" in rules:
        text = f"<<{t.title()} Notes>>\n\n" + text
    if "ends_with" in rules and rules["ends_with"] != "done":
        text += "\n\n" + rules["ends_with"]
    if "postscript" in rules:
        # under a paragraph count the P.S. goes on its own line under the last paragraph (ambiguous: whether it counts)
        text += ("\n" if "paragraph_count" in rules else "\n\n") + f"P.S. Tell me what you think about {t}."
    if "lowercase" in rules:
        text = text.lower()
    if "uppercase" in rules:
        text = text.upper()
    if "quotation" in rules:
        text = f'"{text}"'
    return text


def break_one(row: dict, text: str, rule: dict) -> tuple[str, str] | None:
    r, v = rule["rule"], rule.get("value")
    q = text.endswith('"') and text.startswith('"')
    inner = text[1:-1] if q else text

    def wrap(s: str) -> str:
        return f'"{s}"' if q else s

    if r == "max_words":
        closers = ["Truly worth it.", "I hope you get to try it soon.", "Thanks for asking about this lovely topic and have a great day ahead."]
        more = inner.rstrip()
        for c in closers * 4:
            if words_of(more) > v:
                break
            more += " " + c
        return wrap(more), "instr-closing-line-pushes-past-limit"
    if r == "min_words":
        sents = re.split(r"(?<=[.!?]) ", inner.rstrip())
        while len(sents) > 1 and words_of(" ".join(sents)) > v * 0.85:
            sents.pop()
        return wrap(" ".join(sents)), "instr-stops-sentences-short-of-minimum"
    if r == "lowercase":
        return text.replace(" i ", " I ", 1) if " i " in text else text.replace(text.strip('"')[0], text.strip('"')[0].upper(), 1), "instr-one-capital-slips-in"
    if r == "uppercase":
        return text.replace(".", " ABOUT 20 min FROM HOME.", 1), "instr-lowercase-unit-min-in-capitals"
    if r == "no_commas":
        if " and " in inner:
            return wrap(inner.replace(" and ", ", and ", 1)), "instr-comma-before-and"
        return wrap(inner.rstrip() + " In the end, it is worth it."), "instr-closing-sentence-with-comma"
    if r == "bullet_count":
        return text + "\n- And one more thing to keep in mind.", "instr-one-bullet-too-many"
    if r == "ends_with":
        return text + "\n\nLet me know if you'd like a longer version!", "instr-chatty-offer-after-ending"
    if r == "starts_with":
        return "Sure! " + text, "instr-sure-before-required-first-word"
    if r == "sentence_count":
        return wrap(inner.rstrip() + " I hope that helps."), "instr-one-sentence-too-many"
    if r == "not_contains":
        phrase = {"really": "really calm", "very": "very calm", "good": "good for the soul", "nice": "nice and slow"}.get(v, v)
        return wrap(inner.rstrip() + f" It feels {phrase}."), "instr-forbidden-word-in-closing-sentence"
    if r == "contains":
        synonym = {"river": "stream", "bridge": "crossing", "garden": "yard", "quiet": "calm", "lantern": "lamp", "morning": "dawn", "blue": "grey"}.get(
            v, "thing"
        )
        return re.sub(rf"\b{v}\b", lambda m: synonym.upper() if m.group(0).isupper() else synonym, text, flags=re.I), "instr-required-word-swapped-for-synonym"
    if r == "keyword_count":
        return re.sub(
            rf"give you {v['word']} back", lambda m: "PAY YOU BACK" if m.group(0).isupper() else "pay you back", text, count=1, flags=re.I
        ), "instr-keyword-one-use-short"
    if r == "highlight_count":
        return re.sub(r"\*([^*\n]+)\*", r"\1", text, count=1), "instr-one-highlight-left-plain"
    if r == "placeholder_count":
        return re.sub(r"\[(\w+)\]", r"\1", text, count=1), "instr-placeholder-brackets-dropped"
    if r == "postscript":
        return text.replace("P.S.", "PS:"), "instr-ps-colon-instead-of-marker"
    if r == "paragraph_count":
        return text.replace("\n\n", "\n", 1), "instr-two-paragraphs-run-together"
    if r == "section_count":
        return text.rsplit("\n\n", 1)[0] if not text.rstrip('"').endswith(("P.S.", "soon.", "now.")) else None, "instr-last-section-dropped"
    if r == "title":
        return re.sub(r"<<([^<>]+)>>", r"**\1**", text), "instr-title-bold-not-angle-brackets"
    if r == "quotation":
        return text[:-1], "instr-closing-quote-missing"
    if r == "language_ascii":
        return re.sub(r"(\w)\.(\s)", "\\1 \u2014 always.\\2", text, count=1), "instr-em-dash-aside-in-ascii-answer"
    if r == "json":
        return text.rstrip("}").rstrip() + ",\n}", "instr-json-trailing-comma"
    if r == "json_keys":
        last = v[-1]
        return text.replace(f'"{last}"', f'"{last.capitalize()}"'), "instr-json-last-key-capitalised"
    return None


def instruction_cases() -> None:
    for suite, row in rows_of("instruction"):
        rules = row["score_args"]["rules"]
        names = {r["rule"] for r in rules}
        amb = (
            bool(names & {"lowercase", "uppercase"} and names & {"placeholder_count", "title", "postscript"})
            or {"sentence_count", "postscript"} <= names
            or {"paragraph_count", "postscript"} <= names
        )
        amb_tag = "-case-or-ps-rule-disputable-ambiguous" if amb else ""
        for variant in range(2):
            text = compose(row, variant + pick(row["id"], 3))
            if text is None or not all(check(r, text) for r in rules + implied_rules(row)):
                continue
            add(suite, row, text, True, ("instr-all-rules-kept-newline-layout" if "\n" in text else "instr-all-rules-kept-one-block") + amb_tag, amb)
            if variant == 0:
                for rule in rules:
                    got = break_one(row, text, rule)
                    if not got or got[0] is None:
                        continue
                    bad, style = got
                    fails = [r["rule"] for r in rules if not check(r, bad)]
                    if fails == [rule["rule"]]:
                        add(suite, row, bad, False, style + amb_tag, amb)
        # the forbidden word inside a longer word is not the word
        for rule in rules:
            if rule["rule"] == "not_contains" and rule["value"] == "good":
                text = compose(row, 0)
                if text:
                    bad = text.rstrip(".") + " and then we said goodbye."
                    if all(check(r, bad) for r in rules):
                        add(suite, row, bad, True, "instr-forbidden-word-only-inside-goodbye")


# ---------------------------------------------------------------- main

# cases kept per group (half right, half wrong where the group has enough of each), so the
# large families do not swamp the figure; the small suites keep every case
SMALL_SUITES = {"eval-multilingual-v1", "eval-vision-v1", "eval-longctx-v1"}
TARGET = {
    "eval-instruction-v1": 150,
    "eval-format-v1": 80,
    "eval-format-v2": 80,
    "numeric": 160,
    "mc": 120,
    "exact": 100,
    "tool_call": 110,
    "code_exec": 100,
    "token_integrity": 70,
    "json": 60,
    "abstain": 60,
    "contains": 60,
    "needle": 32,
}


def thin(cases: list[dict]) -> list[dict]:
    groups: dict[tuple[str, bool, bool], list[dict]] = {}
    for c in cases:
        if c["suite"] in SMALL_SUITES:
            continue
        g = c["suite"] if c["scorer"] == "instruction" else c["scorer"]
        groups.setdefault((g, c["verdict"], c["ambiguous"]), []).append(c)
    keep: set[int] = {id(c) for c in cases if c["suite"] in SMALL_SUITES}
    for (g, verdict, ambiguous), members in groups.items():
        if ambiguous:
            n = min(len(members), max(3, TARGET[g] // 12))
        else:
            other = len(groups.get((g, not verdict, False), []))
            half = TARGET[g] // 2
            n = min(len(members), max(half, TARGET[g] - other))
        ranked = sorted(members, key=lambda c: hashlib.sha256((c["row_id"] + c["style"] + c["text"]).encode()).hexdigest())
        # spread over rows: every row's first case before any row's second one
        seen_in_row: dict[str, int] = {}
        spread = []
        for c in ranked:
            seen_in_row[c["row_id"]] = seen_in_row.get(c["row_id"], 0) + 1
            spread.append((seen_in_row[c["row_id"]], len(spread), c))
        keep.update(id(c) for _, _, c in sorted(spread, key=lambda t: t[:2])[:n])
    return [c for c in cases if id(c) in keep]


def main() -> None:
    load()
    numeric_cases()
    exact_cases()
    mc_cases()
    rag_cases()
    needle_cases()
    json_cases()
    tool_cases()
    code_cases()
    longgen_cases()
    instruction_cases()
    earlier = set()
    for name in EARLIER:
        path = ROOT / "benchmarks" / name
        if path.exists():
            for line in path.read_text().splitlines():
                c = json.loads(line)
                earlier.add((c["row_id"], c["text"], json.dumps(c.get("tool_calls"), sort_keys=True)))
    seen = set()
    fresh = []
    for c in CASES:
        key = (c["row_id"], c["text"], json.dumps(c.get("tool_calls"), sort_keys=True))
        if key in earlier or key in seen:
            continue
        seen.add(key)
        fresh.append(c)
    out = thin(fresh)
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in out))
    print(f"wrote {len(out)} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
