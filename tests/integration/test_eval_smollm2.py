"""Scored suites on a real model: small subsets of the packaged eval datasets against
the embedded llama.cpp engine serving SmolLM2-135M-Instruct (fetched once into the
user's engine cache, sha256-checked)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servescope.analysis.compare import compare
from servescope.analysis.stats import calibration_error
from servescope.bench import run as bench_run
from servescope.bench.capabilities import Capabilities, probe_tools
from servescope.bench.client import make_session, send
from servescope.bench.endpoint import Endpoint
from servescope.bench.engine import LlamaServer, ServerConfig, find_llama_server
from servescope.bench.engine.models import engine_model_args, ensure_engine_model
from servescope.bench.records import read_records
from servescope.bench.run import RunArtifacts, RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.catalog.validate import validate_paths
from servescope.documents.record import RequestRecord
from servescope.errors import CompareRefused, EngineError

pytestmark = pytest.mark.integration

BASE = {
    "kind": "eval",
    "immutable": True,
    "created": "2026-12-01",
    "supersedes": None,
    "description": "eval integration subset",
    "metrics_required": ["accuracy", "success_rate", "avg_latency_ms"],
}
SUBSETS = [
    {
        "id": "eval-itest-knowledge-v1",
        "name": "knowledge subset",
        "dataset_id": "eval-knowledge-v1",
        "eval": {"scorer": "exact"},
        "params": {"concurrency": 4, "num_requests": 4, "output_tokens": 16, "seed": 0, "temperature": 0.0, "timeout_s": 300, "reasoning": "default"},
    },
    {
        "id": "eval-itest-tools-v1",
        "name": "tools-small subset (multi-turn)",
        "dataset_id": "eval-tools-small-v1",
        "eval": {"scorer": "tool-call"},
        "params": {
            "concurrency": 4,
            "num_requests": 4,
            "output_tokens": 32,
            "seed": 0,
            "temperature": 0.0,
            "timeout_s": 300,
            "dataset_categories": ["chain", "revise", "use_result"],
            "shuffle": True,
        },
    },
    {
        "id": "eval-itest-rag-v1",
        "name": "grounded subset",
        "dataset_id": "eval-rag-grounded-v1",
        "eval": {"scorer": "contains"},
        "params": {"concurrency": 4, "num_requests": 4, "output_tokens": 24, "seed": 0, "temperature": 0.0, "timeout_s": 300},
    },
    {
        "id": "eval-itest-code-v1",
        "name": "code subset",
        "dataset_id": "eval-code-v1",
        "eval": {"scorer": "code-exec"},
        "params": {"concurrency": 2, "num_requests": 2, "output_tokens": 80, "seed": 0, "temperature": 0.0, "timeout_s": 300},
    },
    {
        "id": "eval-itest-calibration-v1",
        "name": "calibration subset (asks for a confidence)",
        "dataset_id": "eval-calibration-v1",
        "eval": {"scorer": "exact", "confidence": True},
        "params": {"concurrency": 4, "num_requests": 8, "output_tokens": 48, "seed": 0, "temperature": 0.0, "timeout_s": 300, "shuffle": False},
    },
    # The suites of docs/scored-suites-v2.md: a few rows each, in file order (seeded, mixed);
    # enough rows that a right answer is among them (SmolLM2 mostly answers "A": at chance).
    # Output is capped short: SmolLM2 rambles to the cap, which is most of make test's time here
    # (instruction at 384 tokens: ~80 s of ~150 s), and these rows are scored within it.
    {
        "id": "eval-itest-instruction-v1",
        "name": "verifiable-instructions subset",
        "dataset_id": "eval-instruction-v1",
        "eval": {"scorer": "instruction"},
        "params": {"concurrency": 4, "num_requests": 8, "output_tokens": 192, "seed": 0, "temperature": 0.0, "timeout_s": 300, "shuffle": False},
    },
    {
        "id": "eval-itest-knowledge-v2",
        "name": "harder knowledge subset (mc and short answers)",
        "dataset_id": "eval-knowledge-v2",
        "eval": {"scorer": "mc"},
        "params": {"concurrency": 4, "num_requests": 24, "output_tokens": 64, "seed": 0, "temperature": 0.0, "timeout_s": 300, "shuffle": False},
    },
    {
        "id": "eval-itest-science-v1",
        "name": "science subset (mc and short answers)",
        "dataset_id": "eval-science-v1",
        "eval": {"scorer": "mc"},
        "params": {"concurrency": 4, "num_requests": 8, "output_tokens": 64, "seed": 0, "temperature": 0.0, "timeout_s": 300, "shuffle": False},
    },
    {
        "id": "eval-itest-commonsense-v1",
        "name": "commonsense subset (mc and short answers)",
        "dataset_id": "eval-commonsense-v1",
        "eval": {"scorer": "mc"},
        "params": {"concurrency": 4, "num_requests": 16, "output_tokens": 48, "seed": 0, "temperature": 0.0, "timeout_s": 300, "shuffle": False},
    },
    {
        "id": "eval-itest-cli-v1",
        "name": "one question through the CLI",
        "dataset_id": "eval-knowledge-v1",
        "eval": {"scorer": "exact"},
        "params": {"concurrency": 1, "num_requests": 1, "output_tokens": 12, "seed": 0, "temperature": 0.0, "timeout_s": 300, "reasoning": "default"},
    },
]
RUN_HERE = [w["id"] for w in SUBSETS if w["id"] != "eval-itest-cli-v1"]


@pytest.fixture(scope="module")
def eval_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("eval-catalog")
    (root / "workloads").mkdir()
    for w in SUBSETS:
        (root / "workloads" / f"{w['id']}.json").write_text(json.dumps(BASE | w, indent=2), encoding="utf-8")
    return Catalog.load([root])


@pytest.fixture(scope="module")
def smollm2() -> Iterator[LlamaServer]:
    try:
        find_llama_server()
        model = ensure_engine_model("smollm2-135m")  # the user's cache: fetched once per machine
    except EngineError as exc:
        pytest.fail(f"the real instruct model is needed here: {exc}")
    config = ServerConfig(model=model, alias="smollm2-135m", parallel=4, ctx_per_slot=2048, threads=2, extra_args=engine_model_args("smollm2-135m"))
    with LlamaServer(config) as server:
        yield server


@pytest.fixture(scope="module")
def runs(smollm2: LlamaServer, eval_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunArtifacts]:
    """Each subset once (the model is slow on 2 shared cores); the tests read the artifacts."""
    out = tmp_path_factory.mktemp("eval-runs")
    return {w: run_workload(RunOptions(workload_id=w, endpoint=smollm2.openai_base_url, out_dir=out), catalog=eval_catalog) for w in RUN_HERE}


@pytest.mark.parametrize("workload_id", RUN_HERE)
def test_eval_subset_writes_a_valid_result_with_scores(runs: dict[str, RunArtifacts], eval_catalog: Catalog, workload_id: str) -> None:
    art = runs[workload_id]
    scores = art.result.scores
    assert scores is not None and scores.item_count == art.result.metrics.total_requests
    assert scores.success_rate == art.result.metrics.success_rate
    assert scores.accuracy is not None and scores.accuracy_ci_low is not None and scores.accuracy_ci_high is not None
    assert scores.accuracy_ci_low <= scores.accuracy <= scores.accuracy_ci_high
    assert scores.correct_count == sum(1 for i in scores.items or [] if i.correct)
    assert all(len(i.predicted or "") <= 500 for i in scores.items or [])
    # Each record on disk carries its score (written as it finished), and agrees with the items.
    recs = [r for r in read_records(art.records_path) if r.ok]
    assert recs and all(r.score is not None for r in recs)
    by_prompt = {i.id: i.correct for i in scores.items or []}
    assert all(by_prompt[r.prompt_id] == r.score["correct"] for r in recs)  # type: ignore[index]
    report = validate_paths([art.result_path], catalog=eval_catalog)  # metrics_required checked against the scores block
    assert all(f.ok for f in report.files) and not [i for f in report.files for i in f.issues], [i for f in report.files for i in f.issues]


def test_grounded_subset_reports_abstention(runs: dict[str, RunArtifacts]) -> None:
    scores = runs["eval-itest-rag-v1"].result.scores
    assert scores is not None and scores.abstention is not None and scores.false_abstention is not None


def test_multi_turn_tool_rows_are_answered_not_refused(runs: dict[str, RunArtifacts]) -> None:
    """Rows with assistant tool_calls and tool results in their messages reach the model."""
    assert runs["eval-itest-tools-v1"].result.metrics.completed_requests == 4


V2_SUBSETS = ["eval-itest-instruction-v1", "eval-itest-knowledge-v2", "eval-itest-science-v1", "eval-itest-commonsense-v1"]


@pytest.mark.parametrize("workload_id", V2_SUBSETS)
def test_v2_suites_score_the_real_model_strictly_between_0_and_1(runs: dict[str, RunArtifacts], workload_id: str) -> None:
    """Neither floor nor ceiling on these rows (docs/scored-suites-v2.md has the full suites): a
    scorer that rejects every answer, or accepts every answer, fails here."""
    scores = runs[workload_id].result.scores
    assert scores is not None and scores.accuracy is not None and scores.success_rate == 1.0
    assert 0 < scores.accuracy < 1, [(i.id, i.correct, i.predicted) for i in scores.items or []]


def test_instruction_subset_reports_strict_and_loose(runs: dict[str, RunArtifacts]) -> None:
    """accuracy is prompt-level flexible, strict_accuracy prompt-level strict (never above it); every
    item says how many of its instructions it kept each way (and by IFEval's loose reading)."""
    scores = runs["eval-itest-instruction-v1"].result.scores
    assert scores is not None and scores.strict_accuracy is not None and scores.accuracy is not None
    assert scores.strict_accuracy <= scores.accuracy
    for item in scores.items or []:
        assert item.detail is not None and item.detail.startswith("strict ") and "; flexible " in item.detail and "IFEval loose" in item.detail, item
        assert item.strict is not True or item.correct, item


def test_real_model_answers_a_knowledge_question(runs: dict[str, RunArtifacts]) -> None:
    """Not a score bar: proof that the model is real (the random tiny model never says Paris)."""
    art = runs["eval-itest-knowledge-v1"]
    first = next(i for i in art.result.scores.items or [] if i.id == "know1-000")  # type: ignore[union-attr]
    assert "paris" in (first.predicted or "").lower()


def _cli(*args: str, catalog: Catalog) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(catalog.roots[-1])}
    return subprocess.run([sys.executable, "-m", "servescope", *args], env=env, capture_output=True, text=True, timeout=600, check=False)


def test_cli_run_with_engine_model_starts_the_real_model(smollm2: LlamaServer, eval_catalog: Catalog, tmp_path: Path) -> None:
    done = _cli("run", "eval-itest-cli-v1", "--engine-model", "smollm2-135m", "--out", str(tmp_path), catalog=eval_catalog)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "accuracy" in done.stdout
    result = json.loads(next(tmp_path.glob("*/result.json")).read_text())
    assert result["model"]["id"] == "smollm2-135m" and result["args"]["reasoning"] == "default"
    # The tools template is part of what runs: recorded by name and content digest (not its install path).
    assert result["args"]["--chat-template-file"].startswith("smollm2-135m-tools.jinja sha256:")


def test_unknown_engine_model_is_one_clear_line(eval_catalog: Catalog, tmp_path: Path) -> None:
    done = _cli("run", "eval-itest-cli-v1", "--engine-model", "gpt-9", "--out", str(tmp_path), catalog=eval_catalog)
    assert done.returncode == 2
    lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "gpt-9" in lines[0] and "smollm2-135m" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


# ---- tools reach the model; rows the endpoint cannot take are not sent -----------------------

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def _post(base_url: str, path: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(base_url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.loads(resp.read())


def _get(base_url: str, path: str) -> Any:
    with urllib.request.urlopen(base_url + path, timeout=30) as resp:
        return json.loads(resp.read())


def test_the_served_template_renders_tools(smollm2: LlamaServer) -> None:
    """The GGUF's own template has no tools (llama.cpp then drops them without an error)."""
    assert _get(smollm2.base_url, "/props")["chat_template_caps"]["supports_tools"] is True


def test_tools_reach_the_prompt(smollm2: LlamaServer) -> None:
    """Fails when tools are dropped: the schemas must add prompt tokens."""
    question = {"model": "smollm2-135m", "messages": [{"role": "user", "content": "What is the weather in Oslo?"}], "max_tokens": 1}
    plain = _post(smollm2.base_url, "/v1/chat/completions", question)["usage"]["prompt_tokens"]
    with_tools = _post(smollm2.base_url, "/v1/chat/completions", question | {"tools": [WEATHER]})["usage"]["prompt_tokens"]
    assert with_tools > plain + 50, (plain, with_tools)


def test_without_tools_the_template_renders_what_the_gguf_template_does(smollm2: LlamaServer) -> None:
    """SmolLM2's ChatML with its own default system line: scores of the other suites do not move."""
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Name a colour."}]
    prompt = _post(smollm2.base_url, "/apply-template", {"messages": messages})["prompt"]
    assert prompt == (
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello.<|im_end|>\n"
        "<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\n"
    )


def test_a_tool_call_the_model_writes_arrives_as_tool_calls(smollm2: LlamaServer) -> None:
    """llama.cpp's parser reads <tool_call>{...}</tool_call> back into the stream's
    delta.tool_calls, and the harness reassembles them (temperature 0: SmolLM2 copies it)."""
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    endpoint = Endpoint.create(smollm2.openai_base_url, "smollm2-135m")
    body = endpoint.body("", 60) | {"messages": [{"role": "user", "content": "Copy this text exactly, nothing else:\n" + call}], "tools": [WEATHER]}

    async def go() -> RequestRecord:
        async with make_session() as session:
            return await send(session, endpoint, body, RequestRecord("r0"), t0_ns=time.perf_counter_ns(), timeout_s=300, keep_text=True)

    record = asyncio.run(go())
    assert record.ok, record.error
    assert record.finish_reason == "tool_calls" and record.tool_calls is not None
    (got,) = record.tool_calls
    assert got["function"]["name"] == "get_weather" and json.loads(got["function"]["arguments"]) == {"city": "Paris"}


def test_tool_rows_on_a_template_without_tools_are_unsupported_not_sent(llama: LlamaServer, eval_catalog: Catalog, tmp_path: Path) -> None:
    """The tiny model's template has no tools (/props says so): nothing is sent, every row is a
    failure of category unsupported on disk, and accuracy is null rather than 0."""
    art = run_workload(RunOptions(workload_id="eval-itest-tools-v1", endpoint=llama.openai_base_url, out_dir=tmp_path), catalog=eval_catalog)
    recs = list(read_records(art.records_path))
    assert len(recs) == 4 and all(not r.ok and r.category == "unsupported" and r.stage == "admission" for r in recs)
    assert all(r.first_token_ns is None and r.end_ns is None for r in recs)
    result = art.result
    assert result.blocked_by_reason_code == {"unsupported": 4} and result.failures[0].category == "unsupported"
    assert "supports_tools is false" in result.failures[0].message
    scores = result.scores
    assert scores is not None and scores.accuracy is None and scores.item_count == 0 and scores.unsupported_count == 4
    report = validate_paths([art.result_path], catalog=eval_catalog)
    assert all(f.ok for f in report.files), [i for f in report.files for i in f.issues]


def test_an_image_sent_to_a_model_without_vision_is_unsupported(llama: LlamaServer) -> None:
    """Where nothing is checked first (no /props), llama.cpp's own refusal is named unsupported too."""
    endpoint = Endpoint.create(llama.openai_base_url, llama.model_name)
    content = [{"type": "text", "text": "What colour?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]
    body = endpoint.body("", 4) | {"messages": [{"role": "user", "content": content}]}

    async def go() -> RequestRecord:
        async with make_session() as session:
            return await send(session, endpoint, body, RequestRecord("r0"), t0_ns=time.perf_counter_ns(), timeout_s=60)

    record = asyncio.run(go())
    assert not record.ok and record.category == "unsupported", (record.category, record.error)


def test_vision_suite_on_the_embedded_smollm2_is_unsupported_in_one_line(tmp_path: Path) -> None:
    """The packaged eval-vision-v1: SmolLM2 has no vision, so no row is sent; one line says
    so, a valid Result is written, and the run fails its bar (exit 4) since nothing was measured."""
    done = subprocess.run(
        [sys.executable, "-m", "servescope", "run", "eval-vision-v1", "--engine-model", "smollm2-135m", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 4, done.stderr[-2000:]
    notices = [ln for ln in done.stdout.splitlines() if "rows not sent" in ln]
    assert len(notices) == 1 and notices[0].startswith("eval-vision-v1: 12 of 12 rows not sent"), done.stdout
    assert "modalities.vision is false" in notices[0]
    assert "cannot take any of the 12 rows" in done.stderr and "Traceback" not in done.stderr
    result_path = next(tmp_path.glob("*/result.json"))
    result = json.loads(result_path.read_text())
    assert result["scores"]["accuracy"] is None and result["scores"]["unsupported_count"] == 12
    assert result["blocked_by_reason_code"] == {"unsupported": 12}
    assert result["resolved_params"]["endpoint_capabilities"] == {"source": "GET /props", "supports_tools": True, "vision": False}
    report = validate_paths([result_path])
    assert all(f.ok for f in report.files), [i for f in report.files for i in f.issues]


def _probe(server: LlamaServer, model: str) -> Capabilities:
    endpoint = Endpoint.create(server.openai_base_url, model)

    async def go() -> Capabilities:
        async with make_session() as session:
            return await probe_tools(session, endpoint.url, endpoint.headers(), endpoint.model)

    return asyncio.run(go())


def test_the_tools_probe_tells_a_template_that_renders_tools_from_one_that_drops_them(smollm2: LlamaServer, llama: LlamaServer) -> None:
    """Where an endpoint has no /props (vLLM, hosted APIs), the probe measures it: SmolLM2's
    tools template counts more prompt tokens with a tool; the tiny model's template drops it."""
    rendered, dropped = _probe(smollm2, "smollm2-135m"), _probe(llama, llama.model_name)
    assert rendered.supports_tools is True and rendered.source == "tools probe", rendered
    assert dropped.supports_tools is False and dropped.detail is not None, dropped
    plain, with_tool = (int(w) for w in dropped.detail.split() if w.isdigit())
    assert plain == with_tool


def test_tool_rows_on_an_endpoint_without_props_are_probed_and_not_sent(
    llama: LlamaServer, eval_catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run path for a server that says nothing in /props: the probe finds the tools dropped,
    so no row is sent and each is unsupported with the probe's reason."""

    async def no_props(*_args: object) -> Capabilities:
        return Capabilities()

    monkeypatch.setattr(bench_run, "read_capabilities", no_props)
    art = run_workload(RunOptions(workload_id="eval-itest-tools-v1", endpoint=llama.openai_base_url, out_dir=tmp_path), catalog=eval_catalog)
    recs = list(read_records(art.records_path))
    assert len(recs) == 4 and all(r.category == "unsupported" and r.first_token_ns is None for r in recs)
    assert "probe request" in art.result.failures[0].message
    caps = art.result.resolved_params["endpoint_capabilities"]
    assert caps["source"] == "tools probe" and caps["supports_tools"] is False


# ---- confidence calibration -------------------------------------------------------


def test_calibration_subset_reads_confidences_and_computes_ece_from_them(runs: dict[str, RunArtifacts]) -> None:
    """Whatever the model states: every item's confidence is what its record says, the
    ECE is the one of those confidences, and no confidence is left in a scored answer."""
    art = runs["eval-itest-calibration-v1"]
    scores = art.result.scores
    assert scores is not None and scores.calibration is not None
    items = scores.items or []
    recs = {r.prompt_id: r for r in read_records(art.records_path) if r.ok}
    assert all(recs[i.id].score["confidence"] == i.confidence for i in items if i.id in recs)  # type: ignore[index]
    stated = [i for i in items if i.confidence is not None]
    assert scores.calibration.answered_with_confidence == len(stated)
    expected = calibration_error([i.confidence for i in stated if i.confidence is not None], [bool(i.correct) for i in stated])
    if expected is None:
        assert scores.calibration.ece is None and scores.calibration.mce is None
    else:
        assert scores.calibration.ece == expected["ece"] and scores.calibration.mce == expected["mce"]
    assert not any("confidence" in (i.predicted or "").lower() for i in items)


# ---- comparing two configurations on the same items ---------------------------------


@pytest.fixture(scope="module")
def tiny_knowledge(llama: LlamaServer, eval_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> RunArtifacts:
    """The knowledge subset on the random-weight tiny model: the same items, a configuration that cannot answer."""
    out = tmp_path_factory.mktemp("eval-tiny")
    return run_workload(RunOptions(workload_id="eval-itest-knowledge-v1", endpoint=llama.openai_base_url, out_dir=out), catalog=eval_catalog)


@pytest.fixture(scope="module")
def smollm2_knowledge_again(smollm2: LlamaServer, eval_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> RunArtifacts:
    out = tmp_path_factory.mktemp("eval-again")
    return run_workload(RunOptions(workload_id="eval-itest-knowledge-v1", endpoint=smollm2.openai_base_url, out_dir=out), catalog=eval_catalog)


def test_compare_a_real_model_with_a_random_one_says_which_is_more_accurate(runs: dict[str, RunArtifacts], tiny_knowledge: RunArtifacts) -> None:
    real, tiny = runs["eval-itest-knowledge-v1"].result, tiny_knowledge.result
    assert tiny.scores is not None and tiny.scores.correct_count == 0  # random weights never name a capital
    c = compare(real, tiny)
    s = c.scores
    assert s is not None and s.items == 4 and s.only_b_right == 0 and s.both_right == 0
    assert real.scores is not None and s.only_a_right == real.scores.correct_count >= 3
    assert s.delta_accuracy_ci is not None and s.delta_accuracy_ci[0] > 0 and s.accuracy_verdict == "A more accurate"
    assert s.latency_items == 4 and s.delta_latency_mean_ms is not None and s.delta_latency_p50_ci is not None
    swapped = compare(tiny, real).scores
    assert swapped is not None and swapped.accuracy_verdict == "B more accurate"
    assert swapped.delta_accuracy_ci == pytest.approx((-s.delta_accuracy_ci[1], -s.delta_accuracy_ci[0]))


def test_compare_one_configuration_with_itself_shows_no_accuracy_difference(runs: dict[str, RunArtifacts], smollm2_knowledge_again: RunArtifacts) -> None:
    s = compare(runs["eval-itest-knowledge-v1"].result, smollm2_knowledge_again.result).scores
    assert s is not None and s.delta_accuracy_ci is not None
    assert s.delta_accuracy_ci[0] < 0 < s.delta_accuracy_ci[1] and s.accuracy_verdict.startswith("no difference shown")


def test_compare_refuses_results_whose_items_differ(runs: dict[str, RunArtifacts]) -> None:
    knowledge, rag = runs["eval-itest-knowledge-v1"].result, runs["eval-itest-rag-v1"].result
    with pytest.raises(CompareRefused, match="different items"):
        compare(knowledge, rag, force=True)


def test_cli_compare_and_summarize_show_scores(runs: dict[str, RunArtifacts], tiny_knowledge: RunArtifacts, eval_catalog: Catalog, tmp_path: Path) -> None:
    real = runs["eval-itest-knowledge-v1"]
    done = _cli("compare", str(real.result_path), str(tiny_knowledge.result_path), "--format", "md", catalog=eval_catalog)
    assert done.returncode == 0, done.stderr
    assert "## Scores (same items, A − B)" in done.stdout and "A more accurate" in done.stdout and "Newcombe paired" in done.stdout
    refused = _cli("compare", str(real.result_path), str(runs["eval-itest-rag-v1"].result_path), "--force", catalog=eval_catalog)
    lines = [ln for ln in refused.stderr.strip().splitlines() if ln.strip() and not ln.startswith("warning:")]
    assert refused.returncode != 0 and len(lines) == 1 and "different items" in lines[0] and "Traceback" not in refused.stderr
    summary = _cli(
        "summarize", "--in", str(real.result_path.parent), "--in", str(tiny_knowledge.result_path.parent), "--out", str(tmp_path), catalog=eval_catalog
    )
    assert summary.returncode == 0, summary.stderr
    assert summary.stdout.count("eval-itest-knowledge-v1") >= 2 and "accuracy 0.0 %" in summary.stdout
    md = (tmp_path / "summary.md").read_text()
    assert "## Scores" in md and md.count("| eval-itest-knowledge-v1 |") >= 3  # the v0.2 table's two rows and the scores rows
