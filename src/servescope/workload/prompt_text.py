"""Prompt text of an exact token length, for the served model's tokenizer.

A synthetic or trace request is planned by length (``workload.adhoc_plan``); its text
is cut here from a fixed English corpus, tokenised once: ``n`` token ids are decoded to
text and the text is counted again (decoding then encoding can merge or split at the
edges), the cut widened or narrowed until the count is exactly ``n``. Where the
endpoint adds tokens of its own (a chat template's role markers, a BOS token), they
are measured once (``template_tokens``) and left out of the cut, so the prompt the
engine sees is the length asked for.

Trace requests are built from their 512-token prefix blocks: block ``b`` is always the
same text (its place in the corpus is a function of ``b``), so requests naming the
same leading blocks share the same leading text, and an engine's prefix cache hits
where production's did. Everything here is deterministic: same plan, tokenizer and
seed, same text.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from servescope.errors import UsageError
from servescope.workload.load import TRACE_BLOCK_TOKENS
from servescope.workload.plan import PlannedPoint, PlannedRequest

_ATTEMPTS = 6


class Tokenizer(Protocol):
    """Counts and cuts text as the served model does (the engine's /tokenize or a local file)."""

    async def encode(self, text: str) -> list[int]: ...

    async def decode(self, ids: list[int]) -> str: ...


class PromptBuilder:
    """Builds prompt text of exact lengths from ``corpus`` with ``tokenizer``."""

    def __init__(self, tokenizer: Tokenizer, corpus_ids: list[int], seed: int = 0) -> None:
        if len(corpus_ids) < 64:
            raise ValueError("the prompt corpus is too short to cut prompts from")
        self.tokenizer = tokenizer
        self.corpus = corpus_ids
        self.seed = seed
        self._blocks: dict[tuple[int, int], str] = {}

    @classmethod
    async def create(cls, tokenizer: Tokenizer, corpus_text: str, seed: int = 0) -> PromptBuilder:
        return cls(tokenizer, await tokenizer.encode(corpus_text), seed)

    def _slice(self, start: int, n: int) -> list[int]:
        size = len(self.corpus)
        start %= size
        out: list[int] = []
        while len(out) < n:
            take = min(n - len(out), size - start)
            out.extend(self.corpus[start : start + take])
            start = 0
        return out

    def _start(self, key: int) -> int:
        """Where text number ``key`` starts in the corpus (a multiplicative hash: spread, deterministic)."""
        return ((key + 1) * 2_654_435_761 + self.seed * 97) % len(self.corpus)

    async def exact(self, key: int, n: int) -> tuple[str, int]:
        """Text of ``n`` tokens (by the tokenizer's count) starting at text ``key``'s place; (text, its count)."""
        start = self._start(key)
        take = n
        best: tuple[str, int] | None = None
        for _ in range(_ATTEMPTS):
            text = await self.tokenizer.decode(self._slice(start, take))
            count = len(await self.tokenizer.encode(text))
            if best is None or abs(count - n) < abs(best[1] - n):
                best = (text, count)
            if count == n:
                break
            take = max(1, take + (n - count))
        assert best is not None
        return best

    async def block(self, block_id: int, n: int = TRACE_BLOCK_TOKENS) -> str:
        """The text of prefix block ``block_id`` (its first ``n`` tokens): always the same."""
        key = (block_id, n)
        if key not in self._blocks:
            self._blocks[key] = (await self.exact(-(block_id + 1) * 7919, n))[0] if n > 0 else ""
        return self._blocks[key]

    async def trace_prompt(self, key: int, blocks: tuple[int, ...], n: int) -> str:
        """``n`` tokens: the named prefix blocks in order, then text unique to this request (its
        length evened out so the whole counts ``n``; without a tail, a join may be off by one)."""
        parts: list[str] = []
        left = n
        for b in blocks:
            if left <= 0:
                break
            take = min(TRACE_BLOCK_TOKENS, left)
            parts.append(await self.block(b, take))
            left -= take
        if left <= 0:
            return "".join(parts)
        head = "".join(parts)
        tail = left
        text = head + (await self.exact(key, tail))[0]
        for _ in range(2):  # tokens may merge or split where the blocks and the tail join: the tail takes up the difference
            count = len(await self.tokenizer.encode(text))
            if count == n or tail + (n - count) < 1:
                break
            tail += n - count
            text = head + (await self.exact(key, tail))[0]
        return text


async def build_prompts(points: list[PlannedPoint], builder: PromptBuilder, template_tokens: int) -> list[PlannedPoint]:
    """The points with the text of every length-planned request filled in (requests with text are kept as they are)."""
    out = []
    key = 0
    systems: dict[str, str] = {}
    for point in points:
        requests: list[PlannedRequest] = []
        for req in point.requests:
            key += 1
            if req.system_tokens_nominal is not None and req.system_prompt is None:
                # one text per session, resent with every turn: what lets an engine's prefix cache carry a session
                session = req.session or req.request_id
                if session not in systems:
                    systems[session] = (await builder.exact(-(len(systems) + 1) * 104_729 - 1, req.system_tokens_nominal))[0]
                req = dataclasses.replace(req, system_prompt=systems[session])
            if req.prompt or req.messages is not None or req.input_tokens_nominal is None:
                requests.append(req)
                continue
            # a session's turn: --isl is its new user message's own tokens (the template wraps the whole history)
            content = req.input_tokens_nominal - (0 if req.session is not None else template_tokens)
            if content < 1:
                where = req.origin or f"request {req.request_id}"
                fix = (
                    "replay it with --api completions (no chat template), or drop the line"
                    if req.origin is not None and req.origin.startswith("--trace")
                    else f"give --isl {template_tokens + 1} or more, or --api completions (no chat template)"
                )
                raise UsageError(
                    f"{where}: {req.input_tokens_nominal} input tokens is no more than the {template_tokens} tokens the endpoint adds "
                    f"of its own (chat template, BOS), which leaves no room for a prompt; {fix}"
                )
            if req.prefix_blocks:
                text = await builder.trace_prompt(key, req.prefix_blocks, content)
            else:
                text, _ = await builder.exact(key, content)
            requests.append(dataclasses.replace(req, prompt=text))
        out.append(dataclasses.replace(point, requests=requests))
    return out


__all__ = ["PromptBuilder", "Tokenizer", "build_prompts"]
