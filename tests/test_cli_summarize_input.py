"""summarize given what is no Result: each such file named in one line, and nothing to summarize is
bad input (exit 2, as every other command's), never exit 1."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli_hostile import SCENARIO, SYNTHETIC, cli

LEFT_OUT = "not a Result: left out (--in takes result.json files, run folders and runs' records.jsonl)"


def test_a_missing_path_alone_is_bad_input(tmp_path: Path) -> None:
    proc = cli("summarize", "--in", "nonexist", "--out", "sums", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == ["nonexist: no such file or folder", "error: no Result found in the given paths (--in takes result.json files, "
                                        "run folders and runs' records.jsonl)"]  # fmt: skip


def test_each_given_file_that_is_no_result_is_named(tmp_path: Path) -> None:
    (tmp_path / "trace.jsonl").write_text('{"timestamp": 0, "input_length": 10, "output_length": 4}\n', encoding="utf-8")
    assert cli("predict", SCENARIO, *SYNTHETIC, "--out", "preds", cwd=tmp_path).returncode == 0
    [prediction] = (tmp_path / "preds").glob("*/prediction.json")
    given = str(prediction.relative_to(tmp_path))
    proc = cli("summarize", "--in", "trace.jsonl", "--in", given, "--out", "sums", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"trace.jsonl: is not a servescope document, {LEFT_OUT}" in proc.stderr.splitlines()
    assert f"{given}: is a Prediction, {LEFT_OUT}" in proc.stderr.splitlines()
    # beside a Result: the Result is summarized and the other file still named
    proc = cli("summarize", "--in", "trace.jsonl", "--in", "preds", "--out", "sums", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [f"trace.jsonl: is not a servescope document, {LEFT_OUT}"]
    assert "1 result(s) in 1 group(s)" in proc.stdout
