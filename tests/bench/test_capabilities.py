"""capabilities.py: what llama.cpp's /props says, which rows need what (pure: no sockets).
The /props answers below are the fields this repo's llama.cpp build returns (the tiny
model's template, and SmolLM2 with servescope's tools template)."""

from __future__ import annotations

import pytest

from servescope.bench.capabilities import Capabilities, from_props, has_images, unsupported_notice, unsupported_reason
from servescope.documents.dataset import DatasetRow

NO_TOOLS_PROPS = {"chat_template_caps": {"supports_tools": False, "supports_tool_calls": False}, "modalities": {"vision": False, "audio": False}}
TOOLS_PROPS = {"chat_template_caps": {"supports_tools": True, "supports_tool_calls": True}, "modalities": {"vision": False}}
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
IMAGE = [{"type": "text", "text": "What colour?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]


def r(tools: bool = False, image: bool = False) -> DatasetRow:
    messages = [{"role": "user", "content": IMAGE if image else "hi"}]
    return DatasetRow(id="x", text="hi", tools=[TOOL] if tools else None, messages=messages)


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        (NO_TOOLS_PROPS, Capabilities(False, False, "GET /props")),
        (TOOLS_PROPS, Capabilities(True, False, "GET /props")),
        ({"build_info": "b1"}, Capabilities()),  # an older llama.cpp: says nothing, rows are sent
        ({"chat_template_caps": "yes"}, Capabilities()),
        (None, Capabilities()),
        ([], Capabilities()),
    ],
)
def test_from_props(props: object, expected: Capabilities) -> None:
    assert from_props(props) == expected


def test_image_parts_are_found_in_any_message() -> None:
    assert has_images(r(image=True)) and not has_images(r(tools=True))
    assert not has_images(DatasetRow(id="x", text="hi"))


@pytest.mark.parametrize(
    ("row", "caps", "api", "expected"),
    [
        (r(tools=True), from_props(NO_TOOLS_PROPS), "chat", "tools"),
        (r(tools=True), from_props(TOOLS_PROPS), "chat", None),
        (r(image=True), from_props(TOOLS_PROPS), "chat", "vision"),
        (r(tools=True, image=True), from_props(NO_TOOLS_PROPS), "chat", "vision"),
        (r(tools=True), Capabilities(), "chat", None),  # no /props (vLLM, a hosted API): sent as usual
        (r(image=True), Capabilities(), "chat", None),
        (r(tools=True), Capabilities(), "completions", "completions"),
        (r(), from_props(NO_TOOLS_PROPS), "completions", None),
        (r(), from_props(NO_TOOLS_PROPS), "chat", None),
        (None, from_props(NO_TOOLS_PROPS), "chat", None),
    ],
)
def test_unsupported_reason(row: DatasetRow | None, caps: Capabilities, api: str, expected: str | None) -> None:
    assert unsupported_reason(row, caps, api) == expected


def test_the_notice_is_one_line_with_counts_and_reasons() -> None:
    assert unsupported_notice("w", [None, None]) is None
    line = unsupported_notice("eval-x-v1", ["vision", None, "tools", "vision"])
    assert line is not None and "\n" not in line
    assert line.startswith("eval-x-v1: 3 of 4 rows not sent")
    assert "2 have image parts" in line and "1 offer tools" in line and "'unsupported'" in line
