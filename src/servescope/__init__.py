"""servescope: predict, measure and compare how an LLM deployment serves a workload."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("servescope")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
