"""Request fields beyond the basics: the workload's (ignore_eos, min_tokens), sent
only to engines known to accept them, and the user's --extra-body."""

from __future__ import annotations

from typing import Any

import pytest

from servescope.bench.request_fields import parse_extra_body, request_extras
from servescope.documents import WorkloadParams
from servescope.errors import UsageError


def params(**kw: Any) -> WorkloadParams:
    return WorkloadParams(concurrency=1, num_requests=1, output_tokens=16, **kw)


# --- --extra-body ------------------------------------------------------------------------------


def test_extra_body_is_a_json_object() -> None:
    assert parse_extra_body('{"ignore_eos": true, "logit_bias": {"2": 100}}') == {"ignore_eos": True, "logit_bias": {"2": 100}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{ignore_eos: true}", "--extra-body is not valid JSON"),
        ("[1, 2]", "--extra-body must be a JSON object"),
        ("true", "--extra-body must be a JSON object"),
        ("", "--extra-body is not valid JSON"),
    ],
)
def test_bad_extra_body_is_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as info:
        parse_extra_body(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("key", ["stream", "messages", "prompt", "model", "max_tokens", "temperature", "stream_options"])
def test_extra_body_may_not_set_what_servescope_and_the_workload_set(key: str) -> None:
    with pytest.raises(UsageError, match=f"--extra-body sets {key!r}"):
        request_extras(params(), "vllm", {key: 1})


def test_extra_body_alone_is_sent_and_recorded_as_request_args() -> None:
    extras = request_extras(params(), "unknown", {"cache_prompt": False, "logit_bias": {"2": 100}})
    assert extras.body == {"cache_prompt": False, "logit_bias": {"2": 100}}
    assert extras.workload_fields == {}
    assert extras.args == {"request.cache_prompt": False, "request.logit_bias": '{"2":100}'}


# --- the workload's fields ---------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["vllm", "vLLM", "sglang", "llama.cpp", "llama-server"])
def test_ignore_eos_is_sent_to_engines_that_accept_it(engine: str) -> None:
    extras = request_extras(params(ignore_eos=True), engine, None)
    assert extras.body == {"ignore_eos": True} and extras.workload_fields == {"ignore_eos": True} and extras.args == {}


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_min_tokens_is_sent_to_engines_that_accept_it(engine: str) -> None:
    assert request_extras(params(min_tokens=8), engine, None).body == {"min_tokens": 8}


@pytest.mark.parametrize("engine", ["unknown", "tgi", "ollama", "openai"])
def test_ignore_eos_to_an_engine_not_known_to_accept_it_is_refused(engine: str) -> None:
    wl_params = params(ignore_eos=True)
    with pytest.raises(UsageError) as info:
        request_extras(wl_params, engine, None, workload_id="serve-x-v1")
    msg = str(info.value)
    assert f"workload serve-x-v1 sets ignore_eos but engine {engine!r} is not known to accept it" in msg
    assert "--engine vllm|sglang|llama.cpp" in msg and """--extra-body '{"ignore_eos": true}'""" in msg
    assert "\n" not in msg


def test_min_tokens_is_refused_on_llama_cpp_which_has_no_such_field() -> None:
    with pytest.raises(UsageError, match=r"sets min_tokens but engine 'llama\.cpp' is not known to accept it.*--engine vllm[|]sglang"):
        request_extras(params(min_tokens=8), "llama.cpp", None)


def test_extra_body_sends_a_workload_field_anyway() -> None:
    extras = request_extras(params(ignore_eos=True), "unknown", {"ignore_eos": True})
    assert extras.body == {"ignore_eos": True}
    assert extras.workload_fields == {"ignore_eos": True}
    assert extras.args == {}  # pinned by the workload: not a flag of this run


def test_extra_body_contradicting_the_workload_is_refused() -> None:
    with pytest.raises(UsageError, match="contradicts the workload's ignore_eos"):
        request_extras(params(ignore_eos=True), "vllm", {"ignore_eos": False})


def test_ignore_eos_false_is_every_engine_default_and_not_sent() -> None:
    assert request_extras(params(ignore_eos=False), "unknown", None).body == {}


def test_secret_looking_extra_body_keys_are_redacted_in_the_args_only() -> None:
    extras = request_extras(params(), "vllm", {"api_key": "sk-x"})
    assert extras.body == {"api_key": "sk-x"}
    assert extras.args == {"request.api_key": "<redacted>"}
