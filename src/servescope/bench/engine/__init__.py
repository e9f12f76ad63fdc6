"""The embedded real engine: llama.cpp's ``llama-server`` with a tiny locally generated model.

* :func:`ensure_tiny_model` builds (once, cached) a random-weight Llama GGUF with a real
  byte-level BPE tokenizer trained on English text shipped in the package;
* :class:`LlamaServer` runs ``llama-server`` on loopback for a ``with`` block;
* :func:`start_detached`, :func:`status`, :func:`stop_detached` manage one that outlives
  the command (``servescope engine start|status|stop``), recorded in ``engine.json``.
"""

from __future__ import annotations

from servescope.bench.engine.binary import LlamaServerBinary, find_llama_server, llama_server_version
from servescope.bench.engine.detached import (
    EngineState,
    EngineStatus,
    start_detached,
    status,
    stop_detached,
)
from servescope.bench.engine.llama_server import LlamaServer, ServerConfig
from servescope.bench.engine.paths import default_cache_dir
from servescope.bench.engine.tiny_model import (
    MODEL_NAME,
    TinyModelSpec,
    build_tiny_model,
    ensure_tiny_model,
    tiny_model_dir,
)
from servescope.bench.engine.tokenizer import TinyTokenizer

__all__ = [
    "MODEL_NAME",
    "EngineState",
    "EngineStatus",
    "LlamaServer",
    "LlamaServerBinary",
    "ServerConfig",
    "TinyModelSpec",
    "TinyTokenizer",
    "build_tiny_model",
    "default_cache_dir",
    "ensure_tiny_model",
    "find_llama_server",
    "llama_server_version",
    "start_detached",
    "status",
    "stop_detached",
    "tiny_model_dir",
]
