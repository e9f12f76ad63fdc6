"""The chunks without text a client times (``predict.stream_chunks``): vllm bench serve's
ITL on the chat endpoint has a gap of about zero per request for the role chunk."""

from __future__ import annotations

import pytest
import yaml

from servescope.catalog.store import Catalog, packaged_root
from servescope.documents import EvaluationPoint, EvaluationRun, load_document
from servescope.errors import DocumentError
from servescope.predict.api import predict
from servescope.predict.calibrate import Measured, fit_cases
from servescope.predict.stream_chunks import textless_chunks
from servescope.predict.workload_input import SyntheticWorkload
from tests.predict.conftest import scenario


def test_each_servers_chunks_without_text_on_each_endpoint() -> None:
    assert textless_chunks(None, "vllm", "chat") == ((0, 0), None)  # servescope's client: text chunks only
    assert textless_chunks("vllm-bench-serve", "vllm", "chat") == ((1, 0), None)
    assert textless_chunks("vllm-bench-serve", "trtllm", "chat") == ((1, 0), None)
    assert textless_chunks("vllm-bench-serve", "sglang", "chat") == ((1, 1), None)
    assert textless_chunks("vllm-bench-serve", "vllm", None) == ((0, 0), None)  # the client's default: completions
    assert textless_chunks("vllm-bench-serve", "tensorrt-llm", "completions") == ((0, 0), None)
    chunks, warning = textless_chunks("vllm-bench-serve", "tgi", "chat")
    assert chunks == (0, 0) and warning is not None and "tgi" in warning and "not known" in warning
    chunks, warning = textless_chunks("vllm-bench-serve", "vllm", "chat", "GptOssForCausalLM")
    assert chunks == (1, 0) and warning is not None and "harmony" in warning
    with pytest.raises(ValueError, match="give one of completions, chat"):
        textless_chunks("vllm-bench-serve", "vllm", "responses")
    with pytest.raises(ValueError, match="not known here"):
        textless_chunks("aiperf", "vllm", "chat")


@pytest.mark.parametrize(("engine", "endpoint", "gaps_per_request"), [("vllm", "chat", 4), ("sglang", "chat", 5), ("vllm", "completions", 3)])
def test_a_short_burst_over_chat_reads_as_gpustacks_did(catalog: Catalog, engine: str, endpoint: str, gaps_per_request: int) -> None:
    """GPUStack's 128-token, 4-output bursts (vllm bench serve --backend openai-chat) print a mean ITL of
    exactly 3/4 of the mean TPOT on vLLM 0.11.0 and TensorRT-LLM 1.2 (Qwen3-235B fp8 tp 4: 93.89 against
    125.18 ms): four gaps timed per request, one of them the role chunk's, where the tokens have three.
    SGLang's separate finish chunk makes it five; the completions endpoint sends none."""
    spec = SyntheticWorkload((8,), 128, 4, num_requests=16, harness="burst", stream_client="vllm-bench-serve", endpoint=endpoint)
    run = predict(scenario(engine={"id": engine, "version": "0.5.5" if engine == "sglang" else "0.11.0"}), spec, catalog=catalog)
    [point] = run.prediction.points
    assert point.itl_ms is not None and point.tpot_ms is not None
    assert point.itl_ms == pytest.approx(point.tpot_ms * 3 / gaps_per_request, rel=1e-9)
    # the records carry the chunks the client timed: a copy of the first (and last) token's time
    rec = next(r for r in run.records if r.phase == "measured")
    assert len(rec.chunk_ns) == gaps_per_request + 1 and rec.output_tokens == 4
    assert rec.first_token_ns == rec.chunk_ns[0] and rec.end_ns == rec.chunk_ns[-1]
    resolved = run.result.resolved_params if run.result is not None else {}
    assert resolved["stream_timing"]["endpoint"] == endpoint


def test_servescopes_own_client_is_unchanged(catalog: Catalog) -> None:
    """Without a client that times every chunk the ITL is a gap per token after the first."""
    run = predict(scenario(), SyntheticWorkload((8,), 128, 4, num_requests=16, harness="burst"), catalog=catalog)
    [point] = run.prediction.points
    assert point.itl_ms == pytest.approx(point.tpot_ms, rel=1e-9)  # type: ignore[arg-type]
    assert "stream_timing" not in (run.result.resolved_params if run.result is not None else {})
    with pytest.raises(ValueError, match="matters to a client that times every chunk"):
        SyntheticWorkload((8,), 128, 4, endpoint="chat")


def test_the_replay_of_a_chat_run_times_what_its_client_timed(catalog: Catalog) -> None:
    scen = catalog.scenario("llama-3.1-8b-on-h100")
    burst = EvaluationPoint(concurrency=500, completed_requests=500, itl_ms=40.0, mean_isl=2000, mean_osl=100)
    (case,) = fit_cases(Measured("gs", None, [burst], "vllm-bench-serve", endpoint="chat"), scen, catalog, template_tokens=0)
    spec = case.prepared.synthetic
    assert spec is not None and spec.timing_client == "vllm-bench-serve" and spec.endpoint == "chat"
    (case,) = fit_cases(Measured("dc", None, [burst], "sglang-bench-serving"), scen, catalog, template_tokens=0)
    assert case.prepared.synthetic is not None and case.prepared.synthetic.timing_client is None


def test_gpustacks_runs_say_they_called_the_chat_endpoint() -> None:
    runs = [load_document(p, EvaluationRun) for p in sorted((packaged_root() / "validation" / "runs").glob("gs-*.yaml"))]
    assert len(runs) == 57
    for run in runs:
        assert "--backend openai-chat" in " ".join(run.notes or []) and run.endpoint == "chat", run.name


def test_an_unknown_endpoint_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "run.yaml"
    doc = {"kind": "EvaluationRun", "name": "r", "scenario": "s", "harness": "vllm-bench-serve", "engine_version": "0.11.0",
           "endpoint": "responses", "points": [{"concurrency": 1, "itl_ms": 5.0}]}  # fmt: skip
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(DocumentError, match="endpoint") as exc:
        load_document(path, EvaluationRun)
    assert "give one of completions, chat" in str(exc.value) and "\n" not in str(exc.value)
