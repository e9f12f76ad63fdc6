#!/usr/bin/env python
"""Client scale-out: ``servescope run --workers N`` (1, 2, 4 client processes) against the
timing-truth server at 1,024 streams — aggregate token rate and ITL timing error.

Two loads, each sent whole by the CLI (``servescope run --input-file ... --concurrency 1024
--workers N``, the path a user runs), against a truth server of its own
(``servescope.testing.truth.server``, ``--server-workers`` processes on one port):

- ``timing``: ITL 100 ms jittered ±50 ms, 32 ± 8 tokens a request (client_timing.py's
  1,024-stream level), 10,240 tok/s offered: the client's timing error when it keeps up;
- ``rate``: ITL 10 ms, 32 ± 8 tokens, 102,400 tok/s offered: more than one client process
  (or this machine) can take; the delivered rate is the aggregate sustained rate.

Each prompt carries a ``[truth-id:ID]`` marker, so every record (its ``prompt_id``) is
paired with the server's log of the same request. ITL error = (client gap k) − (server
gap k): a constant offset cancels, so the workers' clocks do not enter it. Reported:
p50 / p99 of |ITL error| in ms, delivered output tok/s (the Result's), requests matched.

With ``--aiperf`` each load is also sent once by aiperf (its own virtual environment,
``--aiperf-bin``; client_timing.py's ``run_aiperf``: same streams, requests, warmup round,
output lengths, truth server settings), paired with the server's log through its raw export.
For every client the delivered rate is also taken from the truth server's log (tokens the
server wrote between the first and last token of the measured requests, per second), the
same ruler for servescope and aiperf.

Usage (repository root):

    .venv/bin/python benchmarks/client_workers.py                 # both loads, 1, 2 and 4 workers (~6 min)
    .venv/bin/python benchmarks/client_workers.py --loads timing --workers 1,2
    .venv/bin/python benchmarks/client_workers.py --workers 1,2,4 --aiperf   # and aiperf at the same loads

Results: benchmarks/results/client_workers.json and a table on stdout. Loopback only;
every run bounded (``--time-limit`` seconds, then it is stopped and marked so).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from client_timing import Level, run_aiperf  # the same aiperf command and pairing as the client timing benchmark

from servescope.bench.records import read_records
from servescope.testing.truth.errors import Pairing
from servescope.testing.truth.server import TruthServer

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "client_workers.json"
STREAMS = 1024
LOADS: dict[str, dict[str, float]] = {
    "timing": {"itl_ms": 100.0, "jitter_ms": 50.0, "ttft_ms": 100.0, "tokens": 32, "tokens_sd": 8, "requests": 2048},
    "rate": {"itl_ms": 10.0, "jitter_ms": 0.0, "ttft_ms": 20.0, "tokens": 32, "tokens_sd": 8, "requests": 4096},
}


def prompt_file(path: Path, tag: str, n: int, tokens: int, sd: float, seed: int = 1) -> list[str]:
    """n prompts with truth-id markers and normal(tokens, sd) max_tokens; the ids, by line."""
    rng = np.random.default_rng(seed)
    lengths = np.clip(np.rint(rng.normal(tokens, sd, size=n)), 1, 2 * tokens).astype(int)
    ids = [f"{tag}-{i}" for i in range(n)]
    with path.open("w", encoding="utf-8") as fh:
        for rid, length in zip(ids, lengths, strict=True):
            fh.write(json.dumps({"prompt": f"[truth-id:{rid}] Tell me a story.", "max_tokens": int(length)}) + "\n")
    return ids


def one_run(load: str, workers: int, server_workers: int, time_limit_s: float, work: Path) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    spec = LOADS[load]
    n = int(spec["requests"])
    tag = f"{load}-w{workers}"
    prompts = work / f"{tag}.jsonl"
    ids = prompt_file(prompts, tag, n, int(spec["tokens"]), spec["tokens_sd"])
    out_dir = work / tag
    with TruthServer(workers=server_workers, itl_ms=spec["itl_ms"], jitter_ms=spec["jitter_ms"], ttft_ms=spec["ttft_ms"]) as srv:
        cmd = [sys.executable, "-m", "servescope", "run", "--input-file", str(prompts), "--concurrency", str(STREAMS), "--api", "completions"]
        cmd += ["--endpoint", srv.base_url, "--no-scrape", "--no-fail-fast", "--workers", str(workers), "--out", str(out_dir), "--timeout", "120"]
        # one warmup round: every stream's connection is open before the measured window (as client_timing.py);
        # warmup requests reuse the first prompts' ids, and the truth log keeps each id's last (measured) request
        cmd += ["--warmup-requests", str(STREAMS)]
        load_before = os.getloadavg()[0]
        t = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit_s, check=False)
            rc, tail = proc.returncode, (proc.stdout + proc.stderr)[-600:]
        except subprocess.TimeoutExpired:
            rc, tail = None, f"stopped after {time_limit_s:g} s"
        wall = time.perf_counter() - t
        log = srv.read_log()
    row: dict[str, Any] = {"load": load, "workers": workers, "server_workers": server_workers, "rc": rc, "wall_s": round(wall, 2), **spec}
    row["loadavg_1min_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]  # the VM is shared: how busy it was
    found = sorted(out_dir.glob("*/records.jsonl"))
    if not found:
        row["error"] = tail
        return row
    pairing = Pairing()
    for rec in read_records(found[0]):
        if rec.phase != "measured" or not rec.ok or rec.prompt_id is None:
            continue
        rid = ids[int(rec.prompt_id.split("-")[-1])]
        pairing.add(rid, rec.chunk_ns, log.get(rid))  # relative stamps: ITL error cancels the offset
    summary = pairing.summary()
    itl = summary["itl_abs_error_ms"] or {}
    row |= {"requests_matched": summary["requests_matched"], "itl_err_p50_ms": itl.get("p50"), "itl_err_p99_ms": itl.get("p99")}
    row["server_tok_s"] = server_rate(log, ids)
    result_path = found[0].parent / "result.json"
    if result_path.is_file():
        m = json.loads(result_path.read_text(encoding="utf-8"))["metrics"]
        row |= {"completed": m["completed_requests"], "failed": m["failed_requests"], "output_tok_s": m["output_tokens_per_sec"]}
    return row


def server_rate(log: dict[str, dict[str, Any]], ids: list[str]) -> float | None:
    """Tokens/s the truth server wrote between the first and the last token of the measured
    requests ``ids`` (warmup tokens inside that window included): the delivered rate by the
    server's clock, the same for every client (client_timing.py's ``through_tok_s``)."""
    entries = [log[i] for i in ids if i in log and log[i].get("token_ns")]
    if not entries:
        return None
    first = min(e["token_ns"][0] for e in entries)
    last = max(e["token_ns"][-1] for e in entries)
    if last <= first:
        return None
    return sum(1 for e in log.values() for t in (e.get("token_ns") or ()) if first <= t <= last) / ((last - first) / 1e9)


def aiperf_run(load: str, aiperf_bin: str, server_workers: int, work: Path) -> dict[str, Any]:
    """One aiperf run of ``load`` (as ``one_run`` sends it with servescope) against a truth server of its own."""
    from servescope.bench.engine.tokenizer import write_hf_tokenizer_dir

    work.mkdir(parents=True, exist_ok=True)
    spec = LOADS[load]
    tokenizer = work / "tokenizer"
    if not tokenizer.is_dir():
        write_hf_tokenizer_dir(tokenizer)
    level = Level(STREAMS, spec["itl_ms"], int(spec["tokens"]), int(spec["requests"]), STREAMS, ttft_ms=spec["ttft_ms"],
                  jitter_ms=spec["jitter_ms"], tokens_sd=spec["tokens_sd"])  # fmt: skip
    with TruthServer(workers=server_workers, itl_ms=spec["itl_ms"], jitter_ms=spec["jitter_ms"], ttft_ms=spec["ttft_ms"]) as srv:
        load_before = os.getloadavg()[0]
        outcome = run_aiperf(aiperf_bin, tokenizer, srv, level, f"aiperf-{load}", work, None, "raw")
    summary = outcome.pairing.summary()
    itl = summary["itl_abs_error_ms"] or {}
    reported = outcome.extra.get("aiperf_reported", {}).get("output_token_throughput", {})
    return {
        "load": load, "client": "aiperf", "workers": None, "server_workers": server_workers, "rc": outcome.extra.get("aiperf_rc"),
        "wall_s": round(outcome.wall_s or 0.0, 2), **spec,
        "loadavg_1min_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "requests_matched": summary["requests_matched"], "itl_err_p50_ms": itl.get("p50"), "itl_err_p99_ms": itl.get("p99"),
        "completed": outcome.ok, "failed": outcome.failed, "output_tok_s": reported.get("avg"),
        "server_tok_s": outcome.extra.get("through_tok_s"),
    }  # fmt: skip


def _fmt(v: Any, nd: int = 3) -> str:
    return "-" if v is None else f"{v:,.{nd}f}" if isinstance(v, float) else str(v)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", default="timing,rate", help="comma-separated: timing, rate")
    ap.add_argument("--workers", default="1,2,4", help="client worker processes to try, e.g. 1,2,4")
    ap.add_argument("--server-workers", type=int, default=1, help="truth server processes (SO_REUSEPORT)")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds a run may take before it is stopped")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each setting (the VM is shared: compare rounds)")
    ap.add_argument("--aiperf", action="store_true", help="also send each load once with aiperf (--aiperf-bin)")
    ap.add_argument("--aiperf-bin", default="/tmp/aiperf-venv/bin/aiperf", help="aiperf in its own virtual environment")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    if args.aiperf and not Path(args.aiperf_bin).exists():
        print(
            f"error: --aiperf-bin: {args.aiperf_bin} not found; create it with: python3 -m venv /tmp/aiperf-venv && /tmp/aiperf-venv/bin/pip install aiperf",
            file=sys.stderr,
        )
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="client-workers-") as tmp:
        for load in args.loads.split(","):
            settings: list[tuple[int | None, int]] = [(int(x), r) for r in range(args.rounds) for x in args.workers.split(",")]
            if args.aiperf:
                settings.append((None, 0))  # aiperf once, right after servescope at the same load
            for w, rnd in settings:
                if w is None:
                    row = aiperf_run(load, args.aiperf_bin, args.server_workers, Path(tmp) / "aiperf")
                else:
                    row = {"client": "servescope", **one_run(load, w, args.server_workers, args.time_limit, Path(tmp) / f"r{rnd}")}
                row["round"] = rnd
                rows.append(row)
                who = "aiperf" if w is None else f"workers {w}"
                print(
                    f"{row['load']:>6} {who}: tok/s {_fmt(row.get('output_tok_s'), 0)} (server {_fmt(row.get('server_tok_s'), 0)})  ITL err p50 {_fmt(row.get('itl_err_p50_ms'))}"
                    f"  p99 {_fmt(row.get('itl_err_p99_ms'))} ms  matched {row.get('requests_matched')}/{int(row['requests'])}  wall {row['wall_s']} s  rc {row['rc']}"
                    f"  load {row['loadavg_1min_before_after']}",
                    flush=True,
                )
    payload = {
        "benchmark": "client_workers",
        "when_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(), "python": platform.python_version()},
        "streams": STREAMS,
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
