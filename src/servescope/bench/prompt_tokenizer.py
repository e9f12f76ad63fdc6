"""The served model's tokenizer, for prompts of exact lengths (``workload.prompt_text``):
the engine's own ``/tokenize`` and ``/detokenize`` where it has them, else a local
``tokenizer.json`` (``--tokenizer PATH``, the ``tokenizers`` package), else one line
saying so. Also measures the tokens the endpoint adds to a prompt (chat template, BOS).

- llama.cpp's llama-server: ``POST /tokenize {"content"}`` → ``{"tokens"}``,
  ``POST /detokenize {"tokens"}`` → ``{"content"}`` (no special tokens added);
- vLLM and SGLang: ``POST /tokenize {"model", "prompt", "add_special_tokens": false}``
  → ``{"tokens", "count"}``, ``POST /detokenize {"model", "tokens"}`` → ``{"prompt"}``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import aiohttp

from servescope.bench.client import send
from servescope.bench.endpoint import Endpoint
from servescope.documents.record import RequestRecord
from servescope.errors import EndpointError, UsageError

_TIMEOUT = aiohttp.ClientTimeout(total=60)
_ATTEMPTS = 3
PROBE_TOKENS = 24


class EndpointTokenizer:
    """The engine's ``/tokenize`` and ``/detokenize`` (``flavor``: llama.cpp or openai-style)."""

    def __init__(self, session: aiohttp.ClientSession, endpoint: Endpoint, flavor: str) -> None:
        self.session, self.endpoint, self.flavor = session, endpoint, flavor

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        url = f"{self.endpoint.base_url}{path}"
        headers = {**self.endpoint.auth_headers(), "Content-Type": "application/json"}
        for attempt in range(_ATTEMPTS):
            try:
                async with self.session.post(url, json=body, headers=headers, timeout=_TIMEOUT) as r:
                    if r.status != 200:
                        raise EndpointError(f"{url} answered HTTP {r.status} while building prompts")
                    return await r.json(content_type=None)
            except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
                # a pooled connection the server had closed: sent again on a fresh one
                if attempt == _ATTEMPTS - 1:
                    raise EndpointError(f"{url}: {type(exc).__name__} while building prompts ({exc})") from None
            except (TimeoutError, ValueError) as exc:
                raise EndpointError(f"{url}: no usable answer while building prompts ({type(exc).__name__})") from None
        raise AssertionError("unreachable")

    async def encode(self, text: str) -> list[int]:
        if self.flavor == "llama.cpp":
            data = await self._post("/tokenize", {"content": text})
        else:
            data = await self._post("/tokenize", {"model": self.endpoint.model, "prompt": text, "add_special_tokens": False})
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, list):
            raise EndpointError(f"{self.endpoint.base_url}/tokenize answered without a tokens list")
        return [t if isinstance(t, int) else int(t["id"]) for t in tokens]

    async def decode(self, ids: list[int]) -> str:
        if self.flavor == "llama.cpp":
            data = await self._post("/detokenize", {"tokens": ids})
            text = data.get("content") if isinstance(data, dict) else None
        else:
            data = await self._post("/detokenize", {"model": self.endpoint.model, "tokens": ids})
            text = data.get("prompt") if isinstance(data, dict) else None
        if not isinstance(text, str):
            raise EndpointError(f"{self.endpoint.base_url}/detokenize answered without text")
        return text


class LocalTokenizer:
    """A Hugging Face ``tokenizer.json`` read with the ``tokenizers`` package."""

    def __init__(self, path: Path) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise UsageError("--tokenizer needs the tokenizers package: pip install tokenizers") from None
        from servescope.workload.jsonl_lines import require_file

        require_file(path, "--tokenizer", "give the model's tokenizer.json")
        try:
            self._tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # the library raises its own exception types for a bad file
            raise UsageError(f"--tokenizer {path}: not a tokenizer.json the tokenizers package reads ({str(exc)[:120]})") from None
        self.path = path

    async def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    async def decode(self, ids: list[int]) -> str:
        return str(self._tok.decode(ids, skip_special_tokens=False))


async def _tokenize_flavor(session: aiohttp.ClientSession, endpoint: Endpoint) -> str | None:
    probes = (("llama.cpp", {"content": "hello world"}), ("openai", {"model": endpoint.model, "prompt": "hello world", "add_special_tokens": False}))
    for flavor, body in probes:
        try:
            async with session.post(f"{endpoint.base_url}/tokenize", json=body, headers=endpoint.headers(), timeout=aiohttp.ClientTimeout(total=10)) as r:
                if r.status != 200:
                    continue
                data = await r.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("tokens"), list) and data["tokens"]:
            return flavor
    return None


async def served_tokenizer(session: aiohttp.ClientSession, endpoint: Endpoint, local: Path | None) -> tuple[EndpointTokenizer | LocalTokenizer, str]:
    """(tokenizer, where it came from): ``--tokenizer`` when given, else the endpoint's, else one line."""
    if local is not None:
        return LocalTokenizer(local), f"file:{local}"
    flavor = await _tokenize_flavor(session, endpoint)
    if flavor is None:
        raise UsageError(f"{endpoint.base_url} has no /tokenize to cut prompts to exact lengths; give --tokenizer PATH (the served model's tokenizer.json)")
    return EndpointTokenizer(session, endpoint, flavor), f"endpoint:/tokenize ({flavor})"


async def template_tokens(session: aiohttp.ClientSession, endpoint: Endpoint, text: str, text_tokens: int, timeout_s: float) -> int | None:
    """Tokens the endpoint adds to a prompt (chat template, BOS): one request of ``text``
    (``text_tokens`` by the tokenizer) with max_tokens 1, its usage.prompt_tokens less
    ``text_tokens``. None when the endpoint reports no usage."""
    record = RequestRecord(request_id="template-probe", phase="warmup")
    t0 = time.perf_counter_ns()
    await send(session, endpoint, endpoint.body(text, 1), record, t0_ns=t0, timeout_s=timeout_s)
    if not record.ok:
        raise EndpointError(f"{endpoint.base_url}: a one-token request to measure the prompt's added tokens failed: {record.error}")
    if record.input_tokens is None:
        return None
    return max(0, record.input_tokens - text_tokens)


__all__ = ["PROBE_TOKENS", "EndpointTokenizer", "LocalTokenizer", "served_tokenizer", "template_tokens"]
