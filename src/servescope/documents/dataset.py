"""``Dataset``: the exact bytes a workload draws prompts or eval items from.

A dataset is a manifest (``<id>.json``) beside a rows file (``<id>.jsonl``, one
JSON object per line). ``rows_sha256`` pins the rows file's exact bytes; the
catalog validator recomputes it. Immutable like a workload: a change is a -v2.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Literal

from pydantic import Field, field_validator

from servescope.documents.base import Document, IsoDate, Issue, NonEmptyStr, StrictModel, error
from servescope.documents.workload import LengthBucket

DATASET_ID_PATTERN = re.compile(r"^(?P<base>[a-z0-9]+(?:-[a-z0-9]+)*)-v(?P<version>[1-9][0-9]*)$")
SHA256_PATTERN = r"^[0-9a-f]{64}$"

# Nominal token bounds of each length bucket (upper bound inclusive).
BUCKET_MAX_TOKENS: dict[str, int | None] = {"xs": 64, "s": 256, "m": 1024, "l": 2048, "xl": 8192, "xxl": None}


class RenderSpec(StrictModel):
    """A scored image case's render, frozen in its dataset row (workloads.txt)."""

    width: int = Field(ge=8, le=4096)
    height: int = Field(ge=8, le=4096)
    steps: int = Field(ge=1, le=1000)
    seed: int = Field(ge=0)
    guidance: float | None = Field(default=None, description="null: the lane's own default (the effective value is recorded)")
    model: str | None = Field(default=None, description="The lane's model to ask for; null: the endpoint's.")
    background: Literal["transparent", "opaque"] | None = Field(default=None, description="transparent: ask for an alpha channel")


class DatasetRow(StrictModel):
    """One row of a rows file. ``text`` is the prompt (or passage); the other
    fields are optional and used by the runners that need them."""

    id: NonEmptyStr
    text: NonEmptyStr
    bucket: LengthBucket | None = None
    tokens_nominal: int | None = Field(default=None, ge=1)
    prefix_id: str | None = None
    category: str | None = None
    answer: str | None = None
    needle: str | None = None
    scorer: str | None = None
    # Eval rows (kind: eval): how hard, a conversation instead of the single prompt in
    # ``text``, tools offered, a structured expected answer, scorer arguments, and
    # whether the question cannot be answered (the right answer is to abstain).
    difficulty: str | None = None
    messages: list[dict[str, Any]] | None = None
    tools: list[dict[str, Any]] | None = None
    expected: Any = None
    score_args: dict[str, Any] | None = None
    unanswerable: bool | None = None
    # Image rows: reference images an edit conditions on (base64 PNG), and, for a scored
    # image case, its render frozen in the row.
    ref_images: list[str] | None = None
    render: RenderSpec | None = None

    @field_validator("ref_images")
    @classmethod
    def _base64_images(cls, value: list[str] | None) -> list[str] | None:
        for i, item in enumerate(value or []):
            try:
                base64.b64decode(item, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError(f"ref_images[{i}] is not base64 (a PNG, base64-encoded)") from None
        return value


class Dataset(Document):
    """The manifest of a pinned dataset."""

    kind: Literal["Dataset"] = "Dataset"
    id: NonEmptyStr
    name: NonEmptyStr
    description: str = ""
    notes: str | None = None
    rows_file: NonEmptyStr = Field(description="Rows file name, relative to the manifest.")
    rows_sha256: str = Field(pattern=SHA256_PATTERN)
    row_count: int = Field(ge=1)
    license: str | None = None
    immutable: bool
    created: IsoDate
    supersedes: str | None = None

    def check(self) -> list[Issue]:
        issues = []
        if not DATASET_ID_PATTERN.match(self.id):
            issues.append(error("id", f"{self.id!r} does not match <name>-vN (lower-case kebab)"))
        if self.immutable is not True:
            issues.append(error("immutable", "a published dataset must say immutable: true"))
        if "/" in self.rows_file or "\\" in self.rows_file or self.rows_file.startswith("."):
            issues.append(error("rows_file", "must be a plain file name beside the manifest"))
        return issues
