"""Joining a Ray cluster with nothing of Ray's in the user's terminal, and a failed join in one line.

``run --ray`` (``bench.worker_links``) and ``search --ray`` (``predict.fanout``) both join a cluster
with ``ray.init``. Ray prints on its own while it does: a Python warning that token authentication is
on, on every join of a cluster whose head has a token (Ray turns token authentication on by default
where ``~/.ray/auth_token`` exists), and, when the cluster refuses the client, a C++ line per retry
for about 20 s, written straight to file descriptor 2. :func:`join` holds both back: dropped when the
join succeeds, read for the cause when it fails. A cluster that asks for a token the client did not
send is the cause worth naming: Ray sends this host's token only when told to (``RAY_AUTH_MODE=token``)
or when it found the cluster itself (``auto``), never to an address given explicitly.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from typing import Any

#: The logger of Ray's "Token authentication is enabled for this Ray cluster" warning.
AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"
#: What Ray's GCS client logs when the cluster refused the client's token (or its lack of one).
REFUSED_TOKEN = ("InvalidAuthToken", "Unauthenticated")
TOKEN_ADVICE = (
    "the cluster asks for Ray's authentication token and none was sent: set RAY_AUTH_MODE=token on this host "
    "(its token is RAY_AUTH_TOKEN, the file at RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token, as on the head), "
    "or give --ray auto on a host that joined the cluster"
)


class JoinFailed(Exception):
    """``ray.init`` failed; the message is the cause, in one line (``token_refused``: :data:`TOKEN_ADVICE`)."""

    def __init__(self, message: str, *, token_refused: bool = False) -> None:
        super().__init__(message)
        self.token_refused = token_refused


def join(ray: Any, address: str, **init: Any) -> None:
    """``ray.init(address=address, **init)`` with Ray's own console lines held back (module docstring);
    :class:`JoinFailed` when it fails, saying why."""
    auth = logging.getLogger(AUTH_LOGGER)
    level = auth.level
    auth.setLevel(logging.ERROR)
    failure: Exception | None = None
    with tempfile.TemporaryFile() as held:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(held.fileno(), 2)
        try:
            ray.init(address=address, **init)
        except Exception as exc:  # ConnectionError, RuntimeError, ValueError, Ray's own: said in one line below
            failure = exc
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            auth.setLevel(level)
        if failure is None:
            return
        held.seek(0)
        said = held.read().decode("utf-8", errors="replace")
    if any(word in said or word in str(failure) for word in REFUSED_TOKEN):
        raise JoinFailed(TOKEN_ADVICE, token_refused=True) from failure
    raise JoinFailed(" ".join(str(failure).split())[:300] or type(failure).__name__) from failure


__all__ = ["AUTH_LOGGER", "TOKEN_ADVICE", "JoinFailed", "join"]
