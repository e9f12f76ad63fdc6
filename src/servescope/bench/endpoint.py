"""How to reach an endpoint, and what to send it (pure: no sockets)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from servescope.documents.failures import CONTEXT_OVERFLOW_MARKERS, classify_http_error
from servescope.errors import EndpointError
from servescope.redaction import redact, remember

__all__ = ["CONTEXT_OVERFLOW_MARKERS", "Api", "Endpoint", "classify_http_error", "normalize_base_url"]

Api = Literal["chat", "completions"]


def normalize_base_url(url: str) -> str:
    """``http://host:8000/v1/`` and ``http://host:8000`` both → ``http://host:8000``.
    Accepts the base URL with or without ``/v1`` as OpenAI clients and aiperf users write it."""
    raw = url.strip()
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EndpointError(f"endpoint {redact(url)!r} is not an http(s) URL; give e.g. http://127.0.0.1:8000/v1")
    if parts.username or parts.password:
        raise EndpointError("endpoint URL must not carry credentials; pass the key with --api-key-env VAR")
    if parts.query or parts.fragment:
        # Never sent (requests go to BASE/v1/...), so never dropped silently either; often a key (?api_key=).
        shown = (
            f"{parts.scheme}://{parts.netloc}{parts.path}" + ("?<query not shown>" if parts.query else "") + ("#<fragment not shown>" if parts.fragment else "")
        )
        raise EndpointError(  # (neither is echoed: a key may sit under any name, ?key=, ?sig=, #...)
            f"endpoint {redact(shown)!r}: a query string or fragment is not sent to the server; give the base URL alone "
            "(e.g. http://127.0.0.1:8000/v1) and the key with --api-key-env VAR"
        )
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return f"{parts.scheme}://{parts.netloc}{path}"


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str | None = None
    api: Api = "chat"
    api_key: str | None = field(default=None, repr=False)

    @classmethod
    def create(cls, url: str, model: str | None = None, api: Api = "chat", api_key_env: str | None = None) -> Endpoint:
        key = None
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise EndpointError(f"--api-key-env {api_key_env}: that environment variable is not set or empty")
            remember(key)  # whatever echoes it (an error body, a log line) is redacted
        return cls(normalize_base_url(url), model, api, key)

    @property
    def url(self) -> str:
        return f"{self.base_url}/v1/{'chat/completions' if self.api == 'chat' else 'completions'}"

    def headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "Accept": "text/event-stream", **self.auth_headers()}

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def body(self, prompt: str, max_tokens: int, temperature: float = 0.0, seed: int | None = None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self.model:
            body["model"] = self.model
        if seed is not None:
            body["seed"] = seed
        if self.api == "chat":
            body["messages"] = [{"role": "user", "content": prompt}]
        else:
            body["prompt"] = prompt
        if extra:
            body.update(extra)
        return body
