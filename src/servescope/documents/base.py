"""The strict base every document model shares, and the ``Issue`` it reports.

Structure (types, required keys, ranges, finiteness) is checked by pydantic;
rules that relate fields to each other (duplicate concurrency, percentile order,
counts that must add up) live in each model's ``check()`` so that every problem
gets a precise path such as ``points[1].concurrency``. Building a model from
Python runs ``check()`` too and refuses error-level issues; the validator asks
pydantic to defer them (context ``defer_checks``) so it can report them all.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationInfo, model_validator

from servescope.redaction import redact_obj

Level = Literal["error", "warning"]

NonEmptyStr = Annotated[str, StringConstraints(strip_whitespace=False, min_length=1, pattern=r"\S")]
UnitFloat = Annotated[float, Field(ge=0.0, le=1.0)]
NonNegFloat = Annotated[float, Field(ge=0.0)]
# Integers a consumer can hold: counts and sizes fit int64 and convert to float exactly
# (numpy columns, JSON readers in other languages); 2^64 is refused where it is read.
MAX_SAFE_INT = 2**53 - 1
NonNegInt = Annotated[int, Field(ge=0, le=MAX_SAFE_INT)]


def _iso_date(value: str) -> str:
    try:
        _dt.date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an ISO 8601 date (YYYY-MM-DD)") from exc
    return value


IsoDate = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_iso_date)]


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem found in a document: where (path inside it), how bad, what."""

    level: Level
    path: str
    message: str

    def format(self, source: str) -> str:
        where = self.path or "(document)"
        return f"{source}: {where}: {self.level}: {self.message}"

    def as_dict(self, source: str) -> dict[str, str]:
        return {"file": source, "path": self.path, "level": self.level, "message": self.message}


def error(path: str, message: str) -> Issue:
    return Issue("error", path, message)


def warning(path: str, message: str) -> Issue:
    return Issue("warning", path, message)


def format_loc(loc: tuple[Any, ...]) -> str:
    """Turn a pydantic location tuple into ``points[1].concurrency``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


class StrictModel(BaseModel):
    """Base of every document and sub-document: typos fail, numbers are finite,
    types are not silently coerced (``"8"`` is not an integer)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
        validate_default=False,
        frozen=False,
        populate_by_name=True,
    )

    def check(self) -> list[Issue]:
        """Cross-field rules; overridden by models that have any."""
        return []

    @model_validator(mode="after")
    def _run_checks(self, info: ValidationInfo) -> Self:
        ctx = info.context if isinstance(info.context, dict) else {}
        if ctx.get("defer_checks"):
            return self
        errors = [i for i in self.check() if i.level == "error"]
        if errors:
            raise ValueError("; ".join(f"{i.path}: {i.message}" if i.path else i.message for i in errors))
        return self


class Document(StrictModel):
    """A top-level document: it names its kind."""

    kind: str

    def dump(self) -> dict[str, Any]:
        """The document as plain JSON-able data, nulls kept (a null is a statement)."""
        return self.model_dump(mode="json", by_alias=True)

    def write_json(self, path: Path) -> Path:
        """The one way a document is written to disk (``run``, ``predict``, ``search``):
        JSON, two-space indent, one final newline, UTF-8, under the one redaction rule
        (``redaction.redact_obj``: no credential reaches disk, whatever field carries it)."""
        path.write_text(json.dumps(redact_obj(self.dump()), indent=2) + "\n", encoding="utf-8")
        return path
