"""Prompt text cut to exact lengths by a tokenizer, and trace prompts sharing their prefix blocks."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from servescope.bench.engine.tokenizer import corpus_text
from servescope.bench.prompt_tokenizer import LocalTokenizer
from servescope.errors import UsageError
from servescope.workload.adhoc_plan import plan_load
from servescope.workload.load_build import LoadRequest, build_load
from servescope.workload.prompt_text import PromptBuilder, build_prompts

TOKENIZER = Path(__file__).parents[2] / "src" / "servescope" / "data" / "engine" / "tokenizer.json"
FIXTURE = Path(__file__).parent / "fixtures" / "mooncake-slice-60-scaled16.jsonl"

pytest.importorskip("tokenizers")


def test_every_prompt_has_exactly_the_asked_length_by_the_tokenizer() -> None:
    tok = LocalTokenizer(TOKENIZER)

    async def go() -> list[tuple[int, int]]:
        resolved = build_load(LoadRequest(isl=300, osl=8, num_requests=60, concurrency=[4], range_ratio=0.9, seed=5))
        builder = await PromptBuilder.create(tok, corpus_text(), seed=5)
        points = await build_prompts(plan_load(resolved), builder, template_tokens=9)
        return [(len(await tok.encode(r.prompt)) + 9, r.input_tokens_nominal or 0) for p in points for r in p.requests]

    pairs = asyncio.run(go())
    assert all(got == asked for got, asked in pairs), [p for p in pairs if p[0] != p[1]]
    assert len({asked for _, asked in pairs}) > 20


def test_trace_prompts_share_text_exactly_where_their_blocks_agree() -> None:
    tok = LocalTokenizer(TOKENIZER)
    load = build_load(LoadRequest(trace=FIXTURE, num_requests=20))

    async def go() -> list[str]:
        builder = await PromptBuilder.create(tok, corpus_text())
        [point] = await build_prompts(plan_load(load), builder, template_tokens=0)
        return [r.prompt for r in point.requests]

    prompts = asyncio.run(go())
    assert prompts == asyncio.run(go())  # deterministic
    assert load.trace is not None
    block0 = asyncio.run(_block0(tok))
    for req, text in zip(load.trace.requests, prompts, strict=True):
        if req.input_length >= 512:
            assert text.startswith(block0)  # block 0, shared by every request of the trace
    # equal prompts exactly where the trace says equal blocks of equal length (a block's text is fixed)
    keys = [(tuple(r.hash_ids), r.input_length) for r in load.trace.requests]
    assert len(set(prompts)) == len(set(keys)) < len(keys)


async def _block0(tok: LocalTokenizer) -> str:
    return await (await PromptBuilder.create(tok, corpus_text())).block(0)


def test_a_length_below_the_endpoints_own_tokens_is_one_line() -> None:
    tok = LocalTokenizer(TOKENIZER)

    async def go() -> None:
        builder = await PromptBuilder.create(tok, corpus_text())
        await build_prompts(plan_load(build_load(LoadRequest(isl=5, osl=4, num_requests=1, concurrency=[1]))), builder, template_tokens=9)

    with pytest.raises(UsageError) as info:
        asyncio.run(go())
    # named by the option that asked for it, with a way forward
    assert str(info.value).startswith("--isl 5: 5 input tokens is no more than the 9 tokens the endpoint adds of its own")
    assert "give --isl 10 or more" in str(info.value)


def test_a_trace_line_below_the_endpoints_own_tokens_names_the_file_and_line(tmp_path: Path) -> None:
    trace = tmp_path / "tiny_in.jsonl"
    trace.write_text('{"timestamp": 0, "input_length": 60, "output_length": 4}\n\n{"timestamp": 5, "input_length": 5, "output_length": 4}\n', encoding="utf-8")
    tok = LocalTokenizer(TOKENIZER)

    async def go() -> None:
        builder = await PromptBuilder.create(tok, corpus_text())
        await build_prompts(plan_load(build_load(LoadRequest(trace=trace))), builder, template_tokens=11)

    with pytest.raises(UsageError) as info:
        asyncio.run(go())
    assert str(info.value).startswith(f"--trace {trace} line 3: 5 input tokens is no more than the 11 tokens the endpoint adds")
    assert "--api completions" in str(info.value) and "drop the line" in str(info.value)


def test_tokenizer_file_problems_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        LocalTokenizer(tmp_path / "absent.json")
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(UsageError, match=r"not a tokenizer\.json"):
        LocalTokenizer(bad)


def test_a_sessions_system_prompt_is_one_text_of_the_asked_length_resent_every_turn() -> None:
    tok = LocalTokenizer(TOKENIZER)

    async def go() -> list[tuple[str | None, str | None]]:
        resolved = build_load(LoadRequest(sessions=3, turns=2, isl=20, osl=4, system_prompt_tokens=200))
        builder = await PromptBuilder.create(tok, corpus_text())
        points = await build_prompts(plan_load(resolved), builder, template_tokens=0)
        return [(r.session, r.system_prompt) for p in points for r in p.requests]

    pairs = asyncio.run(go())
    by_session: dict[str | None, set[str | None]] = {}
    for session, text in pairs:
        by_session.setdefault(session, set()).add(text)
    assert all(len(texts) == 1 for texts in by_session.values())  # the same text on every turn of a session
    texts = [next(iter(t)) for t in by_session.values()]
    assert len(set(texts)) == 3  # each session its own
    assert all(t is not None and len(asyncio.run(tok.encode(t))) == 200 for t in texts)
