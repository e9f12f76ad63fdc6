"""The one redaction rule (servescope.redaction): credential-like keys and values, known and
learned secrets, URL userinfo — in structures and in text — and what it must leave alone."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servescope.bench.records import RecordWriter, read_records
from servescope.documents.base import Document
from servescope.documents.engine_command import redact_flags
from servescope.documents.record import RequestRecord
from servescope.redaction import REDACTED, RedactingStream, forget_learned, is_secret_key, redact, redact_obj, remember, remember_environment


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    forget_learned()
    yield
    forget_learned()


SECRET_KEYS = [
    "authorization",
    "Authorization",
    "proxy-authorization",
    "Proxy-Authorization",
    "api_key",
    "api-key",
    "apikey",
    "apiKey",
    "x-api-key",
    "X-API-Key",
    "access_token",
    "refresh_token",
    "accessToken",
    "token",
    "secret",
    "client_secret",
    "clientSecret",
    "password",
    "passwd",
    "cookie",
    "set-cookie",
    "Set-Cookie",
    "private_key",
    "credentials",
    "hf_token",
    "HF_TOKEN",
    "OPENAI_API_KEY",
    "SERVESCOPE_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "request.authorization",
    "--api-key",
    "--hf-token",
    "db_password_v2",
]
NOT_SECRET_KEYS = ["max_tokens", "prompt_tokens", "cached_tokens", "completion_tokens", "tokenizer", "top_k", "key", "keys", "monkey", "PATH", "HOME", "model"]


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_credential_keys(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize("key", NOT_SECRET_KEYS)
def test_not_credential_keys(key: str) -> None:
    assert not is_secret_key(key)


def test_redact_obj_replaces_values_under_credential_keys_anywhere() -> None:
    body = {
        "authorization": "Bearer plain-value-not-shaped-1",
        "metadata": {"X-Api-Key": "abc", "inner": [{"client_secret": "s3cr3t-in-a-list"}]},
        "credentials": {"user": "bob", "pin": 1234, "pass": "two words"},
        "headers": [["Cookie", "not-a-pair-form"]],
    }
    out = redact_obj(body)
    assert out["authorization"] == REDACTED
    assert out["metadata"]["X-Api-Key"] == REDACTED
    assert out["metadata"]["inner"][0]["client_secret"] == REDACTED
    assert out["credentials"] == {"user": REDACTED, "pin": 1234, "pass": REDACTED}  # numbers are never secrets
    assert body["authorization"] == "Bearer plain-value-not-shaped-1"  # a copy; the input is untouched


def test_numbers_and_llm_fields_are_not_redacted() -> None:
    body = {
        "max_tokens": 64,
        "prompt_tokens": 12,
        "cached_tokens": 3,
        "tokenizer": "gpt2",
        "top_k": 40,
        "key": 3,
        "cache": {"key": "layer0"},
        "token": 5,
        "api_key": None,
        "secret_enabled": True,
        "ignore_eos": True,
    }
    assert redact_obj(body) == body


@pytest.mark.parametrize(
    "secret",
    [
        "sk-" + "a1B2" * 12,
        "sk-proj-" + "Zz9_" * 10,
        "sk-ant-api03-" + "x7" * 20,
        "hf_" + "AbCdEf1234" * 4,
        "ghp_" + "Q" * 36,
        "github_pat_" + "11ABC_" * 10,
        "AKIAIOSFODNN7EXAMPL3",
        "xoxb-1234567890-abcdefghij",
        "AIza" + "S" * 35,
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    ],
)
def test_token_shapes_are_redacted_wherever_they_stand(secret: str) -> None:
    assert secret not in redact(f"the server said: {secret}, twice ({secret})")
    assert redact_obj({"note": f"x {secret} y"}) == {"note": f"x {REDACTED} y"}
    assert redact_obj([secret]) == [REDACTED]


def test_ordinary_words_survive() -> None:
    text = "basic arithmetic; the token budget is max_tokens=64; sk-learn; a key: value pair; Bearer of news; hf_x; Token usage: 5"
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ('{"authorization": "Bearer abc12345"}', "abc12345"),
        ('{"authorization":"Basic dXNlcjpwYXNz"}', "dXNlcjpwYXNz"),
        ('{"password": "correct horse battery staple"}', "horse"),
        ("{'api_key': 'quoted value'}", "quoted value"),
        ('HTTP 400: {"error": "{\\"x-api-key\\": \\"escaped-in-json\\"}"}', "escaped-in-json"),
        ("Authorization: Bearer opaque.value.9", "opaque.value.9"),
        ("X-Api-Key: header-style-value", "header-style-value"),
        ("Cookie: session=abc; theme=dark", "theme=dark"),
        ("GET /v1/x?api_key=query-value&model=m", "query-value"),
        ("HF_TOKEN=env-style-value", "env-style-value"),
        ("vllm serve m --api-key flag-value-1 --max-num-seqs 4", "flag-value-1"),
        ("llama-server -hft flag-value-2", "flag-value-2"),
        ("--hf-token='flag value 3'", "flag value 3"),
        ("http://alice:hunter2@host:8000/v1", "hunter2"),
        ("endpoint 'http://127.0.0.1:8000/v1?key=QKEYplain777': refused", "QKEYplain777"),  # a key under any parameter name
        ("https://x.blob.core.windows.net/c?sv=2024&sig=K3SECRETsas%3D&se=2026", "K3SECRETsas"),
        ("http://h/v1?code=K8SECRET&n=5", "K8SECRET"),
        ("http://h/v1#K9SECRETfrag", "K9SECRETfrag"),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----", "MIIEvQIBADANBg"),
    ],
)
def test_text_forms(text: str, gone: str) -> None:
    out = redact(text)
    assert gone not in out, out
    assert REDACTED in out


def test_text_keeps_what_is_not_a_secret_beside_it() -> None:
    out = redact('{"api_key": "k-1234567", "model": "llama", "max_tokens": 16, "token": 5}')
    assert json.loads(out) == {"api_key": REDACTED, "model": "llama", "max_tokens": 16, "token": 5}
    assert redact("Authorization: Bearer abc12345") == f"Authorization: Bearer {REDACTED}"


def test_known_and_learned_secrets() -> None:
    assert redact("echo: plainpassword", ["plainpassword"]) == f"echo: {REDACTED}"
    redact_obj({"x_api_key": "learned-from-a-body"})  # learned under a credential key ...
    assert redact("the server echoed learned-from-a-body back") == f"the server echoed {REDACTED} back"  # ... caught bare
    remember("short")  # too short to learn: would redact ordinary words
    assert redact("a short text") == "a short text"


def test_environment_secrets_are_learned_by_name() -> None:
    remember_environment({"OPENAI_API_KEY": "env-openai-value", "MY_SERVICE_TOKEN": "env-token-value", "PATH": "/usr/bin:/bin", "USE_TOKEN": "true"})
    assert redact("env-openai-value env-token-value /usr/bin:/bin true") == f"{REDACTED} {REDACTED} /usr/bin:/bin true"


def test_redaction_is_idempotent() -> None:
    text = 'Authorization: Bearer abc12345 {"api_key": "x-y-z-1"} http://u:p@h/ sk-' + "a" * 30
    once = redact(text)
    assert redact(once) == once
    obj = {"authorization": "Bearer z", "args": {"request.metadata": '{"token":"abcdefgh1"}'}}
    assert redact_obj(redact_obj(obj)) == redact_obj(obj)


def test_redact_flags_uses_the_one_rule() -> None:
    flags = {
        "request.authorization": "Bearer abcdefgh1",
        "request.metadata": '{"api_key":"nested-json-value"}',
        "--api-key": "k",
        "--max-num-seqs": "64",
        "--x": "sk-" + "b" * 30,
    }
    out = redact_flags(flags)
    assert out["request.authorization"] == REDACTED
    assert "nested-json-value" not in out["request.metadata"]
    assert out["--api-key"] == REDACTED
    assert out["--max-num-seqs"] == "64"
    assert out["--x"] == REDACTED


def test_the_stream_redacts_every_write() -> None:
    sink = io.StringIO()
    stream = RedactingStream(sink)
    stream.write("error: HTTP 401 Authorization: Bearer abc12345\n")
    stream.writelines(["key sk-" + "c" * 30 + "\n"])
    assert "abc12345" not in sink.getvalue() and "c" * 30 not in sink.getvalue()
    assert stream.getvalue() == sink.getvalue()  # everything else is the wrapped stream's


def test_the_record_writer_redacts_every_line(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    record = RequestRecord(
        request_id="r1",
        ok=False,
        error='HTTP 401: {"headers": {"authorization": "Bearer writer-secret-1"}}',
        output_text="key sk-" + "w" * 30,
        tool_calls=[{"name": "f", "arguments": {"api_key": "writer-secret-2"}}],
        chunk_ns=[1, 2, 3],
    )
    with RecordWriter(path) as writer:
        writer.write_header({"args": {"request.authorization": "Bearer writer-secret-3"}, "endpoint": "http://u:writer-secret-4@h/"})
        writer.write(record)
    text = path.read_text()
    assert not any(s in text for s in ("writer-secret-1", "writer-secret-2", "writer-secret-3", "writer-secret-4", "w" * 30))
    assert record.error is not None and "writer-secret-1" in record.error  # what was measured is left as it is
    [back] = list(read_records(path))
    assert back.chunk_ns == [1, 2, 3] and back.category is None


class _Note(Document):
    kind: str = "Note"
    text: str
    fields: dict[str, Any]


def test_documents_are_written_under_the_rule(tmp_path: Path) -> None:
    doc = _Note(text="Authorization: Bearer doc-secret-1", fields={"client_secret": "doc-secret-2", "max_tokens": 16})
    written = json.loads(doc.write_json(tmp_path / "note.json").read_text())
    assert written == {"kind": "Note", "text": f"Authorization: Bearer {REDACTED}", "fields": {"client_secret": REDACTED, "max_tokens": 16}}


def test_the_shell_s_working_directory_is_not_learned_as_a_password() -> None:
    """PWD reads like "password" but is the working directory: learning it would redact
    every absolute path servescope prints (make demo's last line, the report's path)."""
    from servescope.redaction import forget_learned, redact, remember_environment

    try:
        remember_environment({"PWD": "/home/someone/servescope", "OLDPWD": "/home/someone", "MY_API_KEY": "sk-abcdefghijklmnop1234"})
        assert redact("/home/someone/servescope/runs/demo/report/index.html") == "/home/someone/servescope/runs/demo/report/index.html"
        assert "sk-abcdefghijklmnop1234" not in redact("key sk-abcdefghijklmnop1234")
    finally:
        forget_learned()


def test_url_parts_that_are_not_secrets_stay_and_prose_after_a_flag_is_not_eaten() -> None:
    """Numbers, booleans and page anchors in a URL stay; a flag's "value" that opens with a
    bracket is prose (click's "No such option: --api-key (Possible options: ...)")."""
    text = "see https://example.com/docs/page.md#section-two and http://h/v1?n=5&stream=true"
    assert redact(text) == text
    click = "No such option: --api-key (Possible options: --api, --api-key-env)"
    assert redact(click) == click
