"""parse_chunk: one SSE data payload in, plain values out; then the real llama.cpp
streams end to end through SseParser + parse_chunk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servescope.bench.openai_stream import ChunkInfo, parse_chunk
from servescope.bench.sse import SseParser

LLAMACPP = Path(__file__).parent / "engine" / "fixtures"


# ---- chat -------------------------------------------------------------------------


def test_chat_content_delta() -> None:
    info = parse_chunk('{"choices":[{"index":0,"delta":{"content":" world"},"finish_reason":null}]}')
    assert info == ChunkInfo(content=" world")


def test_role_only_first_delta_carries_no_token() -> None:
    # llama.cpp sends content null, vLLM sends content ""
    for data in (
        '{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}]}',
        '{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
    ):
        info = parse_chunk(data)
        assert info.content == "" and info.reasoning == ""
        assert info.finish_reason is None and info.error is None and not info.done


def test_finish_reason_with_empty_delta() -> None:
    info = parse_chunk('{"choices":[{"finish_reason":"length","index":0,"delta":{}}]}')
    assert info.finish_reason == "length"
    assert info.content == ""


def test_reasoning_content_delta() -> None:
    info = parse_chunk('{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}')
    assert (info.content, info.reasoning) == ("", "think")


def test_reasoning_delta_newer_field_name() -> None:
    info = parse_chunk('{"choices":[{"index":0,"delta":{"reasoning":"hmm","content":null}}]}')
    assert (info.content, info.reasoning) == ("", "hmm")


def test_content_and_reasoning_in_one_delta() -> None:
    info = parse_chunk('{"choices":[{"index":0,"delta":{"content":"a","reasoning_content":"b"}}]}')
    assert (info.content, info.reasoning) == ("a", "b")


# ---- completions ----------------------------------------------------------------------


def test_completions_text() -> None:
    info = parse_chunk('{"choices":[{"text":"ow","index":0,"logprobs":null,"finish_reason":null}],"object":"text_completion"}')
    assert info.content == "ow"
    assert info.finish_reason is None


def test_completions_last_event_carries_finish_usage_and_timings() -> None:
    data = (
        '{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],'
        '"usage":{"completion_tokens":16,"prompt_tokens":12,"total_tokens":28},"timings":{"predicted_n":16}}'
    )
    info = parse_chunk(data)
    assert info.content == ""
    assert info.finish_reason == "length"
    assert info.usage == {"completion_tokens": 16, "prompt_tokens": 12, "total_tokens": 28}
    assert info.timings == {"predicted_n": 16}


# ---- usage, timings, [DONE] ----------------------------------------------------------


def test_final_usage_chunk_with_empty_choices() -> None:
    data = '{"choices":[],"usage":{"completion_tokens":7,"prompt_tokens":3,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":2}}}'
    info = parse_chunk(data)
    assert info.usage is not None and info.usage["completion_tokens"] == 7
    assert info.usage["prompt_tokens_details"] == {"cached_tokens": 2}
    assert info.content == "" and info.finish_reason is None and info.error is None


def test_usage_null_in_ordinary_chunks_is_not_usage() -> None:
    info = parse_chunk('{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":null}')
    assert info.usage is None
    assert info.content == "x"


def test_llamacpp_timings_object() -> None:
    info = parse_chunk('{"choices":[],"timings":{"prompt_n":20,"prompt_ms":4.885,"predicted_n":16,"predicted_ms":24.971}}')
    assert info.timings == {"prompt_n": 20, "prompt_ms": 4.885, "predicted_n": 16, "predicted_ms": 24.971}


@pytest.mark.parametrize("data", ["[DONE]", " [DONE] ", "[DONE]\n"])
def test_done(data: str) -> None:
    assert parse_chunk(data) == ChunkInfo(done=True)


# ---- errors -------------------------------------------------------------------------------


def test_mid_stream_error_dict_with_code() -> None:
    info = parse_chunk('{"error":{"message":"CUDA out of memory","type":"server_error","code":500}}')
    assert (info.error, info.error_code) == ("CUDA out of memory", 500)
    assert not info.done and info.content == ""


def test_mid_stream_error_dict_without_message_uses_type() -> None:
    info = parse_chunk('{"error":{"type":"exceed_context_size_error","code":400}}')
    assert (info.error, info.error_code) == ("exceed_context_size_error", 400)


def test_mid_stream_error_dict_with_string_code_has_no_numeric_code() -> None:
    info = parse_chunk('{"error":{"message":"slow down","code":"rate_limit_exceeded"}}')
    assert (info.error, info.error_code) == ("slow down", None)


def test_mid_stream_error_dict_without_message_or_type_keeps_the_json() -> None:
    info = parse_chunk('{"error":{"code":503}}')
    assert info.error is not None and json.loads(info.error) == {"code": 503}
    assert info.error_code == 503


def test_mid_stream_error_string_form() -> None:
    info = parse_chunk('{"error":"the engine died"}')
    assert (info.error, info.error_code) == ("the engine died", None)


def test_error_wins_over_choices_in_the_same_chunk() -> None:
    info = parse_chunk('{"error":"bad","choices":[{"delta":{"content":"x"}}]}')
    assert info.error == "bad" and info.content == ""


def test_empty_error_field_is_not_an_error() -> None:
    info = parse_chunk('{"error":null,"choices":[{"index":0,"delta":{"content":"x"}}]}')
    assert info.error is None and info.content == "x"


@pytest.mark.parametrize("data", ['{"choices":[{"delta":{"content":"x"', "not json at all", "{'single': 'quotes'}"])
def test_malformed_json_is_an_error_not_an_exception(data: str) -> None:
    info = parse_chunk(data)
    assert info.error is not None and info.error.startswith("malformed stream chunk")
    assert info.content == "" and not info.done


@pytest.mark.parametrize("data", ["[1, 2]", "42", '"a string"', "null"])
def test_json_that_is_not_an_object_is_an_error(data: str) -> None:
    assert parse_chunk(data).error is not None


def test_long_malformed_chunk_is_cut_in_the_message() -> None:
    info = parse_chunk("x" * 10_000)
    assert info.error is not None and len(info.error) < 200


def test_choice_that_is_not_an_object_is_ignored() -> None:
    assert parse_chunk('{"choices":["oops"]}') == ChunkInfo()


# ---- real streams end to end -----------------------------------------------------


def run_stream(raw: bytes) -> list[ChunkInfo]:
    parser = SseParser()
    events = parser.feed(raw) + parser.close()
    return [parse_chunk(e.data) for e in events]


def test_llamacpp_chat_stream_end_to_end() -> None:
    infos = run_stream((LLAMACPP / "llamacpp_chat_stream.txt").read_bytes())
    tokens = [i.content for i in infos if i.content]
    assert tokens == [
        "eng", "less", "ese", " docum", " way", "board", " year", "oes",
        " pocket", "ue", " another", "here", "y", " steadily", " beh", "alk",
    ]  # fmt: skip
    assert infos[0].content == ""  # the role-only delta is not a token
    assert [i.finish_reason for i in infos if i.finish_reason] == ["length"]
    usages = [i.usage for i in infos if i.usage is not None]
    assert usages == [{"completion_tokens": 16, "prompt_tokens": 20, "total_tokens": 36, "prompt_tokens_details": {"cached_tokens": 0}}]
    timings = [i.timings for i in infos if i.timings is not None]
    assert len(timings) == 1
    assert (timings[0]["prompt_n"], timings[0]["predicted_n"], timings[0]["cache_n"]) == (20, 16, 0)
    assert timings[0]["predicted_ms"] == 24.971
    assert [i.done for i in infos].count(True) == 1 and infos[-1].done
    assert all(i.error is None for i in infos)


def test_llamacpp_completions_stream_end_to_end() -> None:
    infos = run_stream((LLAMACPP / "llamacpp_completions_stream.txt").read_bytes())
    tokens = [i.content for i in infos if i.content]
    assert tokens == [
        "ow", "an", "erely", " window", " dri", " tri", "value", "ches",
        "value", " Patience", "arents", " sending", " words", " usually", "ousand", "ning",
    ]  # fmt: skip
    last = infos[-2]  # finish_reason, usage and timings arrive in one event
    assert last.content == "" and last.finish_reason == "length"
    assert last.usage == {"completion_tokens": 16, "prompt_tokens": 12, "total_tokens": 28, "prompt_tokens_details": {"cached_tokens": 0}}
    assert last.timings is not None and (last.timings["prompt_n"], last.timings["predicted_n"]) == (12, 16)
    assert infos[-1].done
    assert all(i.error is None for i in infos)


def test_llamacpp_context_overflow_body_parses_as_error_with_code() -> None:
    # the refusal is plain JSON (not SSE), but a server that sends it as a data: event
    # mid-stream must produce the same error
    body = (LLAMACPP / "llamacpp_context_overflow.txt").read_text()
    info = parse_chunk(body)
    assert info.error == "request (1111 tokens) exceeds the available context size (1024 tokens), try increasing it"
    assert info.error_code == 400


@pytest.mark.parametrize("data", ["", " ", "\n"])
def test_an_empty_payload_is_an_empty_chunk_not_an_error(data: str) -> None:
    # issue 12, bug 3: "data:" alone is an event with empty data (SSE spec), e.g. a keep-alive
    assert parse_chunk(data) == ChunkInfo()


def test_tool_call_deltas_are_parsed_and_reassembled() -> None:
    from servescope.bench.client import _merge_tool_calls

    first = parse_chunk(
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\\"ci"}}]}}]}'
    )
    second = parse_chunk('{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\\": \\"Oslo\\"}"}}]}}]}')
    calls: dict = {}
    for info in (first, second):
        assert info.tool_calls
        _merge_tool_calls(calls, info.tool_calls)
    assert calls[0]["function"] == {"name": "get_weather", "arguments": '{"city": "Oslo"}'} and calls[0]["id"] == "c1"
