"""What the harness and the simulator share about the requests of a workload:
the request plan (``plan``: which prompts, in which order, at which point) and
the arrival schedule of an open-loop run (``arrivals``). Depends on documents
only; bench and predict depend on it."""
