"""``servescope run``'s ad-hoc load options from a hostile new user (issue 32): every bad
value is one line and exit 2 before anything is sent, an open loop is labelled by its load,
SLOs name what is wrong and report who was on time, input lengths far from the asked ones
are a warning kept in the Result, explicit defaults keep the label, and Ctrl-C says what
was kept. Real runs go to the timing-truth server on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from servescope.testing.truth.server import TruthServer

ROOT = Path(__file__).parents[1]
TOKENIZER = ROOT / "src" / "servescope" / "data" / "engine" / "tokenizer.json"
TRACE = ROOT / "tests" / "workload" / "fixtures" / "mooncake-slice-60-scaled16.jsonl"
CLOSED = "http://127.0.0.1:9/v1"  # nothing listens: a check that does not fire shows as "cannot reach", not a refusal
SYN = ["--isl", "20", "--osl", "4", "--num-requests", "2"]

pytest.importorskip("tokenizers")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SERVESCOPE_DEBUG"} | {"PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=300, env=env, check=False)


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, f"exit {proc.returncode}: {proc.stdout}{proc.stderr}"
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def truth() -> Iterator[TruthServer]:
    with TruthServer(ttft_ms=2.0, itl_ms=0.5) as srv:
        yield srv


@pytest.mark.parametrize(
    ("args", "line"),
    [
        # ad-hoc numbers: the same words the catalog path uses, never a pydantic dump with exit 3
        ([*SYN, "--rate", "0"], "error: --rate 0: give a finite number > 0, e.g. --rate 4 (requests per second)"),
        ([*SYN, "--rate", "-1"], "error: --rate -1: give a finite number > 0"),
        ([*SYN, "--rate", "nan"], "error: --rate nan: give a finite number > 0"),
        ([*SYN, "--rate", "2", "--arrival", "gamma", "--gamma-shape", "nan"], "error: --gamma-shape nan: give a finite number > 0"),
        (["--trace", str(TRACE), "--speedup", "nan"], "error: --speedup nan: give a finite number > 0"),
        (["--trace", str(TRACE), "--speedup", "1e-9"], "the replay would span"),
        (["--sessions", "2", "--turns", "2", "--isl", "8", "--osl", "4", "--think-time-ms", "1e12"], "error: --think-time-ms 1000000000000: give milliseconds"),
        ([*SYN, "--concurrency", "1", "--range-ratio", "nan"], "error: --range-ratio nan: give a number in [0, 1)"),
        ([*SYN, "--concurrency", "1", "--warmup-requests", "-3"], "error: --warmup-requests -3: give a count"),
        # an open loop is not limited by an in-flight count: a contradiction, never a "conc 1" label
        ([*SYN, "--rate", "100", "--concurrency", "1"], "error: --rate and --concurrency contradict"),
        # an empty level and a level given twice
        ([*SYN, "--concurrency", "2,,3"], "error: --concurrency '2,,3': an empty level"),
        ([*SYN, "--concurrency", "2,"], "error: --concurrency '2,': an empty level"),
        ([*SYN, "--concurrency", ""], "error: --concurrency '': no level"),
        ([*SYN, "--concurrency", "2,2"], "error: --concurrency '2,2': level 2 is given twice"),
        ([*SYN, "--concurrency", "1,1000000000"], "error: --concurrency 1000000000: give levels in 1..1,000,000 (SERVESCOPE_MAX_CONCURRENCY)"),
        ([*SYN, "--rate", "1e9"], "error: --rate 1e+09 is above the limit of 1e+06"),
        # a load whose prompts and records cannot be held: refused before a prompt is built (it grew by GBs sending nothing)
        (
            ["--isl", "20", "--osl", "4", "--num-requests", "100000000", "--concurrency", "1"],
            "error: --num-requests 100,000,000: the run would hold about 137.8 GiB in memory",
        ),
        (["--sessions", "1000", "--turns", "10000", "--isl", "100", "--osl", "100"], "error: --sessions 1,000 x --turns 10,000: the run would hold"),
        # a closed loop past its point's requests: never a point labelled by a concurrency it never reached
        (
            [*SYN, "--concurrency", "1,100000"],
            "error: --concurrency 100,000 is more than the 2 requests of a point (--num-requests): at most 2 can be in flight",
        ),
        # a device or a folder where a file belongs says what it is, never "no such file"
        (["--trace", "/dev/null"], "error: --trace /dev/null: is a character device, not a regular file"),
        (["--input-file", "/dev/zero", "--osl", "4", "--concurrency", "1"], "error: --input-file /dev/zero: is a character device, not a regular file"),
        (
            [*SYN, "--concurrency", "1", "--tokenizer", str(ROOT / "src")],
            f"error: --tokenizer {ROOT / 'src'}: a folder, not a file; give the model's tokenizer.json",
        ),
        # a seed no request body can carry: refused before the run folder, never orjson's TypeError mid-run
        ([*SYN, "--concurrency", "1", "--seed", str(2**63)], "error: --seed 9223372036854775808: give 0..9,223,372,036,854,775,807"),
        (["--trace", str(TRACE), "--seed", "99999999999999999999999"], "error: --seed 99999999999999999999999: give 0..9,223,372,036,854,775,807"),
        # SLOs name the bad part and what is wrong with it
        ([*SYN, "--concurrency", "1", "--slo", "ttft<=5"], "error: --slo 'ttft<=5': unknown metric 'ttft'; one of ttft_ms, itl_ms, tpot_ms, e2e_ms"),
        ([*SYN, "--concurrency", "1", "--slo", "ttft_ms>=5"], "error: --slo 'ttft_ms>=5': operator '>=' is not taken"),
        ([*SYN, "--concurrency", "1", "--slo", "ttft_ms<=5,ttft_ms<=10"], "ttft_ms is given twice"),
        ([*SYN, "--concurrency", "1", "--slo", "ttft_ms<=5,"], "error: --slo 'ttft_ms<=5,': an empty part (a stray comma)"),
    ],
)
def test_a_bad_ad_hoc_load_option_is_one_line_and_exit_2(tmp_path: Path, args: list[str], line: str) -> None:
    got = one_line(cli("run", *args, "--endpoint", CLOSED, "--out", str(tmp_path / "runs")))
    assert line in got
    assert not (tmp_path / "runs").exists()  # refused before anything was written


def _result(out: Path) -> dict[str, object]:
    [path] = out.rglob("result.json")
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_an_open_loop_is_labelled_by_its_rate_and_slos_print_who_was_on_time(truth: TruthServer, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    run = cli("run", "--isl", "40", "--osl", "4", "--num-requests", "6", "--rate", "50", "--arrival", "constant", "--endpoint", truth.base_url,
              "--tokenizer", str(TOKENIZER), "--no-scrape", "--slo", "ttft_ms<=2000,e2e_ms<0.001", "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr  # every request misses e2e_ms<0.001: not a failure of the run
    result = _result(out)
    assert "rate=50/s" in run.stdout and "│ 1 " not in run.stdout  # the table's load column, not "conc 1"
    assert "lengths rate=50/s: " in run.stdout
    # the on-time line after the table: every request within the TTFT bound, none within 1 µs end to end
    assert "on time 0/6 (0.0 %): ttft_ms<=2000 missed by 0, e2e_ms<0.001 missed by 6" in run.stdout
    assert result["on_time_rate"] == 0.0 and result["violations_by_invariant_id"] == {"ttft_ms<=2000": 0, "e2e_ms<0.001": 6}
    summary = cli("summarize", "--in", str(out), "--out", str(tmp_path / "summary"))
    assert summary.returncode == 0, summary.stderr
    rows = (tmp_path / "summary" / "summary_v0.2.csv").read_text(encoding="utf-8").splitlines()
    assert ",rate=50/s," in rows[1]


def test_an_open_loops_achieved_rate_is_read_from_its_writes(truth: TruthServer, tmp_path: Path) -> None:
    # 50,000/s: the client writes behind its gates; the achieved rate is the writes' (as a split run's union reads it)
    out = tmp_path / "runs"
    run = cli("run", "--isl", "16", "--osl", "2", "--num-requests", "40", "--rate", "50000", "--arrival", "constant", "--endpoint", truth.base_url,
              "--tokenizer", str(TOKENIZER), "--no-scrape", "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    [records] = out.rglob("records.jsonl")
    lines = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    measured = [r for r in lines if r.get("phase") == "measured"]
    first_scheduled = min(r["start_ns"] for r in measured)  # constant arrivals: the first is due at the schedule's start
    last_sent = max(r["sent_ns"] for r in measured)
    achieved = _result(out)["metrics"]["achieved_rate"]  # type: ignore[index]
    assert achieved == pytest.approx(39 / ((last_sent - first_scheduled) / 1e9), rel=1e-9)


def test_one_token_answers_meet_tpot_and_itl_slos_in_the_on_time_rate_and_goodput(truth: TruthServer, tmp_path: Path) -> None:
    # every other answer is one token: it has no TPOT and no gap, so it cannot miss tpot/itl SLOs
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps({"timestamp": 5 * i, "input_length": 40, "output_length": 1 + 3 * (i % 2)}) + "\n" for i in range(6)))
    out = tmp_path / "runs"
    run = cli("run", "--trace", str(trace), "--endpoint", truth.base_url, "--tokenizer", str(TOKENIZER), "--no-scrape",
              "--slo", "ttft_ms<=5000,tpot_ms<=5000,itl_ms<=5000", "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = _result(out)
    assert result["metrics"]["tpot_ms"]["count"] == 3  # type: ignore[index]
    assert result["on_time_rate"] == 1.0
    assert result["violations_by_invariant_id"] == {"ttft_ms<=5000": 0, "tpot_ms<=5000": 0, "itl_ms<=5000": 0}
    goodput = result["metrics"]["goodput_requests_per_sec"]  # type: ignore[index]
    assert goodput == pytest.approx(result["metrics"]["requests_per_sec"])  # type: ignore[index]


def test_a_trace_replay_says_its_span_before_it_starts_and_is_labelled_by_its_speedup(truth: TruthServer, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    run = cli("run", "--trace", str(TRACE), "--num-requests", "8", "--speedup", "50", "--endpoint", truth.base_url, "--tokenizer", str(TOKENIZER),
              "--no-scrape", "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert f"replaying 8 requests of {TRACE} over " in text and "(--speedup 50)" in text
    assert "trace x50" in text and "lengths trace x50: " in text


def test_input_far_from_the_asked_length_is_a_warning_kept_in_the_result(truth: TruthServer, tmp_path: Path) -> None:
    # the truth server counts tokens its own way: the tiny model's tokenizer is not "the served model's" there
    out = tmp_path / "runs"
    run = cli("run", "--isl", "64", "--osl", "4", "--num-requests", "4", "--concurrency", "2", "--endpoint", truth.base_url,
              "--tokenizer", str(TOKENIZER), "--no-scrape", "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    [row] = _result(out)["resolved_params"]["lengths"]  # type: ignore[index]
    assert abs(row["input_mean"] - 64) > 2
    [warning] = _result(out)["resolved_params"]["warnings"]  # type: ignore[index]
    assert warning.startswith("prompts are ") and " % shorter than asked" in warning
    assert f"(the engine counts {row['input_mean']:.1f} input tokens where 64 were asked); is --tokenizer the served model's?" in warning
    assert f"warning: {warning}" in " ".join(run.stdout.split())


def test_run_and_predict_of_the_same_options_share_a_label_and_explicit_defaults_keep_it(truth: TruthServer, tmp_path: Path) -> None:
    load = ["--isl", "64", "--osl", "8", "--num-requests", "6", "--concurrency", "2"]
    labels = []
    for extra in ([], ["--warmup-requests", "0"]):
        run = cli("run", *load, *extra, "--endpoint", truth.base_url, "--tokenizer", str(TOKENIZER), "--no-scrape", "--out", str(tmp_path / f"r{len(extra)}"))
        assert run.returncode == 0, run.stderr
        labels.append(_result(tmp_path / f"r{len(extra)}")["workload_id"])
        pred = cli("predict", "tiny-llama-on-cpu", *load, *extra, "--out", str(tmp_path / f"p{len(extra)}"))
        assert pred.returncode == 0, pred.stderr
        [prediction] = (tmp_path / f"p{len(extra)}").rglob("prediction.json")
        labels.append(json.loads(prediction.read_text(encoding="utf-8"))["workload"])
    # run's default warm-up is 0; predict's steady-state warm-up is the simulator's rule, not part of the load
    assert len(set(labels)) == 1 and str(labels[0]).startswith("adhoc-"), labels
    warmed = cli("predict", "tiny-llama-on-cpu", *load, "--warmup-requests", "2", "--out", str(tmp_path / "pw"))
    assert warmed.returncode == 0, warmed.stderr
    [prediction] = (tmp_path / "pw").rglob("prediction.json")
    assert json.loads(prediction.read_text(encoding="utf-8"))["workload"] != labels[0]  # two warm-up requests sent: another load


def test_the_chat_and_completions_apis_of_one_load_are_two_loads_and_predict_is_the_chat_one(truth: TruthServer, tmp_path: Path) -> None:
    """A chat request carries the chat template's tokens that a completion does not: their
    latencies are not repeats of one experiment, so they are two labels (summarize groups by it)."""
    load = ["--isl", "64", "--osl", "8", "--num-requests", "4", "--concurrency", "2"]
    labels = {}
    for api in ("chat", "completions"):
        run = cli("run", *load, "--api", api, "--endpoint", truth.base_url, "--tokenizer", str(TOKENIZER), "--no-scrape", "--out", str(tmp_path / api))
        assert run.returncode == 0, run.stderr
        result = _result(tmp_path / api)
        labels[api] = result["workload_id"]
        assert result["resolved_params"]["load_description"].get("api") == (None if api == "chat" else "completions")  # type: ignore[index]
    assert labels["chat"] != labels["completions"]
    pred = cli("predict", "tiny-llama-on-cpu", *load, "--out", str(tmp_path / "p"))
    assert pred.returncode == 0, pred.stderr
    [prediction] = (tmp_path / "p").rglob("prediction.json")
    assert json.loads(prediction.read_text(encoding="utf-8"))["workload"] == labels["chat"]  # the simulator sends chat requests


def test_the_largest_seed_is_sent_and_predicted_and_one_past_it_is_refused_by_both(truth: TruthServer, tmp_path: Path) -> None:
    load = ["--isl", "20", "--osl", "4", "--num-requests", "2", "--concurrency", "1"]
    top = str(2**63 - 1)
    run = cli("run", *load, "--seed", top, "--endpoint", truth.base_url, "--tokenizer", str(TOKENIZER), "--no-scrape", "--out", str(tmp_path / "r"))
    assert run.returncode == 0, run.stderr
    assert _result(tmp_path / "r")["metrics"]["completed_requests"] == 2  # type: ignore[index]
    pred = cli("predict", "tiny-llama-on-cpu", *load, "--seed", str(2**63), "--out", str(tmp_path / "p"))
    assert "error: --seed 9223372036854775808: give 0..9,223,372,036,854,775,807" in one_line(pred)  # the same range as run
    assert not (tmp_path / "p").exists()


def test_ctrl_c_says_how_many_requests_were_recorded_and_where(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with TruthServer(ttft_ms=5.0, itl_ms=20.0) as slow:  # 100 tokens of 20 ms: two seconds a request
        env = {k: v for k, v in os.environ.items() if k != "SERVESCOPE_DEBUG"} | {"PYTHONPATH": str(ROOT / "src")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "servescope", "run", "--isl", "20", "--osl", "100", "--num-requests", "40", "--concurrency", "4",
             "--endpoint", slow.base_url, "--tokenizer", str(TOKENIZER), "--no-scrape", "--out", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # (an ignored SIGINT, as under a background CI run, is inherited)
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            records = list(out.rglob("records.jsonl"))
            if records and records[0].read_text(encoding="utf-8").count('{"request_id"') >= 4:
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    [records_path] = out.rglob("records.jsonl")
    kept = records_path.read_text(encoding="utf-8").count('{"request_id"')
    assert 4 <= kept < 40
    text = " ".join((stdout + stderr).split())
    assert f"interrupted: {kept} of 40 requests recorded in {records_path} (no result.json;" in text, text
    assert "summarize, report and export rebuild it" in text and "Traceback" not in stderr
    assert not list(out.rglob("result.json"))


def test_the_lengths_warning_fires_past_the_larger_of_2_tokens_and_2_percent() -> None:
    from servescope.bench.run import length_warnings

    def row(asked: float, actual: float, point: int = 0) -> dict[str, float]:
        return {"point": point, "concurrency": 2, "requested_input_mean": asked, "input_mean": actual}

    local = {"tokenizer": "file:/x/tokenizer.json"}
    assert length_warnings([row(64, 62.5), row(64, 66.0)], local) == []  # 1.5 tokens: a block join's token
    assert length_warnings([row(1000, 985.0)], local) == []  # 1.5 %: within 2 %
    [long] = length_warnings([row(1000, 1025.0)], local)
    assert long.startswith("prompts are 2 % longer than asked (the engine counts 1025.0 input tokens where 1000 were asked)")
    [short] = length_warnings([row(64, 60.0)], {"tokenizer": "endpoint:/tokenize"})
    assert "6 % shorter" in short and "--tokenizer" not in short and "/tokenize" in short
    two = length_warnings([row(64, 64.0), row(64, 40.0, point=1)], local)
    assert len(two) == 1 and two[0].startswith("point 1 (c=2): prompts are 38 % shorter")
    assert length_warnings([{"point": 0, "concurrency": 1, "with_usage": 0}], local) == []  # nothing measured: nothing to say


def test_a_prompt_file_says_what_it_skipped_and_that_requests_cycle(tmp_path: Path) -> None:
    from servescope.cli_run import prompt_file_note
    from servescope.workload.load_build import LoadRequest, build_load

    sharegpt = tmp_path / "sharegpt.json"
    sharegpt.write_text(
        json.dumps([{"conversations": [{"from": "human", "value": "Hi"}]}, {"conversations": [{"from": "gpt", "value": "only gpt"}]},
                    {"conversations": [{"from": "gpt", "value": "first"}, {"from": "human", "value": "then"}]}]),
        encoding="utf-8",
    )  # fmt: skip
    note = prompt_file_note(build_load(LoadRequest(input_file=sharegpt, osl=8, num_requests=5, concurrency=[2])))
    assert note == "prompts: 2 of 3 ShareGPT conversations used (1 without a human turn skipped); 5 requests per point cycle through the 2 prompts"
    assert prompt_file_note(build_load(LoadRequest(input_file=sharegpt, osl=8, concurrency=[2]))) == (
        "prompts: 2 of 3 ShareGPT conversations used (1 without a human turn skipped)"
    )
    plain = tmp_path / "p.jsonl"
    plain.write_text('{"prompt": "a"}\n{"prompt": "b"}\n', encoding="utf-8")
    assert prompt_file_note(build_load(LoadRequest(input_file=plain, osl=8, concurrency=[2]))) is None  # one request a prompt: nothing to say


def test_a_prompt_files_outputs_are_held_and_reported_as_a_synthetic_loads_are(truth: TruthServer, tmp_path: Path) -> None:
    """--osl with a prompt file is the length asked (and the one a prediction of the same load
    simulates): held with ignore_eos/min_tokens where the engine takes them, and the run prints
    requested against actual, as for synthetic lengths."""
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"prompt": "What is 2+2? Answer with one number."}\n{"messages": [{"role": "user", "content": "Say yes."}]}\n')
    done = cli("run", "--input-file", str(prompts), "--osl", "8", "--num-requests", "4", "--concurrency", "2", "--engine", "vllm",
               "--endpoint", truth.base_url, "--out", str(tmp_path / "runs"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    [result] = (tmp_path / "runs").rglob("result.json")
    resolved = json.loads(result.read_text())["resolved_params"]
    assert resolved["output_held_by"] == {"ignore_eos": True, "min_tokens": "max_tokens of each request"}
    [row] = resolved["lengths"]
    assert row["requested_output_mean"] == 8.0 and "lengths c=2:" in done.stdout and "output" in done.stdout


def test_the_run_memory_bound_covers_a_trace_and_a_prompt_files_repeats_and_is_not_below_the_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tracemalloc

    from servescope import limits
    from servescope.bench import run_checks
    from servescope.errors import UsageError
    from servescope.workload.adhoc_plan import plan_load
    from servescope.workload.load_build import LoadRequest, build_load

    prompts = tmp_path / "one.jsonl"
    prompts.write_text('{"prompt": "a"}\n', encoding="utf-8")
    monkeypatch.setattr(limits, "MAX_RUN_MEMORY_BYTES", 10 * 1024**2)
    with pytest.raises(UsageError, match=r"^--trace .* \(60 requests\): the run would hold about .* MiB in memory .*give --num-requests N"):
        monkeypatch.setattr(limits, "MAX_RUN_MEMORY_BYTES", 1024)
        run_checks.check_run_memory(build_load(LoadRequest(trace=TRACE)))
    monkeypatch.setattr(limits, "MAX_RUN_MEMORY_BYTES", 10 * 1024**2)
    # one prompt sent 10,000 times at two levels still plans 20,000 requests and keeps their records
    with pytest.raises(UsageError, match=r"^--num-requests 10,000 at 2 levels: .*give at most --num-requests 3,855, "):
        run_checks.check_run_memory(build_load(LoadRequest(input_file=prompts, osl=4, num_requests=10_000, concurrency=[1, 2])))
    run_checks.check_run_memory(build_load(LoadRequest(input_file=prompts, osl=4, num_requests=3_800, concurrency=[1, 2])))
    # the estimate per request is not below what planning alone takes (prompts and records come on top)
    tracemalloc.start()
    plan_load(build_load(LoadRequest(isl=20, osl=4, num_requests=20_000, concurrency=[1])))
    planned = tracemalloc.get_traced_memory()[0] / 20_000
    tracemalloc.stop()
    assert planned < run_checks.REQUEST_BYTES / 2, planned


def test_a_prompt_files_warmups_and_later_points_do_not_resend_a_measured_prompt_while_the_file_has_more(truth: TruthServer, tmp_path: Path) -> None:
    """A resent prompt is a prefix-cache hit, not a cold prefill: warm-ups took the file's first
    prompts and the measured requests then sent them again. Now they take the prompts in turn."""
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": f"prompt number {i} of the file"}) + "\n" for i in range(12)), encoding="utf-8")
    out = tmp_path / "runs"
    run = cli("run", "--input-file", str(prompts), "--osl", "4", "--num-requests", "4", "--warmup-requests", "2", "--concurrency", "1,2",
              "--endpoint", truth.base_url, "--no-scrape", "--out", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "resend a prompt" not in run.stdout  # 12 prompts for 2 x (2 + 4) requests: none is sent twice
    [records] = out.rglob("records.jsonl")
    rows = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()[1:]]
    sent = [r["prompt_id"] for r in rows if "request_id" in r]
    assert len(sent) == 12 and len(set(sent)) == 12, sent
    # a file too short for that says so, and how many requests resend a prompt
    short = tmp_path / "short.jsonl"
    short.write_text('{"prompt": "one"}\n{"prompt": "two"}\n{"prompt": "three"}\n', encoding="utf-8")
    cycled = cli("run", "--input-file", str(short), "--osl", "4", "--num-requests", "4", "--warmup-requests", "2", "--concurrency", "1",
                 "--endpoint", truth.base_url, "--no-scrape", "--out", str(tmp_path / "cycled"))  # fmt: skip
    assert cycled.returncode == 0, cycled.stderr
    assert "prompts: 2 warm-up and 4 measured requests take the 3 prompts in turn: 3 of the 6 resend a prompt already sent" in " ".join(cycled.stdout.split())


@pytest.mark.parametrize(
    ("body", "said", "held"),
    [
        ('{"ignore_eos": false}', "--extra-body sets ignore_eos false: outputs may stop before max_tokens", None),
        ('{"ignore_eos": true}', None, {"ignore_eos": True, "set_by": "--extra-body"}),
    ],
)
def test_an_extra_body_that_sets_the_output_hold_is_said_as_the_users_choice(
    truth: TruthServer, tmp_path: Path, body: str, said: str | None, held: dict[str, object] | None
) -> None:
    """On llama.cpp (which takes ignore_eos) the user's own ignore_eos was called an engine 'not
    known to take ignore_eos'."""
    run = cli("run", *SYN, "--concurrency", "1", "--engine", "llama.cpp", "--extra-body", body, "--endpoint", truth.base_url,
              "--tokenizer", str(TOKENIZER), "--no-scrape", "--out", str(tmp_path / "r"))  # fmt: skip
    assert run.returncode == 0, run.stderr
    text = " ".join((run.stdout + run.stderr).split())
    assert "is not known to take ignore_eos" not in text
    assert said is None or said in text
    assert _result(tmp_path / "r")["resolved_params"]["output_held_by"] == held  # type: ignore[index]


def test_a_prompt_files_levels_past_its_requests_are_refused(tmp_path: Path) -> None:
    from servescope.errors import UsageError
    from servescope.workload.load_build import LoadRequest, build_load

    prompts = tmp_path / "two.jsonl"
    prompts.write_text('{"prompt": "a"}\n{"prompt": "b"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match=rf"^--concurrency 4 is more than the 2 requests of a point \(the prompts of {prompts}\)"):
        build_load(LoadRequest(input_file=prompts, osl=4, concurrency=[1, 4]))
    with pytest.raises(UsageError, match=r"^--concurrency 4 is more than the 3 requests of a point \(--num-requests\)"):
        build_load(LoadRequest(input_file=prompts, osl=4, num_requests=3, concurrency=[4]))
    assert build_load(LoadRequest(input_file=prompts, osl=4, num_requests=4, concurrency=[4])).load.levels == (4,)


def test_a_run_where_every_request_failed_says_why_by_category(truth: TruthServer, tmp_path: Path) -> None:
    """The cause was only in result.json; the console said 'see the failures in the result'."""
    run = cli("run", "--isl", "20", "--osl", "400", "--num-requests", "3", "--concurrency", "1", "--endpoint", truth.base_url,
              "--tokenizer", str(TOKENIZER), "--no-scrape", "--timeout", "0.05", "--out", str(tmp_path / "r"))  # fmt: skip
    assert run.returncode == 4, run.stdout + run.stderr
    [line] = [x for x in run.stderr.splitlines() if x.strip()]
    assert line == "error: no request completed: 3 failed: 3 timeout (no completion within 0.05 s)", line


def test_a_workload_file_too_large_to_hold_is_one_line_before_anything_is_planned(tmp_path: Path) -> None:
    doc = {
        "id": "serve-mine-c2-v1", "kind": "serving", "name": "mine", "dataset_id": "prompts-mixed-v1", "immutable": True, "created": "2026-12-06",
        "params": {"concurrency": 2, "num_requests": 100_000_000, "output_tokens": 4, "seed": 0, "dataset_buckets": ["xs"]},
    }  # fmt: skip
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    line = one_line(cli("run", str(path), "--endpoint", CLOSED, "--out", str(tmp_path / "runs")))
    assert line.startswith("error: Workload 'serve-mine-c2-v1' (params.num_requests 100,000,000): the run would hold about ")
    assert "give a smaller params.num_requests" in line and not (tmp_path / "runs").exists()
