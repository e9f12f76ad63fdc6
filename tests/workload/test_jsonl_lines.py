"""The one JSONL reader behind prompt files and traces: bounded, each line named, and
the same framing rules (byte order mark, CRLF, blank lines) for both."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from servescope.errors import UsageError
from servescope.workload.jsonl_lines import jsonl_values
from servescope.workload.prompt_file import read_prompt_file
from servescope.workload.trace import read_trace

MESSAGES = {"too_long": "too long", "not_json": "not JSON"}


def _values(path: Path, cap: int = 10, beyond_cap: str | None = None) -> list[tuple[str, Any]]:
    return list(jsonl_values(path, "--in", hashlib.sha256(), cap=cap, max_line_bytes=64, beyond_cap=beyond_cap, **MESSAGES))


def test_blank_lines_are_skipped_but_counted_in_where(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n\n   \r\n[2]\n')
    assert _values(path) == [(f"--in {path}: line 1", {"a": 1}), (f"--in {path}: line 4", [2])]


def test_a_bad_or_long_line_is_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"1\n{oops\n")
    with pytest.raises(UsageError, match=rf"^--in {path}: line 2: not JSON$"):
        _values(path)
    path.write_bytes(b"1\n" + b"9" * 100 + b"\n")
    with pytest.raises(UsageError, match=rf"^--in {path}: line 2: too long$"):
        _values(path)


def test_reading_stops_at_the_cap_and_says_so_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"1\n2\n{not json: never parsed past the cap\n")
    assert [v for _, v in _values(path, cap=2)] == [1, 2]
    with pytest.raises(UsageError, match=rf"^--in {path}: more than 2$"):
        _values(path, cap=2, beyond_cap="more than 2")
    path.write_bytes(b"1\n2\n\n")  # only a blank line after the cap: nothing was left out
    assert [v for _, v in _values(path, cap=2, beyond_cap="more than 2")] == [1, 2]


READERS: list[tuple[Callable[[Path], Any], dict[str, Any]]] = [
    (read_prompt_file, {"prompt": "hello"}),
    (read_trace, {"timestamp": 0, "input_length": 10, "output_length": 5}),
]


@pytest.mark.parametrize(("read", "line"), READERS, ids=["prompt_file", "trace"])
def test_bom_and_crlf_do_not_change_what_is_read_or_its_sha256(tmp_path: Path, read: Callable[[Path], Any], line: dict[str, Any]) -> None:
    text = json.dumps(line).encode()
    plain, windows = tmp_path / "plain.jsonl", tmp_path / "windows.jsonl"
    plain.write_bytes(text + b"\n" + text + b"\n")
    windows.write_bytes(b"\xef\xbb\xbf" + text + b"\r\n\r\n" + text + b"\r\n")
    assert read(windows).sha256 == read(plain).sha256 == hashlib.sha256(text + b"\n" + text + b"\n").hexdigest()


@pytest.mark.parametrize(("read", "flag"), [(read_prompt_file, "--input-file"), (read_trace, "--trace")], ids=["prompt_file", "trace"])
def test_a_missing_file_or_a_folder_is_one_line_naming_the_flag(tmp_path: Path, read: Callable[[Path], Any], flag: str) -> None:
    with pytest.raises(UsageError, match=rf"^{flag} {tmp_path / 'absent.jsonl'}: no such file$"):
        read(tmp_path / "absent.jsonl")
    with pytest.raises(UsageError, match=rf"^{flag} {tmp_path}: a folder, not a file$"):
        read(tmp_path)
