"""A tiny Llama-architecture GGUF with random weights, generated locally and deterministically.

The model exists so that servescope can measure a real llama.cpp server on loopback without
downloading anything. Its weights are random (fixed seed), so its text is gibberish, but
every part of the serving path is real: tokenizer, chat template, prefill, decode, KV cache,
continuous batching, metrics.

Determinism: the file is a pure function of :class:`TinyModelSpec`, the shipped
``tokenizer.json`` and :data:`GENERATOR_VERSION`. Weights come from numpy's PCG64 raw bit
stream (stable across numpy releases, unlike the distribution samplers), one stream per
tensor seeded from the tensor's name, mapped to uniform floats by integer arithmetic.

Two shaping choices make the random model usable as a benchmark target:

* Residual channel 0 is a constant: every token embedding holds ``1.0`` there and no layer
  writes to it. The output matrix reads that channel to give every special token
  (end-of-sequence included) and every token that is not printable ASCII or a newline a
  large negative logit. Generation therefore runs until ``max_tokens``, and every sampled
  token is one complete, printable piece of text (one SSE chunk per token).
* The other output weights are scaled so that logits have a standard deviation of about
  :attr:`TinyModelSpec.logit_std`; sampling is peaked but not greedy.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from servescope.bench.engine.paths import resolve_cache_dir
from servescope.bench.engine.tokenizer import (
    CHAT_TEMPLATE,
    SPECIAL_TOKENS,
    Vocab,
    load_vocab,
    token_bytes,
    tokenizer_json,
    write_hf_tokenizer_dir,
)
from servescope.errors import EngineError

MODEL_NAME = "servescope-tiny-llama"
#: Bump when the generator changes what it writes, so cached files are rebuilt.
GENERATOR_VERSION = 2
_MODEL_FILE = "model.gguf"
_TOKEN_TYPE_NORMAL = 1
_TOKEN_TYPE_CONTROL = 3
_SUPPRESS_WEIGHT = -1000.0


@dataclass(frozen=True)
class TinyModelSpec:
    """Shape and seed of the tiny model. The defaults are the servescope demo model."""

    n_layer: int = 4
    n_embd: int = 128
    n_head: int = 4
    n_head_kv: int = 2
    n_ff: int = 384
    n_ctx_train: int = 32768
    rope_freq_base: float = 10000.0
    rms_norm_eps: float = 1e-5
    logit_std: float = 4.0
    seed: int = 20260101

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head

    def validate(self) -> None:
        if self.n_embd % self.n_head or self.n_head % self.n_head_kv:
            raise EngineError("tiny model: n_embd must divide by n_head, n_head by n_head_kv")
        if min(self.n_layer, self.n_embd, self.n_ff, self.n_ctx_train) <= 0:
            raise EngineError("tiny model: sizes must be positive")


DEFAULT_SPEC = TinyModelSpec()


def model_digest(spec: TinyModelSpec = DEFAULT_SPEC) -> str:
    """A short fingerprint of everything the GGUF bytes depend on."""
    h = hashlib.sha256()
    h.update(json.dumps(asdict(spec), sort_keys=True).encode())
    h.update(f"generator-{GENERATOR_VERSION}".encode())
    h.update(tokenizer_json().encode("utf-8"))
    return h.hexdigest()[:12]


def tiny_model_dir(cache_dir: str | os.PathLike[str] | None = None, spec: TinyModelSpec = DEFAULT_SPEC) -> Path:
    """The folder holding the model and its Hugging Face tokenizer files."""
    return resolve_cache_dir(cache_dir) / "models" / f"{MODEL_NAME}-{model_digest(spec)}"


def ensure_tiny_model(cache_dir: str | os.PathLike[str] | None = None, spec: TinyModelSpec = DEFAULT_SPEC) -> Path:
    """Return the path of the cached GGUF, building it first if it is not there yet.

    The folder also receives ``tokenizer.json`` and ``tokenizer_config.json`` so that tools
    taking a Hugging Face tokenizer folder (aiperf ``--tokenizer``) can count tokens.
    Safe to call from several processes at once: files are written then renamed.
    """
    folder = tiny_model_dir(cache_dir, spec)
    path = folder / _MODEL_FILE
    try:
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f"{_MODEL_FILE}.{os.getpid()}.tmp"
            try:
                build_tiny_model(tmp, spec)
                tmp.replace(path)
            finally:
                tmp.unlink(missing_ok=True)
        write_hf_tokenizer_dir(folder)
    except OSError as exc:
        raise EngineError(f"cannot write the tiny model under {folder}: {exc}") from exc
    return path


def build_tiny_model(path: str | os.PathLike[str], spec: TinyModelSpec = DEFAULT_SPEC) -> Path:
    """Write the GGUF for ``spec`` to ``path`` (overwriting it) and return the path."""
    spec.validate()
    try:
        import gguf
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise EngineError("building the tiny model needs the 'gguf' package: pip install gguf") from exc

    vocab = load_vocab()
    out = Path(path)
    writer = gguf.GGUFWriter(out, "llama")
    try:
        _add_metadata(writer, spec, vocab)
        for name, array in _tensors(spec, vocab):
            writer.add_tensor(name, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    return out


def _add_metadata(writer: Any, spec: TinyModelSpec, vocab: Vocab) -> None:
    writer.add_name(MODEL_NAME)
    writer.add_description(f"Random weights (seed {spec.seed}) for testing servescope against a real llama.cpp server. Outputs are meaningless.")
    writer.add_file_type(0)  # ALL_F32
    writer.add_vocab_size(len(vocab.tokens))
    writer.add_context_length(spec.n_ctx_train)
    writer.add_embedding_length(spec.n_embd)
    writer.add_block_count(spec.n_layer)
    writer.add_feed_forward_length(spec.n_ff)
    writer.add_head_count(spec.n_head)
    writer.add_head_count_kv(spec.n_head_kv)
    writer.add_rope_dimension_count(spec.head_dim)
    writer.add_rope_freq_base(spec.rope_freq_base)
    writer.add_layer_norm_rms_eps(spec.rms_norm_eps)

    special = set(SPECIAL_TOKENS)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(list(vocab.tokens))
    writer.add_token_types([_TOKEN_TYPE_CONTROL if t in special else _TOKEN_TYPE_NORMAL for t in vocab.tokens])
    writer.add_token_merges(list(vocab.merges))
    writer.add_bos_token_id(vocab.bos_id)
    writer.add_eos_token_id(vocab.eos_id)
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)


def _uniform(name: str, shape: tuple[int, ...], scale: float, seed: int) -> np.ndarray:
    """Uniform floats in [-scale, scale) from the tensor's own PCG64 raw stream."""
    bitgen = np.random.PCG64(np.random.SeedSequence([seed, zlib.crc32(name.encode())]))
    raw = bitgen.random_raw(int(np.prod(shape)))
    unit = (raw >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))  # exact, in [0, 1)
    return ((unit * 2.0 - 1.0) * scale).astype(np.float32).reshape(shape)


def allowed_output_ids(vocab: Vocab) -> np.ndarray:
    """Boolean mask over the vocabulary: tokens the model may emit (printable ASCII or newline)."""
    allowed = np.zeros(len(vocab.tokens), dtype=bool)
    for i, token in enumerate(vocab.tokens):
        data = token_bytes(token)
        allowed[i] = data is not None and all(0x20 <= b < 0x7F or b == 0x0A for b in data)
    allowed[list(vocab.special_ids.values())] = False  # their text is not byte-level encoded
    return allowed


def _tensors(spec: TinyModelSpec, vocab: Vocab) -> list[tuple[str, np.ndarray]]:
    """All tensors in file order; numpy shapes are (out, in), the reverse of ggml's."""
    n_vocab, d, seed = len(vocab.tokens), spec.n_embd, spec.seed
    kv_dim = spec.n_head_kv * spec.head_dim

    def mat(name: str, rows: int, cols: int) -> np.ndarray:
        return _uniform(name, (rows, cols), 1.0 / np.sqrt(cols), seed)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    embd = _uniform("token_embd.weight", (n_vocab, d), 1.0, seed)
    embd[:, 0] = 1.0  # the constant channel

    # Logit std: h is RMS-normalised (rms 1), so var(logit) = d * scale**2 / 3.
    output = _uniform("output.weight", (n_vocab, d), spec.logit_std * np.sqrt(3.0 / d), seed)
    allowed = allowed_output_ids(vocab)
    output[allowed, 0] = 0.0
    output[~allowed, :] = 0.0
    output[~allowed, 0] = _SUPPRESS_WEIGHT

    tensors: list[tuple[str, np.ndarray]] = [("token_embd.weight", embd), ("output_norm.weight", ones(d))]
    tensors.append(("output.weight", output))
    for layer in range(spec.n_layer):
        p = f"blk.{layer}."
        attn_out = mat(p + "attn_output.weight", d, d)
        ffn_down = mat(p + "ffn_down.weight", d, spec.n_ff)
        attn_out[0, :] = 0.0  # no layer writes into the constant channel
        ffn_down[0, :] = 0.0
        tensors += [
            (p + "attn_norm.weight", ones(d)),
            (p + "attn_q.weight", mat(p + "attn_q.weight", d, d)),
            (p + "attn_k.weight", mat(p + "attn_k.weight", kv_dim, d)),
            (p + "attn_v.weight", mat(p + "attn_v.weight", kv_dim, d)),
            (p + "attn_output.weight", attn_out),
            (p + "ffn_norm.weight", ones(d)),
            (p + "ffn_gate.weight", mat(p + "ffn_gate.weight", spec.n_ff, d)),
            (p + "ffn_up.weight", mat(p + "ffn_up.weight", spec.n_ff, d)),
            (p + "ffn_down.weight", ffn_down),
        ]
    return tensors


def file_sha256(path: str | os.PathLike[str]) -> str:
    """sha256 of a file, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
