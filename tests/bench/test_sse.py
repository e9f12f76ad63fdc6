"""SseParser: plain bytes in, ``data`` payloads out (shared/STYLE.md item 3).

The transcripts are real llama.cpp responses (tests/bench/engine/fixtures/README.md);
everything else is a plain string written here.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.bench.sse import SseEvent, SseLimitError, SseParser

LLAMACPP = Path(__file__).parent / "engine" / "fixtures"
CHAT = (LLAMACPP / "llamacpp_chat_stream.txt").read_bytes()
COMPLETIONS = (LLAMACPP / "llamacpp_completions_stream.txt").read_bytes()


def parse_whole(raw: bytes) -> list[SseEvent]:
    p = SseParser()
    return p.feed(raw) + p.close()


def parse_pieces(pieces: list[bytes]) -> list[SseEvent]:
    p = SseParser()
    out: list[SseEvent] = []
    for piece in pieces:
        out += p.feed(piece)
    return out + p.close()


def split_at(raw: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(raw) + 1) for c in cuts})
    bounds = [0, *points, len(raw)]
    return [raw[a:b] for a, b in itertools.pairwise(bounds)]


# ---- the real transcripts -----------------------------------------------------


def test_chat_transcript_has_one_event_per_data_line() -> None:
    events = parse_whole(CHAT)
    # role-only delta + 16 token deltas + finish_reason delta + usage chunk + [DONE]
    assert len(events) == 20
    assert events[0].data.startswith('{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant"')
    assert events[1].data.startswith('{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"eng"}}]')
    assert events[-1] == SseEvent("[DONE]", None)
    assert all(e.event is None for e in events)  # llama.cpp sends no event: lines


def test_completions_transcript_has_one_event_per_data_line() -> None:
    events = parse_whole(COMPLETIONS)
    # 16 token events + the finish/usage event + [DONE]
    assert len(events) == 18
    assert events[-1].data == "[DONE]"
    assert '"usage":{"completion_tokens":16,"prompt_tokens":12' in events[-2].data


def test_feeding_whole_needs_no_close() -> None:
    p = SseParser()
    assert len(p.feed(CHAT)) == 20
    assert p.close() == []


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_chat_transcript_split_anywhere_gives_the_same_events(cuts: list[int]) -> None:
    assert parse_pieces(split_at(CHAT, cuts)) == parse_whole(CHAT)


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_completions_transcript_split_anywhere_gives_the_same_events(cuts: list[int]) -> None:
    assert parse_pieces(split_at(COMPLETIONS, cuts)) == parse_whole(COMPLETIONS)


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40), ending=st.sampled_from([b"\r\n", b"\r"]))
def test_transcript_with_crlf_or_cr_endings_split_anywhere(cuts: list[int], ending: bytes) -> None:
    raw = CHAT.replace(b"\n", ending)
    assert parse_pieces(split_at(raw, cuts)) == parse_whole(CHAT)


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=20))
def test_multibyte_utf8_split_inside_a_character(cuts: list[int]) -> None:
    raw = 'data: {"content":"héllo — 世界 🚀"}\n\ndata: [DONE]\n\n'.encode()
    assert parse_pieces(split_at(raw, cuts)) == [SseEvent('{"content":"héllo — 世界 🚀"}'), SseEvent("[DONE]")]


def test_one_byte_at_a_time() -> None:
    assert parse_pieces([bytes([b]) for b in CHAT]) == parse_whole(CHAT)


# ---- line endings ---------------------------------------------------------------


def test_crlf_line_endings() -> None:
    assert parse_whole(b"data: a\r\n\r\ndata: b\r\n\r\n") == [SseEvent("a"), SseEvent("b")]


def test_cr_only_line_endings() -> None:
    assert parse_whole(b"data: a\r\rdata: b\r\r") == [SseEvent("a"), SseEvent("b")]


def test_cr_at_chunk_boundary_then_lf_is_one_line_ending() -> None:
    p = SseParser()
    assert p.feed(b"data: a\r") == []
    # the \n completes the \r\n of the data line; the blank line comes next
    assert p.feed(b"\n") == []
    assert p.feed(b"\r\n") == [SseEvent("a")]
    assert p.close() == []


def test_cr_at_chunk_boundary_then_cr_is_a_blank_line() -> None:
    p = SseParser()
    assert p.feed(b"data: a\r") == []
    assert p.feed(b"\rdata: b\r") == [SseEvent("a")]
    assert p.feed(b"\r") == []
    assert p.close() == [SseEvent("b")]


def test_mixed_line_endings_in_one_stream() -> None:
    assert parse_whole(b"data: a\r\n\ndata: b\r\rdata: c\n\r\n") == [SseEvent("a"), SseEvent("b"), SseEvent("c")]


# ---- fields -----------------------------------------------------------------------


def test_comments_and_keepalives_are_skipped() -> None:
    raw = b": ping\n\ndata: a\n: keep-alive in the middle\ndata: b\n\n:\n\n"
    assert parse_whole(raw) == [SseEvent("a\nb")]


def test_keepalive_only_stream_has_no_events() -> None:
    assert parse_whole(b": ping\n\n: ping\n\n") == []


def test_multi_line_data_is_joined_with_newlines() -> None:
    assert parse_whole(b"data: line one\ndata: line two\ndata: line three\n\n") == [SseEvent("line one\nline two\nline three")]


def test_one_space_after_the_colon_is_stripped_and_no_more() -> None:
    assert parse_whole(b"data:x\n\ndata:  two spaces\n\n") == [SseEvent("x"), SseEvent(" two spaces")]


def test_event_error_is_kept_with_its_data() -> None:
    raw = b'event: error\ndata: {"error":{"message":"boom","code":500}}\n\ndata: next\n\n'
    assert parse_whole(raw) == [
        SseEvent('{"error":{"message":"boom","code":500}}', "error"),
        SseEvent("next", None),  # the event name does not leak into the next event
    ]


def test_event_name_without_data_dispatches_nothing_and_is_forgotten() -> None:
    assert parse_whole(b"event: error\n\ndata: x\n\n") == [SseEvent("x", None)]


def test_id_and_retry_fields_are_ignored() -> None:
    assert parse_whole(b"id: 7\nretry: 1000\ndata: x\n\n") == [SseEvent("x")]


def test_several_events_in_one_chunk() -> None:
    p = SseParser()
    assert p.feed(b"data: 1\n\ndata: 2\n\ndata: 3\n\n") == [SseEvent("1"), SseEvent("2"), SseEvent("3")]


# ---- end of stream ------------------------------------------------------------------


def test_final_event_without_trailing_blank_line_is_returned_by_close() -> None:
    p = SseParser()
    assert p.feed(b'data: {"a":1}\n\ndata: {"b":2}') == [SseEvent('{"a":1}')]
    assert p.close() == [SseEvent('{"b":2}')]


def test_final_event_with_one_newline_is_returned_by_close() -> None:
    p = SseParser()
    assert p.feed(b"data: last\n") == []
    assert p.close() == [SseEvent("last")]


def test_close_twice_returns_nothing_more() -> None:
    p = SseParser()
    p.feed(b"data: x")
    assert p.close() == [SseEvent("x")]
    assert p.close() == []


def test_empty_input() -> None:
    p = SseParser()
    assert p.feed(b"") == []
    assert p.close() == []


@pytest.mark.parametrize("chunk", [b"\n", b"\n\n\n", b"\r\n\r\n"])
def test_blank_lines_only(chunk: bytes) -> None:
    assert parse_whole(chunk) == []


# ---- limits (issue 13): nothing a server sends grows the parser without bound ---------------


def test_an_empty_data_field_is_an_event_with_empty_data() -> None:
    # The SSE spec: "data:" alone appends an empty line to the data buffer; the event is dispatched.
    assert parse_whole(b"data:\n\n") == [SseEvent("")]
    assert parse_whole(b"data: a\n\ndata:\n\ndata: b\n\n") == [SseEvent("a"), SseEvent(""), SseEvent("b")]


def test_a_line_past_the_limit_is_refused() -> None:
    p = SseParser(max_line_bytes=1000)
    p.feed(b"data: " + b"x" * 900)
    with pytest.raises(SseLimitError, match="SERVESCOPE_MAX_SSE_LINE_BYTES"):
        p.feed(b"x" * 200)


def test_data_lines_without_the_blank_line_are_refused_past_the_event_limit() -> None:
    p = SseParser(max_event_bytes=1000)
    with pytest.raises(SseLimitError, match="SERVESCOPE_MAX_SSE_EVENT_BYTES"):
        for _ in range(100):
            p.feed(b"data: " + b"y" * 50 + b"\n")


def test_events_under_the_limits_pass_however_many() -> None:
    p = SseParser(max_line_bytes=200, max_event_bytes=200)
    events = []
    for _ in range(1000):
        events += p.feed(b"data: " + b"z" * 100 + b"\n\n")
    assert len(events) == 1000


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=30))
def test_any_bytes_either_parse_or_hit_a_limit_and_the_buffer_stays_bounded(pieces: list[bytes]) -> None:
    p = SseParser(max_line_bytes=512, max_event_bytes=512)
    try:
        for piece in pieces:
            for event in p.feed(piece):
                assert isinstance(event.data, str)
            assert len(p._buf) <= 512  # noqa: SLF001 - the bound is the point of the test
        p.close()
    except SseLimitError:
        pass
