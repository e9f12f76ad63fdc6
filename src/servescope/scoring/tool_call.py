"""tool-call: the model called the expected function(s) with the expected arguments.

``expected`` is ``{"name": ..., "arguments": {...}}`` (arguments compared as a subset),
a list of such calls for a chain (in order), or ``{"clarify": true}`` when the right
move is to ask a question instead of calling anything (a question that asks for
something: a closing pleasantry such as "Anything else I can help with?" is not one). Arguments are read with
``json.loads`` of ``tool_calls[].function.arguments``; invalid JSON is a wrong answer,
never a crash. Strict: real ``tool_calls``; flexible: a ``{"name", "arguments"}``
object written in the text by a model whose server has no tool-call parser.
"""

from __future__ import annotations

import json
import re
from typing import Any

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.json_match import first_json, same
from servescope.scoring.text import strip_thinking


def parse_calls(output: Output) -> tuple[list[tuple[str, Any]], str | None]:
    """The calls as (name, arguments), and the reason they could not be read, if any."""
    calls = []
    for call in output.tool_calls:
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            return [], "a tool call without function.name"
        raw = fn.get("arguments", "{}")
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return [], f"invalid JSON in the arguments of {fn['name']}: {str(raw)[:60]!r}"
        calls.append((fn["name"], arguments))
    return calls, None


def _from_text(text: str) -> list[tuple[str, Any]]:
    found = first_json(text)
    if found is None:
        return []
    value = found[0]
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            args = item.get("arguments", item.get("parameters", {}))
            calls.append((item["name"], args))
    return calls


# Closing pleasantries are questions that ask for nothing the task is missing.
_PLEASANTRY = re.compile(
    r"\b(?:anything\s+else|something\s+else|can\s+i\s+(?:help|assist|do)|(?:help|assist)\s+you\s+with|is\s+there\s+anything|"
    r"would\s+you\s+like\s+(?:me\s+to\s+)?(?:anything|more|further|help)|need\s+(?:anything|more|further|other)|does\s+(?:this|that)\s+help|"
    r"hope\s+(?:this|that)\s+helps|make\s+sense|sound\s+good|any\s+(?:other|more)\s+questions)\b",
    re.IGNORECASE,
)


# A request for the missing detail phrased without a question mark: "Please tell me the city.",
# "Let me know which city.", "都市名を教えてください。", "请告诉我城市。", "Dime la ciudad."
_REQUEST = re.compile(
    r"\b(?:please\s+(?:tell\s+me|provide|specify|share|clarify|indicate)\s+(?:which|what|where|when|who|how|the|your)|"
    r"(?:tell\s+me|let\s+me\s+know)\s+(?:which|what|where|when|who|how)|"
    r"i\s+(?:need|would\s+need)\s+(?:to\s+know\s+(?:the|your|a|which|what)|(?:the|your)\s+\w+(?:\s+\w+)?\s+to)\b)|"
    r"教えて(?:ください|下さい|いただけますか)|お知らせください|ご指定ください|指定してください|请(?:告诉我|提供|说明|指定)|"
    r"\b(?:dime|ind[ií]came|dígame|precisez|indiquez|dites-moi|nennen\s+sie\s+(?:mir|bitte)|sagen\s+sie\s+mir)\b",
    re.IGNORECASE,
)
# A sentence that states a value ("It is 18 °C", "Your flight is booked") is an answer, not a request for one.
_STATES_A_VALUE = re.compile(r"\d")


def asks_to_clarify(text: str) -> bool:
    """A question that asks for something (not "Anything else I can help with?"), or a request
    for it without a question mark ("Please tell me the city.", "都市名を教えてください。") in an
    answer that states no value (a reply that gives the weather and then "let me know ..." answered)."""
    if len(text) > 20_000:  # a runaway output is no clarifying question (and keeps the scan below linear)
        return False
    questions = [q for q in re.split(r"(?<=[.!?。！？])|\n", text) if q.rstrip().endswith(("?", "？"))]
    if any(q.strip(" ?？") and not _PLEASANTRY.search(q) for q in questions):
        return True
    if _STATES_A_VALUE.search(text):
        return False
    sentences = re.split(r"(?<=[.!。！])\s*|\n", text)
    return any(_REQUEST.search(s) and not _PLEASANTRY.search(s) for s in sentences)


def _matches(calls: list[tuple[str, Any]], want: list[dict[str, Any]]) -> bool:
    """The expected calls in order; an extra call may follow only to a function not expected.
    An extra call to an expected function with other arguments is a call for a value the
    conversation did not ask for (the city the user took back, as well as the revised one)."""
    if len(calls) < len(want):
        return False
    if not all(name == w.get("name") and same(args, w.get("arguments", {}), subset=True) for (name, args), w in zip(calls, want, strict=False)):
        return False
    expected_names = {w.get("name") for w in want}
    extra = calls[len(want) :]
    return all(
        name not in expected_names or any(same(args, w.get("arguments", {}), subset=True) for w in want if w.get("name") == name) for name, args in extra
    )


def score(output: Output, expected: object, args: Args) -> Score:
    calls, problem = parse_calls(output)
    if problem is not None:
        return wrong(problem, strict=False)
    text = strip_thinking(output.text)
    if isinstance(expected, dict) and expected.get("clarify"):
        asked = asks_to_clarify(text)
        return verdict(not calls and asked, text[:80] or None, strict=not calls and asked, detail="expects a clarifying question")
    want = expected if isinstance(expected, list) else [expected]
    if not all(isinstance(w, dict) and "name" in w for w in want):
        return wrong(f"expected tool call {expected!r} has no name")
    if calls:
        predicted = json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)[:200]
        return verdict(_matches(calls, want), predicted, strict=True)  # type: ignore[arg-type]
    in_text = _from_text(text)
    if not in_text:
        return wrong("no tool call", text[:80] or None, strict=False)
    predicted = json.dumps([{"name": n, "arguments": a} for n, a in in_text], ensure_ascii=False)[:200]
    return verdict(_matches(in_text, want), predicted, strict=False)  # type: ignore[arg-type]
