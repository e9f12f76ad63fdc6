from __future__ import annotations

import pytest

from servescope.bench.engine.tokenizer import (
    BOS_TOKEN,
    EOS_TOKEN,
    VOCAB_SIZE,
    corpus_text,
    load_vocab,
    parse_vocab,
    token_bytes,
    tokenizer_json,
    train_tokenizer_json,
)
from servescope.errors import EngineError


def test_shipped_vocab_has_what_llama_cpp_needs() -> None:
    vocab = load_vocab()
    assert len(vocab.tokens) == VOCAB_SIZE
    assert "Ċ" in vocab.tokens  # byte-level newline; llama.cpp asserts without it
    assert vocab.tokens[vocab.bos_id] == BOS_TOKEN
    assert vocab.tokens[vocab.eos_id] == EOS_TOKEN
    assert len(vocab.merges) > 1000
    assert all(len(m.split(" ")) == 2 for m in vocab.merges)


def test_token_bytes_inverts_the_byte_level_alphabet() -> None:
    assert token_bytes("Ċ") == b"\n"
    assert token_bytes("Ġthe") == b" the"
    assert token_bytes("\u4e00") is None  # not a byte-level character


def test_parse_vocab_rejects_a_vocab_without_newline_token() -> None:
    broken = '{"model": {"vocab": {"a": 0}, "merges": []}, "added_tokens": []}'
    with pytest.raises(EngineError, match="missing required tokens"):
        parse_vocab(broken)


def test_round_trip_and_special_tokens() -> None:
    pytest.importorskip("tokenizers")
    from servescope.bench.engine.tokenizer import TinyTokenizer

    tok = TinyTokenizer()
    text = "The lighthouse keeper's daughter counted 1,234 ships.\n\tDone? Ünïcödé ✓"
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert tok.count("Hello<|im_end|>") == tok.count("Hello") + 1
    assert tok.encode(EOS_TOKEN) == [load_vocab().eos_id]
    # English text compresses: a trained BPE, not bytes.
    sample = corpus_text()[:4000]
    assert tok.count(sample) < len(sample) / 3


def test_retraining_reproduces_the_shipped_tokenizer() -> None:
    pytest.importorskip("tokenizers")
    assert train_tokenizer_json(corpus_text()) == tokenizer_json()
