"""Realistic answer styles, each with the verdict a careful grader gives: the table behind
``benchmarks/scorer_accuracy.py`` and ``tests/scoring/test_answer_styles.py``.

Two parts:

- **Styles over the packaged suites' own rows** (:func:`row_cases`): for every row of the
  text suites scored by exact, numeric, mc, contains and abstain, the ways instruct models
  of several sizes phrase a right answer (bare, anchored, bold, boxed, LaTeX, a unit or
  a short justification after it, thousands separators, chatty openings and closings,
  a stated confidence, closed thinking with another answer inside) and a wrong one (the
  wrong value in every form, the right one named and then denied, two answers hedged,
  a late correction away from it, an unterminated thinking block, a refusal). The wrong
  value is another row's answer of the same kind, so it is as plausible as the right one.
- **Hand-written cases** (:data:`HAND_CASES`) for what templates cannot make: hedged
  fabrication, refusal paraphrases, clarifying questions against pleasantries, code with
  an example-usage block, mixed numbers and vulgar fractions, multilingual forms.

A case the graders would dispute is marked ``ambiguous`` and left out of every figure.
Pure data and stdlib; imports servescope only to read the packaged datasets.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from typing import Any

TEXT_SUITES = (
    "eval-knowledge-v1",
    "eval-reasoning-v1",
    "eval-reasoning-v2",
    "eval-math-v1",
    "eval-math-v2",
    "eval-calibration-v1",
    "eval-multilingual-v1",
    "eval-rag-grounded-v1",
    "eval-hallucination-v1",
    "eval-tools-small-v1",
)


@dataclass(frozen=True)
class Case:
    suite: str
    scorer: str
    style: str
    text: str
    expected: Any
    verdict: bool  # what a careful grader says
    args: dict[str, Any] = field(default_factory=dict)
    ambiguous: bool = False
    tool_calls: tuple[dict[str, Any], ...] = ()


def _rows(dataset: str) -> list[dict[str, Any]]:
    path = resources.files("servescope") / "data" / "datasets" / f"{dataset}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


RIGHT_STYLES = {
    "bare": "{a}",
    "anchored": "Answer: {a}",
    "bold": "**{a}**",
    "sentence": "The answer is {a}.",
    "it-is": "I think it's {a}.",
    "chatty": "Sure! The answer is **{a}**. Let me know if you have any other questions.",
    "opener": "Great question! It's {a}.",
    "justified": "{a} (see the reasoning above)",
    "dash-reason": "{a} — because that is what the question works out to.",
    "answer-then-explain": "{a}\n\nThat follows directly from the question.",
    "worked-then-anchored": "Let me work through it step by step.\nFirst, I read the question carefully.\nAnswer: {a}",
    "confidence-paren": "{a} (I am 70% confident)",
    "confidence-line": "Answer: {a}\nConfidence: 9/10",
    "thinking-closed": "<think>Maybe it is {w}? No, let me check again.</think>\nAnswer: {a}",
    "denies-other": "The answer is {a}, not {w}.",
    "correction-to-right": "Answer: {w}. Wait, sorry, that is wrong. Answer: {a}",
}
WRONG_STYLES = {
    "bare": "{w}",
    "anchored": "Answer: {w}",
    "bold": "**{w}**",
    "sentence": "The answer is {w}.",
    "names-then-denies": "The answer is {w}, not {a}.",
    "hedged": "It is either {a} or {w}.",
    "late-correction": "Answer: {a}. Wait, sorry, that is wrong. Answer: {w}",
    "thinking-right-answer-wrong": "<think>The answer is {a}.</think>\nAnswer: {w}",
    "unterminated-thinking": "<think>Let me think. The answer is {a}, I believe",
    "refusal": "I'm sorry, I don't know the answer to that.",
    "denied": "It is not {a}.",
}
NUMERIC_RIGHT = {
    "boxed": "So the result is $\\boxed{{{a}}}$.",
    "latex": "$x = {a}$\n\nAnswer: $x = {a}$",
    "unit": "Answer: {a} units",
    "thousands": "Answer: {a_sep}",
    "converted-aside": "The total is {a} ({a_times_1000} thousandths).",
    "expression": "Answer: {expr} = {a}",
}
NUMERIC_WRONG = {
    "boxed": "So the result is $\\boxed{{{w}}}$.",
    "expression-wrong": "Answer: {a} + 1 = {w}",
}
MC_RIGHT = {
    "paren": "({a})",
    "letter-paren-text": "{a}) {choice}",
    "declared": "Let me think about each option. {a} is the correct answer.",
    "go-with": "After weighing them, I'd go with {a}.",
    "correct-option": "The correct option is ({a}).",
    "restated": "Answer: {a}. {choice}",
}
MC_WRONG = {
    "paren": "({w})",
    "declared": "{w} is the correct answer.",
    "first-thought": "I first thought ({a}), but the answer is {w}.",
}
CONTAINS_RIGHT = {
    "sentence": "According to the passage, the answer is {a}.",
    "bare": "{a}",
    "chatty": "Based on the passage: {a}. Let me know if you need anything else!",
}
CONTAINS_WRONG = {
    "other": "According to the passage, the answer is {w}.",
    "abstains": "The passage does not say.",
}
ABSTAIN_RIGHT = [
    "The passage does not say.",
    "I couldn't find any information about that in the passage.",
    "Unfortunately, the text doesn't mention it.",
    "There is no way to tell from the passage.",
    "The passage does not provide this information, so I cannot answer.",
    "I don't know.",
    "I'm not aware of any such thing; it may not exist.",
    "I have no record of that. It may be fictional.",
    "That is not stated in the text.",
]
ABSTAIN_WRONG = [
    "It was founded in 1887.",
    "I don't know the exact details, but it was founded in 1887.",
    "I'm not sure, but I believe the answer is 42.",
    "The passage suggests it was Oslo.",
    "It is Oslo, although the passage doesn't say so explicitly.",
    "According to my knowledge, it opened in 1954 with 120 employees.",
]


def _fmt(template: str, **values: Any) -> str:
    return template.format(**values)


def _numeric_values(answer: str) -> dict[str, str] | None:
    try:
        value = Fraction(answer.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None
    if value.denominator != 1:
        return None
    n = int(value)
    return {"a_sep": f"{n:,}", "a_times_1000": str(n * 1000), "expr": f"{n - 3} + 3" if n >= 3 else f"{n + 3} - 3"}


def row_cases(seed: int = 7) -> list[Case]:
    """Styled answers over the packaged text suites' rows (deterministic)."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for suite in TEXT_SUITES:
        rows = _rows(suite)
        by_scorer: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            by_scorer.setdefault(row.get("scorer", ""), []).append(row)
        for scorer, group in by_scorer.items():
            for row in group:
                args = dict(row.get("score_args") or row.get("args") or {})
                answer = row.get("answer")
                if scorer == "abstain":
                    for i, text in enumerate(ABSTAIN_RIGHT):
                        cases.append(Case(suite, scorer, f"abstain-right-{i}", text, answer, True, args))
                    for i, text in enumerate(ABSTAIN_WRONG):
                        cases.append(Case(suite, scorer, f"abstain-wrong-{i}", text, answer, False, args))
                    continue
                if not isinstance(answer, str) or not answer.strip():
                    continue
                others = [r["answer"] for r in group if isinstance(r.get("answer"), str) and r["answer"].strip().casefold() != answer.strip().casefold()]
                if scorer in ("exact", "contains"):
                    # a wrong value the row's aliases do not accept
                    aliases = {str(x).casefold() for x in [answer, *(args.get("aliases") or [])]}
                    others = [
                        o for o in others if o.casefold() not in aliases and answer.casefold() not in o.casefold() and o.casefold() not in answer.casefold()
                    ]
                if not others:
                    continue
                wrong_value = rng.choice(others)
                if scorer == "numeric":
                    values = _numeric_values(answer)
                    if values is None:
                        continue
                    wrong_value = str(int(Fraction(answer)) + rng.choice([1, 2, 10]))
                    right = {**RIGHT_STYLES, **NUMERIC_RIGHT}
                    wrong = {**WRONG_STYLES, **NUMERIC_WRONG}
                    extra = values
                elif scorer == "mc":
                    choices = args.get("choices") or []
                    letters = [chr(65 + i) for i in range(len(choices))] or list("ABCD")
                    wrong_value = rng.choice([x for x in letters if x != answer])
                    right = {k: v for k, v in RIGHT_STYLES.items() if k not in ("it-is", "dash-reason", "justified")} | MC_RIGHT
                    wrong = {k: v for k, v in WRONG_STYLES.items() if k not in ("denied",)} | MC_WRONG
                    choice_text = choices[ord(answer) - 65] if choices and 0 <= ord(answer) - 65 < len(choices) else ""
                    extra = {"choice": choice_text}
                elif scorer == "contains":
                    right, wrong, extra = CONTAINS_RIGHT, CONTAINS_WRONG, {}
                elif scorer == "exact":
                    right, wrong, extra = RIGHT_STYLES, WRONG_STYLES, {}
                else:
                    continue
                for style, template in right.items():
                    cases.append(Case(suite, scorer, "right-" + style, _fmt(template, a=answer, w=wrong_value, **extra), answer, True, args))
                for style, template in wrong.items():
                    cases.append(Case(suite, scorer, "wrong-" + style, _fmt(template, a=answer, w=wrong_value, **extra), answer, False, args))
    return cases


_CLARIFY = {"clarify": True}
_CALL = {"name": "get_weather", "arguments": {"city": "Paris"}}

HAND_CASES: list[Case] = [
    # numeric: mixed numbers, vulgar fractions, conversions, corrections on one line
    Case("hand", "numeric", "mixed-number", "Answer: 1 1/2 cups", "1.5", True),
    Case("hand", "numeric", "vulgar-fraction", "¾ of the cake is left.", "0.75", True),
    Case("hand", "numeric", "vulgar-mixed", "Answer: 2½", "2.5", True),
    Case("hand", "numeric", "converted-unit", "The distance is 5 km (about 3.1 miles).", "5", True),
    Case("hand", "numeric", "same-line-correction", "Answer: 12, sorry, I mean 14", "14", True),
    Case("hand", "numeric", "same-line-correction-wrong", "Answer: 12, sorry, I mean 14", "12", False),
    Case("hand", "numeric", "denied-number", "It is 14, not 12.", "12", False),
    Case("hand", "numeric", "percent", "About 12.5% of them.", "12.5", True),
    Case("hand", "numeric", "negative-unicode", "Answer: −7 °C", "-7", True),
    Case("hand", "numeric", "spelled-out", "Answer: twelve", "12", False, ambiguous=True),
    # exact: units, justifications, chemistry, contradictions, multilingual
    Case("hand", "exact", "unit-noun", "8 legs", "8", True),
    Case("hand", "exact", "subscript", "CO₂", "CO2", True),
    Case("hand", "exact", "paren-justification", "Sunday (13 days after Monday is a Sunday)", "Sunday", True),
    Case("hand", "exact", "contradiction", "Saturday, not Friday", "Friday", False),
    Case("hand", "exact", "subject-copula", "Mercury is the closest planet to the Sun.", "Mercury", True),
    Case("hand", "exact", "hedge-two", "Paris or Lyon, I'm not sure which.", "Paris", False),
    Case("hand", "exact", "accented", "Answer: São Paulo", "São Paulo", True),
    Case("hand", "exact", "french-sentence", "La capitale de la France est Paris.", "Paris", True),
    Case("hand", "exact", "late-correction", "Lyon. Actually, no: Paris.", "Paris", True),
    Case("hand", "exact", "late-correction-wrong", "Paris. Actually, Lyon.", "Paris", False),
    # mc
    Case("hand", "mc", "declared-after-reasoning", "7 is odd, so A is out. B is the correct answer.", "B", True, {"choices": ["2", "7", "8", "10"]}),
    Case("hand", "mc", "article-not-letter", "This is a tricky one, a real puzzle.", "A", False, {"choices": ["x", "y", "z", "w"]}),
    Case("hand", "mc", "go-with", "I'd go with C.", "C", True, {"choices": ["x", "y", "z", "w"]}),
    # abstain: paraphrases and hedged fabrication
    Case("hand", "abstain", "couldnt-find", "I couldn't find any information about the Zorblax Institute.", None, True),
    Case("hand", "abstain", "not-aware-may-not-exist", "I'm not aware of any treaty by that name; it may not exist.", None, True),
    Case("hand", "abstain", "hedged-fabrication", "I don't know the exact details, but it was founded in 1887.", None, False),
    Case("hand", "abstain", "hedged-belief", "I'm not entirely sure, but I think it was in 1923.", None, False),
    # tool_call: clarifying questions against pleasantries
    Case("hand", "tool_call", "clarify-question", "Which city would you like the weather for?", _CLARIFY, True),
    Case("hand", "tool_call", "clarify-pleasantry", "The weather is sunny today. Is there anything else I can help with?", _CLARIFY, False),
    Case("hand", "tool_call", "clarify-hope-helps", "I checked the forecast for you. Hope this helps?", _CLARIFY, False),
    Case("hand", "tool_call", "call-as-structure", "", _CALL, True, tool_calls=({"function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},)),
    Case("hand", "tool_call", "call-as-text", 'I will call the tool: {"name": "get_weather", "arguments": {"city": "Paris"}}', _CALL, True),
    Case("hand", "tool_call", "call-wrong-args", "", _CALL, False, tool_calls=({"function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},)),
]

CODE_CASES: list[Case] = [
    Case(
        "hand",
        "code_exec",
        "function-then-usage",
        "```python\ndef add(a, b):\n    return a + b\n```\n\nExample usage:\n\n```python\nprint(add(2, 3))\n```",
        None,
        True,
        {"tests": "assert add(2, 3) == 5"},
    ),
    Case(
        "hand",
        "code_exec",
        "function-then-output",
        "```python\ndef add(a, b):\n    return a + b\n```\nOutput:\n```\n5\n>>> add(2, 3)\n```",
        None,
        True,
        {"tests": "assert add(2, 3) == 5"},
    ),
    Case("hand", "code_exec", "wrong-function", "```python\ndef add(a, b):\n    return a - b\n```", None, False, {"tests": "assert add(2, 3) == 5"}),
]


def all_cases(with_code: bool = False) -> list[Case]:
    return row_cases() + HAND_CASES + (CODE_CASES if with_code else [])
