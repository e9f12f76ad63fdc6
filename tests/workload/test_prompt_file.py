"""Prompt files: JSONL of prompt or messages, ShareGPT's first human turn, one line for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servescope.errors import UsageError
from servescope.workload.adhoc_plan import plan_load
from servescope.workload.load_build import LoadRequest, build_load
from servescope.workload.prompt_file import read_prompt_file


def test_jsonl_prompts_and_messages(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    path.write_text(json.dumps({"prompt": "Say hi", "max_tokens": 7}) + "\n\n" + json.dumps({"messages": chat}) + "\n", encoding="utf-8")
    pf = read_prompt_file(path)
    assert pf.format == "jsonl" and [p.max_tokens for p in pf.prompts] == [7, None]
    assert pf.prompts[1].messages == tuple(chat)
    resolved = build_load(LoadRequest(input_file=path, osl=12, concurrency=[2]))
    [point] = plan_load(resolved)
    assert [(r.prompt, r.max_tokens, r.messages) for r in point.requests] == [("Say hi", 7, None), ("Be brief.\nHi", 12, tuple(chat))]
    with pytest.raises(UsageError, match="prompt 2 has no max_tokens; give --osl M"):
        build_load(LoadRequest(input_file=path, concurrency=[2]))


def test_sharegpt_first_human_turn_is_the_prompt(tmp_path: Path) -> None:
    path = tmp_path / "sg.json"
    data = [
        {
            "conversations": [
                {"from": "system", "value": "sys"},
                {"from": "human", "value": "first"},
                {"from": "gpt", "value": "a"},
                {"from": "human", "value": "second"},
            ]
        },
        {"conversations": [{"from": "gpt", "value": "no human here"}]},
        {"conversations": [{"from": "human", "value": "third"}]},
    ]
    path.write_text(json.dumps(data), encoding="utf-8")
    pf = read_prompt_file(path)
    assert pf.format == "sharegpt" and [p.prompt for p in pf.prompts] == ["first", "third"] and pf.skipped == 1
    load = build_load(LoadRequest(input_file=path, osl=16, rate=2.0)).load
    assert load.prompts is not None and load.prompts.skipped == 1 and load.label.startswith("adhoc-")


def test_sharegpt_without_a_human_turn_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sg.json"
    path.write_text(json.dumps([{"conversations": [{"from": "gpt", "value": "x"}]}]), encoding="utf-8")
    with pytest.raises(UsageError, match=r"no conversation has a human turn") as info:
        read_prompt_file(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('{"prompt": "a", "messages": []}', "line 1: give exactly one of prompt"),
        ('{"text": "a"}', "line 1: field 'text' is not read"),
        # a trace given as a prompt file: say which option reads it
        (
            '{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [0]}',
            "is not read; a line has prompt or messages, and optional max_tokens (this line looks like a trace: give the file with --trace)",
        ),
        ('{"prompt": ""}', "line 1: prompt: give non-empty text"),
        ('{"prompt": "a", "max_tokens": 0}', "line 1: max_tokens 0"),
        ('{"messages": [{"role": "wizard", "content": "x"}]}', "line 1: messages[0]"),
        ("not json", "line 1: not JSON"),
        ('{"prompt": "a", "max_tokens": true}', "line 1: max_tokens true: give a whole number"),
        # a chat without a user turn is not a request to answer
        ('{"messages": [{"role": "assistant", "content": "hi"}]}', "line 1: messages has no user turn (only assistant)"),
        (
            '{"messages": [{"role": "system", "content": "s"}, {"role": "assistant", "content": "a"}]}',
            "line 1: messages has no user turn (only system, assistant)",
        ),
        ('{"prompt": "a", "prompt": "b"}', 'line 1: field "prompt" is given twice'),
        ('{"prompt": "  "}', "line 1: prompt: give non-empty text"),
        ('{"messages": [{"role": "user", "content": " "}]}', "line 1: messages: every user turn is empty"),
        # the real mistake named: one ShareGPT conversation not in a list (on one line, or spread over lines)
        (
            '{"conversations": [{"from": "human", "value": "Hi"}]}',
            "line 1: a ShareGPT conversation; a ShareGPT file is a JSON list of conversations: wrap them in [ ]",
        ),
        (
            '{\n  "conversations": [{"from": "human", "value": "Hi"}]\n}',
            "a ShareGPT conversation; a ShareGPT file is a JSON list of conversations: wrap it in [ ]",
        ),
        ('{\n  "prompt": "Hi"\n}', "one JSON object over several lines; JSONL has one object a line"),
        # a JSON array of prompt objects is read as ShareGPT: say so rather than ask for conversations
        ('[{"prompt": "array"}]', "a JSON array of prompt objects; give them as JSONL, one object a line"),
    ],
)
def test_bad_jsonl_line_is_one_line(tmp_path: Path, line: str, words: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(UsageError) as info:
        read_prompt_file(path)
    assert words in str(info.value) and str(path) in str(info.value)


@pytest.mark.parametrize("written", ["10", "10.0", "1e1"])
def test_max_tokens_is_a_whole_number_by_the_trace_readers_rule(tmp_path: Path, written: str) -> None:
    """A trace took input_length 60.0 and 1e2; a prompt file refused max_tokens 10.0. One rule for both."""
    path = tmp_path / "p.jsonl"
    path.write_text('{"prompt": "a", "max_tokens": ' + written + "}\n", encoding="utf-8")
    [prompt] = read_prompt_file(path).prompts
    assert prompt.max_tokens == 10 and type(prompt.max_tokens) is int
    path.write_text('{"prompt": "a", "max_tokens": 10.5}\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"line 1: max_tokens 10.5: give a whole number of tokens"):
        read_prompt_file(path)


def test_more_requests_than_prompts_sends_them_again_in_order(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"prompt": f"p{i}", "max_tokens": 2}) + "\n" for i in range(3)), encoding="utf-8")
    [point] = plan_load(build_load(LoadRequest(input_file=path, num_requests=7, concurrency=[1])))
    assert [r.prompt for r in point.requests] == ["p0", "p1", "p2", "p0", "p1", "p2", "p0"]
    assert [r.prompt_id for r in point.requests][:4] == ["file-00000", "file-00001", "file-00002", "file-00000"]


@pytest.mark.parametrize("sharegpt", [False, True])
def test_a_file_past_the_cap_is_refused_without_num_requests_never_cut_unsaid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sharegpt: bool) -> None:
    from servescope.workload import prompt_file

    monkeypatch.setattr(prompt_file, "MAX_FILE_PROMPTS", 3)
    path = tmp_path / ("p.json" if sharegpt else "p.jsonl")
    if sharegpt:
        path.write_text(json.dumps([{"conversations": [{"from": "human", "value": f"q{i}"}]} for i in range(4)]), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps({"prompt": f"q{i}"}) + "\n\n" for i in range(4)), encoding="utf-8")
    with pytest.raises(UsageError, match=r"more than 3 prompts; give --num-requests N") as info:
        read_prompt_file(path)
    assert "\n" not in str(info.value)
    assert [p.prompt for p in read_prompt_file(path, 2).prompts] == ["q0", "q1"]  # --num-requests: the first N, as asked
    if not sharegpt:  # exactly the cap, then blank lines only: read whole
        path.write_text("".join(json.dumps({"prompt": f"q{i}"}) + "\n\n" for i in range(3)), encoding="utf-8")
        assert len(read_prompt_file(path).prompts) == 3


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'{"prompt": "ok"}\n{"prompt": "caf\xe9"}\n', "line 2: not UTF-8 (byte 0xe9 at column 16); save the file as UTF-8"),
        (
            b'[{"conversations": [{"from": "human", "value": "Hi"}]},\n {"conversations": [{"from": "human", "value": "\xff"}]}]',
            "not UTF-8 (byte 0xff at line 2, column 49)",
        ),
    ],
    ids=["jsonl", "sharegpt"],
)
def test_invalid_utf8_is_reported_as_such_with_where(tmp_path: Path, data: bytes, words: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(data)
    with pytest.raises(UsageError) as info:
        read_prompt_file(path)
    assert str(info.value).startswith(f"--input-file {path}: ") and words in str(info.value) and "not JSON" not in str(info.value)


def test_a_sharegpt_object_with_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('[{"conversations": [{"from": "human", "value": "a", "value": "b"}]}]', encoding="utf-8")
    with pytest.raises(UsageError, match='field "value" is given twice in one object'):
        read_prompt_file(path)
