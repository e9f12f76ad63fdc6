"""Stop a run early when the server is plainly not serving.

A dead or broken endpoint (connection refused, every request timing out, HTTP 500 to
everything) would otherwise cost the whole run: 320 requests x timeout / concurrency.
When the first ``window`` requests to finish (warmup included) all failed with the
same category, the run stops sending: the requests still in flight are cancelled
(category ``cancelled``, at the stage they had reached: they would most likely fail the
same way, after as long as the others took), and every request not yet sent is recorded
as a failure at ``admission`` of category ``cancelled`` whose message says it was not
sent and why — the way the harness records a request it did not send
(``runners.eval.unsupported_record``), so the Result still counts every planned request
and invents no measurement.

Only the *first* requests decide: one success or a second category among them disarms
the rule for the rest of the run. Answers that describe the request rather than the
server (``context-overflow``, ``unsupported``) and answers judged wrong (stage
``score``: a needle not found) count as answers: a prompt too long for the server or a
wrong answer is a result of the measurement, not a dead endpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from servescope.bench.load import NotSent
from servescope.documents.record import RequestRecord

# The window: at least two full rounds of the point's concurrency (the first round can
# fail together, from one cause), never fewer than 8 requests, never more than 128.
MIN_WINDOW = 8
MAX_WINDOW = 128
# Categories that say something of the request, not of the server: they never stop a run.
_REQUEST_ANSWERS = frozenset({"context-overflow", "unsupported"})


def window_for(concurrency: int) -> int:
    return min(max(MIN_WINDOW, 2 * concurrency), MAX_WINDOW)


@dataclass
class FailFast:
    """The early-stop rule of one run; ``observe`` each finished request."""

    window: int
    failed: int = 0
    category: str | None = None
    sample: str = ""
    armed: bool = True
    stopped: bool = False
    not_sent: int = 0
    cancelled: int = 0
    _in_flight: set[asyncio.Timeout] = field(default_factory=set)

    @contextlib.asynccontextmanager
    async def sending(self, record: RequestRecord) -> AsyncIterator[None]:
        """Around one send: when the run stops early meanwhile, the send is cancelled and
        ``record`` says so (no extra task: a deadline moved to now, ``asyncio.Timeout``)."""
        scope = asyncio.timeout(None)
        self._in_flight.add(scope)
        try:
            async with scope:
                yield
        except NotSent:  # staged ahead of its time, its gate said no: never written
            self._staged_not_sent(record)
        except TimeoutError:
            if not self.stopped:  # not ours (send turns its own deadline into a record)
                raise
            if record.attempts is None:  # cancelled while staged, never written: not sent
                self._staged_not_sent(record)
                return
            record.ok = False
            record.category = "cancelled"
            record.error = f"cancelled in flight: the run stopped early, its first {self.window} requests having all failed ({self.category})"
            self.cancelled += 1
        finally:
            self._in_flight.discard(scope)

    def observe(self, record: RequestRecord) -> None:
        if not self.armed:
            return
        answered = record.ok or record.stage == "score" or record.category in _REQUEST_ANSWERS
        if answered or (self.category is not None and record.category != self.category):
            self.armed = False
            return
        if self.category is None:
            self.category = record.category or "other"
            self.sample = " ".join((record.error or "").split())[:160]
        self.failed += 1
        if self.failed >= self.window:
            self.armed = False
            self.stopped = True
            if self._in_flight:  # (sends are in flight only on a running loop)
                now = asyncio.get_running_loop().time()
                for scope in self._in_flight:
                    scope.reschedule(now)

    def _staged_not_sent(self, record: RequestRecord) -> None:
        """A request prepared ahead of its time (``bench.load.open_loop``) and never written:
        whatever the send's unwinding set is undone, and it is recorded as not sent."""
        record.stage = None
        record.sent_ns = 0
        record.first_token_ns = record.end_ns = None
        record.http_status = None
        self.mark_not_sent(record)

    def mark_not_sent(self, record: RequestRecord) -> RequestRecord:
        """``record`` (not sent) as the failure the Result counts."""
        record.ok = False
        record.stage = "admission"
        record.category = "cancelled"
        record.error = f"not sent: the run stopped early, its first {self.window} requests having all failed ({self.category})"
        self.not_sent += 1
        return record

    def notice(self) -> str:
        """The one line the user sees when the run stopped early."""
        return (
            f"stopped early: the first {self.window} requests all failed with {self.category} ({self.sample}); "
            f"{self.cancelled} request(s) in flight were cancelled and {self.not_sent} were not sent, all recorded as failures of category 'cancelled'. "
            "Check the server, or pass --no-fail-fast to send every request anyway"
        )


__all__ = ["MAX_WINDOW", "MIN_WINDOW", "FailFast", "window_for"]
