"""``predict --sessions S --turns N``: the simulator sends each session's turns one after
another, each with its whole history, as ``run`` does (bench.sessions); with prefix
caching on, a turn finds its session's previous prompt and answer in the cache."""

from __future__ import annotations

import itertools
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.catalog.store import Catalog
from servescope.documents.record import RequestRecord
from servescope.predict.api import PredictionRun, predict, resolve_deployment
from servescope.predict.calibrate import evaluate, fit_cases, measured_of
from servescope.predict.sessions import message_wraps, session_phases, template_tokens_for, tokens_per_message
from servescope.predict.sim.replica import Replica
from servescope.predict.sim.request import SimRequest
from servescope.workload.adhoc_plan import plan_load
from servescope.workload.load_build import LoadRequest, build_load
from tests.predict.conftest import scenario

SYSTEM = 1024


def _predict(scen: object, catalog: Catalog, **load: object) -> PredictionRun:
    options: dict[str, object] = {"sessions": 4, "turns": 3, "isl": 32, "osl": 16, "system_prompt_tokens": SYSTEM, **load}
    return predict(scen, build_load(LoadRequest(**options)), catalog=catalog)  # type: ignore[arg-type]


def _by_turn(records: list[RequestRecord]) -> dict[int, list[RequestRecord]]:
    out: dict[int, list[RequestRecord]] = {}
    for r in records:
        out.setdefault(int(r.request_id.rsplit("-t", 1)[1]) + 1, []).append(r)
    return out


def _vllm(prefix_caching: bool) -> object:
    return scenario(engine={"id": "vllm", "version": "0.11.0", "enable_prefix_caching": prefix_caching})


def test_later_turns_find_the_previous_prompt_and_answer_cached(catalog: Catalog) -> None:
    run = _predict(_vllm(True), catalog, osl=40)
    bs = run.deployment.engine.block_size
    assert bs > 1 and run.deployment.engine.enable_prefix_caching
    turns = _by_turn(run.records)
    assert sorted(turns) == [1, 2, 3] and all(len(t) == 4 and all(r.ok for r in t) for t in turns.values())
    assert all(r.cached_tokens == 0 for r in turns[1])  # each session its own system message: nothing shared
    for r in turns[2] + turns[3]:
        session, k = r.request_id.rsplit("-t", 1)
        before = next(p for p in turns[int(k)] if p.request_id.startswith(session))
        assert before.input_tokens is not None and r.input_tokens is not None and r.cached_tokens is not None
        # the previous turn's whole prompt, block-aligned, and its answer's full blocks beyond
        assert r.cached_tokens >= before.input_tokens // bs * bs
        assert r.cached_tokens >= (before.input_tokens + 40 - 1) // bs * bs > before.input_tokens
        assert r.cached_tokens % bs == 0 and r.cached_tokens < r.input_tokens
    first = statistics.median(r.ttft_ns or 0 for r in turns[1])
    assert statistics.median(r.ttft_ns or 0 for r in turns[2] + turns[3]) < first
    rows = run.result.resolved_params["turns"]
    assert [row["turn"] for row in rows] == [1, 2, 3] and [row["completed"] for row in rows] == [4, 4, 4]
    assert rows[0]["cached_tokens_mean"] == 0 and rows[1]["cached_tokens_mean"] >= rows[0]["input_tokens_mean"] // bs * bs
    assert rows[1]["ttft_ms_p50"] < rows[0]["ttft_ms_p50"] and rows[2]["with_cache_counts"] == 4


def test_a_slot_cache_finds_the_whole_previous_prompt_and_answer(catalog: Catalog) -> None:
    # llama.cpp's blocks are single tokens: turn k + 1 finds turn k's prompt and answer, less the
    # answer's last token (never fed back). The embedded engine (2026-12-07, the same load): prompts
    # 1075 / 1136.5 / 1197.75 tokens (predicted 1075 / 1136 / 1197), 1087.5 and 1149 from its cache:
    # the answer's text, sent back, is tokenised anew, and its match ends ~2 tokens short (not modelled)
    tiny = catalog.scenario("tiny-llama-on-cpu")
    cached = tiny.model_copy(update={"engine": tiny.engine.model_copy(update={"enable_prefix_caching": True})})
    run = _predict(cached, catalog)
    assert run.deployment.engine.block_size == 1
    turns = _by_turn(run.records)
    for k in (2, 3):
        for r in turns[k]:
            session = r.request_id.rsplit("-t", 1)[0]
            before = next(p for p in turns[k - 1] if p.request_id.startswith(session))
            assert before.input_tokens is not None and r.cached_tokens == before.input_tokens + 16 - 1
    rows = run.result.resolved_params["turns"]
    assert [round(row["input_tokens_mean"]) for row in rows] == [1075, 1136, 1197]
    assert [round(row["cached_tokens_mean"]) for row in rows] == [0, 1090, 1151]


def test_without_prefix_caching_nothing_is_cached(catalog: Catalog) -> None:
    run = _predict(_vllm(False), catalog)
    assert len(run.records) == 12 and all(r.ok and r.cached_tokens == 0 for r in run.records)
    assert [row["cached_tokens_mean"] for row in run.result.resolved_params["turns"]] == [0, 0, 0]


def test_turn_prompts_carry_the_whole_history() -> None:
    dep = resolve_deployment("tiny-llama-on-cpu")
    # ChatML, measured on the embedded engine: a system message wrapped in 8 tokens, a user message in
    # 6 and an answer in 7; the one-message template 11, so the generation prompt is 5
    assert (dep.template_tokens, message_wraps(dep)) == (11, {"system": 8, "user": 6, "assistant": 7})
    resolved = build_load(LoadRequest(sessions=2, turns=3, isl=32, osl=16, range_ratio=0.3, seed=7, system_prompt_tokens=100))
    points = plan_load(resolved)  # what run sends: the same draws
    [phase] = session_phases(points, dep)
    assert [r.request_id for r in phase.requests] == [r.request_id for r in points[0].requests]
    for s in range(2):
        planned = points[0].requests[3 * s : 3 * s + 3]
        reqs = phase.requests[3 * s : 3 * s + 3]
        history = 100 + 8
        for pr, req in zip(planned, reqs, strict=True):
            assert pr.input_tokens_nominal is not None
            assert req.prompt_tokens == history + pr.input_tokens_nominal + dep.template_tokens
            assert req.max_tokens == pr.max_tokens
            history += pr.input_tokens_nominal + 6 + pr.max_tokens + 7  # the user message and the answer, each in its wrap
        assert phase.follow is not None and phase.follow[reqs[0]] is reqs[1] and phase.follow[reqs[1]] is reqs[2] and reqs[2] not in phase.follow
    assert len({r.max_tokens for r in phase.requests}) > 1  # --range-ratio drew the answers' lengths too


def test_think_time_delays_the_next_turn_by_exactly_that(catalog: Catalog) -> None:
    for think_ms in (0.0, 250.0):
        run = _predict("llama-3.1-8b-on-h100", catalog, sessions=2, turns=3, think_time_ms=think_ms)
        turns = sorted(run.records, key=lambda r: r.request_id)
        for a, b in itertools.pairwise(turns):
            if a.request_id[:-5] != b.request_id[:-5]:
                continue  # another session
            assert a.end_ns is not None and b.start_ns == a.end_ns + round(think_ms * 1e6)
            assert b.ttft_ns is not None and b.ttft_ns < 1e9 * 0.2  # latency starts at the send, not at the answer's end


def test_a_turn_too_long_fails_and_its_session_later_turns_are_cancelled(catalog: Catalog) -> None:
    # tiny-llama-on-cpu: 4096 tokens a slot; the third turn's history passes it
    run = predict("tiny-llama-on-cpu", build_load(LoadRequest(sessions=2, turns=4, isl=1500, osl=16)), catalog=catalog)
    records = {r.request_id: r for r in run.records}
    assert len(records) == 2 * 4
    for s in ("s00000", "s00001"):
        ok = [records[f"p0-{s}-t{k:04d}"] for k in range(2)]
        failed, cancelled = records[f"p0-{s}-t0002"], records[f"p0-{s}-t0003"]
        assert all(r.ok for r in ok)
        assert not failed.ok and failed.category == "context-overflow" and failed.input_tokens and failed.input_tokens >= 4096
        assert not cancelled.ok and (cancelled.stage, cancelled.category) == ("send", "cancelled")
        assert cancelled.error == f"not sent: turn {failed.request_id} of this session failed, and its answer is the history this turn needs"
        assert cancelled.input_tokens is None and cancelled.output_tokens is None and cancelled.start_ns == failed.end_ns == cancelled.end_ns
    m = run.result.metrics
    assert (m.total_requests, m.completed_requests) == (8, 4)
    assert run.result.blocked_by_reason_code == {"context-overflow": 2, "cancelled": 2}


def test_predict_sessions_is_labelled_as_run_labels_the_load(tmp_path: Path) -> None:
    args = ["--sessions", "2", "--turns", "3", "--isl", "24", "--osl", "8", "--think-time-ms", "100", "--system-prompt-tokens", "256", "--seed", "3"]
    proc = subprocess.run([sys.executable, "-m", "servescope", "predict", "tiny-llama-on-cpu", *args, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # run's options, as run's CLI reads them into the one load description
    run_label = build_load(LoadRequest(sessions=2, turns=3, isl=24, osl=8, think_time_ms=100.0, system_prompt_tokens=256, seed=3)).load.label
    [path] = tmp_path.rglob("prediction.json")
    assert json.loads(path.read_text())["workload"] == run_label
    result = json.loads((path.parent / "result.json").read_text())
    assert result["workload_id"] == run_label and result["resolved_params"]["load_description"]["sessions"] == 2
    assert result["resolved_params"]["session_prompts"]["template_tokens_by_role"] == {"system": 8, "user": 6, "assistant": 7}
    assert len((path.parent / "records.jsonl").read_text().splitlines()) == 6


@pytest.mark.pure_sim
def test_a_preempted_turn_keeps_the_blocks_it_decoded_cached(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    # a pool too small for four sessions' turns: one is preempted while decoding; as vLLM caches
    # every full block computed, the blocks it decoded stay cached under its session's hashes when
    # it is preempted, so it finds them when it resumes (not only its prompt's)
    tiny = catalog.scenario("tiny-llama-on-cpu")
    args = {**tiny.engine.args, "--ctx-size": "2400", "--parallel": "4"}
    engine = tiny.engine.model_copy(update={"enable_prefix_caching": True, "max_model_len": 2048, "max_num_seqs": 4, "args": args})
    seen: list[tuple[int, int]] = []  # (decoded tokens, of them cached) at each preemption, observed on the real replica
    preempt = Replica.preempt

    def observed(self: Replica, slot: int, now: int) -> SimRequest:
        req = preempt(self, slot, now)
        decoded = req.block_hashes[req.prompt_tokens : req.prompt_tokens + req.generated]  # (one-token blocks)
        seen.append((len(decoded), sum(h in self.pool.refs for h in decoded)))
        return req

    monkeypatch.setattr(Replica, "preempt", observed)
    run = _predict(tiny.model_copy(update={"engine": engine}), catalog, turns=2, isl=200, osl=300, system_prompt_tokens=None)
    assert seen and all(r.ok for r in run.records)
    assert all(n > 1 and cached >= n - 1 for n, cached in seen), seen  # all but the last decoded token, never fed back


def test_calibrate_from_a_sessions_result_replays_the_sessions(catalog: Catalog) -> None:
    # a sessions Result (here a simulated one, whose truth is known) is replayed as its sessions,
    # not as a loop of its mean prompt: with the factors that made it, every metric is met exactly
    truth = _predict("tiny-llama-on-cpu", catalog, think_time_ms=20.0)
    measured = measured_of(truth.result)
    [case] = fit_cases(measured, catalog.scenario("tiny-llama-on-cpu"), catalog, truth.deployment.template_tokens)
    assert case.prepared.multi_turn and case.prepared.workload_id == truth.result.workload_id
    ev = evaluate(catalog.scenario("tiny-llama-on-cpu"), [case], truth.deployment.calibration, ["ttft_ms", "itl_ms"], catalog)
    assert ev.measured["ttft_ms"] and ev.mape() == {"ttft_ms": 0.0, "itl_ms": 0.0}


def test_a_role_the_model_document_leaves_out_adds_half_the_one_message_template() -> None:
    """Roles a model document gives wrap by their own counts, the rest by half the one-message
    template rounded up; a chat line's template is its roles' wraps and the generation prompt."""
    import dataclasses

    from servescope.documents.model import ChatMessageTokens

    dep = resolve_deployment("tiny-llama-on-cpu")
    assert template_tokens_for(dep, ["user"]) == dep.template_tokens == 11
    assert template_tokens_for(dep, ["system", "user", "assistant", "user"]) == 5 + 8 + 6 + 7 + 6
    assert template_tokens_for(dep, ["tool"]) == 11  # an unknown role counts as a user message
    only_system = dataclasses.replace(dep, model=dep.model.model_copy(update={"chat_message_tokens": ChatMessageTokens(system=9)}))
    assert message_wraps(only_system) == {"system": 9, "user": 6, "assistant": 6}
    none_given = dataclasses.replace(dep, model=dep.model.model_copy(update={"chat_message_tokens": None}))
    assert message_wraps(none_given) == {r: tokens_per_message(11) for r in ("system", "user", "assistant")}
    assert template_tokens_for(none_given, ["user", "assistant", "user"]) == 11 + 2 * 6  # the rule before per-role counts


def test_a_model_documents_user_wrap_cannot_exceed_its_one_message_template() -> None:
    from servescope.documents.model import Model

    dep = resolve_deployment("tiny-llama-on-cpu")
    doc = dep.model.model_dump(exclude_none=True)
    with pytest.raises(ValueError, match=r"chat_message_tokens.user: 12 is more than chat_template_tokens \(11\), which includes it"):
        Model.model_validate({**doc, "chat_message_tokens": {"user": 12}})
    for wraps in ({"user": 6}, {"system": 8}):
        with pytest.raises(ValueError, match=r"chat_message_tokens: needs chat_template_tokens"):
            Model.model_validate({**{k: v for k, v in doc.items() if k != "chat_template_tokens"}, "chat_message_tokens": wraps})
    assert Model.model_validate({**doc, "chat_message_tokens": {"user": 11}}).chat_message_tokens is not None
