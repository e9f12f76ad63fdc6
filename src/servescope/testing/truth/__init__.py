"""Timing truth: a loopback server that emits tokens at known times and logs them
(:mod:`servescope.testing.truth.server`), and the arithmetic that holds a client's
timestamps against that log (:mod:`servescope.testing.truth.errors`). Test tooling
that ships, so tests and benchmarks can import it; nothing else in servescope
depends on it."""
