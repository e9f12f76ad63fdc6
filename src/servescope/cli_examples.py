"""The examples at the foot of every ``--help`` page, in one place.

``EXAMPLES`` maps a command path (``""`` for ``servescope`` itself, ``"catalog
list"``) to (what it does, the command line) pairs; ``epilog`` renders them for
typer. Every id is the packaged catalog's and every flag the command's own
(tests/test_cli_help.py parses each example against its command). They chain
as a session would: ``run`` writes ``runs/cpu``, ``predict`` writes
``predictions``, and the later examples read those folders.

The text is given to typer's rich renderer, which keeps line breaks and reads
``[...]`` as markup: each line is escaped so brackets print as typed."""

from __future__ import annotations

from rich.markup import escape

_PREDICTION = "predictions/tiny-llama-on-cpu-*"
_MEASURED = "runs/cpu/*/evaluation-run.json"

EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "": (
        ("the workloads of the catalog", "servescope catalog list"),
        (
            "measure a small sweep on this CPU (the embedded llama.cpp engine)",
            "servescope run sweep-parallel-1-8-i128-o64-v1 --scenario tiny-llama-on-cpu --out runs/cpu",
        ),
        ("predict the same sweep (simulated, no GPU needed)", "servescope predict tiny-llama-on-cpu sweep-parallel-1-8-i128-o64-v1"),
        ("prediction against measurement", f"servescope compare {_PREDICTION}/prediction.json {_MEASURED}"),
    ),
    "run": (
        (
            "a small sweep on the embedded llama.cpp engine (this CPU, loopback)",
            "servescope run sweep-parallel-1-8-i128-o64-v1 --scenario tiny-llama-on-cpu --out runs/cpu",
        ),
        (
            "two of its levels only, with latency SLOs per request",
            "servescope run sweep-parallel-1-8-i128-o64-v1 --scenario tiny-llama-on-cpu --concurrency 1,4 --slo 'ttft_ms<=500,tpot_ms<=30'",
        ),
        (
            "your own load: 40 prompts of exactly 256 tokens, 32 out, 4 at a time",
            "servescope run --isl 256 --osl 32 --num-requests 40 --concurrency 4 --scenario tiny-llama-on-cpu",
        ),
        ("replay a Mooncake-style trace at twice its speed", "servescope run --trace trace.jsonl --speedup 2 --endpoint http://127.0.0.1:8000/v1"),
        (
            "a file of your prompts (JSONL or ShareGPT), 8 at a time",
            "servescope run --input-file prompts.jsonl --osl 128 --concurrency 8 --scenario tiny-llama-on-cpu",
        ),
        (
            "4 chat sessions of 3 turns over a 1,024-token system prompt each",
            "servescope run --sessions 4 --turns 3 --isl 32 --osl 16 --system-prompt-tokens 1024 --scenario tiny-llama-on-cpu",
        ),
        ("a Workload document of your own", "servescope run ./my-workload.yaml --scenario tiny-llama-on-cpu"),
        (
            "an OpenAI-compatible server; the API key is read from the variable",
            "servescope run serve-chat-c8-i1k-o256-v1 --endpoint http://localhost:8000/v1 --api-key-env OPENAI_API_KEY --scenario llama-3.1-8b-on-h100",
        ),
        ("an image workload against an OpenAI-images server, one render at a time", "servescope run image-t2i-64-s4-v1 --endpoint http://127.0.0.1:8100"),
        (
            "the fidelity suite scored against its reference bundle",
            "servescope run eval-t2i-fidelity-v1 --endpoint http://127.0.0.1:8100 --reference-bundle refs/bf16",
        ),
        (
            "the load from 4 client processes on this host, merged into one result",
            "servescope run serve-short-c16-i128-o128-v1 --endpoint http://127.0.0.1:8000/v1 --workers 4",
        ),
        (
            "the client workers placed on a Ray cluster (`ray start --head` first)",
            "servescope run serve-short-c16-i128-o128-v1 --endpoint http://10.0.0.5:8000/v1 --workers 8 --ray auto",
        ),
    ),
    "t2i-reference": (
        (
            "render the fidelity suite's reference bundle once (the spec names the lane)",
            "servescope t2i-reference --spec bf16.json --out refs/bf16",
        ),
        ("the same, the lane's URL given here", "servescope t2i-reference --spec bf16.json --out refs/bf16 --endpoint http://127.0.0.1:8100"),
    ),
    "predict": (
        ("a catalog workload on a catalog scenario", "servescope predict tiny-llama-on-cpu sweep-parallel-1-8-i128-o64-v1"),
        ("a synthetic workload at three concurrency levels", "servescope predict llama-3.1-8b-on-h100 --concurrency 1,8,64 --isl 1024 --osl 256"),
        (
            "started as `servescope run` starts it, every stream at once",
            "servescope predict tiny-llama-on-cpu --isl 64 --osl 16 --concurrency 2 --harness burst",
        ),
        (
            "the highest Poisson rate meeting latency limits",
            "servescope predict llama-3.1-8b-on-h100 --max-rate --slo 'p99_ttft_ms<=2000,p99_tpot_ms<=100' --isl 1024 --osl 256",
        ),
        ("the same trace as `run --trace`, simulated", "servescope predict llama-3.1-8b-on-h100 --trace trace.jsonl --speedup 2"),
        (
            "the multi-turn sessions `run --sessions` sends, simulated turn by turn",
            "servescope predict tiny-llama-on-cpu --sessions 4 --turns 3 --isl 32 --osl 16 --system-prompt-tokens 1024",
        ),
        ("with factors fitted by calibrate", "servescope predict tiny-llama-on-cpu sweep-parallel-1-8-i128-o64-v1 --calibration cal.json"),
    ),
    "calibrate": (
        (
            "fit the simulator to a run measured with `servescope run ... --out runs/cpu`",
            f"servescope calibrate tiny-llama-on-cpu --from {_MEASURED} --out cal.json",
        ),
        (
            "fit two factors to two metrics only",
            f"servescope calibrate tiny-llama-on-cpu --from {_MEASURED} --factors step_overhead_s,output_token_overhead_s --metrics ttft_ms,itl_ms",
        ),
    ),
    "search": (
        (
            "tp, dp and max_num_seqs for an 8B model on 8 H100s (concurrency swept)",
            "servescope search --model llama-3.1-8b --hardware h100-sxm --gpus 8 --slo 'ttft_ms<=500,itl_ms<=30' --isl 1024 --osl 256",
        ),
        (
            "chosen concurrency levels and batch limits",
            "servescope search --model llama-3.1-8b --hardware h100-sxm --gpus 4 --slo 'p99_ttft_ms<=1000' --isl 512 --osl 128 --concurrency 8,32,128 --max-num-seqs 64,256",
        ),
        (
            "engines and weight dtypes too, on a catalog workload",
            "servescope search --model llama-3.1-70b --hardware h100-sxm --gpus 8 --slo 'p99_ttft_ms<=2000' --workload serve-chat-c32-i1k-o256-v1 --engines vllm@0.11.0,sglang@0.5.2 --dtypes bf16,fp8",
        ),
        (
            "each level replayed as aiperf runs it, 200 requests a level",
            "servescope search --model llama-3.1-8b --hardware h100-sxm --gpus 8 --slo 'ttft_ms<=500' --isl 1024 --osl 256 --concurrency 8,32 --harness aiperf --num-requests 200",
        ),
        (
            "the same search in 2 local processes (same ranking as one)",
            "servescope search --model llama-3.1-8b --hardware h100-sxm --gpus 8 --slo 'ttft_ms<=500,itl_ms<=30' --isl 1024 --osl 256 --workers 2",
        ),
        (
            "on the Ray cluster this host joined (ray start --head)",
            "servescope search --model llama-3.1-8b --hardware h100-sxm --gpus 8 --slo 'ttft_ms<=500,itl_ms<=30' --isl 1024 --osl 256 --ray auto",
        ),
    ),
    "probe": (("this machine's bandwidth and matmul rate as a Hardware entry", "servescope probe --out my-machine.json"),),
    "report": (
        ("a static site of runs and predictions (opens from disk)", "servescope report --in runs/cpu --in predictions --out site"),
        ("one run folder's report beside it", "servescope report --in runs/cpu --out runs/cpu/report"),
    ),
    "validate": (
        ("the packaged catalog (and SERVESCOPE_CATALOG_PATH)", "servescope validate --catalog"),
        ("documents written by run and predict; warnings fail too", "servescope validate --strict runs/cpu predictions"),
        ("as JSON, for CI", "servescope validate --format json predictions"),
    ),
    "schema": (("the JSON Schemas of every document kind", "servescope schema --out schemas"),),
    "summarize": (
        ("summary tables (CSV and Markdown) of every Result under runs/cpu", "servescope summarize --in runs/cpu --out summary"),
        ("of two folders, under another file name", "servescope summarize --in runs/cpu --in predictions --out summary --basename cpu"),
    ),
    "compare": (
        ("a prediction against the run it predicts", f"servescope compare {_PREDICTION}/prediction.json {_MEASURED}"),
        ("as Markdown, with the curves drawn", f"servescope compare {_PREDICTION}/prediction.json {_MEASURED} --format md --plot curves.html"),
        (
            "another scenario's prediction (refused unless forced, then said so)",
            f"servescope compare predictions/llama-3.1-8b-on-h100-*-c1-8-64-*/prediction.json {_MEASURED} --force",
        ),
    ),
    "regress": (("simulated results against an earlier copy (cp -r predictions baseline)", "servescope regress --baseline baseline --results predictions"),),
    "import": (
        (
            "a `vllm bench serve --save-result` file",
            "servescope import vllm vllm-bench-serve.json --scenario llama-3.1-8b-on-h100 --engine vllm --engine-version 0.11.0 --out imported",
        ),
        (
            "a folder of them, written as one EvaluationRun file (its Result beside it)",
            "servescope import vllm vllm-runs --scenario llama-3.1-8b-on-h100 --out imported/vllm-sweep.json",
        ),
        ("an inference-perf report folder, printed", "servescope import inference-perf inference-perf-reports --scenario llama-3.1-8b-on-h100"),
    ),
    "export": (
        ("one row per request, as Parquet (pip install servescope[parquet])", "servescope export runs/cpu/sweep-parallel-1-8-i128-o64-v1-*"),
        ("as CSV, to a file of your choosing", "servescope export runs/cpu/sweep-parallel-1-8-i128-o64-v1-*/records.jsonl --format csv --out requests.csv"),
        ("every run of a folder, each table beside its records", "servescope export runs/cpu/* --format csv"),
    ),
    "config-id": (
        ("the fingerprint of a vLLM setup", "servescope config-id vllm 0.11.0 -- --max-num-seqs 256 --enable-prefix-caching"),
        (
            "from a whole command line, showing what is hashed",
            "servescope config-id --show vllm 0.11.0 -- vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 256",
        ),
    ),
    "catalog": (
        ("the workloads", "servescope catalog list"),
        ("lock a catalog of your own (my-catalog/workloads, my-catalog/datasets)", "servescope catalog lock my-catalog"),
    ),
    "catalog list": (
        ("the workloads, packaged and under SERVESCOPE_CATALOG_PATH", "servescope catalog list"),
        ("as JSON", "servescope catalog list --format json"),
    ),
    "catalog lock": (("lock the new workloads and datasets of my-catalog", "servescope catalog lock my-catalog"),),
    "engine": (
        ("start the embedded engine, check it, stop it", "servescope engine start --parallel 8"),
        ("is it running, and where", "servescope engine status"),
        ("stop it", "servescope engine stop"),
    ),
    "engine start": (
        ("the tiny random-weight model, 8 slots", "servescope engine start --parallel 8"),
        ("a real instruct model (fetched once), 2 threads", "servescope engine start --engine-model smollm2-135m --threads 2"),
    ),
    "engine status": (("is the embedded engine running, and where", "servescope engine status"),),
    "engine stop": (("stop the background embedded engine", "servescope engine stop"),),
}


#: Characters of a command line before it continues on the next (`` \\``): an 80-column
#: terminal shows it whole, where rich would wrap it to the left margin.
WIDTH = 72


def shell_lines(command: str, width: int = WIDTH) -> list[str]:
    """``command`` in lines of at most ``width`` characters where it can be, broken between
    arguments (an option stays with its value); each line but the last continues on the next."""
    pieces: list[str] = []
    for token in command.split(" "):
        if pieces and pieces[-1].startswith("-") and " " not in pieces[-1] and not token.startswith("-"):
            pieces[-1] += f" {token}"
        else:
            pieces.append(token)
    lines = [pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) > width:
            lines.append(piece)
        else:
            lines[-1] += f" {piece}"
    return lines


_CONTINUED = " \\\n        "


def epilog(path: str) -> str:
    """The examples of one command path as a ``--help`` epilog (line breaks kept by typer's rich renderer)."""
    lines = ["[bold]Examples[/bold]"]
    for what, command in EXAMPLES[path]:
        # (typer removes the common indent of the lines after the first: commands keep 2 more, continuations 4)
        lines.append(f"  [dim]# {escape(what)}[/dim]")
        # (escape doubles a trailing backslash: each continuation's is added after escaping)
        lines.append("    " + _CONTINUED.join(escape(line) for line in shell_lines(command)))
    return "\n".join(lines)
