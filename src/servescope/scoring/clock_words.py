"""Times of day in words read as clock times ("half past three in the afternoon" -> "3:30 pm").

English clock phrases: "(a) quarter past N", "half past N", "(a) quarter to N", "N o'clock",
"N fifteen" / "N thirty" / "N forty-five", with N in digits or words (one to twelve); "noon" /
"midday" is 12:00 pm and "midnight" 12:00 am. A following "in the morning" / "a.m." reads as
``am``, "in the afternoon" / "in the evening" / "at night" / "p.m." as ``pm``. So an answer
that says the time in words compares with an expected "3:30 pm" (or its "3:30" alias) the way
the same time in digits does. Anything else is left as it was.
"""

from __future__ import annotations

import re

_HOURS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
_HOUR = r"(1[0-2]|[1-9]|" + "|".join(_HOURS) + r")"
_MINUTES = {"fifteen": 15, "thirty": 30, "forty-five": 45, "forty five": 45}
_PHRASE = re.compile(
    rf"(?<!\w)(?:(?:a\s+)?(half past|quarter past|quarter to)\s+{_HOUR}|{_HOUR}\s+o['’]?\s?clock|{_HOUR}\s+(fifteen|thirty|forty[- ]five))(?![\w-])",
    re.IGNORECASE,
)
_NOON = re.compile(r"(?<!\w)(?:(noon|midday)|(midnight))(?!\w)", re.IGNORECASE)
_PERIOD = re.compile(r"(?<=\d:\d\d)\s+(?:(in the morning|a\.?m\.?)|(in the afternoon|in the evening|at night|p\.?m\.?))(?!\w)", re.IGNORECASE)


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _HOURS.index(word.lower()) + 1


def _clock(m: re.Match[str]) -> str:
    phrase, hour, bare, spoken, minutes = m.groups()
    if bare is not None:
        return f"{_hour(bare)}:00"
    if spoken is not None:
        return f"{_hour(spoken)}:{_MINUTES[minutes.lower()]:02d}"
    h = _hour(hour)
    kind = " ".join(phrase.lower().split()[:2])
    if kind == "half past":
        return f"{h}:30"
    if kind == "quarter past":
        return f"{h}:15"
    return f"{12 if h == 1 else h - 1}:45"  # quarter to N


def clock_to_digits(text: str) -> str:
    """``text`` with its clock phrases written as ``H:MM`` (and ``am``/``pm`` where it says which)."""
    out = _PERIOD.sub(lambda m: " am" if m.group(1) else " pm", _PHRASE.sub(_clock, text))
    return _NOON.sub(lambda m: "12:00 pm" if m.group(1) else "12:00 am", out)
