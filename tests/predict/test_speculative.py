"""Speculative decoding: the expected tokens per verify step, what a draft costs, what the
KV pool loses to it, the engines' flags read into the scenario's fields, and one line for
what is not simulated, contradicts or is missing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from servescope.catalog.store import Catalog
from servescope.documents import Scenario
from servescope.predict.api import predict
from servescope.predict.coverage import NotModelledError
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.hf_config import read_model_config
from servescope.predict.outputs import build_records, fast_stats
from servescope.predict.plausibility import decode_floor
from servescope.predict.speculative import (
    DEFAULT_ACCEPTANCE,
    expected_tokens,
    rate_from_length,
    speculation,
    verify_chunks,
)
from servescope.predict.speculative_step import SpeculativeStepTimeModel
from servescope.predict.step_time import StepTimeModel
from servescope.predict.workload_input import SyntheticWorkload
from tests.predict.conftest import scenario

TARGET_70B = {"model": "llama-3.1-70b", "tp": 4, "count": 4}


def _engine(args: dict[str, Any], engine: str = "vllm") -> dict[str, Any]:
    return {"id": engine, "version": "0.11.0", "args": args}


def _refused(*needles: str, **over: Any) -> str:
    with pytest.raises(NotModelledError) as info:
        speculation(scenario(**over))
    text = str(info.value)
    assert "\n" not in text and text.startswith("scenario s: "), text
    for needle in needles:
        assert needle in text, text
    return text


def _itl_tpot(catalog: Catalog, concurrency: int = 1, osl: int = 128, **over: Any) -> tuple[float, float]:
    wl = SyntheticWorkload((concurrency,), isl=256, osl=osl, num_requests=max(8, 2 * concurrency))
    point = predict(scenario(**over), wl, catalog=catalog).prediction.points[0]
    assert point.itl_ms is not None and point.tpot_ms is not None
    return point.itl_ms, point.tpot_ms  # (means)


# --- E --------------------------------------------------------------------------------------


def test_expected_tokens_per_step() -> None:
    assert expected_tokens(0.5, 3) == pytest.approx(1 + 0.5 + 0.25 + 0.125)
    assert expected_tokens(0.0, 5) == 1.0  # nothing accepted: the target's own token
    assert expected_tokens(1.0, 4) == 5.0  # everything accepted: k + 1
    # capped by the tokens left: the first min(k + 1, left) terms
    assert expected_tokens(0.5, 3, left=2) == pytest.approx(1.5)
    assert expected_tokens(0.5, 3, left=1) == 1.0
    assert expected_tokens(0.5, 3, left=0) == 0.0
    assert expected_tokens(0.5, 3, left=10) == expected_tokens(0.5, 3)


@pytest.mark.parametrize("length, k", [(1.0, 3), (1.89, 2), (2.5, 3), (3.53, 7), (4.0, 3)])
def test_rate_from_length_inverts_expected_tokens(length: float, k: int) -> None:
    assert expected_tokens(rate_from_length(length, k), k) == pytest.approx(length, abs=1e-9)


@pytest.mark.parametrize("method, k, published", [("eagle3", 7, 3.53), ("eagle", 2, 1.89), ("eagle", 4, 2.08), ("mtp", 1, 1.85)])
def test_defaults_reproduce_their_sources(method: str, k: int, published: float) -> None:
    # each default alpha is the one whose E reproduces the figure its source cites (DEFAULT_ACCEPTANCE)
    assert expected_tokens(DEFAULT_ACCEPTANCE[method].rate, k) == pytest.approx(published, abs=0.12)


def test_verify_chunks_group_tokens_by_step() -> None:
    times = np.arange(11, dtype=np.int64) * 10  # the first token, then 10 more
    assert verify_chunks(times, 2.5).tolist() == [0, 20, 50, 70, 100]  # steps of 2 or 3 tokens, the last one what is left
    assert verify_chunks(times, 1.0).tolist() == times.tolist()
    assert verify_chunks(times, 4.0).tolist() == [0, 40, 80, 100]
    assert verify_chunks(times[:1], 3.0).tolist() == [0]


# --- cost -------------------------------------------------------------------------------------


def test_alpha_zero_is_no_faster_than_plain_decoding(catalog: Catalog) -> None:
    plain = _itl_tpot(catalog)
    for method in ("ngram", "eagle3"):
        spec = _itl_tpot(catalog, speculative_method=method, speculative_tokens=3, speculative_acceptance_rate=0.0)
        assert spec[0] >= plain[0] and spec[1] >= plain[1], (method, spec, plain)
    # EAGLE-3's head costs three drafts per step that buy nothing
    eagle = _itl_tpot(catalog, speculative_method="eagle3", speculative_tokens=3, speculative_acceptance_rate=0.0)
    assert eagle[1] > 1.05 * plain[1]


def test_high_acceptance_speeds_decode(catalog: Catalog) -> None:
    plain = _itl_tpot(catalog)
    fast = _itl_tpot(catalog, speculative_method="eagle3", speculative_tokens=3, speculative_acceptance_rate=0.9)
    assert fast[1] < plain[1] / 2  # ~3.4 tokens per step for a few percent more per step
    # a client sees the tokens of one step together: ITL is the step, not the token
    assert fast[0] > 2.5 * fast[1]


def test_a_draft_models_cost_appears_in_itl(catalog: Catalog) -> None:
    common = {**TARGET_70B, "speculative_tokens": 3, "speculative_acceptance_rate": 0.7}
    no_draft = _itl_tpot(catalog, speculative_method="ngram", **common)
    drafted = _itl_tpot(catalog, speculative_method="draft_model", speculative_draft_model="llama-3.1-8b", **common)
    dep = deploy(scenario(speculative_method="draft_model", speculative_draft_model="llama-3.1-8b", **common), catalog=catalog)
    model = dep.step_model
    assert isinstance(model, SpeculativeStepTimeModel) and model.draft is not None
    # k passes of the 8B (tp 4) per step: at least its weights streamed k times
    streamed_ms = 3 * model.draft.linear_time(1) * 1e3
    assert drafted[0] - no_draft[0] > streamed_ms, (drafted, no_draft, streamed_ms)


def test_verify_reads_weights_and_kv_once(catalog: Catalog) -> None:
    dep = deploy(scenario(speculative_method="ngram", speculative_tokens=3, speculative_acceptance_rate=0.5), catalog=catalog)
    spec = dep.step_model
    assert isinstance(spec, SpeculativeStepTimeModel)
    plain = deploy(scenario(), catalog=catalog).step_model
    # one sequence at 1k context, memory-bound: the verify step of 4 tokens costs about one plain step
    step = spec.verify_step_time(1, 1024.0)
    one = plain.step_time(1, 1024.0)
    assert one <= step < 1.05 * one
    # the simulator's iteration is 1 / E of it
    assert spec.step_time(1, 1024.0) == pytest.approx(step / expected_tokens(0.5, 3))
    first, _ = spec.decode_line(1, 1023.0)  # type: ignore[misc]
    assert first == pytest.approx(step / expected_tokens(0.5, 3))
    assert spec.decode_query_tokens == 4 and plain.decode_query_tokens == 1


def test_a_prompt_iteration_keeps_the_device_time(catalog: Catalog) -> None:
    dep = deploy(scenario(speculative_method="eagle3", speculative_tokens=3), catalog=catalog)
    spec = dep.step_model
    assert isinstance(spec, SpeculativeStepTimeModel)
    alone = spec.step_time(0, 0.0, 0.0, [(512, 0)], 1)
    decode = spec.verify_step_time(8, 8 * 1024.0)
    mixed = spec.step_time(8, 8 * 1024.0, 0.0, [(512, 0)], 9)
    # the mixed iteration charges what the engine runs, less the decoders' E - 1 tokens the next iterations charge
    assert decode / spec.per_step <= mixed < alone + decode
    assert mixed >= alone - (spec.per_step - 1) / spec.per_step * decode


# --- memory -----------------------------------------------------------------------------------


def test_the_kv_pool_loses_the_drafts_weights_and_kv(catalog: Catalog) -> None:
    plain = deploy(scenario(**TARGET_70B), catalog=catalog)
    drafted = deploy(scenario(**TARGET_70B, speculative_method="draft_model", speculative_draft_model="llama-3.1-8b",
                              speculative_tokens=3, speculative_acceptance_rate=0.7), catalog=catalog)  # fmt: skip
    model = drafted.step_model
    assert isinstance(model, SpeculativeStepTimeModel) and model.draft is not None
    draft_weights = model.draft.weight_bytes_per_device
    assert draft_weights == pytest.approx(16.06e9 / 4, rel=0.03)  # the 8B in bf16, over 4 devices
    assert drafted.kv.weight_bytes == pytest.approx(plain.kv.weight_bytes + draft_weights)
    assert drafted.kv.kv_pool_bytes == pytest.approx(plain.kv.kv_pool_bytes - draft_weights)
    assert drafted.kv.kv_bytes_per_token == pytest.approx(plain.kv.kv_bytes_per_token + model.draft.kv_bytes_per_token_per_device)
    assert drafted.kv.tokens < plain.kv.tokens


@pytest.mark.parametrize("method, low, high", [("eagle", 0.3e9, 0.6e9), ("eagle3", 0.5e9, 0.9e9), ("mtp", 0.3e9, 0.6e9), ("ngram", 0.0, 0.0)])
def test_a_heads_weights_come_off_the_pool(catalog: Catalog, method: str, low: float, high: float) -> None:
    # Llama-3.1-8B at tp 2: one decoder layer (~0.44 GB bf16) + fc; EAGLE-3 its own 32k-token LM head too
    # (the published EAGLE-3 head for it is ~0.85 GB in bf16 over 2 devices with tp 1 ... here per device)
    # (MTP: as if the checkpoint shipped one MTP layer, which Llama's does not)
    model = catalog.model("llama-3.1-8b").model_copy(update={"mtp_layers": 1 if method == "mtp" else None})
    hw = catalog.hardware("h100-sxm")
    plain = deploy(scenario(tp=2, count=2), catalog=catalog, model=model, hardware=hw)
    spec = scenario(tp=2, count=2, speculative_method=method, speculative_tokens=3, speculative_acceptance_rate=0.5)
    dep = deploy(spec, catalog=catalog, model=model, hardware=hw)
    extra = (dep.kv.weight_bytes - plain.kv.weight_bytes) * 2  # both devices
    assert low <= extra <= high, extra
    assert dep.kv.kv_pool_bytes == pytest.approx(plain.kv.kv_pool_bytes - extra / 2)


# --- inputs: fields and flags -------------------------------------------------------------------


@pytest.mark.parametrize(
    "engine, args, method, k",
    [
        ("vllm", {"--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3, "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}'}, "eagle3", 3),
        ("vllm", {"--speculative_config": '{"model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 2}'}, "eagle", 2),
        ("vllm", {"--speculative-config": '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'}, "mtp", 1),
        ("vllm", {"--speculative-config": '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}'}, "mtp", 2),
        (
            "sglang",
            {"--speculative-algorithm": "EAGLE3", "--speculative-num-steps": 3, "--speculative-eagle-topk": 1, "--speculative-num-draft-tokens": 4},
            "eagle3",
            3,
        ),
        ("sglang", {"--speculative-algorithm": "NEXTN", "--speculative-num-steps": 1, "--speculative-eagle-topk": 1}, "mtp", 1),
    ],
)
def test_flags_are_read_into_the_fields(engine: str, args: dict[str, Any], method: str, k: int) -> None:
    spec = speculation(scenario(engine=_engine(args, engine)))
    assert spec is not None and (spec.method, spec.tokens) == (method, k)
    assert spec.acceptance_rate == DEFAULT_ACCEPTANCE[method].rate and spec.acceptance_source.startswith("default")


def test_draft_model_flags_name_the_draft() -> None:
    args = {"--speculative-config": json.dumps({"model": "llama-3.1-8b", "num_speculative_tokens": 4})}
    spec = speculation(scenario(engine=_engine(args), speculative_acceptance_rate=0.6))
    assert spec is not None and (spec.method, spec.tokens, spec.draft_model) == ("draft_model", 4, "llama-3.1-8b")
    old = speculation(scenario(engine=_engine({"--speculative-model": "llama-3.1-8b", "--num-speculative-tokens": 5}), speculative_acceptance_rate=0.6))
    assert old is not None and (old.method, old.tokens, old.draft_model) == ("draft_model", 5, "llama-3.1-8b")  # vLLM < 0.10
    sgl = {"--speculative-algorithm": "STANDALONE", "--speculative-draft-model-path": "llama-3.1-8b", "--speculative-num-steps": 3,
           "--speculative-eagle-topk": 1}  # fmt: skip
    got = speculation(scenario(engine=_engine(sgl, "sglang"), speculative_acceptance_rate=0.6))
    assert got is not None and (got.method, got.tokens, got.draft_model) == ("draft_model", 3, "llama-3.1-8b")


def test_flags_and_fields_that_agree_pass() -> None:
    args = {"--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3}'}
    spec = speculation(scenario(engine=_engine(args), speculative_tokens=3, speculative_method="eagle3"))
    assert spec is not None and spec.tokens == 3


def test_acceptance_length_is_read_as_tokens_per_step() -> None:
    spec = speculation(scenario(speculative_method="ngram", speculative_tokens=4, speculative_acceptance_length=2.5))
    assert spec is not None and spec.tokens_per_step == pytest.approx(2.5) and "2.5 tokens per step" in spec.acceptance_source


def test_no_speculation_is_plain_decoding(catalog: Catalog) -> None:
    assert speculation(scenario()) is None
    dep = deploy(scenario(), catalog=catalog)
    assert type(dep.step_model) is StepTimeModel  # (the plain model, its numbers untouched)
    assert not any("speculative" in w for w in dep.warnings)


def test_every_speculative_prediction_is_warned_unvalidated(catalog: Catalog) -> None:
    run = predict(scenario(speculative_method="eagle3", speculative_tokens=3), SyntheticWorkload((1,), 128, 16, num_requests=2), catalog=catalog)
    [line] = [w for w in run.prediction.warnings if "speculative decoding" in w]
    assert "not validated" in line and "mean acceptance" in line and "vLLM issue #26191" in line


def test_records_and_fast_stats_see_the_same_chunks(catalog: Catalog) -> None:
    run = predict(
        scenario(speculative_method="eagle3", speculative_tokens=3), SyntheticWorkload((4,), 128, 40, num_requests=8, range_ratio=0.0), catalog=catalog
    )
    records = [r for r in build_records(run.outcome) if r.phase == "measured"]
    assert all(r.output_tokens == 40 and len(r.chunk_ns) == 1 + 15 for r in records)  # 39 tokens in steps of 2.69: 15 steps
    fs = fast_stats(run.outcome, 0)
    gaps = np.concatenate([np.diff(r.chunk_ns) for r in records]) / 1e6
    assert sorted(fs.itl_samples().tolist()) == pytest.approx(sorted(gaps.tolist()))
    assert run.prediction.points[0].itl_ms == pytest.approx(float(gaps.mean()))


def test_plausibility_reads_the_flags_k(catalog: Catalog) -> None:
    args = {"--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3}'}
    assert decode_floor(scenario(engine=_engine(args)), catalog).tokens_per_iteration == 4


# --- refusals, one line each ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "over, needles",
    [
        ({"speculative_tokens": 3}, ("speculative_tokens: 3", "without a method")),
        ({"speculative_method": "eagle3"}, ("speculative_method: eagle3", "speculative_tokens")),
        ({"speculative_method": "ngram", "speculative_tokens": 3}, ("ngram", "no default", "speculative_acceptance_rate")),
        (
            {"speculative_method": "draft_model", "speculative_tokens": 3, "speculative_draft_model": "llama-3.1-8b"},
            ("draft_model", "pair", "speculative_acceptance_length"),
        ),
        ({"speculative_method": "draft_model", "speculative_tokens": 3, "speculative_acceptance_rate": 0.5}, ("no draft model",)),
        (
            {"engine": _engine({"--speculative-config": '{"method": "eagle", "num_speculative_tokens": 2}'}), "speculative_acceptance_length": 3.5},
            ("speculative_acceptance_length: 3.5", "more than"),
        ),
        ({"speculative_method": "eagle", "speculative_tokens": 2, "pp": 2, "count": 2}, ("pp: 2", "pipeline")),
    ],
)
def test_missing_or_impossible_inputs_are_refused(over: dict[str, Any], needles: tuple[str, ...]) -> None:
    _refused(*needles, **over)


@pytest.mark.parametrize(
    "engine, args, fields, needles",
    [
        (
            "vllm",
            {"--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3}'},
            {"speculative_tokens": 2},
            ("num_speculative_tokens", "3 contradicts speculative_tokens 2"),
        ),
        (
            "vllm",
            {"--speculative-config": '{"method": "eagle", "num_speculative_tokens": 3}'},
            {"speculative_method": "mtp"},
            ("eagle contradicts speculative_method mtp",),
        ),
        ("vllm", {"--speculative-config": '{"method": "medusa", "num_speculative_tokens": 3}'}, {}, ("medusa", "not simulated")),
        ("vllm", {"--speculative-config": "eagle3"}, {}, ("not a JSON object",)),
        (
            "vllm",
            {"--speculative-config": '{"method": "eagle", "num_speculative_tokens": 3, "draft_tensor_parallel_size": 2}'},
            {},
            ("draft_tensor_parallel_size 2",),
        ),
        (
            "vllm",
            {"--speculative-config": '{"method": "eagle", "num_speculative_tokens": 3}'},
            {"speculative_draft_model": "llama-3.1-8b"},
            ("speculative_draft_model: llama-3.1-8b", "only speculative_method draft_model"),
        ),
        ("sglang", {"--speculative-algorithm": "EAGLE"}, {}, ("--speculative-eagle-topk", "tree")),
        ("sglang", {"--speculative-algorithm": "EAGLE", "--speculative-num-steps": 3, "--speculative-eagle-topk": 4}, {}, ("tree",)),
        (
            "sglang",
            {"--speculative-algorithm": "EAGLE3", "--speculative-num-steps": 3, "--speculative-eagle-topk": 1, "--speculative-num-draft-tokens": 8},
            {},
            ("--speculative-num-draft-tokens", "tree"),
        ),
        ("sglang", {"--speculative-algorithm": "LOOKAHEAD"}, {}, ("LOOKAHEAD", "not simulated")),
        ("trt-llm", {"speculative_config": "mtp"}, {}, ("engine.args.speculative_config", "speculative decoding on trt-llm")),
        ("llama.cpp", {"-md": "draft.gguf", "--draft-max": 8}, {}, ("engine.args.-md", "llama.cpp", "--draft-p-min")),
        ("llama.cpp", {}, {"speculative_tokens": 4}, ("speculative_tokens: 4", "llama.cpp")),
    ],
)
def test_flags_not_simulated_or_contradicting_are_refused(engine: str, args: dict[str, Any], fields: dict[str, Any], needles: tuple[str, ...]) -> None:
    _refused(*needles, engine=_engine(args, engine), **fields)


@pytest.mark.parametrize(
    "over, needle",
    [
        ({"speculative_acceptance_rate": 0.5, "speculative_acceptance_length": 1.5}, "not both"),
        ({"speculative_acceptance_length": 3.5}, "more than speculative_tokens 2 + 1"),
        ({"speculative_draft_model": "llama-3.1-8b"}, "only speculative_method draft_model takes a draft model"),
    ],
)
def test_the_scenario_document_checks_its_speculative_fields(over: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValidationError) as info:
        scenario(speculative_method="eagle", speculative_tokens=2, **over)
    assert needle in str(info.value)
    assert scenario(speculative_method="eagle3", speculative_tokens=3).check() == []


def _scenario_file(tmp_path: Path, **over: Any) -> Path:
    doc = Scenario.model_validate({**scenario().dump(), **over}).dump()
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "over, needle",
    [
        ({"speculative_method": "ngram", "speculative_tokens": 3}, "speculative_acceptance_rate"),
        (
            {"speculative_tokens": 2, "engine": _engine({"--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3}'})},
            "contradicts speculative_tokens 2",
        ),
    ],
)
def test_cli_refusals_are_one_line(tmp_path: Path, over: dict[str, Any], needle: str) -> None:
    path = _scenario_file(tmp_path, **over)
    proc = subprocess.run([sys.executable, "-m", "servescope", "predict", str(path), "--concurrency", "1", "--isl", "8", "--osl", "4",
                           "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0, proc.stderr
    assert needle in proc.stderr


def test_cli_predicts_a_speculative_scenario(tmp_path: Path) -> None:
    path = _scenario_file(tmp_path, speculative_method="eagle3", speculative_tokens=3)
    proc = subprocess.run([sys.executable, "-m", "servescope", "predict", str(path), "--concurrency", "1", "--isl", "64", "--osl", "16",
                           "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "warning: scenario s: speculative decoding (eagle3, k = 3)" in proc.stderr


def _dep(catalog: Catalog, **over: Any) -> Deployment:
    return deploy(scenario(**over), catalog=catalog)


def test_an_unknown_draft_model_is_one_line(catalog: Catalog) -> None:
    from servescope.errors import CatalogError

    with pytest.raises(CatalogError) as info:
        _dep(catalog, speculative_method="draft_model", speculative_draft_model="no-such-model", speculative_tokens=3, speculative_acceptance_rate=0.5)
    assert "\n" not in str(info.value) and "speculative_draft_model no-such-model" in str(info.value)


def test_each_decoder_takes_k_plus_one_of_the_token_budget(catalog: Catalog) -> None:
    # vLLM schedules 1 + k tokens per decoding request against max_num_batched_tokens: with 7 decoders
    # of k = 3 in a budget of 32, a new prompt gets 4 tokens an iteration, not 25
    engine = {"id": "vllm", "version": "0.11.0", "max_num_batched_tokens": 32, "max_num_seqs": 8, "enable_prefix_caching": False}
    wl = SyntheticWorkload((8,), isl=256, osl=64, num_requests=24, range_ratio=0.0)
    plain = predict(scenario(engine=engine), wl, catalog=catalog).prediction.points[0]
    spec = scenario(engine=engine, speculative_method="ngram", speculative_tokens=3, speculative_acceptance_rate=0.0)
    drafted = predict(spec, wl, catalog=catalog).prediction.points[0]
    assert plain.ttft_ms is not None and drafted.ttft_ms is not None
    assert drafted.ttft_ms > 1.8 * plain.ttft_ms, (drafted.ttft_ms, plain.ttft_ms)  # (equal when decoders took 1 each)


def test_mtp_needs_a_model_that_ships_mtp_layers(catalog: Catalog, tmp_path: Path) -> None:
    """MTP drafts with the checkpoint's own multi-token-prediction layer: refused (one line) for a model
    whose config has none; read from config.json's num_nextn_predict_layers."""
    with pytest.raises(NotModelledError, match=r"speculative method mtp: model llama-3.1-8b ships no multi-token-prediction layer") as info:
        deploy(scenario(speculative_method="mtp", speculative_tokens=1), catalog=catalog)
    assert "\n" not in str(info.value)
    cfg = {
        "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
        "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432, "vocab_size": 129280,
        "max_position_embeddings": 163840, "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1,
        "moe_intermediate_size": 2048, "first_k_dense_replace": 3, "kv_lora_rank": 512, "q_lora_rank": 1536,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "num_nextn_predict_layers": 1, "torch_dtype": "bfloat16",
    }  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    assert read_model_config(path).mtp_layers == 1
