"""The discrete-event simulator of a continuous-batching engine (vidur-style):
events return the events they cause (``events``), a heap drives them
(``simulator``), policies are registered by name (``scheduler``, ``router``),
state lives in ``replica`` and ``kv_cache``, load in ``load``.

``NATIVE``: these modules were loaded compiled by mypyc (``servescope.native_sim``: a build of
exactly these sources in the cache folder), else they run as Python."""

from servescope import native_sim as _native

NATIVE: bool = _native.activate(__path__)
