"""A load sharing prompt prefixes, predicted on llama.cpp (whose prompt cache the simulator does
not model): predict warns, and compare says it again and holds back its calibrate hint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from servescope.analysis.calibration_hint import calibrate_hint
from servescope.analysis.compare import compare
from servescope.documents import EvaluationRun, Prediction, Scenario
from servescope.predict.api import predict
from servescope.workload.load_build import LoadRequest, build_load

# the docs' trace (your-own-load.md): block 0 leads five of the six requests
DOCS_TRACE = [(0, 600, [0, 1]), (250, 700, [0, 2]), (500, 300, [3]), (750, 600, [0, 1]), (1000, 800, [0, 4]), (1250, 600, [0, 1])]


def write_trace(path: Path, blocks: list[list[int]] | None = None) -> Path:
    lines = [
        {"timestamp": t, "input_length": n, "output_length": 16, "hash_ids": blocks[i] if blocks is not None else ids}
        for i, (t, n, ids) in enumerate(DOCS_TRACE)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def cache_lines(prediction: Prediction) -> list[str]:
    return [w for w in prediction.warnings if "prefix cache is not simulated" in w]


def test_a_trace_sharing_blocks_on_llama_cpp_is_warned(tmp_path: Path) -> None:
    resolved = build_load(LoadRequest(trace=write_trace(tmp_path / "t.jsonl"), speedup=2.0))
    [line] = cache_lines(predict("tiny-llama-on-cpu", resolved).prediction)
    assert "4 of 6 requests begin as an earlier one" in line and "llama.cpp" in line and "tiny-llama-on-cpu" in line


def test_no_warning_when_nothing_is_shared_or_the_cache_is_simulated(tmp_path: Path) -> None:
    unique = build_load(LoadRequest(trace=write_trace(tmp_path / "u.jsonl", [[i] for i in range(6)]), speedup=2.0))
    assert not cache_lines(predict("tiny-llama-on-cpu", unique).prediction)
    shared = build_load(LoadRequest(trace=write_trace(tmp_path / "t.jsonl"), speedup=2.0))
    assert not cache_lines(predict("llama-3.1-8b-on-h100", shared).prediction)  # vLLM: its prefix cache is simulated
    from servescope.catalog.store import Catalog

    base = Catalog.load().scenario("tiny-llama-on-cpu")
    for caching in (True, False):  # simulated; or turned off (the engine does not cache either)
        scen = Scenario.model_validate(base.model_dump() | {"engine": base.engine.model_dump() | {"enable_prefix_caching": caching}})
        assert not cache_lines(predict(scen, shared).prediction)


def test_alike_prompts_of_a_prompt_file_are_warned(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    system = "You are a careful assistant who answers in full sentences. " * 8  # > 256 characters, the same on every line
    path.write_text("".join(json.dumps({"prompt": system + f"question {i}?", "max_tokens": 8}) + "\n" for i in range(5)), encoding="utf-8")
    [line] = cache_lines(predict("tiny-llama-on-cpu", build_load(LoadRequest(input_file=path, concurrency=[1]))).prediction)
    assert "4 of 5 requests" in line


def measured_third(prediction: Prediction) -> EvaluationRun:
    """A measurement of the prediction's points at a third of its throughput (a miss of +200 %)."""
    points = [{"concurrency": p.concurrency, "ttft_ms": p.ttft_ms, "output_tokens_per_sec": (p.output_tokens_per_sec or 0) / 3} for p in prediction.points]
    return EvaluationRun.model_validate({"kind": "EvaluationRun", "name": "m", "scenario": prediction.scenario, "harness": "servescope",
                                         "engine_version": "x", "workload": prediction.workload, "points": points})  # fmt: skip


def test_compare_says_it_and_holds_back_the_calibrate_hint(tmp_path: Path) -> None:
    resolved = build_load(LoadRequest(trace=write_trace(tmp_path / "t.jsonl"), speedup=2.0))
    prediction = predict("tiny-llama-on-cpu", resolved).prediction
    run = measured_third(prediction)
    sides = ((prediction, Path("p.json")), (run, Path("m.json")))
    c = compare(prediction, run)
    assert c.cache_not_simulated and any("prefix cache is not simulated" in w for w in c.warnings)
    assert calibrate_hint(c, sides) is None
    # the same miss without the cause: the hint is given
    plain = prediction.model_copy(update={"warnings": [w for w in prediction.warnings if w not in cache_lines(prediction)]})
    assert calibrate_hint(compare(plain, run), ((plain, Path("p.json")), (run, Path("m.json")))) is not None
    # and on the command line, whichever side comes first
    pred_path, run_path = tmp_path / "prediction.json", tmp_path / "measured.json"
    prediction.write_json(pred_path)
    run_path.write_text(json.dumps(run.dump()), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "servescope", "compare", str(run_path), str(pred_path)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "prefix cache is not simulated" in proc.stderr and "hint:" not in proc.stderr


def test_a_request_shares_when_its_leading_block_or_text_came_before() -> None:
    from servescope.predict.unsimulated_cache import shared_prefix_requests
    from servescope.workload.plan import PlannedRequest

    blocks = [PlannedRequest(f"r{i}", "", f"p{i}", 8, 600, prefix_blocks=(i % 2, 9)) for i in range(4)]
    assert shared_prefix_requests(blocks) == (2, 4)  # blocks 0, 1, then 0 and 1 again
    texts = [PlannedRequest(f"r{i}", t, f"p{i}", 8, None) for i, t in enumerate(["a" * 300 + "x", "a" * 300 + "y", "short", "short", "b"])]
    assert shared_prefix_requests(texts) == (2, 5)  # alike over 256 characters, and a whole short prompt again
