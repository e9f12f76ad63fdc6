"""The tiny model's tokenizer: a byte-level BPE trained on English text shipped in the package.

The trained tokenizer is shipped as ``servescope/data/engine/tokenizer.json`` (Hugging Face
``tokenizers`` format), next to the corpus it was trained on (``corpus.txt``). Building the
GGUF model reads that JSON file only, so the model is a pure function of shipped bytes and
does not depend on the installed version of ``tokenizers``. Retraining is a maintainer task::

    python -m servescope.bench.engine.tokenizer          # rewrite data/engine/tokenizer.json
    python -m servescope.bench.engine.tokenizer --check  # exit 1 when retraining differs

The pre-tokenizer is GPT-2's (``tokenizer.ggml.pre = gpt-2`` in llama.cpp), so token counts
from :class:`TinyTokenizer` equal the counts llama.cpp's ``/tokenize`` reports for this model.
Counting locally needs the optional ``tokenizers`` package.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from servescope.errors import EngineError

VOCAB_SIZE = 2048
BOS_TOKEN = "<|endoftext|>"
IM_START = "<|im_start|>"
EOS_TOKEN = "<|im_end|>"
SPECIAL_TOKENS = (BOS_TOKEN, IM_START, EOS_TOKEN)

#: ChatML, which llama.cpp's Jinja engine renders and also recognises by name.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

_CORPUS = ("data", "engine", "corpus.txt")
_TOKENIZER = ("data", "engine", "tokenizer.json")


def _data_file(parts: tuple[str, ...]) -> Any:
    return resources.files("servescope").joinpath(*parts)


def corpus_text() -> str:
    """The English training text shipped with servescope."""
    return str(_data_file(_CORPUS).read_text(encoding="utf-8"))


def tokenizer_json() -> str:
    """The shipped, trained tokenizer in Hugging Face ``tokenizer.json`` format."""
    return str(_data_file(_TOKENIZER).read_text(encoding="utf-8"))


def _byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters (e.g. ``\\n`` -> ``Ċ``)."""
    printable = list(range(ord("!"), ord("~") + 1))
    printable += list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    mapping = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


@cache
def _unicode_to_byte() -> dict[str, int]:
    return {char: byte for byte, char in _byte_to_unicode().items()}


def token_bytes(token: str) -> bytes | None:
    """The bytes a byte-level token stands for; None if it is not byte-level encoded.

    Special tokens such as ``<|im_end|>`` are stored as plain text, which may look
    byte-level encoded: check :attr:`Vocab.special_ids` first.
    """
    table = _unicode_to_byte()
    if any(char not in table for char in token):
        return None
    return bytes(table[char] for char in token)


@dataclass(frozen=True)
class Vocab:
    """What the GGUF file needs: tokens in id order, merges in rank order, special ids."""

    tokens: tuple[str, ...]
    merges: tuple[str, ...]
    special_ids: dict[str, int]

    @property
    def bos_id(self) -> int:
        return self.special_ids[BOS_TOKEN]

    @property
    def eos_id(self) -> int:
        return self.special_ids[EOS_TOKEN]


def parse_vocab(text: str) -> Vocab:
    """Read tokens, merges and special ids from a ``tokenizer.json`` text (no dependency)."""
    data = json.loads(text)
    id_to_token: dict[int, str] = {int(i): tok for tok, i in data["model"]["vocab"].items()}
    for added in data.get("added_tokens", []):
        id_to_token[int(added["id"])] = added["content"]
    if sorted(id_to_token) != list(range(len(id_to_token))):
        raise EngineError("tokenizer.json: token ids are not contiguous")
    tokens = tuple(id_to_token[i] for i in range(len(id_to_token)))
    merges = tuple(m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"])
    index = {tok: i for i, tok in enumerate(tokens)}
    missing = [tok for tok in (*SPECIAL_TOKENS, "Ċ") if tok not in index]
    if missing:
        raise EngineError(f"tokenizer.json: missing required tokens {missing}")
    return Vocab(tokens=tokens, merges=merges, special_ids={t: index[t] for t in SPECIAL_TOKENS})


@cache
def load_vocab() -> Vocab:
    """The shipped vocabulary."""
    return parse_vocab(tokenizer_json())


def train_tokenizer_json(text: str, vocab_size: int = VOCAB_SIZE) -> str:
    """Train the byte-level BPE on ``text`` and return its ``tokenizer.json`` (deterministic)."""
    tk = _import_tokenizers()
    tokenizer = tk.Tokenizer(tk.models.BPE())
    tokenizer.pre_tokenizer = tk.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = tk.decoders.ByteLevel()
    trainer = tk.trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=tk.pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    # Paragraphs are the training "sentences": merges never cross a blank line.
    tokenizer.train_from_iterator(text.split("\n\n"), trainer=trainer)
    if tokenizer.get_vocab_size() != vocab_size:
        raise EngineError(f"corpus too small: trained {tokenizer.get_vocab_size()} tokens, wanted {vocab_size}")
    return json.dumps(json.loads(tokenizer.to_str()), ensure_ascii=False, indent=1) + "\n"


def _import_tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise EngineError("counting tokens locally needs the 'tokenizers' package: pip install tokenizers") from exc
    return tokenizers


class TinyTokenizer:
    """Encode and decode exactly as llama.cpp does for the tiny model (no BOS is added)."""

    def __init__(self, json_text: str | None = None) -> None:
        tk = _import_tokenizers()
        self._tokenizer = tk.Tokenizer.from_str(json_text if json_text is not None else tokenizer_json())

    @property
    def vocab_size(self) -> int:
        return int(self._tokenizer.get_vocab_size())

    def encode(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        return str(self._tokenizer.decode(ids, skip_special_tokens=False))

    def count(self, text: str) -> int:
        return len(self.encode(text))


def write_hf_tokenizer_dir(directory: Path) -> Path:
    """Write a folder that ``transformers.AutoTokenizer`` (and aiperf's ``--tokenizer``) loads."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "tokenizer.json": tokenizer_json(),
        "tokenizer_config.json": json.dumps(
            {
                "tokenizer_class": "PreTrainedTokenizerFast",
                "bos_token": BOS_TOKEN,
                "eos_token": EOS_TOKEN,
                "pad_token": BOS_TOKEN,
                "add_bos_token": False,
                "add_eos_token": False,
                "clean_up_tokenization_spaces": False,
                "model_max_length": 1_000_000,
                "chat_template": CHAT_TEMPLATE,
            },
            indent=1,
        )
        + "\n",
        "special_tokens_map.json": json.dumps({"bos_token": BOS_TOKEN, "eos_token": EOS_TOKEN, "pad_token": BOS_TOKEN}, indent=1) + "\n",
    }
    for name, content in files.items():
        target = directory / name
        if not target.exists() or target.read_text(encoding="utf-8") != content:
            tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
            tmp.write_text(content, encoding="utf-8")
            tmp.replace(target)
    return directory


def main(argv: list[str] | None = None) -> int:
    """Retrain from the shipped corpus; write (default) or ``--check`` the shipped JSON."""
    args = sys.argv[1:] if argv is None else argv
    trained = train_tokenizer_json(corpus_text())
    shipped = Path(str(_data_file(_TOKENIZER)))
    if "--check" in args:
        same = shipped.exists() and shipped.read_text(encoding="utf-8") == trained
        print("tokenizer.json is up to date" if same else "tokenizer.json differs from retraining")
        return 0 if same else 1
    shipped.write_text(trained, encoding="utf-8")
    print(f"wrote {shipped} ({len(trained)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
