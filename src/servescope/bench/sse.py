"""Server-sent events, parsed from plain bytes (no sockets here).

``SseParser.feed(chunk)`` takes whatever bytes the transport delivered (an event
may be split across chunks, or several may arrive at once) and returns the
complete ``data`` payloads in order. Lines starting with ``:`` are comments
(keep-alives); ``event:`` names are kept so ``event: error`` can be recognised;
``\\r\\n``, ``\\r`` and ``\\n`` line endings are all accepted (the SSE spec).
A ``data:`` field with nothing after it is an event with empty data (the spec), which
``openai_stream.parse_chunk`` reads as an empty chunk.

Nothing a server sends can grow the parser without bound: a line longer than
``max_line_bytes`` (no newline yet) or an event whose data passes ``max_event_bytes``
raises ``SseLimitError`` (defaults: ``servescope.limits``); the client turns that into
a ``malformed-output`` failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from servescope import limits


class SseLimitError(ValueError):
    """The stream broke a size limit; the message says which."""


@dataclass(slots=True)
class SseEvent:
    data: str
    event: str | None = None


class SseParser:
    __slots__ = ("_buf", "_data", "_data_bytes", "_event", "max_event_bytes", "max_line_bytes")

    def __init__(self, max_line_bytes: int | None = None, max_event_bytes: int | None = None) -> None:
        self._buf = b""
        self._data: list[str] = []
        self._data_bytes = 0
        self._event: str | None = None
        self.max_line_bytes = limits.MAX_SSE_LINE_BYTES if max_line_bytes is None else max_line_bytes
        self.max_event_bytes = limits.MAX_SSE_EVENT_BYTES if max_event_bytes is None else max_event_bytes

    def feed(self, chunk: bytes) -> list[SseEvent]:
        buf = self._buf + chunk
        if b"\r" in buf:
            # Normalise CRLF/CR, keeping a trailing lone \r (its \n may follow in the next chunk).
            tail = b"\r" if buf.endswith(b"\r") else b""
            buf = (buf[:-1] if tail else buf).replace(b"\r\n", b"\n").replace(b"\r", b"\n") + tail
        events: list[SseEvent] = []
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            line = buf[start:nl]
            start = nl + 1
            if not line:
                if self._data:
                    events.append(SseEvent("\n".join(self._data), self._event))
                self._data = []
                self._data_bytes = 0
                self._event = None
                continue
            if line[:1] == b":":
                continue
            field, _, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
            if field == b"data":
                self._data_bytes += len(value) + 1
                if self._data_bytes > self.max_event_bytes:
                    raise SseLimitError(
                        f"one event's data passed {self.max_event_bytes:,} bytes (SERVESCOPE_MAX_SSE_EVENT_BYTES) without the blank line that ends an event"
                    )
                self._data.append(value.decode("utf-8", errors="replace"))
            elif field == b"event":
                self._event = value.decode("utf-8", errors="replace")
        self._buf = buf[start:]
        if len(self._buf) > self.max_line_bytes:
            raise SseLimitError(f"a line passed {self.max_line_bytes:,} bytes (SERVESCOPE_MAX_SSE_LINE_BYTES) without a line ending")
        return events

    def close(self) -> list[SseEvent]:
        """End of stream: a final event not followed by a blank line still counts
        (servers that close without the trailing blank line or without [DONE])."""
        events = self.feed(b"\n\n") if (self._buf or self._data) else []
        self._buf = b""
        return events
