"""How fast `servescope summarize` turns a records file into a Result.

Writes a synthetic records.jsonl of N requests (a header line like a real run's,
then one line per request with 32 chunk times each, written by the harness's
RecordWriter with its columnar index; one request in a thousand fails), then times `result_from_records` (what summarize does for a run folder
with no result.json) and the whole `servescope summarize` CLI.

    .venv/bin/python benchmarks/summarize_records.py --requests 1000000

Before / after on a shared machine: ``--against OLD_SRC`` (another tree's ``src``, e.g.
``git archive 63c9a6f src | tar -x -C /tmp/old``) runs the CLI alternately with that tree
and this one, JSON only and through the index, ``--repeat`` rounds, each run's 1-minute
load average and CPU seconds (user + system, its forked reader included) beside it, and
whether the two trees' summary files are byte for byte the same (``same_output``); a tree
before the index's version 2 (2026-12-07) gets a version-1 copy of the index. ``--keep DIR``
writes the records there once and reuses them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from servescope.bench.records import RecordWriter
from servescope.bench.recover import result_from_records
from servescope.documents.record import RequestRecord


def write_records(path: Path, n: int, chunks: int = 32, seed: int = 0) -> None:
    """Through the harness's own RecordWriter, so the file and its columnar index
    are what a real run leaves."""
    rng = random.Random(seed)
    header = {
        "run_id": "bench-run",
        "workload_id": "serve-chat-c64-i1k-o256-v1",
        "started_at": "2026-11-30T00:00:00+00:00",
        "endpoint": "http://127.0.0.1:1",
        "model": "m",
        "engine": {"id": "vllm", "version": "0.6.3"},
        "args": {},
        "scenario": None,
        "resolved_params": {"concurrency": 64, "points": [{"concurrency": 64, "context_tokens": None, "measured": n}]},
    }
    with RecordWriter(path) as writer:
        writer.write_header(header)
        t = 0
        for i in range(n):
            start = t
            first = start + rng.randint(20_000_000, 200_000_000)
            times = [first]
            for _ in range(chunks - 1):
                times.append(times[-1] + rng.randint(5_000_000, 15_000_000))
            ok = i % 1000 != 999  # one request in a thousand fails, as a real long run has a few
            writer.write(
                RequestRecord(
                    request_id=f"r{i}",
                    phase="measured",
                    concurrency=64,
                    point=0,
                    start_ns=start,
                    sent_ns=start,
                    first_token_ns=first if ok else None,
                    end_ns=times[-1] + 100_000,
                    chunk_ns=times if ok else [],
                    input_tokens=1000,
                    output_tokens=chunks if ok else None,
                    token_count_source="server-usage",
                    ok=ok,
                    http_status=200 if ok else 503,
                    stage=None if ok else "send",
                    category=None if ok else "http-error",
                    error=None if ok else "Service Unavailable",
                )
            )
            t += 1_000_000


def _cli_s(src: Path | None, runs: Path, out: Path) -> tuple[float, float, float]:
    """Wall seconds of one ``servescope summarize`` (with ``src`` first on the path, if given), its CPU
    seconds (user + system, its forked readers included), and the 1-minute load before it."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    load = os.getloadavg()[0]
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "servescope", "summarize", "--in", str(runs), "--out", str(out)], check=True, capture_output=True, env=env)
    wall = time.perf_counter() - t0
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return round(wall, 2), round(cpu, 2), round(load, 2)


def _summaries(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def _index_v1(indexed: Path, target: Path) -> None:
    """``indexed``'s records with their index in version 1 (before 2026-12-07: 76-byte rows, no
    header row, no id key), for a tree before that change: it reads no version-2 index."""
    import numpy as np

    from servescope.bench.records import ROW_DTYPE, index_paths

    target.mkdir(parents=True, exist_ok=True)
    src = indexed / "records.jsonl"
    (target / "records.jsonl").unlink(missing_ok=True)
    os.link(src, target / "records.jsonl")  # the same bytes, no copy
    rows_path, gaps_path = index_paths(src)
    rows = np.fromfile(rows_path, dtype=ROW_DTYPE, offset=ROW_DTYPE.itemsize)
    old = np.dtype([(name, ROW_DTYPE.fields[name][0]) for name in ROW_DTYPE.names if name != "id_key"])
    v1 = np.zeros(rows.size, dtype=old)
    for name in old.names:
        v1[name] = rows[name]
    new_rows, new_gaps = index_paths(target / "records.jsonl")
    v1.tofile(new_rows)
    new_gaps.unlink(missing_ok=True)
    os.link(gaps_path, new_gaps)


def compare(against: Path, keep: Path, n: int, rounds: int) -> None:
    """This tree against ``against`` (another tree's src), alternating in the same minute; each
    pair's summary files compared byte for byte (``same_output``)."""
    indexed, json_only = keep / "runs", keep / "runs-json-only"
    if not (indexed / "bench-run" / "records.jsonl").is_file():
        (indexed / "bench-run").mkdir(parents=True, exist_ok=True)
        write_records(indexed / "bench-run" / "records.jsonl", n)
    if not (json_only / "bench-run" / "records.jsonl").is_file():
        (json_only / "bench-run").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(indexed / "bench-run" / "records.jsonl", json_only / "bench-run" / "records.jsonl")
    here = Path(__file__).resolve().parents[1] / "src"
    old_index = indexed
    if "ROWS_MAGIC" not in (against / "servescope" / "bench" / "records.py").read_text():
        old_index = keep / "runs-index-v1"
        _index_v1(indexed / "bench-run", old_index / "bench-run")
    for r in range(rounds):
        for read in ("JSON only", "index"):
            runs_before, runs_after = (json_only, json_only) if read == "JSON only" else (old_index, indexed)
            for out in (keep / "out-before", keep / "out-after"):
                shutil.rmtree(out, ignore_errors=True)
            before, cpu_b, load_b = _cli_s(against, runs_before, keep / "out-before")
            after, cpu_a, load_a = _cli_s(here, runs_after, keep / "out-after")
            row = {"round": r, "read": read, "before_s": before, "after_s": after, "ratio": round(before / after, 2),
                   "cpu_before_after_s": [cpu_b, cpu_a], "load_before_after": [load_b, load_a],
                   "same_output": _summaries(keep / "out-before") == _summaries(keep / "out-after")}  # fmt: skip
            print(json.dumps(row), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="times to run the CLI (the VM is noisy)")
    ap.add_argument("--no-index", action="store_true", help="delete the columnar index first: time the JSON-only path")
    ap.add_argument("--against", type=Path, help="another tree's src: time its CLI and this one's alternately")
    ap.add_argument("--keep", type=Path, help="with --against: a folder for the records (written once, then reused)")
    args = ap.parse_args()
    if args.against is not None:
        if args.keep is None:
            ap.error("--against needs --keep DIR (a folder for the records, written once)")
        compare(args.against, args.keep, args.requests, args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "runs" / "bench-run"
        run_dir.mkdir(parents=True)
        path = run_dir / "records.jsonl"
        t0 = time.perf_counter()
        write_records(path, args.requests)
        print(f"wrote {args.requests:,} records ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")
        if args.no_index:
            for p in path.parent.glob("records.jsonl.*.bin"):
                p.unlink()
        t0 = time.perf_counter()
        result = result_from_records(path)
        lib_s = time.perf_counter() - t0
        assert result.metrics.completed_requests == args.requests - args.requests // 1000
        cli_s = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "servescope", "summarize", "--in", str(Path(tmp) / "runs"), "--out", str(Path(tmp) / "out")],
                check=True,
                capture_output=True,
            )
            cli_s.append(round(time.perf_counter() - t0, 2))
        print(json.dumps({"requests": args.requests, "indexed": not args.no_index, "result_from_records_s": round(lib_s, 2), "summarize_cli_s": cli_s}))


if __name__ == "__main__":
    main()
