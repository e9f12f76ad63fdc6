"""What an endpoint says it can take, read before an eval run: tools, images.

llama.cpp's ``GET /props`` answers with ``chat_template_caps`` (``supports_tools``:
whether the chat template renders a request's ``tools`` — when it does not, llama.cpp
drops them without an error and the model never sees the schemas) and ``modalities``
(``vision``: whether a multimodal projector is loaded). A row that needs what the
endpoint says it lacks is not sent: it is recorded as a failure of category
``unsupported`` (stage ``admission``), so a tools or vision score is never read off a
model that was never shown the tools or the image.

An endpoint without ``/props`` (vLLM, SGLang, hosted APIs) says nothing there. When an
eval has tool rows, two one-token requests are sent first, the same message with and
without a tool (:func:`probe_tools`): a server that renders tools into the prompt counts
more prompt tokens with one, and a server whose chat template has no tools (vLLM
serving a model whose template ignores ``tools``, with a tool parser on) counts the same
— it would drop them without a word, so the rows are unsupported. A probe that gets no
usage, or an error (vLLM's 400 for tools without a tool-call parser), says nothing, and
the rows are sent and classified as usual (that 400 is ``unsupported`` too:
``documents.failures``). The completions API has no place for tools or images at all,
so those rows are unsupported there.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import aiohttp

from servescope.documents.dataset import DatasetRow

IMAGE_PART_TYPES = frozenset({"image_url", "input_image", "image"})


@dataclass(frozen=True)
class Capabilities:
    """``None``: the endpoint did not say (send as usual)."""

    supports_tools: bool | None = None
    vision: bool | None = None
    source: str | None = None  # "GET /props" when read from llama.cpp, "tools probe" when measured
    detail: str | None = None  # what the tools probe saw


def from_props(data: Any) -> Capabilities:
    """The capabilities in a llama.cpp ``/props`` answer (unknown fields: None)."""
    if not isinstance(data, dict):
        return Capabilities()
    caps, modalities = data.get("chat_template_caps"), data.get("modalities")
    tools = caps.get("supports_tools") if isinstance(caps, dict) else None
    vision = modalities.get("vision") if isinstance(modalities, dict) else None
    if not isinstance(tools, bool) and not isinstance(vision, bool):
        return Capabilities()
    return Capabilities(tools if isinstance(tools, bool) else None, vision if isinstance(vision, bool) else None, "GET /props")


async def read_capabilities(session: aiohttp.ClientSession, base_url: str, headers: dict[str, str]) -> Capabilities:
    """GET ``/props``; anything but a JSON answer with those fields says nothing."""
    with contextlib.suppress(aiohttp.ClientError, TimeoutError, ValueError):
        async with session.get(f"{base_url}/props", headers=headers, timeout=aiohttp.ClientTimeout(total=5)) as r:
            if r.status == 200:
                return from_props(await r.json(content_type=None))
    return Capabilities()


PROBE_MESSAGE = "Say OK."
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "lookup_record",
        "description": "Look up a record by its id and return its fields.",
        "parameters": {"type": "object", "properties": {"record_id": {"type": "string", "description": "The record's id."}}, "required": ["record_id"]},
    },
}


async def _prompt_tokens(session: aiohttp.ClientSession, url: str, headers: dict[str, str], body: dict[str, Any]) -> int | None:
    with contextlib.suppress(aiohttp.ClientError, TimeoutError, ValueError):
        async with session.post(url, json=body, headers={**headers, "Accept": "application/json"}, timeout=aiohttp.ClientTimeout(total=30)) as r:
            if r.status != 200:
                return None
            data = await r.json(content_type=None)
            usage = data.get("usage") if isinstance(data, dict) else None
            n = usage.get("prompt_tokens") if isinstance(usage, dict) else None
            return n if isinstance(n, int) and not isinstance(n, bool) else None
    return None


async def probe_tools(session: aiohttp.ClientSession, url: str, headers: dict[str, str], model: str | None) -> Capabilities:
    """Whether ``tools`` reach the prompt: one message with and without a tool, one token each.

    Equal prompt-token counts mean the server dropped the tool (``supports_tools`` False);
    more with the tool, that it rendered it (True); no usage or an error: unknown."""
    body: dict[str, Any] = {"messages": [{"role": "user", "content": PROBE_MESSAGE}], "max_tokens": 1, "temperature": 0.0, "stream": False}
    if model:
        body["model"] = model
    plain = await _prompt_tokens(session, url, headers, body)
    with_tool = await _prompt_tokens(session, url, headers, {**body, "tools": [PROBE_TOOL]}) if plain is not None else None
    if plain is None or with_tool is None:
        return Capabilities()
    detail = f"prompt_tokens {plain} without a tool, {with_tool} with one"
    return Capabilities(supports_tools=with_tool > plain, source="tools probe", detail=detail)


def has_images(row: DatasetRow) -> bool:
    """Whether a row's messages carry an image content part (OpenAI ``image_url``)."""
    for message in row.messages or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES for p in content):
            return True
    return False


# Why a row is not sent: the record's error message, and the phrase of the one notice line.
REASONS: dict[str, tuple[str, str]] = {
    "completions": (
        "not sent: the row needs tools or images, which the completions API (--api completions) cannot carry",
        "need tools or images, which --api completions cannot carry",
    ),
    "vision": (
        "not sent: the row has image parts and the endpoint's GET /props says modalities.vision is false (no multimodal projector loaded)",
        "have image parts and GET /props says modalities.vision is false",
    ),
    "tools": (
        "not sent: the row offers tools and the endpoint's GET /props says chat_template_caps.supports_tools is false "
        "(its chat template has no tools, so they would be dropped without an error)",
        "offer tools and GET /props says chat_template_caps.supports_tools is false (they would be dropped)",
    ),
    "tools-probe": (
        "not sent: the row offers tools and the endpoint dropped them from a probe request (the same prompt-token count "
        "with and without a tool: its chat template has no tools, so they would be dropped without an error)",
        "offer tools and a probe request showed the endpoint drops them (same prompt tokens with and without a tool)",
    ),
}


def unsupported_reason(row: DatasetRow | None, caps: Capabilities, api: str = "chat") -> str | None:
    """Why this row must not be sent to this endpoint (a key of ``REASONS``), or None to send it."""
    if row is None:
        return None
    tools, images = bool(row.tools), has_images(row)
    if api != "chat" and (tools or images):
        return "completions"
    if images and caps.vision is False:
        return "vision"
    if tools and caps.supports_tools is False:
        return "tools-probe" if caps.source == "tools probe" else "tools"
    return None


def unsupported_notice(workload_id: str, reasons: list[str | None]) -> str | None:
    """The one line the CLI prints: how many rows are not sent, and why."""
    counts: dict[str, int] = {}
    for reason in reasons:
        if reason is not None:
            counts[reason] = counts.get(reason, 0) + 1
    if not counts:
        return None
    total = sum(counts.values())
    why = "; ".join(f"{n} {REASONS[kind][1]}" for kind, n in counts.items())
    return (
        f"{workload_id}: {total} of {len(reasons)} rows not sent ({why}); each is recorded as a failure of category "
        "'unsupported', and accuracy is over the rows sent"
    )
