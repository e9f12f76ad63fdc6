"""The predicting side's commands as a user runs them, and the official baseline guard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=300, check=False, cwd=cwd)


def test_predict_workload_writes_valid_documents(tmp_path: Path) -> None:
    proc = run("predict", "tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    [folder] = list(tmp_path.iterdir())
    pred = json.loads((folder / "prediction.json").read_text())
    assert pred["kind"] == "Prediction" and pred["timing_mode"] == "simulated"
    assert [p["concurrency"] for p in pred["points"]] == [1, 2, 4, 8]
    assert len((folder / "records.jsonl").read_text().splitlines()) == 48  # 40 measured + 8 warmup
    check = run("validate", "--strict", str(folder))
    assert check.returncode == 0, check.stdout + check.stderr


def test_predict_is_byte_identical_for_a_seed(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert (
            run(
                "predict", "llama-3.1-8b-on-h100", "--concurrency", "1,8", "--isl", "512", "--osl", "64", "--num-requests", "16", "--out", str(tmp_path / name)
            ).returncode
            == 0
        )
    [fa] = list((tmp_path / "a").rglob("prediction.json"))
    [fb] = list((tmp_path / "b").rglob("prediction.json"))
    assert fa.read_bytes() == fb.read_bytes()


def test_calibrate_then_predict_with_it(tmp_path: Path) -> None:
    measured = {
        "kind": "EvaluationRun",
        "name": "m",
        "scenario": "tiny-llama-on-cpu",
        "harness": "servescope",
        "engine_version": "x",
        "workload": "sweep-parallel-1-8-i128-o64-v1",
        "points": [
            {"concurrency": 1, "ttft_ms": 18.7, "itl_ms": 1.5, "output_tokens_per_sec": 574.2, "mean_isl": 180, "mean_osl": 64},
            {"concurrency": 4, "ttft_ms": 80.4, "itl_ms": 6.1, "output_tokens_per_sec": 513.1, "mean_isl": 180, "mean_osl": 64},
        ],
    }
    src = tmp_path / "measured.json"
    src.write_text(json.dumps(measured))
    cal = tmp_path / "cal.json"
    proc = run("calibrate", "tiny-llama-on-cpu", "--from", str(src), "--out", str(cal))
    assert proc.returncode == 0, proc.stderr
    assert "MAPE before %" in proc.stdout
    pinned = [line for line in proc.stderr.splitlines() if line.startswith("warning: factor ")]
    assert [line.split(":")[1] for line in pinned] == [" factor memory_bw_eff ended on its upper bound 1.5 (of the hardware's measured figures)",
                                                      " factor step_overhead_s ended on its lower bound 1e-08 (seconds)"]  # fmt: skip
    refused = run("calibrate", "llama-3.1-8b-on-h100", "--from", str(src), "--out", str(tmp_path / "h100.json"))
    assert refused.returncode == 2 and not (tmp_path / "h100.json").exists()
    assert refused.stderr.startswith("error: scenario llama-3.1-8b-on-h100 runs on 8 x h100-sxm") and len(refused.stderr.splitlines()) == 1
    doc = json.loads(cal.read_text())
    assert doc["kind"] == "Calibration"
    after, before = doc["mape_after"], doc["mape_before"]
    assert sum(after.values()) < sum(before.values())
    assert run("validate", "--strict", str(cal)).returncode == 0
    again = run("predict", "tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", "--calibration", str(cal), "--out", str(tmp_path / "p"))
    assert again.returncode == 0, again.stderr


def test_search_ranks_configurations() -> None:
    proc = run(
        "search",
        "--model",
        "llama-3.1-8b",
        "--hardware",
        "h100-sxm",
        "--gpus",
        "2",
        "--slo",
        "ttft_ms<=500,itl_ms<=30",
        "--isl",
        "512",
        "--osl",
        "128",
        "--concurrency",
        "16",
        "--max-num-seqs",
        "32,64",
    )
    assert proc.returncode == 0, proc.stderr
    assert "configurations/s" in proc.stdout and "tp" in proc.stdout
    assert "concurrency levels tried: 16\n" in proc.stdout


def test_search_sweeps_levels_by_default() -> None:
    """--isl/--osl without --concurrency: a sweep, not one level, and one line saying which."""
    proc = run("search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "2", "--slo", "ttft_ms<=5000",
               "--isl", "64", "--osl", "8", "--max-num-seqs", "4,8")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [line] = [x for x in proc.stdout.splitlines() if x.startswith("concurrency levels tried:")]
    assert line == "concurrency levels tried: 1, 2, 4, 8, 16 (default sweep, each configuration up to dp x max_num_seqs; --concurrency sets others)"
    best = {row.split()[1]: int(row.split()[2]) for row in proc.stdout.splitlines() if "-tp" in row and row.split()[0].isdigit()}
    assert best["vllm@0.11.0-bf16-tp1-dp2-seqs8"] == 16 and best["vllm@0.11.0-bf16-tp2-dp1-seqs4"] == 4  # dp x max_num_seqs


def test_bad_arguments_are_one_line() -> None:
    for args in (
        ("predict", "no-such-scenario", "serve-chat-c8-i1k-o256-v1"),
        ("predict", "tiny-llama-on-cpu"),
        ("predict", "tiny-llama-on-cpu", "--concurrency", "0", "--isl", "1", "--osl", "1"),
        ("search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "2", "--slo", "fast please", "--isl", "1", "--osl", "1"),
    ):
        proc = run(*args)
        assert proc.returncode in (1, 2), args
        assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0, (args, proc.stderr)


def test_official_baseline_guard(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_baseline.py"), "--out", str(tmp_path)], check=True, timeout=300)
    proc = run("regress", "--baseline", str(ROOT / "baselines" / "official" / "results"), "--results", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 result(s) compared: no regression" in proc.stdout


def _scenario_file(tmp_path: Path, name: str = "my-tiny", **over: object) -> Path:
    import yaml

    from servescope.catalog.store import Catalog

    doc = Catalog.load([]).scenario("tiny-llama-on-cpu").dump()
    doc.update({"name": name, **over})
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_predict_a_scenario_file(tmp_path: Path) -> None:
    path = _scenario_file(tmp_path)
    proc = run("predict", str(path), "--concurrency", "1,2", "--isl", "64", "--osl", "8", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    [pred] = list((tmp_path / "out").rglob("prediction.json"))
    assert json.loads(pred.read_text())["scenario"] == "my-tiny"


def test_scenario_file_with_a_config_json_beside_it(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256,
        "torch_dtype": "float32"}))  # fmt: skip
    path = _scenario_file(tmp_path, model="config.json")  # relative to the scenario file, not the working folder
    proc = run("predict", str(path), "--concurrency", "1", "--isl", "32", "--osl", "4", "--out", str(tmp_path / "out"), cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def test_bad_scenario_files_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Scenario\nname: x\n")
    wrong_kind = tmp_path / "wl.json"
    wrong_kind.write_text((ROOT / "src/servescope/data/workloads/serve-chat-c8-i1k-o256-v1.json").read_text())
    count = _scenario_file(tmp_path, name="miscount", count=3)
    for path, needle in ((tmp_path / "missing.yaml", "missing.yaml"), (bad, "bad.yaml"), (wrong_kind, "Scenario"),
                         (count, "count")):  # fmt: skip
        proc = run("predict", str(path), "--concurrency", "1", "--isl", "8", "--osl", "2", "--out", str(tmp_path / "o"))
        assert proc.returncode in (1, 2), (path, proc.stdout)
        assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0, (path, proc.stderr)
        assert needle in proc.stderr, (path, proc.stderr)


def test_refusal_and_warning_lines(tmp_path: Path) -> None:
    spec = _scenario_file(tmp_path, name="spec", speculative_tokens=4)
    proc = run("predict", str(spec), "--concurrency", "1", "--isl", "8", "--osl", "2", "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0, proc.stderr
    assert "speculative_tokens: 4" in proc.stderr
    engine = {"id": "llama.cpp", "version": "b4567", "args": {"--parallel": 8, "--ctx-size": 32768, "--flash-attn": "on"}}
    flagged = _scenario_file(tmp_path, name="flagged", engine=engine)
    proc = run("predict", str(flagged), "--concurrency", "1", "--isl", "8", "--osl", "2", "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert "warning: scenario flagged: engine.args: --flash-attn not simulated" in proc.stderr
    [pred] = list((tmp_path / "o").rglob("prediction.json"))
    assert json.loads(pred.read_text())["warnings"][0].startswith("scenario flagged: engine.args: --flash-attn")


def test_rate_alone_is_an_open_loop_point(tmp_path: Path) -> None:
    proc = run("predict", "llama-3.1-8b-on-h100", "--rate", "4", "--isl", "256", "--osl", "32", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    [pred_file] = list(tmp_path.rglob("prediction.json"))
    pred = json.loads(pred_file.read_text())
    # an ad-hoc load: labelled by its fingerprint, the load recorded whole
    assert pred["workload"].startswith("adhoc-") and "-c1-" not in pred["name"]
    [point] = pred["points"]
    assert point["request_rate"] == 4.0 and point["completed_requests"] == 240  # one simulated minute of arrivals
    assert "open loop at 4 req/s" in proc.stdout


def _only(tmp_path: Path, name: str) -> dict:  # type: ignore[type-arg]
    [path] = list(tmp_path.rglob(name))
    return json.loads(path.read_text())


def test_harness_replays_a_known_client(tmp_path: Path) -> None:
    proc = run("predict", "llama-3.1-8b-on-h100", "--concurrency", "4", "--isl", "256", "--osl", "16", "--harness", "vllm",
               "--num-requests", "40", "--out", str(tmp_path / "v"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    res = _only(tmp_path / "v", "result.json")
    assert res["resolved_params"]["harness"] == "vllm" and res["resolved_params"]["lengths"] == [1.0, 1.0]
    assert res["resolved_params"]["stream_timing"]["endpoint"] == "completions"  # vllm bench serve's default backend
    proc = run("predict", "llama-3.1-8b-on-h100", "--concurrency", "4", "--isl", "256", "--osl", "16", "--harness", "vllm",
               "--num-requests", "40", "--endpoint", "chat", "--out", str(tmp_path / "vc"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    chat, completions = _only(tmp_path / "vc", "prediction.json")["points"][0], _only(tmp_path / "v", "prediction.json")["points"][0]
    assert chat["itl_ms"] == pytest.approx(completions["itl_ms"] * 15 / 16) and chat["tpot_ms"] == completions["tpot_ms"]
    proc = run("predict", "llama-3.1-8b-on-h100", "--concurrency", "4", "--isl", "256", "--osl", "16", "--out", str(tmp_path / "s"))
    assert proc.returncode == 0, proc.stderr
    replay = _only(tmp_path / "s", "result.json")["resolved_params"]["replay"]
    assert replay == {"warmup_requests": [4], "measured_requests": [64], "continuous": True, "held_full": True}
    assert "measured" in proc.stdout
    assert run("validate", "--strict", str(tmp_path)).returncode == 0


def test_max_throughput_max_rate_and_stages(tmp_path: Path) -> None:
    base = ("predict", "llama-3.1-8b-on-h100", "--isl", "256", "--osl", "32")
    proc = run(*base, "--max-throughput", "--num-requests", "200", "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    [point] = _only(tmp_path / "o", "prediction.json")["points"]
    assert point["concurrency"] == 200 and point["output_tokens_per_sec"] > 0
    proc = run(*base, "--max-rate", "--slo", "p99_ttft_ms<=200,p99_tpot_ms<=10", "--num-requests", "300", "--out", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    assert "highest Poisson rate meeting p99_ttft_ms<=200,p99_tpot_ms<=10:" in proc.stdout
    [point] = _only(tmp_path / "r", "prediction.json")["points"]
    assert point["request_rate"] > 0
    proc = run(*base, "--stages", "2:20,6:10", "--out", str(tmp_path / "st"))
    assert proc.returncode == 0, proc.stderr
    assert [p["request_rate"] for p in _only(tmp_path / "st", "prediction.json")["points"]] == [2.0, 6.0]
    check = run("validate", "--strict", str(tmp_path))
    assert check.returncode == 0, check.stdout + check.stderr


def test_search_over_engines_and_dtypes_cli() -> None:
    proc = run("search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", "--slo", "p99_ttft_ms<=1000",
               "--isl", "256", "--osl", "32", "--concurrency", "8", "--max-num-seqs", "64",
               "--engines", "vllm@0.11.0,sglang@0.5.2", "--dtypes", "bf16,fp8")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "4 configurations" in proc.stdout and "sglang@0.5.2-fp8-tp1-dp1-seqs64" in proc.stdout
    assert "warning:" not in proc.stderr  # nothing approximated in these four


def test_search_warns_what_its_configurations_approximate() -> None:
    # SGLang 0.4 is simulated with 0.5's defaults: the ranking says so, one line for every configuration it concerns
    proc = run("search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", "--slo", "p99_ttft_ms<=1000",
               "--isl", "256", "--osl", "32", "--concurrency", "8", "--max-num-seqs", "32,64",
               "--engines", "vllm@0.11.0,sglang@0.4.0")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [line] = [w for w in proc.stderr.splitlines() if w.startswith("warning:")]
    assert "engine.version: 0.4.0: SGLang before 0.5" in line and "(2 of 4 configurations: sglang@0.4.0-bf16-tp1-dp1-seqs" in line
    assert "scenario search-" not in line  # the generated scenario's name is not the user's


def test_bad_mode_arguments_are_one_line() -> None:
    base = ("predict", "llama-3.1-8b-on-h100", "--isl", "64", "--osl", "8")
    cases = [
        ((*base, "--concurrency", "4", "--harness", "locust"), "unknown harness"),
        ((*base, "--concurrency", "4", "--harness", "aiperf"), "give --num-requests"),
        ((*base, "--concurrency", "4", "--range-ratio", "1.2"), "--range-ratio 1.2"),  # the flag named (the load checks it)
        ((*base, "--max-rate"), "needs --slo"),
        ((*base, "--concurrency", "4", "--slo", "p99_ttft_ms<=5"), "--slo is read by --max-rate only"),
        ((*base, "--max-rate", "--slo", "p99_ttft_ms=5"), "cannot read SLO"),
        ((*base, "--max-throughput", "--concurrency", "4"), "leave --concurrency and --rate out"),
        ((*base, "--max-throughput", "--stages", "1:5"), "give one of"),
        ((*base, "--stages", "5-60"), "--stages: cannot read '5-60'"),
        ((*base, "--stages", "5:60,5:30"), "different rate"),
        ((*base, "--stages", "5:60", "--num-requests", "9"), "leave --num-requests out"),
        ((*base, "--max-rate", "--slo", "p99_ttft_ms<=0.0001", "--num-requests", "50"), "no Poisson rate meets"),
        (("predict", "llama-3.1-8b-on-h100", "serve-chat-c8-i1k-o256-v1", "--harness", "vllm"), "catalog workload"),
        (("predict", "llama-3.1-8b-on-h100", "serve-chat-c8-i1k-o256-v1", "--endpoint", "chat"), "catalog workload"),
        ((*base, "--concurrency", "4", "--endpoint", "chat"), "matters to a client that times every chunk"),
        ((*base, "--concurrency", "4", "--harness", "vllm", "--num-requests", "8", "--endpoint", "responses"), "give one of completions, chat"),
        ((*base, "--max-rate", "--slo", "p99_ttft_ms<=200", "--endpoint", "chat"), "not applied to --max-rate"),
        (
            (
                "search",
                "--model",
                "llama-3.1-8b",
                "--hardware",
                "h100-sxm",
                "--gpus",
                "1",
                "--slo",
                "ttft_ms<=9",
                "--isl",
                "8",
                "--osl",
                "8",
                "--engines",
                "vllm",
            ),
            "ENGINE@VERSION",
        ),
        (
            (
                "search",
                "--model",
                "llama-3.1-8b",
                "--hardware",
                "h100-sxm",
                "--gpus",
                "1",
                "--slo",
                "ttft_ms<=9",
                "--isl",
                "8",
                "--osl",
                "8",
                "--dtypes",
                "fp9",
            ),
            "--dtypes: fp9",
        ),
    ]
    for args, needle in cases:
        proc = run(*args)
        assert proc.returncode in (1, 2), args
        assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0, (args, proc.stderr)
        assert needle in proc.stderr, (args, proc.stderr)


def test_calibrate_takes_a_scenario_file_as_predict_does(tmp_path: Path) -> None:
    """``calibrate PATH.yaml`` (like ``predict PATH.yaml``): the file's scenario names the calibration."""
    scen = (ROOT / "src/servescope/data/scenarios/tiny-llama-on-cpu.yaml").read_text().replace("name: tiny-llama-on-cpu", "name: my-tiny-llama")
    (tmp_path / "mine.yaml").write_text(scen)
    measured = {
        "kind": "EvaluationRun",
        "name": "m",
        "scenario": "my-tiny-llama",
        "harness": "servescope",
        "engine_version": "x",
        "workload": "sweep-parallel-1-8-i128-o64-v1",
        "points": [{"concurrency": 1, "ttft_ms": 18.7, "itl_ms": 1.5, "output_tokens_per_sec": 574.2, "mean_isl": 180, "mean_osl": 64}],
    }
    (tmp_path / "measured.json").write_text(json.dumps(measured))
    proc = run("calibrate", "mine.yaml", "--from", "measured.json", "--factors", "step_overhead_s", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "warning:" not in proc.stderr
    doc = json.loads((tmp_path / "calibration-my-tiny-llama.json").read_text())
    assert doc["scenario"] == "my-tiny-llama" and set(doc["factors"]) == {"step_overhead_s"}
    # a flag the simulator does not read is warned here as predict warns it: the fitted factors absorb what it changes
    (tmp_path / "mine.yaml").write_text(scen.replace('    --threads: "1"', '    --threads: "1"\n    --rope-freq-base: "20000"'))
    warned = run("calibrate", "mine.yaml", "--from", "measured.json", "--factors", "step_overhead_s", cwd=tmp_path)
    assert warned.returncode == 0, warned.stderr
    [line] = [w for w in warned.stderr.splitlines() if w.startswith("warning:")]
    assert "scenario my-tiny-llama" in line and "--rope-freq-base" in line
    bad = run("calibrate", "missing.yaml", "--from", "measured.json", cwd=tmp_path)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1 and "missing.yaml" in bad.stderr


def test_predict_sessions_prints_the_lines_run_prints_per_turn(tmp_path: Path) -> None:
    proc = run("predict", "tiny-llama-on-cpu", "--sessions", "2", "--turns", "3", "--isl", "32", "--osl", "16", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("turn ")]
    assert len(lines) == 3, proc.stdout
    for k, line in enumerate(lines, start=1):
        assert line.startswith(f"turn {k}: 2 completed, TTFT p50 ") and " ms, prompt " in line and " from the engine's cache (" in line
    assert "simulated 6 requests (6 measured;" in proc.stdout and "failed:" not in proc.stdout
    # the third turn's history passes the 4096-token context: it fails, the fourth is cancelled, and predict says so
    proc = run("predict", "tiny-llama-on-cpu", "--sessions", "2", "--turns", "4", "--isl", "1500", "--osl", "16", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "failed: 4 of 8 measured requests (cancelled 2, context-overflow 2)" in proc.stdout, proc.stdout
    assert [line.split(":")[0] for line in proc.stdout.splitlines() if line.startswith("turn ")] == ["turn 1", "turn 2"]


def test_bad_session_options_are_one_line() -> None:
    base = ("predict", "tiny-llama-on-cpu", "--sessions", "2", "--turns", "3")
    full = (*base, "--isl", "32", "--osl", "16")
    cases = [
        (base, "multi-turn sessions need --isl"),  # run's own line (workload.load_build)
        (("predict", "tiny-llama-on-cpu", "--sessions", "2", "--isl", "32", "--osl", "16"), "--sessions without --turns N"),
        ((*full, "--trace", "trace.jsonl"), "--sessions and --trace contradict"),
        ((*full, "--concurrency", "4"), "--sessions and --concurrency contradict"),
        ((*full, "--num-requests", "6"), "--sessions and --num-requests contradict"),
        ((*full, "--think-time-ms", "-5"), "--think-time-ms -5:"),
        (("predict", "tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", "--turns", "3"), "and --turns contradict"),
        # what run has no flag for is refused, never dropped
        ((*full, "--harness", "vllm"), "--sessions and --harness contradict"),
        ((*full, "--max-throughput"), "--sessions and --max-throughput contradict"),
        ((*full, "--stages", "5:60"), "--sessions and --stages contradict"),
        ((*full, "--arrival", "constant"), "--sessions and --arrival contradict"),
        ((*full, "--speedup", "2"), "--sessions and --speedup contradict"),
        ((*full, "--endpoint", "chat"), "--sessions and --endpoint contradict"),
        (("predict", "tiny-llama-on-cpu", "--sessions", "1000", "--turns", "10000", "--isl", "8", "--osl", "8"), "SERVESCOPE_MAX_SIMULATED_REQUESTS"),
    ]
    for args, needle in cases:
        proc = run(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0, (args, proc.stderr)
        assert needle in proc.stderr, (args, proc.stderr)


def test_another_prediction_of_the_same_name_never_overwrites_the_first(tmp_path: Path) -> None:
    """Another seed (or calibration) names its prediction as the first: it goes to a folder of
    its own with a note; the same prediction again goes where it went."""
    cmd = ["predict", "tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", "--concurrency", "1", "--out", str(tmp_path)]
    first = subprocess.run([sys.executable, "-m", "servescope", *cmd], capture_output=True, text=True, timeout=120)
    again = subprocess.run([sys.executable, "-m", "servescope", *cmd], capture_output=True, text=True, timeout=120)
    other = subprocess.run([sys.executable, "-m", "servescope", *cmd, "--seed", "7"], capture_output=True, text=True, timeout=120)
    assert first.returncode == again.returncode == other.returncode == 0, other.stderr
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert folders == ["tiny-llama-on-cpu-sweep-parallel-1-8-i128-o64-v1-sim", "tiny-llama-on-cpu-sweep-parallel-1-8-i128-o64-v1-sim-2"]
    assert "holds another prediction of this name" in other.stderr and "holds another" not in again.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["predict", "llama-3.1-8b-on-h100", "sweep-parallel-1-8-i128-o64-v1", "--isl", "100000"],
        ["predict", "llama-3.1-8b-on-h100", "sweep-parallel-1-8-i128-o64-v1", "--num-requests", "3"],
        [
            "search",
            "--model",
            "llama-3.1-8b",
            "--hardware",
            "h100-sxm",
            "--gpus",
            "8",
            "--slo",
            "ttft_ms<=500",
            "--workload",
            "sweep-parallel-1-8-i128-o64-v1",
            "--osl",
            "5000",
        ],
    ],
)
def test_lengths_given_beside_a_workload_are_refused_not_ignored(args: list[str], tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "servescope", *args, "--out", str(tmp_path)] if args[0] == "predict" else
                          [sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "workload" in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["predict", "llama-3.1-8b-on-h100", "--isl", "16", "--osl", "4", "--concurrency", "2,,3"], "an empty level"),
        (["predict", "llama-3.1-8b-on-h100", "--isl", "16", "--osl", "4", "--concurrency", "2,2"], "level 2 is given twice"),
        (["search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--isl", "256", "--osl", "32", "--gpus", "8", "--slo", ""], "give at least one SLO"),
        (
            [
                "search",
                "--model",
                "llama-3.1-8b",
                "--hardware",
                "h100-sxm",
                "--isl",
                "256",
                "--osl",
                "32",
                "--gpus",
                "8",
                "--slo",
                "ttft_ms<=500",
                "--max-num-seqs",
                "",
            ],
            "no level",
        ),
    ],
)
def test_predict_and_search_read_lists_of_levels_as_run_does(args: list[str], says: str) -> None:
    """One rule for a list of levels (run's): an empty list or level, or a level given twice, is one line."""
    proc = subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and says in proc.stderr, proc.stderr


def test_search_rows_carry_predicts_interval_and_say_the_ranking_is_by_the_point_figures() -> None:
    """Each ranked row's out tok/s comes with predict's 80 % interval (its groups' held-out error, widened
    where a known-miss regime holds at its best level), the interval's warnings are said (an unvalidated
    hardware generation, a known miss), and a line says the ranking and the SLO checks use the point figures."""
    from servescope.predict.intervals import interval_for_groups

    common = ["--slo", "ttft_ms<=2000", "--isl", "2048", "--osl", "128", "--concurrency", "16", "--dtypes", "fp8", "--max-num-seqs", "64", "--workers", "1"]
    l4 = run("search", "--model", "llama-3.1-8b", "--hardware", "l4", "--gpus", "4", *common)
    assert l4.returncode == 0, l4.stderr
    warned = [
        line for line in l4.stderr.splitlines() if line.startswith("warning: prediction interval: no held-out validation for the hardware generation 'Ada'")
    ]
    assert len(warned) == 1 and warned[0].endswith("configurations)"), l4.stderr
    assert "ranked by the predicted out tok/s per device, each level held to the SLO by its predicted figures" in " ".join(l4.stdout.split())
    h100 = run("search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", *common)
    assert h100.returncode == 0, h100.stderr
    assert "warning: known miss (vllm-long-prompt-short-output)" in h100.stderr
    header, row = [line for line in h100.stdout.splitlines() if line.lstrip().startswith(("rank ", "1 vllm"))][:2]
    assert header.endswith("80 % interval of out tok/s")
    tput, band = float(row.split()[3]), row.split()[5]
    low, high = (float(x.replace(",", "")) for x in band.split("–"))
    groups = {"engine": "vLLM", "hardware generation": "Hopper", "weight dtype": "fp8", "model family": "llama-3.x-8b"}
    f_low = interval_for_groups(groups).factors["output_tokens_per_sec"][0]
    assert low == pytest.approx(tput * f_low, rel=1e-3)
    assert high == pytest.approx(tput * 3.0, rel=1e-3)  # the known miss's reach: throughput up to 3x the prediction
