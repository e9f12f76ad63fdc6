"""servescope: predict, measure and compare how an LLM deployment serves a workload."""

# The one place the version is written (pyproject.toml reads it from here); a
# literal, not importlib.metadata, which costs ~0.1 s on every command's start.
__version__ = "0.1.0"

__all__ = ["__version__"]
