"""An engine's command line as a user pastes it (``servescope run --engine-args``,
``servescope config-id``): which engine, which model, which flags.

Accepted, as one string or as separate words:

- the flags alone: ``--max-num-seqs 64 --enable-prefix-caching``;
- ``vllm serve MODEL --flags`` (the model right after ``serve``, or ``--model``);
- ``python -m vllm.entrypoints.openai.api_server --model MODEL --flags``;
- ``python -m sglang.launch_server --model-path MODEL --flags``;
- ``llama-server -m MODEL --flags``;
- ``text-generation-launcher --model-id MODEL --flags``.

A path before the launcher (``/opt/venv/bin/vllm``, ``./build/bin/llama-server``)
and shell line continuations (``\\`` at the end of a line) are fine. Anything else
is a ``ValueError`` saying what is expected.

The launcher names the engine. **The model is taken out of the flags**: it says
which weights, not how the engine runs them, and the same weights are often
reached by different paths (``/models/llama-8b``, ``meta-llama/Llama-3.1-8B``),
so a run's ``config_id`` does not depend on it. A Result names its model in
``model.id`` (the name the endpoint serves, from ``--model`` or ``/v1/models``);
the command's model is kept in the records header (``engine_command.model``) for
the record, and is never sent.

Credentials (``config_id.is_secret_flag``: ``--api-key``, ``--hf-token``,
``--admin-api-key``, ``--ssl-keyfile-password``, ...) keep their name and lose
their value (``<redacted>``) before anything is written; ``config_id`` ignores them.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from servescope.documents.config_id import is_secret_flag, normalize_engine, parse_flags
from servescope.redaction import REDACTED, redact_obj, remember

EXPECTED = (
    "give the engine's flags (e.g. --max-num-seqs 64) or its command line: vllm serve MODEL ..., "
    "python -m vllm.entrypoints.openai.api_server --model MODEL ..., python -m sglang.launch_server --model-path MODEL ..., "
    "llama-server -m MODEL ..., text-generation-launcher --model-id MODEL ..."
)

# Launcher binary → engine (``vllm`` needs ``serve`` after it).
_BINARIES: dict[str, str] = {"vllm": "vllm", "llama-server": "llama.cpp", "text-generation-launcher": "tgi"}
_MODULES: dict[str, str] = {"vllm.entrypoints.openai.api_server": "vllm", "sglang.launch_server": "sglang"}
# The flags that name the model, per engine (names as normalised: no dashes in front, ``_`` → ``-``).
_MODEL_FLAGS: dict[str, frozenset[str]] = {
    "vllm": frozenset({"model"}),
    "sglang": frozenset({"model-path", "model"}),
    "llama.cpp": frozenset({"model", "m"}),
    "tgi": frozenset({"model-id"}),
}
_ANY_MODEL_FLAG = frozenset().union(*_MODEL_FLAGS.values())
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?(\.exe)?$")
_ENV_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")


@dataclass(frozen=True)
class EngineCommand:
    """What a pasted command line says. ``engine`` and ``launcher`` are None for flags alone."""

    flags: dict[str, Any] = field(default_factory=dict)
    engine: str | None = None
    launcher: str | None = None
    model: str | None = None


def split_command_line(text: str) -> list[str]:
    """Split like a POSIX shell, line continuations included."""
    try:
        return shlex.split(re.sub(r"\\\r?\n", " ", text))
    except ValueError as exc:
        raise ValueError(f"cannot split the command line: {exc} (an unbalanced quote?)") from None


def parse_engine_command(argv: Sequence[str]) -> EngineCommand:
    """The engine, model and flags of a command line (see the module docstring)."""
    tokens = [t for t in argv if t.strip()]
    if len(tokens) == 1 and len(tokens[0].split()) > 1:
        tokens = split_command_line(tokens[0])  # one quoted string: `config-id vllm 0.6 -- "vllm serve m ..."`
    if not tokens:
        return EngineCommand()
    head = tokens[0]
    if head.startswith("-"):
        return _take_model(None, None, None, tokens)
    env = _ENV_ASSIGNMENT.match(head)
    if env:
        # Never echo the value: it is often a token (HF_TOKEN=hf_...).
        raise ValueError(f"{env.group(1)}=... is an environment assignment, which is not recorded; {EXPECTED}")
    name = PurePosixPath(head.replace("\\", "/")).name.removesuffix(".exe")
    if name == "vllm":
        if len(tokens) < 2 or tokens[1] != "serve":
            raise ValueError(f"of the vllm command only `vllm serve MODEL --flags` is understood; {EXPECTED}")
        rest = tokens[2:]
        model = None
        if rest and not rest[0].startswith("-"):
            model, rest = rest[0], rest[1:]
        return _take_model("vllm", "vllm serve", model, rest)
    if name in _BINARIES:
        return _take_model(_BINARIES[name], name, None, tokens[1:])
    if _PYTHON.match(name):
        i = 1
        while i < len(tokens) and tokens[i] != "-m" and tokens[i].startswith("-"):
            i += 1  # interpreter options such as -u
        if i + 1 >= len(tokens) or tokens[i] != "-m":
            raise ValueError(f"a python command line needs -m MODULE; {EXPECTED}")
        module = tokens[i + 1]
        if module not in _MODULES:
            raise ValueError(f"python -m {module} is not an engine servescope knows; {EXPECTED}")
        return _take_model(_MODULES[module], f"python -m {module}", None, tokens[i + 2 :])
    raise ValueError(f"{head!r} is neither a flag nor an engine launcher servescope knows; {EXPECTED}")


def command_for_engine(argv: Sequence[str], engine: str | None) -> EngineCommand:
    """``parse_engine_command``, checked against the engine given (``--engine``, or
    config-id's ENGINE): a launcher that names another engine is a ``ValueError``."""
    command = parse_engine_command(argv)
    if command.engine and engine and normalize_engine(engine) != command.engine:
        raise ValueError(f"{command.launcher!r} is a {command.engine} command line but the engine given is {engine!r}; make them agree")
    return command


def _take_model(engine: str | None, launcher: str | None, model: str | None, rest: Sequence[str]) -> EngineCommand:
    try:
        flags = parse_flags(list(rest))
    except ValueError as exc:
        raise ValueError(f"{exc}; {EXPECTED}") from None
    names = _MODEL_FLAGS[engine] if engine else _ANY_MODEL_FLAG
    kept: dict[str, Any] = {}
    for raw, value in flags.items():
        if raw.lstrip("-").replace("_", "-") not in names:
            kept[raw] = value
            continue
        if value is None:
            raise ValueError(f"{raw} needs a value (the model)")
        if model is not None and model != value:
            raise ValueError(f"the model is given twice ({model!r} and {raw} {value!r})")
        model = value
    return EngineCommand(kept, engine, launcher, model)


def redact_flags(flags: Mapping[str, Any]) -> dict[str, Any]:
    """The flags with every credential's value replaced by ``<redacted>`` (a bare flag
    stays bare): a credential flag (``is_secret_flag``) loses any value; every other
    value passes the one redaction rule (``redaction.redact_obj``: a credential-like
    name such as ``request.authorization``, a token's shape, JSON inside a value).
    Done before ``config_id`` sees the flags, so what is written hashes the same."""
    out: dict[str, Any] = {}
    for k, v in flags.items():
        if is_secret_flag(k) and v is not None and not isinstance(v, bool):
            if isinstance(v, str):
                remember(v)  # a server that echoes it is caught too
            out[k] = REDACTED
        else:
            out[k] = redact_obj({k: v})[k]
    return out


__all__ = ["EXPECTED", "REDACTED", "EngineCommand", "command_for_engine", "parse_engine_command", "redact_flags", "split_command_line"]
