"""Credentials out of every text servescope stores or prints.

A server may echo what it was sent (an ``Authorization`` header in an error body), and
a user may paste a URL with ``user:password@`` in it; either would otherwise reach
``records.jsonl``, ``result.json`` or the terminal. ``redact`` replaces the API key
itself (when known), the userinfo part of any URL, and the token of any
``Bearer``/``Authorization`` value with ``<redacted>``. Pure; imports nothing of ours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "<redacted>"

# scheme://user:password@host or scheme://token@host: everything between :// and @ on one "word".
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s@\"'<>]+)@")
# "Authorization: Bearer abc", authorization="abc", Bearer abc, api_key=abc, "x-api-key": "abc"
_AUTH_VALUE = re.compile(
    r"(?P<name>(?:authorization|proxy-authorization|x-api-key|api[_-]?key|access[_-]?token)[\"']?\s*[:=]\s*[\"']?)"
    r"(?:(?P<scheme>bearer|basic|token)\s+)?(?P<value>[^\s\"',;}]+)",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(?P<scheme>bearer|basic)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE)

# Shorter "secrets" would redact ordinary words (a key of "a" is not worth hiding text for).
_MIN_SECRET_LEN = 4


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every given secret, URL userinfo and auth-header value replaced."""
    if not text:
        return text
    for secret in secrets:
        if secret and len(secret) >= _MIN_SECRET_LEN and secret in text:
            text = text.replace(secret, REDACTED)
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    text = _AUTH_VALUE.sub(
        lambda m: m["name"] + (f"{m['scheme']} " if m["scheme"] else "") + (m["value"] if m["value"] == REDACTED else REDACTED),
        text,
    )
    return _BEARER.sub(lambda m: f"{m['scheme']} {REDACTED}" if m["value"] != REDACTED else m[0], text)


__all__ = ["REDACTED", "redact"]
