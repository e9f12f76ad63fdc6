"""Where a deployment and a load meet: a load whose every request the deployment's context refuses is
refused before anything is simulated (``coverage.context_refusal``: one line naming what set the lengths
and the context), some refused is one warning line with the count; and the engine-flag values that an
engine gives a meaning of its own are read as that meaning."""

from __future__ import annotations

import pytest

from servescope.catalog.store import Catalog
from servescope.errors import BadArgument
from servescope.predict.coverage import context_refusal
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.sim.request import SimRequest
from servescope.predict.workload_input import SyntheticWorkload, phases_synthetic
from tests.predict.conftest import scenario


def _requests(catalog: Catalog, work: SyntheticWorkload, **over: object) -> tuple[Deployment, list[SimRequest]]:
    dep = deploy(scenario(**over), catalog=catalog)
    return dep, [r for ph in phases_synthetic(work, dep) for r in ph.requests]


def test_a_prompt_beyond_the_model_context_is_refused_in_one_line(catalog: Catalog) -> None:
    """D10: --isl 1000000 on a 128k model was "predicted" as a row of dashes, exit 0."""
    dep, reqs = _requests(catalog, SyntheticWorkload((1,), 1_000_000, 16, num_requests=4))
    with pytest.raises(BadArgument) as info:
        context_refusal(dep.model, dep.engine.max_model_len, dep.engine.overflow, reqs, "--isl 1,000,000 + --osl 16")
    text = str(info.value)
    assert text.startswith("--isl 1,000,000 + --osl 16 exceeds llama-3.1-8b's context of 131,072 tokens (max_model_len): every request"), text
    assert "the model takes no more" in text and info.value.exit_code == 2


def test_a_scenario_max_model_len_below_the_prompts_names_it(catalog: Catalog) -> None:
    """D14: --max-model-len 512 with --isl 1024."""
    engine = {"id": "vllm", "version": "0.11.0", "args": {"--max-model-len": 512}}
    dep, reqs = _requests(catalog, SyntheticWorkload((1,), 1024, 16, num_requests=4), engine=engine)
    with pytest.raises(BadArgument, match=r"context of 512 tokens \(the scenario's max_model_len\).*a longer max_model_len \(the model takes 131,072\)"):
        context_refusal(dep.model, dep.engine.max_model_len, dep.engine.overflow, reqs, "--isl 1,024 + --osl 16")


def test_some_requests_refused_is_one_warning_with_the_count(catalog: Catalog) -> None:
    engine = {"id": "vllm", "version": "0.11.0", "args": {"--max-model-len": 1024}}
    dep, reqs = _requests(catalog, SyntheticWorkload((1,), 1000, 16, num_requests=64, range_ratio=0.5), engine=engine)
    line = context_refusal(dep.model, dep.engine.max_model_len, dep.engine.overflow, reqs, "--isl 1,000 + --osl 16")
    assert line is not None and "\n" not in line
    refused = int(line.split(" of ")[0])
    assert 0 < refused < len(reqs) and line.endswith("and are refused (context-overflow): " + line.split(": ")[-1]), line
    assert f"of {len(reqs)} requests (--isl 1,000 + --osl 16) exceed llama-3.1-8b's context of 1,024 tokens" in line, line
    assert context_refusal(dep.model, dep.engine.max_model_len, dep.engine.overflow, [r for r in reqs if r.prompt_tokens + r.max_tokens <= 1024], "x") is None


def test_values_an_engine_gives_a_meaning_of_its_own_are_read_so(catalog: Catalog) -> None:
    llama = {"id": "llama.cpp", "version": "b4567", "args": {"--ctx-size": 0, "--threads": -1, "--parallel": 2}}
    dep = deploy(scenario(engine=llama, hardware="generic-cpu", model="servescope-tiny-llama", weight_dtype="fp32"), catalog=catalog)
    assert dep.engine.fixed_kv_tokens == dep.model.max_position_embeddings  # -c 0: the model's own context
    assert dep.engine.threads is None  # -t -1: every core, as when not given
    sglang = {"id": "sglang", "version": "0.5.5", "args": {"--chunked-prefill-size": -1}}
    eng = deploy(scenario(engine=sglang), catalog=catalog).engine
    assert eng.enable_chunked_prefill is False and eng.max_num_batched_tokens >= 16384


def test_what_set_the_lengths_is_named_in_the_users_words() -> None:
    from servescope.predict.coverage import lengths_given

    assert lengths_given(SyntheticWorkload((1,), 1_000_000, 16)) == "--isl 1,000,000 + --osl 16"
    assert lengths_given("serve-chat-c8-i1k-o256-v1") == "workload serve-chat-c8-i1k-o256-v1"
