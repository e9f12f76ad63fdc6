from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from servescope.bench.engine.tiny_model import (
    DEFAULT_SPEC,
    TinyModelSpec,
    allowed_output_ids,
    build_tiny_model,
    ensure_tiny_model,
    file_sha256,
    model_digest,
)
from servescope.bench.engine.tokenizer import load_vocab
from servescope.errors import EngineError


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = build_tiny_model(tmp_path / "a" / "model.gguf")
    second = build_tiny_model(tmp_path / "b" / "model.gguf")
    assert first.stat().st_size > 1_000_000
    assert file_sha256(first) == file_sha256(second)


def test_another_seed_gives_another_model(tmp_path: Path) -> None:
    other = TinyModelSpec(seed=DEFAULT_SPEC.seed + 1)
    assert model_digest(other) != model_digest(DEFAULT_SPEC)
    a = build_tiny_model(tmp_path / "a.gguf")
    b = build_tiny_model(tmp_path / "b.gguf", other)
    assert file_sha256(a) != file_sha256(b)


def test_ensure_builds_once_and_writes_a_tokenizer_folder(tiny_model: Path) -> None:
    before = tiny_model.stat().st_mtime_ns
    again = ensure_tiny_model(tiny_model.parent.parent.parent)
    assert again == tiny_model
    assert again.stat().st_mtime_ns == before
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        assert (tiny_model.parent / name).is_file()


def test_gguf_metadata_is_what_llama_cpp_reads(tiny_model: Path) -> None:
    gguf = pytest.importorskip("gguf")
    reader = gguf.GGUFReader(tiny_model)
    fields = {name: field for name, field in reader.fields.items()}
    spec, vocab = DEFAULT_SPEC, load_vocab()

    def scalar(name: str) -> object:
        return fields[name].contents()

    assert scalar("general.architecture") == "llama"
    assert scalar("llama.block_count") == spec.n_layer
    assert scalar("llama.context_length") == spec.n_ctx_train
    assert scalar("llama.attention.head_count_kv") == spec.n_head_kv
    assert scalar("tokenizer.ggml.model") == "gpt2"
    assert scalar("tokenizer.ggml.pre") == "gpt-2"
    assert scalar("tokenizer.ggml.eos_token_id") == vocab.eos_id
    assert "im_start" in str(scalar("tokenizer.chat_template"))
    assert len(reader.tensors) == 3 + 9 * spec.n_layer


def test_special_and_non_printable_tokens_cannot_be_sampled(tiny_model: Path) -> None:
    gguf = pytest.importorskip("gguf")
    vocab = load_vocab()
    allowed = allowed_output_ids(vocab)
    assert not allowed[list(vocab.special_ids.values())].any()
    assert allowed[vocab.tokens.index("Ċ")]
    assert not allowed[vocab.tokens.index("ĉ")]  # tab
    output = next(t for t in gguf.GGUFReader(tiny_model).tensors if t.name == "output.weight")
    weights = np.asarray(output.data).reshape(len(vocab.tokens), DEFAULT_SPEC.n_embd)
    assert (weights[~allowed, 0] < -100).all()
    assert (weights[allowed, 0] == 0).all()


def test_invalid_spec_is_an_engine_error(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="n_head"):
        build_tiny_model(tmp_path / "x.gguf", TinyModelSpec(n_embd=100, n_head=3))
