"""From scored items to the Result's ``scores`` block (simple-evals keeps this in one place).

accuracy = correct items / items sent: a request that failed is an item not answered,
so it counts as wrong here and is listed in ``failures[]`` (success_rate says how many
completed at all). A row the endpoint cannot take (failure category ``unsupported``:
tools on a template without them, images without vision) is not an item the model got
wrong: it is left out of accuracy, success_rate, item_count and the breakdowns, counted
in ``unsupported_count`` beside them, and listed among the items with ``correct`` null;
when every row is unsupported, accuracy is null (nothing was measured), never 0. Intervals are Wilson (``analysis.stats.rate_ci``). ``abstention`` is
the share of unanswerable items where the model said it could not answer;
``false_abstention`` the share of answerable items of such a suite where it did.
``calibration`` (suites that ask for a confidence only): ECE/MCE of the confidences
the answers stated (``analysis.stats.calibration_error``), over the items that stated
one; ``ece``/``mce`` stay null when none did.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from servescope.analysis.stats import calibration_error, rate_ci
from servescope.scoring.base import Score

ITEM_TEXT_LIMIT = 500
INTEGRITY_NOTE = (
    "token integrity: a clean run is not proof of absence (at a one-in-five per-generation rate a clean pass "
    "is plausible for an affected build); report the run, not the absence"
)


@dataclass(frozen=True)
class ScoredItem:
    id: str
    category: str | None
    difficulty: str | None
    scorer: str
    completed: bool
    score: Score | None  # None when the request failed before an answer
    expected: Any
    latency_ms: float | None
    unanswerable: bool = False
    unsupported: bool = False  # not sent, or refused, for what the endpoint cannot take
    confidence: float | None = None  # stated by the answer (0..1), suites that ask for one
    parts: int | None = None  # a row of several checked parts (instruction rules): how many, answered or not


def _cut(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else repr(value)
    return text[:ITEM_TEXT_LIMIT]


def _rate(hits: int, n: int) -> dict[str, Any]:
    ci = rate_ci(hits, n)
    return {"accuracy": hits / n if n else None, "n": n, "ci_low": ci[0] if ci else None, "ci_high": ci[1] if ci else None}


def calibration_block(items: list[ScoredItem]) -> dict[str, Any]:
    stated = [i for i in items if i.confidence is not None]
    block = calibration_error([i.confidence for i in stated if i.confidence is not None], [bool(i.score and i.score.correct) for i in stated])
    return block if block is not None else {"ece": None, "mce": None, "bins": [], "answered_with_confidence": 0}


def scores_block(all_items: list[ScoredItem], workload_scorer: str, confidence_asked: bool = False) -> dict[str, Any]:
    items = [i for i in all_items if not i.unsupported]
    n = len(items)
    correct = [bool(i.score and i.score.correct) for i in items]
    # strict over the same items as accuracy: a request that failed was not answered in the asked-for
    # form either (it counts as not strict), so strict never reads above flexible
    has_strict_form = any(i.score is not None and i.score.strict is not None for i in items)
    strict_known = [i for i in items if i.score is None or i.score.strict is not None] if has_strict_form else []
    completed = [i for i in items if i.completed]
    latencies = [i.latency_ms for i in completed if i.latency_ms is not None]
    groups: dict[str, dict[str, list[bool]]] = {"by_category": defaultdict(list), "by_difficulty": defaultdict(list)}
    for item, ok in zip(items, correct, strict=True):
        groups["by_category"][item.category or "(none)"].append(ok)
        groups["by_difficulty"][item.difficulty or "(none)"].append(ok)
    overall = _rate(sum(correct), n)
    block: dict[str, Any] = {
        "accuracy": overall["accuracy"],
        "accuracy_ci_low": overall["ci_low"],
        "accuracy_ci_high": overall["ci_high"],
        "strict_accuracy": (sum(1 for i in strict_known if i.score and i.score.strict) / len(strict_known)) if strict_known else None,
        "success_rate": len(completed) / n if n else None,
        "avg_latency_ms": sum(latencies) / len(latencies) if latencies else None,
        "scorer": workload_scorer,
        "correct_count": sum(correct),
        "item_count": n,
        "unsupported_count": len(all_items) - n,
        "by_category": {k: sum(v) / len(v) for k, v in sorted(groups["by_category"].items())},
        "by_difficulty": {k: sum(v) / len(v) for k, v in sorted(groups["by_difficulty"].items())},
        "by_category_detail": {k: _rate(sum(v), len(v)) for k, v in sorted(groups["by_category"].items())},
    }
    if any(i.parts for i in items):
        # IFEval's instruction level: instructions kept over instructions given; an unanswered row keeps none
        given = sum(i.parts or 0 for i in items)
        kept = sum(i.score.parts_kept or 0 for i in items if i.score is not None and i.parts)
        kept_strict = sum(i.score.parts_kept_strict or 0 for i in items if i.score is not None and i.parts)
        block["instruction_accuracy"] = kept / given if given else None
        block["instruction_strict_accuracy"] = kept_strict / given if given else None
    unanswerable = [i for i in items if i.unanswerable]
    if unanswerable:
        said = sum(1 for i in unanswerable if i.score and i.score.abstained)
        answerable = [i for i in items if not i.unanswerable]
        block["abstention"] = said / len(unanswerable)
        block["false_abstention"] = (sum(1 for i in answerable if i.score and i.score.abstained) / len(answerable)) if answerable else None
    if workload_scorer.replace("_", "-") == "token-integrity":
        block["note"] = INTEGRITY_NOTE
    if confidence_asked:
        block["calibration"] = calibration_block(items)
    block["items"] = [
        {
            "id": i.id,
            "correct": None if i.unsupported else bool(i.score and i.score.correct),
            "score": i.score.score if i.score else None,
            "strict": i.score.strict if i.score else None,
            "predicted": _cut(i.score.predicted if i.score else None),
            "expected": _cut(i.expected),
            "latency_ms": i.latency_ms,
            "category": i.category,
            "difficulty": i.difficulty,
            "scorer": i.scorer,
            "detail": _cut(i.score.detail if i.score else ("unsupported by the endpoint" if i.unsupported else "request failed") + "; see failures[]"),
            **({"confidence": i.confidence} if confidence_asked else {}),
        }
        for i in all_items
    ]
    return block
