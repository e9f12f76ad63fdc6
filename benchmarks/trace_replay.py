#!/usr/bin/env python
"""Send lateness of a trace replay: how late servescope's client sends each request of a
trace against its scheduled time (the trace's timestamp / speedup).

A 200-request slice of the real Mooncake conversation trace
(tests/workload/fixtures/mooncake-conversation-trace-200.jsonl) is replayed at
``--speedup 2`` through ``servescope.bench.run.run_workload`` (the path of ``servescope run
--trace``) against the timing-truth server on loopback, prompts built from the trace's
512-token prefix blocks with the tiny model's tokenizer.json (the truth server has no
/tokenize). Lateness per request is ``sent_ns - start_ns`` of its record: when its bytes
were handed to the connection minus when the schedule said to send it. Latency is
measured from the scheduled time, so lateness is never hidden from TTFT.

    .venv/bin/python benchmarks/trace_replay.py [--speedup 2] [--requests 200] [--workers N] [--pin]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from servescope.bench.records import read_records
from servescope.bench.run import RunOptions, run_workload
from servescope.testing.truth.server import TruthServer
from servescope.workload.load_build import LoadRequest, build_load

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "tests" / "workload" / "fixtures" / "mooncake-conversation-trace-200.jsonl"
TOKENIZER = ROOT / "src" / "servescope" / "data" / "engine" / "tokenizer.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=TRACE)
    ap.add_argument("--speedup", type=float, default=2.0)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--itl-ms", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=1, help="client processes (run --workers): a timestamp's sends are dealt over them")
    ap.add_argument(
        "--pin",
        action="store_true",
        help="the truth server on the last CPU, the client (and its workers) on the others: the server's work does not preempt the client's sends",
    )
    args = ap.parse_args()
    resolved = build_load(LoadRequest(trace=args.trace, num_requests=args.requests, speedup=args.speedup))
    assert resolved.trace is not None
    with TruthServer(ttft_ms=5.0, itl_ms=args.itl_ms) as srv, tempfile.TemporaryDirectory() as out:
        cpus = sorted(os.sched_getaffinity(0))
        if args.pin:
            if len(cpus) < 2:
                raise SystemExit("--pin needs at least 2 CPUs")
            assert srv.proc is not None
            os.sched_setaffinity(srv.proc.pid, {cpus[-1]})
            os.sched_setaffinity(0, set(cpus[:-1]))
        t = time.perf_counter()
        opts = RunOptions(workload_id=resolved.load.label, endpoint=srv.base_url, load=resolved, tokenizer=TOKENIZER, out_dir=Path(out), scrape_metrics=False,
                          workers=args.workers)  # fmt: skip
        art = run_workload(opts)
        wall = time.perf_counter() - t
        records = list(read_records(art.records_path))
    late_ms = np.array([(r.sent_ns - r.start_ns) / 1e6 for r in records])
    # the trace's timestamps are whole seconds: up to 16 requests share one, and are sent one
    # after another; the first of each timestamp shows how well the schedule itself is kept
    first: dict[int, float] = {}
    for r in sorted(records, key=lambda r: r.sent_ns):
        first.setdefault(r.start_ns, (r.sent_ns - r.start_ns) / 1e6)
    first_ms = np.array(list(first.values()))
    span_s = resolved.trace.offsets_ns(args.speedup)[-1] / 1e9
    summary = {
        "requests": len(records),
        "ok": sum(1 for r in records if r.ok),
        "speedup": args.speedup,
        "schedule_span_s": round(span_s, 3),
        "wall_s": round(wall, 2),
        "workers": args.workers,
        "pinned": {"server": cpus[-1], "client": cpus[:-1]} if args.pin else None,
        "load_avg_1m": os.getloadavg()[0],
        "lateness_ms": {k: round(float(v), 4) for k, v in (("p50", np.percentile(late_ms, 50)), ("p90", np.percentile(late_ms, 90)),
                                                             ("p99", np.percentile(late_ms, 99)), ("max", late_ms.max()), ("min", late_ms.min()))},
        "first_of_each_timestamp_lateness_ms": {"timestamps": len(first_ms), "p50": round(float(np.percentile(first_ms, 50)), 4),
                                                 "max": round(float(first_ms.max()), 4)},
        "event_loop": art.result.resolved_params.get("event_loop"),
    }  # fmt: skip
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
