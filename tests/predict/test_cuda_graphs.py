"""Decode batches an engine has no CUDA graph for are launched eagerly: the step pays the host
launch floor (``step_time.CudaGraphs``), with each engine's captured sizes read from its defaults
and flags (``deployment.cuda_graphs``)."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Model
from servescope.errors import CatalogError
from servescope.predict.architecture import architecture
from servescope.predict.deployment import deploy, sglang_cuda_graph_max_bs
from servescope.predict.step_time import CudaGraphs, StepTimeModel
from tests.predict.conftest import scenario, toy_hardware
from tests.predict.test_step_time import IDEAL

FLOOR = 1e-3  # per layer: Llama 3.1 8B's 32 layers take 32 ms to launch, far above their device time
PADDED_512 = CudaGraphs(frozenset([1, 2, 4, *range(8, 513, 8)]))


def _model(llama8b: Model, graphs: CudaGraphs | None) -> StepTimeModel:
    return StepTimeModel(architecture(llama8b), toy_hardware(memory_bandwidth_gb_s=1e6, peak_tflops={"bf16": 1e6}),
                         replace(IDEAL, eager_layer_s=FLOOR), cuda_graphs=graphs)  # fmt: skip


def test_a_decode_batch_above_the_largest_graph_pays_the_launch_floor(llama8b: Model) -> None:
    graphed = _model(llama8b, PADDED_512)
    device = _model(llama8b, None).step_time(600, 600 * 100.0)
    assert device < 32 * FLOOR / 10  # (the floor is what matters here)
    assert graphed.step_time(512, 512 * 100.0) < 32 * FLOOR / 10  # padded up to a captured size: a graph
    assert graphed.step_time(600, 600 * 100.0) == pytest.approx(32 * FLOOR)
    assert graphed.breakdown(600, 600 * 100.0).host_wait == pytest.approx(32 * FLOOR - device)
    # the simulator's decode runs: no straight line past the graphs, every iteration floored
    assert graphed.decode_line(600, 600 * 100.0) is None and graphed.decode_line(512, 512 * 100.0) is not None
    durations = graphed.decode_run(np.full(600, 100, dtype=np.int64), 5)
    assert durations.shape == (5,) and np.allclose(durations, 32 * FLOOR)
    assert _model(llama8b, None).decode_line(600, 600 * 100.0) is not None  # no graphs stated: all graphed, as before


def test_an_engine_that_does_not_pad_replays_only_the_captured_sizes(llama8b: Model) -> None:
    exact = _model(llama8b, CudaGraphs(frozenset([*range(1, 33), 64, 128]), padded=False))
    assert exact.step_time(32, 3200.0) < 32 * FLOOR / 10
    assert exact.step_time(40, 4000.0) == pytest.approx(32 * FLOOR)  # between 32 and 64: eager
    assert exact.step_time(64, 6400.0) < 32 * FLOOR / 10


def test_no_graphs_at_all_floors_every_decode(llama8b: Model) -> None:
    eager = _model(llama8b, CudaGraphs(frozenset()))
    assert eager.step_time(1, 100.0) == pytest.approx(32 * FLOOR)


def _graphs(catalog: Catalog, **over: Any) -> CudaGraphs | None:
    return deploy(scenario(**over), catalog=catalog).step_model.cuda_graphs


def test_vllm_captures_up_to_twice_max_num_seqs_or_512(catalog: Catalog) -> None:
    default = _graphs(catalog)  # an H100: 1,024 sequences by default
    assert default is not None and default.padded and default.max_tokens == 512
    assert {1, 2, 4, 8, 248, 256, 272, 512} <= default.sizes and 260 not in default.sizes
    small = _graphs(catalog, engine={"id": "vllm", "version": "0.11.0", "args": {"--max-num-seqs": 64}})
    assert small is not None and small.max_tokens == 128
    told = _graphs(catalog, engine={"id": "vllm", "version": "0.11.0", "args": {"--cuda-graph-sizes": 64}})
    assert told is not None and told.max_tokens == 64
    tiny = _graphs(catalog, engine={"id": "vllm", "version": "0.11.0", "args": {"--max-num-seqs": 1}})
    assert tiny is not None and tiny.sizes == frozenset([1, 2])  # min(2 x 1, 512): nothing above 2
    v0 = _graphs(catalog, engine={"id": "vllm", "version": "0.6.4"})
    assert v0 is not None and v0.max_tokens == 256
    # V0 rounds max_num_seqs up to the next captured size: 100 sequences replay the graph of 104
    v0_100 = _graphs(catalog, engine={"id": "vllm", "version": "0.6.4", "args": {"--max-num-seqs": 100}})
    assert v0_100 is not None and v0_100.max_tokens == 104 and 100 not in v0_100.sizes


def test_eager_mode_is_modelled_not_warned(catalog: Catalog) -> None:
    for engine in ({"id": "vllm", "version": "0.11.0", "args": {"--enforce-eager": None}},
                   {"id": "sglang", "version": "0.5.5", "args": {"--disable-cuda-graph": None}}):  # fmt: skip
        dep = deploy(scenario(engine=engine), catalog=catalog)
        assert dep.step_model.cuda_graphs == CudaGraphs(frozenset()) and dep.warnings == []
        assert dep.step_model.step_time(1, 1000.0) >= dep.step_model.step_time(0, 0.0, 0.0, [(1, 0)]) * 0.99


def test_sglang_reads_its_memory_table_and_flags(catalog: Catalog) -> None:
    default = _graphs(catalog, engine={"id": "sglang", "version": "0.5.5"})
    assert default is not None and default.max_tokens == sglang_cuda_graph_max_bs(catalog.hardware("h100-sxm"), 1) == 256
    told = _graphs(catalog, engine={"id": "sglang", "version": "0.5.5", "args": {"--cuda-graph-max-bs": 32}})
    assert told is not None and told.max_tokens == 32


def test_trt_llm_default_graphs_stop_at_128_without_padding(catalog: Catalog) -> None:
    trt = {"id": "trt-llm", "version": "1.2.0"}
    default = _graphs(catalog, engine=trt)
    assert default is not None and not default.padded
    assert default.sizes == frozenset([*range(1, 33), 64, 128])
    told = _graphs(catalog, engine={**trt, "args": {"cuda_graph_config.enable_padding": True, "cuda_graph_config.max_batch_size": 1024}})
    assert told is not None and told.padded and told.max_tokens == 1024 and {8, 128, 256, 512, 1024} <= told.sizes
    off = _graphs(catalog, engine={**trt, "args": {"cuda_graph_config": False}})
    assert off == CudaGraphs(frozenset())
    assert _graphs(catalog, engine={**trt, "args": {"cuda_graph_config": None}}) == CudaGraphs(frozenset())  # YAML null: off
    assert _graphs(catalog, engine={"id": "trt-llm", "version": "0.21.0"}) is None  # before 1.0: not modelled
    assert deploy(scenario(engine={**trt, "args": {"cuda_graph_config.max_batch_size": 256}}), catalog=catalog).warnings == []


def test_a_bad_batch_size_list_is_one_line(catalog: Catalog) -> None:
    listed = _graphs(catalog, engine={"id": "sglang", "version": "0.5.5", "args": {"--cuda-graph-bs": "1 2 4 8 16"}})
    assert listed == CudaGraphs(frozenset([1, 2, 4, 8, 16]))
    with pytest.raises(CatalogError, match=r"^scenario s: engine.args cuda-graph-bs '8 x': give a positive whole batch size"):
        _graphs(catalog, engine={"id": "sglang", "version": "0.5.5", "args": {"--cuda-graph-bs": "8 x"}})


def test_a_prediction_says_which_decode_batches_have_no_graph(catalog: Catalog) -> None:
    notes = deploy(scenario(), catalog=catalog).notes  # vLLM on an H100: 1,024 sequences, graphs up to 512
    assert any(n.startswith("CUDA graphs up to 512 decode tokens; a larger decode batch is launched eagerly") for n in notes)
    trt = deploy(scenario(engine={"id": "trt-llm", "version": "1.2.0"}), catalog=catalog).notes
    assert any("exactly 1-32, 64, 128 (no padding)" in n for n in trt)
    eager = deploy(scenario(engine={"id": "vllm", "version": "0.11.0", "args": {"--enforce-eager": None}}), catalog=catalog).notes
    assert any(n.startswith("CUDA graphs off: every decode iteration is launched eagerly") for n in eager)
    small = deploy(scenario(engine={"id": "vllm", "version": "0.11.0", "args": {"--max-num-seqs": 64}}), catalog=catalog).notes
    assert not any(n.startswith("CUDA graphs") for n in small)


@pytest.mark.parametrize(
    ("engine", "args"),
    [
        ({"id": "nim", "version": "1.8.0"}, {"--enforce-eager": None}),  # NIM's prebuilt engines: not modelled
        ({"id": "vllm", "version": "0.11.0"}, {"--disable-cuda-graph": None}),  # SGLang's flag on vLLM
        ({"id": "sglang", "version": "0.5.5"}, {"--enforce-eager": None}),  # vLLM's flag on SGLang
        ({"id": "trt-llm", "version": "0.21.0"}, {"cuda_graph_config.max_batch_size": 64}),  # before 1.0
        (
            {"id": "vllm", "version": "0.11.0"},
            {
                "--cuda-graph-sizes": 8,
                "--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3, "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}',
            },
        ),
    ],
)
def test_a_graph_flag_the_simulator_does_not_apply_is_one_line(catalog: Catalog, engine: dict[str, Any], args: dict[str, Any]) -> None:
    warnings = deploy(scenario(engine={**engine, "args": args}), catalog=catalog).warnings
    flag = next(k for k in args if "speculative" not in k)
    hits = [w for w in warnings if f"engine.args.{flag}" in w]
    assert len(hits) == 1 and "\n" not in hits[0] and "CUDA graph" in hits[0], warnings


def test_eager_decodes_are_simulated_at_the_launch_floor(catalog: Catalog) -> None:
    """Eight requests decode together; four stop after 10 tokens. With graphs for batches of 1 and 2 only, the
    four that go on decode in a run of their own (no new prompt beside them) that has no graph, so each gap is
    the launch floor (32 x 1 ms); with every batch graphed it is the device time, far below. (Such a run once
    costed a batch of 0: ``decode_run`` got the sliding-window contexts, empty for a full-attention model.)"""
    from servescope.predict.calibration import Calibration
    from tests.predict.test_simulator import reqs, run, times

    def late_gaps(graphs: CudaGraphs | None) -> list[int]:
        dep = deploy(scenario(), catalog=catalog, calibration={"eager_layer_s": FLOOR})
        assert isinstance(dep.calibration, Calibration)
        m = dep.step_model
        dep.step_model = StepTimeModel(m.arch, m.hardware, dep.calibration, weight_dtype="bf16", kv_dtype="bf16", cuda_graphs=graphs)
        requests = reqs(8, 64, 40)
        for short in requests[:4]:
            short.max_tokens = 10
        chunks = [c for _, _, c in times(run(dep, requests, concurrency=8)).values() if len(c) == 40]
        assert len(chunks) == 4
        return [b - a for c in chunks for a, b in pairwise(c[12:])]

    assert set(late_gaps(CudaGraphs(frozenset([1, 2])))) == {round(32 * FLOOR * 1e9)}
    assert max(late_gaps(None)) < 32 * FLOOR * 1e9 / 2
