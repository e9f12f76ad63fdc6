"""A hostile user at the command line (issue 31): every bad argument is one line on
stderr and the bad-input exit code, before any work, never an internal error (exit 3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.errors import UsageError

SCENARIO = "llama-3.1-8b-on-h100"
SYNTHETIC = ["--isl", "10", "--osl", "10", "--concurrency", "1", "--num-requests", "4"]
SEARCH = ["search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", "--slo", "ttft_ms<=500", "--isl", "10", "--osl", "10"]
# run against a closed port: a check that does not fire shows as "cannot reach", not a refusal
RUN = ["run", "serve-single-i256-o256-v1", "--endpoint", "http://127.0.0.1:9/v1"]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SERVESCOPE_DEBUG"}
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env, check=False)


def one_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The one ``error:`` line of a refused command (and the exit code it must have)."""
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert proc.returncode == code, f"exit {proc.returncode}: {proc.stdout}{proc.stderr}"
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- 1. output paths: one check, every command that writes ---------------------------------

# (command line with {out} where the output goes, the flag that names it, a folder (True) or a file)
WRITERS = [
    (["predict", SCENARIO, *SYNTHETIC, "--out", "{out}"], "--out", True),
    (["schema", "--out", "{out}"], "--out", True),
    (["summarize", "--in", "runs", "--out", "{out}"], "--out", True),
    (["report", "--in", "runs", "--out", "{out}"], "--out", True),
    ([*RUN, "--out", "{out}"], "--out", True),
    (["import", "vllm", "export.json", "--scenario", "tiny-llama-on-cpu", "--out", "{out}"], "--out", True),
    (["import", "vllm", "export.json", "--scenario", "tiny-llama-on-cpu", "--out", "{out}.json"], "--out", False),
    (["calibrate", SCENARIO, "--from", "measured.json", "--out", "{out}.json"], "--out", False),
    (["probe", "--out", "{out}.json"], "--out", False),
    (["compare", "a.json", "b.json", "--plot", "{out}.html"], "--plot", False),
]
IDS = [f"{args[0]}-{flag}-{'folder' if folder else 'file'}" for args, flag, folder in WRITERS]


def _line(args: list[str], out: str) -> list[str]:
    return [a.replace("{out}", out) for a in args]


@pytest.mark.parametrize(("args", "flag", "folder"), WRITERS, ids=IDS)
def test_an_output_under_a_file_is_one_line_before_any_work(tmp_path: Path, args: list[str], flag: str, folder: bool) -> None:
    (tmp_path / "a-file").write_text("in the way")
    proc = cli(*_line(args, "a-file/sub"), cwd=tmp_path)
    line = one_line(proc)
    assert f"{flag} a-file/sub" in line and "a-file is a file, not a folder" in line
    assert listing(tmp_path) == ["a-file"]  # nothing written, nothing created


@pytest.mark.parametrize(("args", "flag", "folder"), WRITERS, ids=IDS)
def test_an_output_of_the_wrong_kind_is_one_line(tmp_path: Path, args: list[str], flag: str, folder: bool) -> None:
    """A folder option given a file, a file option given a folder."""
    if args[0] == "import" and not folder:
        pytest.skip("import --out NAME.json naming a folder writes into that folder (its folder form)")
    if folder:
        (tmp_path / "taken").write_text("a file")
        expected = "is a file, not a folder"
    else:
        for suffix in (".json", ".html"):
            (tmp_path / f"taken{suffix}").mkdir()
        expected = "is a folder; give a file name"
    line = one_line(cli(*_line(args, "taken"), cwd=tmp_path))
    assert f"{flag} taken" in line and expected in line


@pytest.mark.parametrize(("args", "flag", "folder"), WRITERS, ids=IDS)
def test_an_output_where_nothing_can_be_created_is_one_line(tmp_path: Path, args: list[str], flag: str, folder: bool) -> None:
    """/proc refuses every create, root's included (root ignores permission bits)."""
    line = one_line(cli(*_line(args, "/proc/servescope-hostile"), cwd=tmp_path))
    assert f"{flag} /proc/servescope-hostile" in line and "/proc " in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a chmod 0555 folder anyway; /proc covers the refusing folder")
def test_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        line = one_line(cli("schema", "--out", str(locked / "schemas"), cwd=tmp_path))
        assert f"{locked} is not writable" in line
    finally:
        locked.chmod(0o755)


def test_the_path_checks_refuse_what_cannot_be_written(tmp_path: Path) -> None:
    from servescope.output_paths import check_file_name, check_output_file, check_output_folder

    (tmp_path / "f").write_text("x")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    cases = [
        (lambda: check_output_folder(tmp_path / "f" / "x"), "f is a file, not a folder"),
        (lambda: check_output_folder(tmp_path / "loop"), "is a symlink loop, not a folder"),
        (lambda: check_output_folder(Path("-")), "give a folder"),
        (lambda: check_output_file(tmp_path / "pipe"), "is a FIFO (named pipe), not a regular file"),
        (lambda: check_output_file(tmp_path), "is a folder; give a file name"),
        (lambda: check_output_file(Path("/proc/x.json")), "/proc refuses new files"),
        (lambda: check_file_name("../x", "--basename"), "give a plain file name"),
        (lambda: check_file_name("a/b", "--basename"), "give a plain file name"),
        (lambda: check_file_name("..", "--basename"), "give a plain file name"),
        (lambda: check_file_name("", "--basename"), "give a plain file name"),
    ]
    for call, message in cases:
        with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
            call()
    check_output_folder(tmp_path / "new" / "deeper")  # created later: fine
    check_output_file(tmp_path / "f")  # overwriting a file: fine
    check_file_name("summary..v2", "--basename")  # dots inside a name: fine
    assert listing(tmp_path) == ["f", "loop", "pipe"]  # the create test leaves nothing


@pytest.mark.parametrize("basename", ["../../x", "a/b", "..", "/tmp/x", ""])
def test_summarize_basename_stays_inside_out(tmp_path: Path, basename: str) -> None:
    line = one_line(cli("summarize", "--in", "runs", "--out", "sums", "--basename", basename, cwd=tmp_path))
    assert "--basename" in line and "plain file name" in line
    assert listing(tmp_path) == []


# --- 2. input nested 10,000 deep ------------------------------------------------------------


def test_a_ten_thousand_deep_model_config_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("[" * 10_000 + "]" * 10_000)
    line = one_line(cli("predict", SCENARIO, *SYNTHETIC, "--model-config", "config.json", "--out", "p", cwd=tmp_path), code=1)
    assert "config.json" in line and "nested too deeply" in line
    assert listing(tmp_path) == ["config.json"]


@pytest.mark.parametrize("name", ["deep.json", "deep.yaml"])
def test_a_ten_thousand_deep_scenario_file_is_one_line(tmp_path: Path, name: str) -> None:
    text = '{"a":' * 10_000 + "1" + "}" * 10_000 if name.endswith(".json") else "a: " + "[" * 10_000 + "]" * 10_000
    (tmp_path / name).write_text(text)
    line = one_line(cli("predict", name, *SYNTHETIC, "--out", "p", cwd=tmp_path), code=1)
    assert "nested too deeply" in line


# --- 3. messages that name the right thing --------------------------------------------------


@pytest.mark.parametrize("body", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', '{"a": 1e400}', '{"a": ' + "[" * 10_000 + "]" * 10_000 + "}"])
def test_extra_body_is_named_and_refuses_what_json_cannot_carry(tmp_path: Path, body: str) -> None:
    line = one_line(cli(*RUN, "--extra-body", body, cwd=tmp_path))
    assert line.startswith("error: --extra-body") and "--engine-args" not in line
    assert listing(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([*SEARCH, "--percentile", "nan"], "--percentile nan: give a finite number in (0, 100]"),
        ([*SEARCH, "--percentile", "0"], "--percentile 0: give a finite number in (0, 100]"),
        ([*SEARCH, "--percentile", "101"], "--percentile 101: give a finite number in (0, 100]"),
        ([*SEARCH, "--percentile", "inf"], "--percentile inf"),
        ([*SEARCH, "--top", "-1"], "--top -1: give at least 1"),
        ([*SEARCH, "--top", "0"], "--top 0: give at least 1"),
        ([*SEARCH, "--workers", "-1"], "--workers -1: give 0..1,024"),
        ([*SEARCH, "--gpus", "0"], "--gpus 0: give at least 1"),
        ([*SEARCH, "--top", "abc"], "Invalid value for '--top'"),
        (["predict", SCENARIO, *SYNTHETIC, "--seed", "-1"], "--seed -1: give 0..9,223,372,036,854,775,807"),
        (["predict", SCENARIO, "--isl", "10", "--osl", "10", "--rate", "inf"], "--rate inf: give a finite number > 0"),
        (["predict", SCENARIO, "--isl", "10", "--osl", "10", "--rate", "1", "--arrival", "gamma", "--gamma-shape", "nan"], "--gamma-shape nan"),
        (["predict", SCENARIO, "--isl", "10", "--osl", "10", "--max-rate", "--slo", "ttft_ms<=500", "--tolerance", "nan"], "--tolerance"),
        (["predict", SCENARIO, *SYNTHETIC, "--warmup-requests", "-3"], "--warmup-requests -3: give at least 0"),
        (["predict", SCENARIO, *SYNTHETIC, "--nope"], "No such option: --nope"),
        (["engine", "start", "--parallel", "0"], "--parallel 0: give 1..1,024 slots"),
        (["engine", "start", "--threads", "-1"], "--threads -1: give 1..1,024"),
        (["engine", "start", "--ctx-per-slot", "4"], "--ctx-per-slot 4: give 16.."),
        (["catalog", "list", "--format", "yaml"], "Invalid value for '--format'"),
        (["compare", "a.json", "b.json", "--plot", "out.txt"], "--plot out.txt: use .html"),
        (["predict", SCENARIO, *SYNTHETIC, "--arrival", "nope"], "--arrival 'nope': use poisson, gamma or constant"),
        (["predict", SCENARIO, "--isl", "10", "--osl", "10", "--stages", "nan:5"], "--stages 'nan:5': rate and seconds must be finite"),
        (["predict", SCENARIO, "--isl", "10", "--osl", "10", "--stages", "1:-5"], "--stages '1:-5': rate and seconds must be finite"),
        (["import", "vllm", "export.json", "--scenario", "no-such"], "--scenario 'no-such': not a scenario of the catalog"),
        (["config-id", "", "1"], "ENGINE is empty"),
        (["config-id", "vllm", " "], "VERSION is empty"),
    ],
)
def test_a_meaningless_number_or_option_is_one_line_naming_it(tmp_path: Path, args: list[str], expected: str) -> None:
    assert expected in one_line(cli(*args, cwd=tmp_path))
    assert listing(tmp_path) == []


def test_a_click_error_line_keeps_credentials_out(tmp_path: Path) -> None:
    line = one_line(cli("run", "serve-single-i256-o256-v1", "http://user:hunter2@example.com/v1", cwd=tmp_path))
    assert "unexpected extra argument" in line and "http://<redacted>@example.com/v1" in line and "hunter2" not in line


def test_run_refuses_a_scenario_the_catalog_does_not_know_before_any_work(tmp_path: Path) -> None:
    proc = cli(*RUN, "--scenario", "no-such", cwd=tmp_path)
    line = one_line(proc)
    assert "--scenario 'no-such': not a scenario of the catalog; known: " in line and "tiny-llama-on-cpu" in line
    assert proc.stdout == ""  # not even the progress bar
    assert listing(tmp_path) == []


def test_run_refuses_an_unknown_workload_before_the_progress_bar(tmp_path: Path) -> None:
    proc = cli("run", "no-such-workload", "--endpoint", "http://127.0.0.1:9/v1", cwd=tmp_path)
    assert "unknown workload 'no-such-workload'" in one_line(proc, code=1)
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("root", "expected"), [("nonexistent", "no such folder"), ("a-file", "is not a folder"), ("empty", "holds neither workloads/ nor datasets/")]
)
def test_catalog_lock_refuses_a_root_that_is_not_one(tmp_path: Path, root: str, expected: str) -> None:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "empty").mkdir()
    line = one_line(cli("catalog", "lock", root, cwd=tmp_path))
    assert f"ROOT {root}: {expected}" in line
    assert listing(tmp_path) == ["a-file", "empty"]


def test_a_run_folder_taken_by_a_file_is_one_line(tmp_path: Path) -> None:
    """--out is checked before the work; the run folder inside it, named by the
    prediction, only once it is known: a file there is still one line, never exit 3."""
    assert cli("predict", SCENARIO, *SYNTHETIC, "--out", "first", cwd=tmp_path).returncode == 0
    [name] = [p.name for p in (tmp_path / "first").iterdir()]  # the prediction's folder name (an ad-hoc load's label)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / name).write_text("in the way")
    line = one_line(cli("predict", SCENARIO, *SYNTHETIC, "--out", "p", cwd=tmp_path))
    assert f"--out p/{name}: is a file, not a folder" in line


def test_a_file_the_system_refuses_mid_write_is_named_not_a_bug(tmp_path: Path) -> None:
    """Past the checks, an OSError with a file name (here a folder where summary.md goes)
    is that file and the system's reason: exit 1, not an internal error."""
    assert cli("predict", SCENARIO, *SYNTHETIC, "--out", "runs", cwd=tmp_path).returncode == 0
    (tmp_path / "sums" / "summary.md").mkdir(parents=True)
    line = one_line(cli("summarize", "--in", "runs", "--out", "sums", cwd=tmp_path), code=1)
    assert line == "error: sums/summary.md: cannot be used: Is a directory"


def test_a_symlink_loop_is_named_as_one(tmp_path: Path) -> None:
    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop.yaml")
    proc = cli("validate", "loop.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert "loop.yaml: (document): error: is a symlink loop, not a regular file" in proc.stderr
    assert "no such file" not in proc.stderr


@pytest.fixture
def odd_folder(tmp_path: Path) -> Path:
    """A folder holding one predicted run and every kind of path a walk skips."""
    runs = tmp_path / "runs"
    assert cli("predict", SCENARIO, *SYNTHETIC, "--out", "runs", cwd=tmp_path).returncode == 0
    os.mkfifo(runs / "pipe.json")
    (runs / "loop.json").symlink_to(runs / "loop.json")
    (runs / "gone.json").symlink_to(runs / "missing-target.json")
    (tmp_path / "elsewhere").mkdir()
    (runs / "linked").symlink_to(tmp_path / "elsewhere")
    return runs


SKIPPED = {
    "pipe.json": "is a FIFO (named pipe), not a regular file",
    "loop.json": "is a symlink loop, not a regular file",
    "gone.json": "is a broken symlink",
    "linked": "is a symlink to a folder, not followed",
}


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "runs"],
        ["summarize", "--in", "runs", "--out", "sums"],
        ["report", "--in", "runs", "--out", "site"],
        ["regress", "--baseline", "runs", "--results", "runs"],
    ],
    ids=["validate", "summarize", "report", "regress"],
)
def test_a_folder_walk_names_every_path_it_skipped(odd_folder: Path, args: list[str]) -> None:
    proc = cli(*args, cwd=odd_folder.parent)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr  # the run is used; the odd paths are said, not fatal
    said = proc.stdout + proc.stderr
    for name, why in SKIPPED.items():
        assert f"runs/{name}" in said and why in said, (name, said)


@pytest.mark.parametrize(
    ("harness", "name"),
    [("vllm", "result.json"), ("aiperf", "profile_export_aiperf.json"), ("inference-perf", "stage_0_lifecycle_metrics.json")],
)
@pytest.mark.parametrize("odd", ["fifo", "loop"])
def test_import_names_an_export_in_its_folder_it_cannot_read(tmp_path: Path, harness: str, name: str, odd: str) -> None:
    export = tmp_path / "export"
    export.mkdir()
    if odd == "fifo":
        os.mkfifo(export / name)
    else:
        (export / name).symlink_to(export / name)
    line = one_line(cli("import", harness, "export", "--scenario", "tiny-llama-on-cpu", cwd=tmp_path), code=1)
    assert f"export/{name}: is {'a FIFO' if odd == 'fifo' else 'a symlink loop'}" in line and "not a regular file" in line
