"""The discrete-event simulator of a continuous-batching engine (vidur-style):
events return the events they cause (``events``), a heap drives them
(``simulator``), policies are registered by name (``scheduler``, ``router``),
state lives in ``replica`` and ``kv_cache``, load in ``load``."""
