"""Agreement of the scorers with the held-out blind set (issue 33).

Loads benchmarks/scorer_styles_blind.jsonl (made by make_scorer_styles_blind.py
without reading the scorers), scores every non-ambiguous case with
servescope.scoring.score_item, and prints agreement, false accepts (scorer says
right, grader says wrong) and false rejects per suite and scorer. For the
instruction scorer it also shows agreement by its strict verdict, since its
`correct` follows the loose one. Writes benchmarks/results/scorer_styles_blind.json.

Run: PYTHONPATH=src .venv/bin/python benchmarks/scorer_blind_agreement.py [--set 2|3|4|5|6|7|8]   (~2 s; set 2 runs
its code_exec cases in the bwrap sandbox, a few seconds more)
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from servescope.scoring import score_item
from servescope.scoring.base import Output

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "src" / "servescope" / "data" / "datasets"
SETS = {
    "1": (ROOT / "benchmarks" / "scorer_styles_blind.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind.json"),
    "2": (ROOT / "benchmarks" / "scorer_styles_blind2.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind2.json"),
    "3": (ROOT / "benchmarks" / "scorer_styles_blind3.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind3.json"),
    "4": (ROOT / "benchmarks" / "scorer_styles_blind4.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind4.json"),
    "5": (ROOT / "benchmarks" / "scorer_styles_blind5.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind5.json"),
    "6": (ROOT / "benchmarks" / "scorer_styles_blind6.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind6.json"),
    "7": (ROOT / "benchmarks" / "scorer_styles_blind7.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind7.json"),
    "8": (ROOT / "benchmarks" / "scorer_styles_blind8.jsonl", ROOT / "benchmarks" / "results" / "scorer_styles_blind8.json"),
}


def load_rows() -> dict[str, dict[str, Any]]:
    """Every eval row by id. A row asked again, word for word (the same prompt and conversation), by a later
    version of its dataset is scored with that version's row: eval-code-v2 and v3 keep v1's prompts and add edge
    cases and forbidden constructs; eval-tools-small-v2 keeps v1's rows and states a tool reading's unit. The blind
    answers answer the same prompt, and the suite's current version judges them."""
    keyed: dict[str, tuple[tuple[str, str, str], dict[str, Any]]] = {}  # row id -> (its key, its row)
    newest: dict[tuple[str, str, str], tuple[int, dict[str, Any]]] = {}  # (dataset, prompt, conversation) -> (version, row)
    for path in sorted(DATASETS.glob("eval-*.jsonl")):
        base, _, version_text = path.stem.rpartition("-v")
        version = int(version_text)
        for line in path.read_text().splitlines():
            row = json.loads(line)
            key = (base, row["text"], json.dumps(row.get("messages"), sort_keys=True))
            keyed[row["id"]] = (key, row)
            if version > newest.get(key, (0, row))[0]:
                newest[key] = (version, row)
    return {rid: newest[key][1] for rid, (key, _row) in keyed.items()}


def with_superseding_rules(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Instruction rows of a dataset a later version supersedes, with the rules that version added at the same
    position (same category), as its suite now checks them. eval-format-v2 (``supersedes: eval-format-v1``) states
    every constraint its prompt asks ("Write a sentence" -> one sentence, "keys 'topic' and 'mood'" -> those keys);
    v1, published and immutable, missed some. The blind answers to v1's prompts are judged by a grader who reads
    the prompt, so the figure by default holds them to the rules the current suite has; ``--as-published`` scores
    each row with its own rules (what a run of the old suite gives)."""
    out = dict(rows)
    for meta_path in sorted(DATASETS.glob("eval-*.json")):
        older = json.loads(meta_path.read_text()).get("supersedes")
        if not older:
            continue
        new_rows = [json.loads(line) for line in meta_path.with_suffix(".jsonl").read_text().splitlines()]
        old_rows = [json.loads(line) for line in (DATASETS / f"{older}.jsonl").read_text().splitlines()]
        for old, new in zip(old_rows, new_rows, strict=False):
            if old.get("scorer") != "instruction" or new.get("scorer") != "instruction" or old.get("category") != new.get("category"):
                continue
            have = {r["rule"] for r in old["score_args"]["rules"]}
            added = [r for r in new["score_args"]["rules"] if r["rule"] not in have]
            if added:
                out[old["id"]] = {**old, "score_args": {**old["score_args"], "rules": old["score_args"]["rules"] + added}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--set",
        choices=sorted(SETS),
        default="1",
        help="which blind set: 1 (scorer_styles_blind.jsonl), 2 (scorer_styles_blind2.jsonl), 3 (scorer_styles_blind3.jsonl), 4 (scorer_styles_blind4.jsonl), 5 (scorer_styles_blind5.jsonl), 6 (scorer_styles_blind6.jsonl), 7 (scorer_styles_blind7.jsonl) or 8 (scorer_styles_blind8.jsonl)",
    )
    ap.add_argument(
        "--as-published", action="store_true", help="score a superseded dataset's instruction rows with their own rules, not the superseding version's"
    )
    args = ap.parse_args()
    cases_path, out = SETS[args.set]
    rows = load_rows() if args.as_published else with_superseding_rules(load_rows())
    if args.as_published:
        out = out.with_name(out.stem + "_as_published.json")
    cases = [json.loads(line) for line in cases_path.read_text().splitlines()]
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # n, agree, FA, FR
    strict = [0, 0, 0, 0]
    disagreements: list[dict[str, Any]] = []
    for case in cases:
        if case["ambiguous"]:
            continue
        row = rows[case["row_id"]]
        expected = row["expected"] if "expected" in row else row.get("answer")
        score = score_item(case["scorer"], Output(case["text"], case.get("tool_calls") or []), expected, row.get("score_args"))
        got = bool(score.correct)
        for key in ((case["suite"], case["scorer"]), ("ALL", case["scorer"]), ("ALL", "ALL")):
            cell = table[key]
            cell[0] += 1
            cell[1 if got == case["verdict"] else 2 if got else 3] += 1
        if case["scorer"] == "instruction":
            s = bool(score.strict)
            strict[0] += 1
            strict[1 if s == case["verdict"] else 2 if s else 3] += 1
        if got != case["verdict"]:
            keep = ("suite", "row_id", "scorer", "style", "verdict", "text")
            disagreements.append({**{k: case[k] for k in keep}, "scorer_correct": got, "predicted": score.predicted})
    print(f"{'suite':24s} {'scorer':12s} {'n':>5s} {'agree':>7s} {'FA':>4s} {'FR':>4s}")
    for key in sorted(table, key=lambda k: (k[0] == "ALL", k)):
        n, agree, fa, fr = table[key]
        print(f"{key[0]:24s} {key[1]:12s} {n:5d} {agree / n:7.1%} {fa:4d} {fr:4d}")
    print(f"instruction by its strict verdict: n={strict[0]} agree={strict[1] / strict[0]:.1%} FA={strict[2]} FR={strict[3]}")
    summary = {
        "cases": len(cases),
        "ambiguous_left_out": sum(c["ambiguous"] for c in cases),
        "by_suite_scorer": {f"{k[0]}|{k[1]}": {"n": v[0], "agree": v[1], "false_accepts": v[2], "false_rejects": v[3]} for k, v in table.items()},
        "instruction_strict": {"n": strict[0], "agree": strict[1], "false_accepts": strict[2], "false_rejects": strict[3]},
        "disagreements": disagreements,
    }
    out.write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(disagreements)} disagreements -> {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
