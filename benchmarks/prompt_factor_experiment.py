#!/usr/bin/env python
"""An experiment, not a rule the simulator ships: every iteration that carries prompt tokens
takes ``FACTOR`` x its modelled time, and the validation runs whose names start with
``PREFIX`` are predicted with zero calibration.

It asks one question of DataCrunch's SGLang v0.4 points (benchmarks/docs/predict-accuracy.md, "What
the remaining misses need"): does one prompt-iteration factor line up their misses, and does the
same factor carry to SGLang points it was not chosen on (GPUStack's SGLang 0.5.5 bursts)?

    .venv/bin/python benchmarks/prompt_factor_experiment.py 1.5 dc-         # DataCrunch, ~10 s
    .venv/bin/python benchmarks/prompt_factor_experiment.py 1.5 gs-sglang   # GPUStack's SGLang bursts
    .venv/bin/python benchmarks/prompt_factor_experiment.py 1.0 dc-         # the shipped model

Prints, per run, each metric as predicted / measured (the first point of the run).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from servescope.catalog.store import Catalog, packaged_root
from servescope.documents import EvaluationRun, load_document
from servescope.predict.step_time import StepTimeModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from predict_accuracy import METRICS, score


def scale_prompt_iterations(factor: float) -> None:
    """Every iteration with a prompt chunk lasts ``factor`` x what the step model says (a patch of this process only)."""
    modelled = StepTimeModel._step_time

    def scaled(self: StepTimeModel, decode_tokens: int, keys_full: float, keys_sliding: float, prefill: Sequence[tuple[int, int]], logits: int | None) -> float:
        t = modelled(self, decode_tokens, keys_full, keys_sliding, prefill, logits)
        return t * factor if prefill else t

    StepTimeModel._step_time = scaled  # type: ignore[method-assign]


def _first(values: list[float | None]) -> str:
    """The run's first point, or '-' where the source publishes no such metric."""
    return f"{values[0]:10.1f}" if values and values[0] is not None else f"{'-':>10}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("factor", type=float, help="prompt iterations' time multiplier (1.0: the shipped model)")
    ap.add_argument("prefix", help="validation run names starting with this (dc-, gs-sglang, ...)")
    args = ap.parse_args()
    scale_prompt_iterations(args.factor)
    root = packaged_root() / "validation"
    cat = Catalog.load([root])
    for path in sorted((root / "runs").glob(f"{args.prefix}*.yaml")):
        run = load_document(path, EvaluationRun)
        _, detail = score(cat.scenario(run.scenario), run, cat)
        cells = "  ".join(f"{m} {_first(detail[m]['predicted'])} / {_first(detail[m]['measured'])}" for m in METRICS)
        print(f"{run.name:<76} {cells}")


if __name__ == "__main__":
    main()
