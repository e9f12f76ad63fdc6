"""Test tooling that ships with servescope but is never imported by the product:
the timing-truth server (``testing.truth``) the client's accuracy is measured
against, in the tests and in benchmarks/."""
