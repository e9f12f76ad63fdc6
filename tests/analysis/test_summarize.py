"""summarize: the seed's file set, its contract, and hand-computed aggregates."""

from __future__ import annotations

import csv
import itertools
import math
from pathlib import Path
from typing import Any

import pytest

from servescope.analysis.summarize import (
    GROUP_KEYS,
    V03_STATS,
    group_results,
    load_point,
    summary_rows,
    v02_columns,
    v03_columns,
    write_summary,
)
from servescope.documents import Result, config_id
from servescope.documents.result import Slo


def make_result(
    run_id: str,
    workload: str = "serve-x-v1",
    parallel: int = 4,
    completed: int = 10,
    failed: int = 0,
    ttft_p50: float | None = 100.0,
    tps: float | None = 500.0,
    started: str = "2026-11-30T00:00:00+00:00",
    llm: dict[str, Any] | None = None,
    on_time: float | None = None,
    concurrency: int | list[int] = 8,
    rate: float | None = None,
) -> Result:
    args = {"--parallel": parallel}
    failures = [{"stage": "send", "category": "http-error", "count": failed, "message": "boom"}] if failed else []
    doc: dict[str, Any] = {
        "kind": "Result",
        "run_id": run_id,
        "workload_id": workload,
        "config_id": config_id("llama.cpp", "1", args),
        "timing_mode": "explicit",
        "engine": {"id": "llama.cpp", "version": "1"},
        "model": {"id": "tiny"},
        "args": args,
        "metrics": {
            "total_requests": completed + failed,
            "completed_requests": completed,
            "failed_requests": failed,
            "success_rate": completed / (completed + failed),
            "output_tokens_total": completed * 16,
            "output_tokens_per_sec": tps,
            "ttft_ms": None if ttft_p50 is None else {"count": completed, "p50": ttft_p50, "min": 1.0, "max": 1000.0},
            "requested_rate": rate,
        },
        "resolved_params": {"points": [{"concurrency": c} for c in ([concurrency] if isinstance(concurrency, int) else concurrency)]},
        "failures": failures,
        "throughput": completed,
        "blocked_by_reason_code": {"http-error": failed} if failed else {},
        "metadata": {"pipeline_mode": "llm_live", "non_deterministic": True, "started_at": started, "run_duration_wall_s": 10.0},
    }
    if on_time is not None:
        doc["slos"] = [{"id": "ttft", "metric": "ttft_ms", "threshold": 500.0}]
        doc["on_time_rate"] = on_time
        doc["violations_by_invariant_id"] = {"ttft": 0}
    if llm is not None:
        doc["llm"] = llm
    return Result.model_validate(doc)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_file_set_and_contract(tmp_path: Path) -> None:
    results = [make_result("a", ttft_p50=100.0), make_result("b", ttft_p50=140.0), make_result("c", parallel=8)]
    files = write_summary(results, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.csv", "summary.md", "summary_v0.2.csv", "summary_v0.3.csv"]
    assert files.csv.read_bytes() == files.v02.read_bytes()
    v02 = files.v02.read_text().splitlines()[0].split(",")
    v03 = files.v03.read_text().splitlines()[0].split(",")
    assert v02 == v02_columns() and v03 == v03_columns()
    assert v03[: len(v02)] == v02  # every v0.2 column, in place, in v0.3
    assert not [c for c in v02 if c.endswith(tuple(f"_{s}" for s in V03_STATS)) or "_ci_" in c]
    rows2, rows3 = read_csv(files.v02), read_csv(files.v03)
    for r2, r3 in zip(rows2, rows3, strict=True):  # same rows, same values, compatible types
        assert {k: r3[k] for k in r2} == r2


def test_hand_computed_aggregates(tmp_path: Path) -> None:
    results = [make_result("a", ttft_p50=100.0, failed=0), make_result("b", ttft_p50=140.0, completed=6, failed=4)]
    [row] = read_csv(write_summary(results, tmp_path).v03)
    assert row["n_episodes"] == "2"
    assert float(row["ttft_ms_p50_mean"]) == 120.0
    assert math.isclose(float(row["ttft_ms_p50_std"]), math.sqrt(800.0))  # ((20^2)*2)/(2-1)
    assert float(row["throughput_mean"]) == 8.0
    assert float(row["ttft_ms_p50_p50"]) == 120.0
    assert math.isclose(float(row["ttft_ms_p50_p90"]), 136.0)  # 100 + 0.9*(140-100)
    # t(0.975, df=1) = 12.7062; half width = 12.7062 * sqrt(800) / sqrt(2) = 254.12: the lower bound
    # 120 - 254.12 is below 0, which no latency can be, so it is cut at 0; the upper one stays
    assert float(row["ttft_ms_p50_mean_ci_lower"]) == 0.0
    assert math.isclose(float(row["ttft_ms_p50_mean_ci_upper"]), 120 + 12.706204736 * 20.0, rel_tol=1e-6)
    # pooled success: 16 of 20 → Wilson (0.5840, 0.9193)
    assert math.isclose(float(row["success_rate_ci_lower"]), 0.58398, abs_tol=1e-4)
    assert math.isclose(float(row["success_rate_ci_upper"]), 0.91931, abs_tol=1e-4)
    assert row["on_time_rate_ci_lower"] == "" and row["kv_utilization_mean"] == ""  # not measured: empty, never 0


def test_single_episode_has_no_std_quantiles_or_ci(tmp_path: Path) -> None:
    [row] = read_csv(write_summary([make_result("a")], tmp_path).v03)
    assert row["ttft_ms_p50_mean"] == "100.0" and row["ttft_ms_p50_std"] == ""
    assert row["ttft_ms_p50_p50"] == "" and row["ttft_ms_p50_mean_ci_lower"] == ""
    assert row["success_rate_ci_lower"] != ""  # a rate CI needs trials, not episodes


def test_groups_by_workload_config_and_harness() -> None:
    results = [make_result("a"), make_result("b", parallel=8), make_result("c", workload="serve-y-v1"), make_result("d")]
    groups = group_results(results)
    sizes = {(g.key[0], g.key[1]): [r.run_id for r in g.results] for g in groups}
    four, eight = results[0].config_id, results[1].config_id
    assert sizes == {("serve-x-v1", four): ["a", "d"], ("serve-x-v1", eight): ["b"], ("serve-y-v1", four): ["c"]}
    assert [g.key for g in groups] == sorted(g.key for g in groups)
    assert GROUP_KEYS == ("workload_id", "config_id", "harness", "load", "model", "slos")


def test_runs_held_to_different_slos_are_not_repeats(tmp_path: Path) -> None:
    """on_time_rate and goodput count the requests within the run's SLOs: runs held to two SLO
    sets are two questions, never averaged as episodes; the set is written in its column."""

    def held(run_id: str, on_time: float, *slos: tuple[str, float]) -> Result:
        r = make_result(run_id, on_time=on_time)
        listed = [Slo(id=f"{m}<={t:g}", metric=m, threshold=t) for m, t in slos]  # type: ignore[arg-type]
        return r.model_copy(update={"slos": listed, "violations_by_invariant_id": {s.id: 0 for s in listed}})

    results = [
        held("a", 1.0, ("ttft_ms", 500.0), ("tpot_ms", 50.0)),
        held("b", 0.0, ("ttft_ms", 5.0)),
        held("c", 1.0, ("tpot_ms", 50.0), ("ttft_ms", 500.0)),  # the same set in another order: a repeat of a
        make_result("d"),
    ]
    rows = read_csv(write_summary(results, tmp_path).v02)
    got = sorted((r["slos"], r["n_episodes"], r["on_time_rate_mean"]) for r in rows)
    assert got == [("", "1", ""), ("tpot_ms<=50,ttft_ms<=500", "2", "1.0"), ("ttft_ms<=5", "1", "0.0")]
    assert "tpot_ms<=50,ttft_ms<=500" in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_two_models_on_the_same_engine_flags_are_not_repeats(tmp_path: Path) -> None:
    """The embedded engine serves the tiny model or SmolLM2 with the same flags, so the
    two share a config_id: only the model tells them apart, and they are never pooled."""
    a, b, c = make_result("a"), make_result("b"), make_result("c")
    b = b.model_copy(update={"model": b.model.model_copy(update={"id": "smollm2-135m"})})
    assert a.config_id == b.config_id
    rows = read_csv(write_summary([a, b, c], tmp_path).v02)
    assert sorted((r["model"], r["n_episodes"]) for r in rows) == [("smollm2-135m", "1"), ("tiny", "2")]


def test_runs_at_different_load_points_are_not_repeats(tmp_path: Path) -> None:
    # `run --concurrency N` and `run --rate R` change neither the workload id nor config_id:
    # only the load point tells such runs apart, and they must never be pooled as episodes.
    results = [
        make_result("a", concurrency=1),
        make_result("b", concurrency=16),
        make_result("c", concurrency=1),
        make_result("d", concurrency=1, rate=5.0),
        make_result("e", concurrency=[1, 2, 4]),
    ]
    groups = {g.key[3]: [r.run_id for r in g.results] for g in group_results(results)}
    assert groups == {"c=1": ["a", "c"], "c=16": ["b"], "c=1 rate=5/s": ["d"], "c=1,2,4": ["e"]}
    rows = read_csv(write_summary(results, tmp_path).v02)
    assert sorted((r["load"], r["n_episodes"]) for r in rows) == [("c=1", "2"), ("c=1 rate=5/s", "1"), ("c=1,2,4", "1"), ("c=16", "1")]


def test_an_ad_hoc_open_loop_is_labelled_by_its_load_not_by_concurrency_1(tmp_path: Path) -> None:
    # an ad-hoc --rate or --trace run plans one point of concurrency 1 as a placeholder: the load is its rate or its trace
    def adhoc(run_id: str, description: dict[str, object], rate: float | None = None) -> Result:
        r = make_result(run_id, concurrency=1, rate=rate)
        return r.model_copy(update={"resolved_params": {**r.resolved_params, "load_description": description}})

    results = [
        adhoc("a", {"label": "adhoc-1", "source": "synthetic", "isl": 8, "osl": 4, "num_requests": 4, "rate": 4.0}, rate=4.0),
        adhoc("b", {"label": "adhoc-2", "source": "trace", "speedup": 2.0}),
        adhoc("c", {"label": "adhoc-3", "source": "trace"}),
        adhoc("d", {"label": "adhoc-4", "source": "synthetic", "isl": 8, "osl": 4, "num_requests": 4, "concurrency": [1]}),
        adhoc("e", {"label": "serve-x-v1", "source": "catalog", "workload_id": "serve-x-v1"}, rate=5.0),
    ]
    assert [load_point(r) for r in results] == ["rate=4/s", "trace x2", "trace x1", "c=1", "c=1 rate=5/s"]
    assert {r["load"] for r in read_csv(write_summary(results, tmp_path).v02)} == {"rate=4/s", "trace x2", "trace x1", "c=1", "c=1 rate=5/s"}


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_output_never_depends_on_input_order(tmp_path: Path, order: tuple[int, ...]) -> None:
    base = [make_result("a", ttft_p50=90.0), make_result("b", parallel=8, ttft_p50=95.0), make_result("c", ttft_p50=130.0, started="2026-11-30T01:00:00+00:00")]
    ref = write_summary(base, tmp_path / "ref")
    got = write_summary([base[i] for i in order], tmp_path / "got")
    for a, b in ((ref.v02, got.v02), (ref.v03, got.v03), (ref.markdown, got.markdown)):
        assert a.read_bytes() == b.read_bytes()


def test_markdown_has_run_info_and_llm_economics(tmp_path: Path) -> None:
    llm = {"call_count": 3, "total_tokens": 300, "error_rate": 0.0, "invalid_output_rate": 0.0, "mean_latency_ms": 12.5}
    md = write_summary([make_result("a", llm=llm), make_result("b")], tmp_path).markdown.read_text()
    assert "## Run info" in md and "| a | serve-x-v1 | 10 | 1 |" in md
    assert "## LLM economics" in md and "| a | 3 | 300 | 12.5 |" in md


def test_on_time_rate_binomial_ci(tmp_path: Path) -> None:
    rows = summary_rows(group_results([make_result("a", on_time=0.5), make_result("b", on_time=1.0)]), "v0.3")
    # pooled 15 of 20 on time → Wilson (0.5313, 0.8881)
    assert math.isclose(rows[0]["on_time_rate_ci_lower"], 0.53131, abs_tol=1e-4)
    assert math.isclose(rows[0]["on_time_rate_ci_upper"], 0.88814, abs_tol=1e-4)


def test_goodput_column_beside_on_time_rate(tmp_path: Path) -> None:
    def with_goodput(r: Result, g: float) -> Result:
        return r.model_copy(update={"metrics": r.metrics.model_copy(update={"goodput_requests_per_sec": g})})

    results = [with_goodput(make_result("a", on_time=0.5), 2.0), with_goodput(make_result("b", on_time=1.0), 4.0)]
    row = summary_rows(group_results(results), "v0.3")[0]
    assert row["goodput_requests_per_sec_mean"] == 3.0 and math.isclose(row["goodput_requests_per_sec_std"], math.sqrt(2.0))
    cols = v02_columns()
    assert cols.index("goodput_requests_per_sec_mean") == cols.index("on_time_rate_std") + 1
    # no SLO, no goodput: an empty cell, never 0
    files = write_summary([make_result("c")], tmp_path)
    assert read_csv(files.v02)[0]["goodput_requests_per_sec_mean"] == ""


def scored(run_id: str, correct: list[bool], cats: list[str], confidences: list[float | None] | None = None, **kw: Any) -> Result:
    r = make_result(run_id, workload="eval-x-v1", completed=len(correct), **kw)
    n = len(correct)
    items = [
        {
            "id": f"q{i}",
            "correct": ok,
            "strict": ok and i % 2 == 0,
            "latency_ms": 100.0 * (i + 1),
            "category": cats[i],
            **({"confidence": confidences[i]} if confidences else {}),
        }
        for i, ok in enumerate(correct)
    ]
    block: dict[str, Any] = {"accuracy": sum(correct) / n, "correct_count": sum(correct), "item_count": n, "items": items}
    if confidences is not None:
        block["calibration"] = {"ece": None, "mce": None, "bins": [], "answered_with_confidence": 0}
    return r.model_copy(update={"scores": Result.model_validate({**r.model_dump(mode="json"), "scores": block}).scores})


def test_scores_are_pooled_over_a_groups_items_with_a_wilson_interval(tmp_path: Path) -> None:
    a = scored("e1", [True, True, False, False], ["x", "x", "y", "y"], [0.9, 0.9, 0.9, None], started="2026-11-30T00:00:00+00:00")
    b = scored("e2", [True, True, True, False], ["x", "y", "y", "y"], [0.9, None, None, None], started="2026-11-30T01:00:00+00:00")
    plain = make_result("serve-run")
    files = write_summary([a, b, plain], tmp_path)
    rows = {r["workload_id"]: r for r in read_csv(files.v03)}
    row = rows["eval-x-v1"]
    # 5 of 8 answers right, over 4 distinct items (each asked twice): Wilson 95 % of 0.625 with n = 4,
    # centre (0.625 + 1.9208/4)/(1 + 3.8415/4) = 0.5638, half-width 1.96·√(0.625·0.375/4 + 3.8415/64)/1.9604 = 0.3443
    assert row["scored_items"] == "8" and row["correct_items"] == "5" and float(row["accuracy"]) == 0.625
    assert float(row["accuracy_ci_lower"]) == pytest.approx(0.2194, abs=1e-4) and float(row["accuracy_ci_upper"]) == pytest.approx(0.9081, abs=1e-4)
    assert float(row["strict_accuracy"]) == pytest.approx(3 / 8)  # q0 and q2 of each, where right: e1 q0; e2 q0, q2
    assert row["accuracy_by_category"] == "x 3/3; y 2/5"
    assert float(row["item_latency_ms_mean"]) == 250.0
    # 4 stated 0.9, 3 of them right: |0.75 - 0.9| in one bin
    assert row["answered_with_confidence"] == "4" and float(row["ece"]) == pytest.approx(0.15) and float(row["mce"]) == pytest.approx(0.15)
    assert all(rows["serve-x-v1"][c] == "" for c in ("accuracy", "scored_items", "ece"))  # not scored: empty, never zero
    md = files.markdown.read_text()
    assert "## Scores" in md and "| eval-x-v1 |" in md and "62.5 % (21.9 %–90.8 %)" in md and "x 3/3; y 2/5" in md
    assert "| serve-x-v1 |" not in md.split("## Scores")[1].split("##")[0]


def test_scores_without_any_confidence_leave_ece_empty(tmp_path: Path) -> None:
    files = write_summary([scored("e1", [True, False], ["x", "x"], [None, None])], tmp_path)
    row = read_csv(files.v03)[0]
    assert row["answered_with_confidence"] == "0" and row["ece"] == "" and row["mce"] == ""


def test_unsupported_items_are_in_no_pooled_figure(tmp_path: Path) -> None:
    """An item the endpoint could not take has correct = null: not in accuracy, categories or the interval's n."""
    r = scored("e1", [True, False, True], ["x", "x", "img"])
    items = list(r.scores.items or [])  # type: ignore[union-attr]
    items[2] = items[2].model_copy(update={"correct": None})
    r = r.model_copy(update={"scores": r.scores.model_copy(update={"items": items, "correct_count": 1, "item_count": 2})})  # type: ignore[union-attr]
    row = read_csv(write_summary([r], tmp_path).v03)[0]
    assert row["accuracy"] == "0.5" and row["accuracy_by_category"] == "x 1/2"
    assert float(row["accuracy_ci_lower"]) == pytest.approx(0.0945, abs=1e-4)  # Wilson 1 of 2
