"""How often servescope's scorers agree with a careful grader, per suite and scorer.

Scores every case of ``benchmarks/scorer_styles.py`` (realistic answer styles over the
packaged suites' rows, plus hand-written cases) with the product's own ``score_item`` and
compares the verdict with the grader's. Ambiguous cases are left out. Reports agreement,
false accepts (scorer says right, grader says wrong) and false rejects, per suite and
scorer and per style, and writes them as JSON.

    .venv/bin/python benchmarks/scorer_accuracy.py                       # table + results/scorer_accuracy.json
    .venv/bin/python benchmarks/scorer_accuracy.py --with-code           # also code-exec cases (needs the sandbox)
    .venv/bin/python benchmarks/scorer_accuracy.py --show-disagreements  # every case the scorer gets wrong

Goal (issue 33): >= 98 % agreement on every suite, no false accept.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scorer_styles import Case, all_cases

from servescope.scoring import score_item
from servescope.scoring.base import Output


def judge(case: Case) -> bool:
    return score_item(case.scorer, Output(case.text, list(case.tool_calls)), case.expected, case.args).correct


def tally(cases: list[Case]) -> dict[str, dict[str, float | int]]:
    groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for case in cases:
        got = judge(case)
        groups[f"{case.suite} / {case.scorer}"].append((got, case.verdict))
        groups["(all)"].append((got, case.verdict))
    out: dict[str, dict[str, float | int]] = {}
    for key, pairs in sorted(groups.items()):
        n = len(pairs)
        agree = sum(1 for got, want in pairs if got == want)
        out[key] = {
            "cases": n,
            "agreement": agree / n,
            "false_accepts": sum(1 for got, want in pairs if got and not want),
            "false_rejects": sum(1 for got, want in pairs if want and not got),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--with-code", action="store_true", help="score the code-exec cases too (runs code in the sandbox)")
    parser.add_argument("--show-disagreements", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "scorer_accuracy.json")
    args = parser.parse_args()
    cases = [c for c in all_cases(with_code=args.with_code) if not c.ambiguous]
    table = tally(cases)
    width = max(len(k) for k in table)
    print(f"{'suite / scorer':<{width}}  cases  agreement  false-accepts  false-rejects")
    for key, row in table.items():
        print(f"{key:<{width}}  {row['cases']:>5}  {row['agreement']:>9.1%}  {row['false_accepts']:>13}  {row['false_rejects']:>13}")
    if args.show_disagreements:
        for case in cases:
            if judge(case) != case.verdict:
                print(f"\n[{case.suite} / {case.scorer} / {case.style}] grader={case.verdict} expected={case.expected!r}\n  {case.text!r}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"cases": len(cases), "by_suite": table}, indent=2) + "\n")
    worst = min(row["agreement"] for row in table.values())
    accepts = table["(all)"]["false_accepts"]
    print(f"\nworst agreement {worst:.1%}; false accepts {accepts}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
