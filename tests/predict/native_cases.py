"""Predictions that must not change when the simulator runs compiled (``servescope.native_sim``):
``python tests/predict/native_cases.py`` prints one line per case, ``name sha256``, of everything
the case's simulation produced (every record, the prediction's figures, a search's outcome).
``test_native.py`` runs it with and without ``SERVESCOPE_PURE_PYTHON`` and compares the lines.

The cases reach every policy of ``sim/``: both schedulers, preemption under KV pressure, prefix
caching, refused requests, several replicas and routers, open and closed loops, the burst replay,
sessions that send their next turn on an answer, a trace's timed arrivals and shared prefix blocks,
speculative decoding, and ``search``'s give-up rule."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "workload" / "fixtures"


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).hexdigest()[:32]


def _run_digest(run: Any) -> str:
    records = [r.to_json() for r in run.records]
    documents = [doc.model_dump(mode="json", exclude={"id", "created_at", "provenance", "wall_s"}) for doc in (run.prediction, run.result)]
    return _digest([records, documents, run.events])


def cases() -> dict[str, str]:
    import servescope.predict.sim as sim
    from servescope.catalog.store import Catalog
    from servescope.predict.api import predict, prepare, run_simulation
    from servescope.predict.deployment import deploy
    from servescope.predict.outputs import build_records
    from servescope.predict.search import search
    from servescope.predict.workload_input import SyntheticWorkload
    from servescope.workload.load_build import LoadRequest, build_load

    cat = Catalog.load([])
    scen = cat.scenario("llama-3.1-8b-on-h100")
    out: dict[str, str] = {"native": str(sim.NATIVE)}

    def load(**kw: Any) -> Any:
        return build_load(LoadRequest(**kw))

    out["closed c8,64"] = _run_digest(predict(scen, SyntheticWorkload((8, 64), 1024, 256, num_requests=200), catalog=cat))
    out["burst c32"] = _run_digest(predict(scen, SyntheticWorkload((32,), 512, 128, num_requests=100, harness="burst"), catalog=cat))
    out["open rate 20 ratio 0.5"] = _run_digest(
        predict(scen, SyntheticWorkload((1,), 800, 200, num_requests=150, range_ratio=0.5), rate=20.0, seed=3, catalog=cat)
    )
    out["sessions prefix cache"] = _run_digest(
        predict(
            scen.model_copy(update={"engine": scen.engine.model_copy(update={"enable_prefix_caching": True})}),
            load(sessions=6, turns=3, isl=300, osl=60, system_prompt_tokens=200, think_time_ms=50.0),
            catalog=cat,
        )
    )
    out["trace speedup 2"] = _run_digest(predict(scen, load(trace=FIXTURES / "mooncake-conversation-trace-200.jsonl", speedup=2.0), catalog=cat))
    speculative = scen.model_copy(update={"speculative_tokens": 3, "speculative_method": "eagle", "speculative_acceptance_rate": 0.7})
    out["speculative eagle k3"] = _run_digest(predict(speculative, SyntheticWorkload((4, 16), 512, 128, num_requests=60), catalog=cat))
    out["llama.cpp on cpu"] = _run_digest(predict("tiny-llama-on-cpu", SyntheticWorkload((1, 4), 128, 64, num_requests=24), catalog=cat))

    # deployments edited past what a scenario says: pressure, refusals, sglang, replicas, routers
    base = deploy(scen, catalog=cat)
    spec = SyntheticWorkload((16,), 300, 120, num_requests=80, range_ratio=0.6)
    variants: dict[str, tuple[Any, str, float | None]] = {
        "kv pressure (preemptions)": (replace(base, kv=replace(base.kv, num_blocks=150)), "round-robin", None),
        "refused prompts": (replace(base, kv=replace(base.kv, num_blocks=40)), "round-robin", None),
        "sglang scheduler": (replace(base, engine=replace(base.engine, scheduler="sglang"), kv=replace(base.kv, num_blocks=200)), "round-robin", None),
        "least-loaded router, open loop": (base, "least-loaded", 60.0),
        "batch waiting": (replace(base, engine=replace(base.engine, batch_wait_iters=4, batch_wait_tokens=400)), "round-robin", 30.0),
    }
    for name, (dep, router, rate) in variants.items():
        prepared = prepare(spec, rate=rate)
        sim_out = run_simulation(prepared, dep, router=router)
        records = [r.to_json() for r in build_records(sim_out)]
        stats = [(rep.pool.peak_occupied, rep.pool.evictions, rep.peak_running, rep.step_ends[: rep.n_steps].tolist()) for rep in sim_out.replicas]
        preempted = sum(q.preemptions for q in sim_out.requests)
        failed = sum(q.failure is not None for q in sim_out.requests)
        out[name] = f"{_digest([records, stats, sim_out.events])} preemptions={preempted} failed={failed}"

    for name, model, work in [
        ("search 8b three levels", "llama-3.1-8b", SyntheticWorkload((16, 64, 256), 1024, 256, requests_per_concurrency=2, min_requests=16)),
        ("search 70b", "llama-3.1-70b", SyntheticWorkload((32,), 2048, 512, requests_per_concurrency=2, min_requests=16)),
    ]:
        outcome = search(model, "h100-sxm", 8, "ttft_ms<=1000,itl_ms<=50", work, catalog=cat)
        kept = {k: v for k, v in asdict(outcome).items() if k != "wall_s"}
        out[name] = _digest(kept)
    return out


if __name__ == "__main__":
    for name, value in cases().items():
        sys.stdout.write(f"{name}\t{value}\n")
