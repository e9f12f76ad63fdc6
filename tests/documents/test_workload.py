"""Workload: the pinned question (shared/seeds/workloads.txt)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from servescope.documents import Workload, load
from tests.documents.conftest import WriteFn, issues_of, triples

SERVING: dict[str, Any] = {
    "id": "serve-chat-c8-i1k-o256-v1",
    "kind": "serving",
    "name": "Chat at concurrency 8",
    "description": "1k-token prompts, 256 output tokens, 8 in flight.",
    "dataset_id": "prompts-chat-v1",
    "params": {"concurrency": 8, "num_requests": 64, "input_tokens": 1024, "output_tokens": 256, "seed": 0},
    "metrics_required": ["ttft_ms.p50", "itl_ms.p95", "output_tokens_per_sec"],
    "immutable": True,
    "created": "2026-09-20",
    "supersedes": None,
}

SWEEP: dict[str, Any] = {
    "id": "sweep-conc-i1k-o256-v1",
    "kind": "sweep",
    "name": "Concurrency sweep",
    "dataset_id": "prompts-chat-v1",
    "params": {"concurrency": 1, "num_requests": 64, "output_tokens": 256, "requests_per_concurrency": 4},
    "sweep": {"axis": "concurrency", "values": [1, 2, 4, 8, 16, 32, 64, 128]},
    "metrics_required": ["output_tokens_per_sec", "ttft_ms.p50"],
    "immutable": True,
    "created": "2026-09-22",
}

EVAL: dict[str, Any] = {
    "id": "eval-math-v1",
    "kind": "eval",
    "name": "Math",
    "dataset_id": "eval-math-v1",
    "params": {"concurrency": 4, "num_requests": 50, "temperature": 0.0},
    "eval": {"scorer": "numeric"},
    "metrics_required": ["accuracy", "success_rate", "avg_latency_ms"],
    "immutable": True,
    "created": "2026-09-20",
}

IMAGE: dict[str, Any] = {
    "id": "image-t2i-1024-s28-v1",
    "kind": "image",
    "name": "Text to image",
    "dataset_id": "prompts-image-v1",
    "params": {"width": 1024, "height": 1024, "steps": 28, "seed": 7, "images_per_request": 1, "ref_images": 0},
    "metrics_required": ["s_per_image.p50", "success_rate"],
    "immutable": True,
    "created": "2026-09-20",
}


def doc(base: dict[str, Any], **over: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    out.update(over)
    return out


def with_params(base: dict[str, Any], **over: Any) -> dict[str, Any]:
    out = doc(base)
    out["params"].update(over)
    return out


def without_param(base: dict[str, Any], name: str) -> dict[str, Any]:
    out = doc(base)
    del out["params"][name]
    return out


# --- valid workloads -----------------------------------------------------------------------------


@pytest.mark.parametrize("base", [SERVING, SWEEP, EVAL, IMAGE], ids=["serving", "sweep", "eval", "image"])
def test_valid_workload_has_no_issues(write: WriteFn, base: dict[str, Any]) -> None:
    loaded = load(write(f"{base['id']}.json", base))
    assert loaded.issues == []
    assert isinstance(loaded.document, Workload)
    assert loaded.document.kind == base["kind"]


def test_version_and_base_id() -> None:
    w = Workload.model_validate(doc(SERVING, id="serve-chat-c8-i1k-o256-v12"))
    assert w.version == 12
    assert w.base_id == "serve-chat-c8-i1k-o256"


def test_unquoted_yaml_date_is_accepted(write: WriteFn) -> None:
    text = (
        "id: serve-chat-c8-v1\nkind: serving\nname: Chat\ndataset_id: prompts-chat-v1\n"
        "params: {concurrency: 8, num_requests: 64, output_tokens: 256}\n"
        "immutable: true\ncreated: 2026-09-20\n"
    )
    loaded = load(write("serve-chat-c8-v1.yaml", text))
    assert loaded.issues == []
    assert isinstance(loaded.document, Workload)
    assert loaded.document.created == "2026-09-20"


# --- id ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad_id",
    [
        "serve-chat-c8",  # no -vN
        "serve-chat-c8-v",  # no number
        "serve-chat-c8-v0",  # versions start at 1
        "serve-chat-c8-v01",  # no leading zero
        "serve-chat-c8-V1",  # upper-case V
        "Serve-chat-c8-v1",  # upper-case kind
        "serve-Chat-c8-v1",  # upper-case shape
        "serve_chat_c8_v1",  # snake case
        "serve-chat--c8-v1",  # empty part
        "serve-v1",  # no shape
        " serve-chat-c8-v1",
    ],
)
def test_id_that_does_not_match_the_pattern_is_an_error_at_id(bad_id: str) -> None:
    issues = issues_of(doc(SERVING, id=bad_id))
    assert triples(issues) == [("error", "id")]
    assert "does not match <kind>-<shape>-vN" in issues[0].message


@pytest.mark.parametrize(
    ("base", "bad_id", "prefix"),
    [
        (SERVING, "sweep-chat-c8-v1", "serve"),
        (SERVING, "serving-chat-c8-v1", "serve"),
        (SWEEP, "serve-conc-o256-v1", "sweep"),
        (EVAL, "evals-math-v1", "eval"),
        (IMAGE, "img-t2i-v1", "image"),
    ],
)
def test_id_prefix_must_match_the_kind(base: dict[str, Any], bad_id: str, prefix: str) -> None:
    issues = issues_of(doc(base, id=bad_id))
    assert triples(issues) == [("error", "id")]
    assert f"must start with '{prefix}'-" in issues[0].message


# --- kind-specific blocks ------------------------------------------------------------------------


def test_sweep_without_sweep_block_is_an_error() -> None:
    out = doc(SWEEP)
    del out["sweep"]
    assert triples(issues_of(out)) == [("error", "sweep")]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([1, 4, 2], "sweep values must be in increasing order"),
        ([64, 32, 16], "sweep values must be in increasing order"),
        ([1, 2, 2, 4], "sweep values must be distinct"),
        ([0, 1, 2], "every sweep value must be at least 1"),
    ],
)
def test_sweep_values_must_be_increasing_distinct_and_positive(values: list[int], message: str) -> None:
    issues = issues_of(doc(SWEEP, sweep={"axis": "concurrency", "values": values}))
    assert [(i.level, i.path, i.message) for i in issues] == [("error", "sweep.values", message)]


def test_duplicate_out_of_order_sweep_values_draw_both_errors() -> None:
    issues = issues_of(doc(SWEEP, sweep={"axis": "concurrency", "values": [4, 2, 4]}))
    assert [i.message for i in issues] == ["sweep values must be distinct", "sweep values must be in increasing order"]


def test_empty_sweep_values_is_an_error() -> None:
    assert triples(issues_of(doc(SWEEP, sweep={"axis": "concurrency", "values": []}))) == [("error", "sweep.values")]


def test_sweep_workload_sweeps_concurrency() -> None:
    issues = issues_of(doc(SWEEP, sweep={"axis": "context_tokens", "values": [1024, 2048]}))
    assert triples(issues) == [("error", "sweep.axis")]


def test_unknown_sweep_axis_is_an_error() -> None:
    assert triples(issues_of(doc(SWEEP, sweep={"axis": "batch", "values": [1]}))) == [("error", "sweep.axis")]


def test_eval_without_eval_block_is_an_error() -> None:
    out = doc(EVAL)
    del out["eval"]
    assert triples(issues_of(out)) == [("error", "eval")]


def test_eval_block_on_a_non_eval_workload_is_an_error() -> None:
    assert triples(issues_of(doc(SERVING, eval={"scorer": "exact"}))) == [("error", "eval")]


def test_unknown_scorer_is_an_error() -> None:
    assert triples(issues_of(doc(EVAL, eval={"scorer": "code_exec"}))) == [("error", "eval.scorer")]


@pytest.mark.parametrize("name", ["width", "height", "steps", "seed", "images_per_request", "ref_images"])
def test_image_workload_requires_each_render_param(name: str) -> None:
    issues = issues_of(without_param(IMAGE, name))
    assert triples(issues) == [("error", f"params.{name}")]
    assert issues[0].message == "required for image workloads"


def test_image_workload_reports_every_missing_param() -> None:
    out = doc(IMAGE, params={"seed": 1})
    assert triples(issues_of(out)) == [
        ("error", "params.width"),
        ("error", "params.height"),
        ("error", "params.steps"),
        ("error", "params.images_per_request"),
        ("error", "params.ref_images"),
    ]


def test_image_workload_runs_one_at_a_time() -> None:
    assert triples(issues_of(with_params(IMAGE, concurrency=2))) == [("error", "params.concurrency")]
    assert issues_of(with_params(IMAGE, concurrency=1)) == []


@pytest.mark.parametrize(
    ("base", "name"),
    [
        (SERVING, "concurrency"),
        (SERVING, "num_requests"),
        (SERVING, "output_tokens"),
        (SWEEP, "num_requests"),
        (SWEEP, "output_tokens"),
        (EVAL, "concurrency"),
        (EVAL, "num_requests"),
    ],
)
def test_kind_specific_required_params(base: dict[str, Any], name: str) -> None:
    assert triples(issues_of(without_param(base, name))) == [("error", f"params.{name}")]


def test_sweep_does_not_need_params_concurrency() -> None:
    assert issues_of(without_param(SWEEP, "concurrency")) == []


def test_warmup_per_group_needs_group_by() -> None:
    assert triples(issues_of(with_params(SERVING, warmup_per_group=2))) == [("error", "params.warmup_per_group")]
    assert issues_of(with_params(SERVING, warmup_per_group=2, group_by="prefix_id", shuffle=False)) == []


@pytest.mark.parametrize(
    ("name", "value"),
    [("concurrency", 0), ("num_requests", 0), ("output_tokens", 0), ("temperature", -0.1), ("needle_depth", 1.5)],
)
def test_param_ranges(name: str, value: Any) -> None:
    assert triples(issues_of(with_params(SERVING, **{name: value}))) == [("error", f"params.{name}")]


def test_min_tokens_and_ignore_eos_are_params() -> None:
    assert issues_of(with_params(SERVING, ignore_eos=True, min_tokens=256)) == []
    assert triples(issues_of(with_params(SERVING, min_tokens=0))) == [("error", "params.min_tokens")]


def test_min_tokens_above_output_tokens_is_an_error() -> None:
    found = issues_of(with_params(SERVING, min_tokens=257))
    assert triples(found) == [("error", "params.min_tokens")]
    assert "output_tokens (256)" in found[0].message


def test_unknown_param_is_an_error() -> None:
    assert triples(issues_of(with_params(SERVING, max_tokens=256))) == [("error", "params.max_tokens")]


# --- metrics_required ----------------------------------------------------------------------------


def test_accuracy_on_a_serving_workload_is_an_error_at_its_index() -> None:
    out = doc(SERVING, metrics_required=["ttft_ms.p50", "accuracy", "output_tokens_per_sec", "ttft_ms.p42"])
    issues = issues_of(out)
    assert triples(issues) == [("error", "metrics_required[1]"), ("error", "metrics_required[3]")]
    assert issues[0].message.startswith("'accuracy' is not a metric a serving runner fills")


def test_latency_on_an_eval_workload_is_an_error() -> None:
    out = doc(EVAL, metrics_required=["accuracy", "ttft_ms.p50"])
    assert triples(issues_of(out)) == [("error", "metrics_required[1]")]


def test_token_throughput_on_an_image_workload_is_an_error() -> None:
    out = doc(IMAGE, metrics_required=["s_per_image.p95", "output_tokens_per_sec"])
    assert triples(issues_of(out)) == [("error", "metrics_required[1]")]


@pytest.mark.parametrize("path", ["ttft_ms", "e2e_ms.p99", "tpot_ms.std", "preemptions", "kv_utilization"])
def test_serving_metrics_that_a_runner_fills_are_accepted(path: str) -> None:
    assert issues_of(doc(SERVING, metrics_required=[path])) == []


# --- immutability and dates ----------------------------------------------------------------------


def test_immutable_false_is_an_error() -> None:
    issues = issues_of(doc(SERVING, immutable=False))
    assert triples(issues) == [("error", "immutable")]


@pytest.mark.parametrize("value", ["true", 1, None])
def test_immutable_must_be_a_boolean(value: Any) -> None:
    assert triples(issues_of(doc(SERVING, immutable=value))) == [("error", "immutable")]


def test_immutable_is_required() -> None:
    out = doc(SERVING)
    del out["immutable"]
    assert triples(issues_of(out)) == [("error", "immutable")]


@pytest.mark.parametrize("created", ["2026-13-01", "2026-02-29", "20 Sep 2026", "2026-09-20T00:00:00", "2026/09/20", ""])
def test_created_must_be_an_iso_date(created: str) -> None:
    assert triples(issues_of(doc(SERVING, created=created))) == [("error", "created")]


def test_created_leap_day_is_accepted() -> None:
    assert issues_of(doc(SERVING, created="2028-02-29")) == []


# --- requests_per_point --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("concurrency", "expected"),
    [
        # num_requests 64, requests_per_concurrency 4: max(64, 4c).
        (1, 64),  # max(64, 4)
        (8, 64),  # max(64, 32)
        (16, 64),  # max(64, 64): the crossover
        (17, 68),  # max(64, 68)
        (32, 128),
        (128, 512),
    ],
)
def test_requests_per_point_is_max_of_num_requests_and_c_times_per(concurrency: int, expected: int) -> None:
    assert Workload.model_validate(SWEEP).requests_per_point(concurrency) == expected


def test_requests_per_point_over_the_whole_sweep() -> None:
    w = Workload.model_validate(SWEEP)
    assert w.sweep is not None
    # 1..16 give 64 each (5 points = 320), then 128 + 256 + 512 = 896: 1216 in all.
    assert sum(w.requests_per_point(c) for c in w.sweep.values) == 1216


def test_requests_per_point_without_requests_per_concurrency_is_num_requests() -> None:
    w = Workload.model_validate(without_param(SWEEP, "requests_per_concurrency"))
    assert [w.requests_per_point(c) for c in (1, 64, 1000)] == [64, 64, 64]
