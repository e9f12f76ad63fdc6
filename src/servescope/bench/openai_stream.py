"""What one OpenAI-compatible streaming chunk says, as plain values.

Handles chat (``choices[0].delta.content``) and completions
(``choices[0].text``), reasoning deltas (``reasoning_content`` / ``reasoning``),
the final usage chunk (``stream_options.include_usage``; its ``choices`` is
empty), llama.cpp's extra ``timings`` object, and mid-stream error events
(``data: {"error": ...}``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class ChunkInfo:
    content: str = ""
    reasoning: str = ""
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    timings: dict[str, Any] | None = None
    error: str | None = None
    error_code: int | None = None
    done: bool = False
    tool_calls: list[dict[str, Any]] | None = None  # delta.tool_calls fragments, as sent


def _error_text(err: Any) -> tuple[str, int | None]:
    if isinstance(err, dict):
        code = err.get("code")
        msg = err.get("message") or err.get("type") or json.dumps(err)
        return str(msg), code if isinstance(code, int) else None
    return str(err), None


def parse_chunk(data: str) -> ChunkInfo:
    """Parse one SSE ``data`` payload; never raises (bad JSON → error).

    An empty payload (a bare ``data:`` line, which the SSE spec makes an event with
    empty data) says nothing: an empty chunk, not an error."""
    stripped = data.strip()
    if not stripped:
        return ChunkInfo()
    if stripped == "[DONE]":
        return ChunkInfo(done=True)
    try:
        obj = json.loads(data)
    except json.JSONDecodeError:
        return ChunkInfo(error=f"malformed stream chunk: {data[:80]!r}")
    if not isinstance(obj, dict):
        return ChunkInfo(error=f"malformed stream chunk: {data[:80]!r}")
    info = ChunkInfo()
    if obj.get("error"):
        info.error, info.error_code = _error_text(obj["error"])
        return info
    usage = obj.get("usage")
    if isinstance(usage, dict):
        info.usage = usage
    timings = obj.get("timings")
    if isinstance(timings, dict):
        info.timings = timings
    choices = obj.get("choices")
    if isinstance(choices, list) and choices:
        choice = choices[0] if isinstance(choices[0], dict) else {}
        delta = choice.get("delta")
        if isinstance(delta, dict):
            content = delta.get("content")
            if isinstance(content, str):
                info.content = content
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str):
                info.reasoning = reasoning
            calls = delta.get("tool_calls")
            if isinstance(calls, list) and calls:
                info.tool_calls = [c for c in calls if isinstance(c, dict)]
        else:
            text = choice.get("text")
            if isinstance(text, str):
                info.content = text
        fr = choice.get("finish_reason")
        if isinstance(fr, str):
            info.finish_reason = fr
    return info
