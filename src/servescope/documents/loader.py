"""Reading documents from disk: YAML or JSON, strictly.

Everything that can go wrong with a file (missing, a folder, too big, binary,
empty, not YAML/JSON, duplicate keys, not a mapping, no or unknown ``kind``,
wrong fields) becomes an ``Issue`` with a one-line message; nothing here lets a
traceback reach the user.

Hostile input is bounded before it costs anything (``servescope.limits``): the size is
checked before parsing; YAML is scanned event by event first, counting every value
an alias would expand to, the nesting depth and the items of each list, so an alias
bomb or a 19 MB list of scalars is refused in milliseconds, before a node tree or a
Python object exists; JSON is walked the same way after parsing. A file lists at most
``MAX_ISSUES_PER_FILE`` errors, then says how many more there were.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from servescope import limits
from servescope.documents.base import Document, Issue, error, format_loc
from servescope.documents.dataset import Dataset
from servescope.documents.evaluation_run import EvaluationRun
from servescope.documents.hardware import Hardware
from servescope.documents.model import Model
from servescope.documents.prediction import Calibration, Prediction
from servescope.documents.result import Result
from servescope.documents.scenario import Scenario
from servescope.documents.walk import file_type
from servescope.documents.workload import WORKLOAD_KINDS, Workload

_D = TypeVar("_D", bound=Document)

MAX_DOCUMENT_BYTES = limits.MAX_DOCUMENT_BYTES  # kept for importers of the old name

DOCUMENT_KINDS: dict[str, type[Document]] = {
    "EvaluationRun": EvaluationRun,
    "Prediction": Prediction,
    "Calibration": Calibration,
    "Result": Result,
    "Dataset": Dataset,
    "Scenario": Scenario,
    "Hardware": Hardware,
    "Model": Model,
    **{k: Workload for k in WORKLOAD_KINDS},
}


class DuplicateKeyError(ValueError):
    pass


class DocumentTooLargeError(ValueError):
    """Past a limit of ``servescope.limits``; the message names the limit and its variable."""


def _too_large(what: str, limit: int, env: str) -> DocumentTooLargeError:
    return DocumentTooLargeError(f"{what} (limit {limit:,}; raise it with {env} if the document is genuine)")


def _check_yaml_budget(text: str) -> None:
    """Scan the YAML events once, before anything is built: expanded values, depth, list items.

    An alias counts as every value of what it names, so ``&a [*b, *b, ...]`` chains grow
    the count as they would grow the data; nothing is expanded to count it."""
    max_nodes, max_depth, max_items = limits.MAX_DOCUMENT_NODES, limits.MAX_DOCUMENT_DEPTH, limits.MAX_LIST_ITEMS
    loader = _StrictYamlLoader(text)
    anchors: dict[str, int] = {}
    stack: list[list[Any]] = []  # [anchor, node count at its start, items so far, is mapping]
    total = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent)) and stack:
                top = stack[-1]
                top[2] += 1
                if top[2] > (2 * max_items if top[3] else max_items):
                    raise _too_large(
                        f"has a {'mapping' if top[3] else 'list'} of more than {max_items:,} items",
                        max_items,
                        "SERVESCOPE_MAX_LIST_ITEMS",
                    )
            if isinstance(event, yaml.ScalarEvent):
                total += 1
                if event.anchor:
                    anchors[event.anchor] = 1
            elif isinstance(event, yaml.AliasEvent):
                total += anchors.get(event.anchor or "", 1)  # an unknown alias: the composer's error says so
            elif isinstance(event, yaml.CollectionStartEvent):
                total += 1
                stack.append([event.anchor, total, 0, isinstance(event, yaml.MappingStartEvent)])
                if len(stack) > max_depth:
                    raise _too_large(f"is nested too deeply to be a document (more than {max_depth} levels)", max_depth, "SERVESCOPE_MAX_DOCUMENT_DEPTH")
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, start, _, _ = stack.pop()
                if anchor:
                    anchors[anchor] = total - start + 1
            if total > max_nodes:
                raise _too_large(
                    f"expands to more than {max_nodes:,} values (YAML aliases count as what they repeat)",
                    max_nodes,
                    "SERVESCOPE_MAX_DOCUMENT_NODES",
                )
    finally:
        loader.dispose()


def _check_data_budget(data: Any) -> None:
    """The same limits on parsed JSON (built already, but bounded by the file size)."""
    max_nodes, max_depth, max_items = limits.MAX_DOCUMENT_NODES, limits.MAX_DOCUMENT_DEPTH, limits.MAX_LIST_ITEMS
    total = 0
    pending: list[tuple[Any, int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        total += 1
        if total > max_nodes:
            raise _too_large(f"holds more than {max_nodes:,} values", max_nodes, "SERVESCOPE_MAX_DOCUMENT_NODES")
        if isinstance(value, (dict, list)):
            if depth > max_depth:
                raise _too_large(f"is nested too deeply to be a document (more than {max_depth} levels)", max_depth, "SERVESCOPE_MAX_DOCUMENT_DEPTH")
            if len(value) > max_items:
                raise _too_large(
                    f"has a {'mapping' if isinstance(value, dict) else 'list'} of more than {max_items:,} items",
                    max_items,
                    "SERVESCOPE_MAX_LIST_ITEMS",
                )
            pending.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))


def _no_duplicates_json(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(f"duplicate key {key!r}")
        out[key] = value
    return out


# libyaml's parser when PyYAML was built with it (5-10x faster on the catalog); the
# constructor and resolver below are Python either way, so behaviour is the same.
_SafeBase: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictYamlLoader(_SafeBase):  # type: ignore[misc]
    """SafeLoader that refuses duplicate keys and keeps dates as strings
    (``date: 2026-09-20`` stays the string the seed means)."""


def _construct_mapping(loader: _StrictYamlLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    own = sum(1 for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge")
    loader.flatten_mapping(node)
    merged = len(node.value) - own  # flatten puts merged (<<) pairs first; own keys may override them
    out: dict[Any, Any] = {}
    own_keys: set[Any] = set()
    for index, (key_node, value_node) in enumerate(node.value):
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError as exc:
            raise DuplicateKeyError(f"unhashable key at line {key_node.start_mark.line + 1}") from exc
        if index >= merged:
            if key in own_keys:
                raise DuplicateKeyError(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
            own_keys.add(key)
        out[key] = loader.construct_object(value_node, deep=deep)
    return out


_StrictYamlLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictYamlLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"] for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass
class Loaded:
    """A file read as far as it could be: data, the document, and the issues."""

    source: str
    data: dict[str, Any] | None = None
    document: Document | None = None
    issues: list[Issue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(i.level == "error" for i in self.issues)


def _refuse_non_finite(token: str) -> Any:
    raise ValueError(f"{token} is not a JSON number (JSON has no NaN or Infinity); give a finite number or null")


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):  # 1e400: valid JSON text, but no float holds it (it would be sent as Infinity)
        raise ValueError(f"{token} is too large for a number (it reads as infinity); give a finite number")
    return value


def parse_json(text: str, *, finite_only: bool = False) -> Any:
    """Parse JSON text within the document limits (depth, values, list items); duplicate
    keys refused, and with ``finite_only`` NaN/Infinity too (not JSON, though Python's
    json reads them). Raises ValueError (DuplicateKeyError, DocumentTooLargeError) with
    a one-line reason; a nesting too deep for the parser is one of them, never a RecursionError."""
    try:
        if finite_only:
            data = json.loads(text, object_pairs_hook=_no_duplicates_json, parse_constant=_refuse_non_finite, parse_float=_finite_float)
        else:
            data = json.loads(text, object_pairs_hook=_no_duplicates_json)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    except RecursionError:
        max_depth = limits.MAX_DOCUMENT_DEPTH
        raise _too_large(f"is nested too deeply to be a document (more than {max_depth} levels)", max_depth, "SERVESCOPE_MAX_DOCUMENT_DEPTH") from None
    _check_data_budget(data)
    return data


def parse_text(text: str, suffix: str) -> Any:
    """Parse JSON or YAML text; raises ValueError with a one-line reason."""
    if suffix == ".json":
        return parse_json(text)
    try:
        _check_yaml_budget(text)
        docs = list(yaml.load_all(text, Loader=_StrictYamlLoader))  # noqa: S506 - SafeLoader subclass
    except (DuplicateKeyError, DocumentTooLargeError):
        raise
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in str(exc.problem):  # libyaml's own limit: the same answer as a RecursionError
            raise RecursionError from exc
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ValueError(f"invalid YAML{where}: {exc.problem or exc}") from exc
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid YAML: {exc}") from exc
    if len(docs) > 1:
        raise ValueError(f"holds {len(docs)} YAML documents; put one document per file")
    if not docs or docs[0] is None:
        raise ValueError("holds no document (only comments or an empty YAML document); expected a mapping with a kind: field")
    return docs[0]


def read_data(path: Path) -> tuple[Any, list[Issue]]:
    """Read a file into plain data, or say in one line why not."""
    odd = file_type(path)  # before exists(): a symlink loop is not "no such file"
    if odd is not None:
        return None, [error("", f"is {odd}, not a regular file; give a YAML or JSON file")]
    try:
        if not path.exists():
            return None, [error("", "no such file")]
        if path.is_dir():
            return None, [error("", "is a folder, not a document file")]
        if not path.is_file():
            return None, [error("", "is not a regular file; give a YAML or JSON file")]
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            return None, [error("", f"is {size / 1e6:.1f} MB; documents are limited to {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB")]
        with path.open("rb") as fh:  # never more than the limit, whatever stat said
            raw = fh.read(MAX_DOCUMENT_BYTES + 1)
        if len(raw) > MAX_DOCUMENT_BYTES:
            return None, [error("", f"is larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB, the limit for documents")]
    except OSError as exc:
        return None, [error("", f"cannot be read: {exc.strerror or exc}")]
    if not raw.strip():
        return None, [error("", "is empty; expected a YAML or JSON document with a kind: field")]
    if b"\x00" in raw:
        return None, [error("", "is a binary file, not a YAML or JSON document")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, [error("", f"is not UTF-8 text (byte {exc.start}); save it as UTF-8 YAML or JSON")]
    suffix = path.suffix.lower()
    try:
        data = parse_text(text, ".json" if suffix == ".json" else ".yaml")
    except (ValueError, DuplicateKeyError) as exc:
        return None, [error("", str(exc))]
    except RecursionError:
        return None, [error("", "is nested too deeply to be a document")]
    return data, []


def _pydantic_issues(exc: ValidationError) -> list[Issue]:
    issues = []
    for err in exc.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and (p in _UNION_TAGS or "[" in p or p.startswith("function-"))))
        path = format_loc(loc)
        kind = err["type"]
        if kind == "missing":
            msg = "required field is missing"
        elif kind == "extra_forbidden":
            msg = "unknown field (a typo?); remove it or check the schema"
        elif kind == "string_too_short" and err.get("ctx", {}).get("min_length") == 1:
            msg = "must not be empty"
        elif kind == "string_pattern_mismatch" and err.get("ctx", {}).get("pattern") == r"\S":
            msg = "must not be blank"
        elif kind == "value_error":
            msg = str(err["msg"]).removeprefix("Value error, ")
        else:
            given = err.get("input")
            shown = repr(given)
            if len(shown) > 60:
                shown = shown[:57] + "..."
            msg = f"{err['msg']} (got {type(given).__name__} {shown})"
        issues.append(error(path, msg))
    return issues


_UNION_TAGS = frozenset({"str", "int", "float", "bool", "list", "dict", "none", "list[...]", "dict[...]"})


def model_issues(model: type[BaseModel], data: Any) -> tuple[BaseModel | None, list[Issue]]:
    """Validate ``data`` as ``model``: structural errors, then every check."""
    try:
        doc = model.model_validate(data, context={"defer_checks": True})
    except ValidationError as exc:
        return None, _pydantic_issues(exc)
    except RecursionError:
        return None, [error("", "is nested too deeply to be a document")]
    checks = getattr(doc, "check", None)
    return doc, (checks() if checks else [])


def parse_document(data: Any) -> tuple[Document | None, list[Issue]]:
    """Dispatch on ``kind`` and validate."""
    if not isinstance(data, dict):
        return None, [error("", f"top level is a {type(data).__name__}; expected a mapping with a kind: field")]
    kind = data.get("kind")
    if kind is None:
        return None, [error("kind", f"missing; expected one of {', '.join(sorted(DOCUMENT_KINDS))}")]
    if not isinstance(kind, str) or kind not in DOCUMENT_KINDS:
        return None, [error("kind", f"unknown kind {kind!r}; expected one of {', '.join(sorted(DOCUMENT_KINDS))}")]
    doc, issues = model_issues(DOCUMENT_KINDS[kind], data)
    return doc, issues  # type: ignore[return-value]


def load(path: str | Path) -> Loaded:
    """Read and validate one document file."""
    p = Path(path)
    loaded = Loaded(source=str(path))
    data, issues = read_data(p)
    loaded.issues.extend(issues)
    if issues:
        return loaded
    loaded.data = data
    doc, issues = parse_document(data)
    loaded.document = doc
    loaded.issues.extend(cap_issues(issues))
    return loaded


def cap_issues(issues: list[Issue], limit: int | None = None) -> list[Issue]:
    """The first ``limit`` errors (every warning up to the same limit), then one line counting the rest."""
    cap = limits.MAX_ISSUES_PER_FILE if limit is None else limit
    if len(issues) <= cap:
        return issues
    kept, dropped = issues[:cap], issues[cap:]
    n_errors = sum(1 for i in dropped if i.level == "error")
    n_warnings = len(dropped) - n_errors
    parts = [f"{n} more {word}{'s' if n != 1 else ''}" for n, word in ((n_errors, "error"), (n_warnings, "warning")) if n]
    summary = Issue(
        "error" if n_errors else "warning",
        "",
        f"... and {' and '.join(parts)} (the first {cap} are listed; fix those and validate again, or raise SERVESCOPE_MAX_ISSUES_PER_FILE)",
    )
    return [*kept, summary]


def load_document(path: str | Path, model: type[_D]) -> _D:
    """Load a document of a known kind or raise ``DocumentError`` with the first error."""
    from servescope.errors import DocumentError

    loaded = load(path)
    errors = [i for i in loaded.issues if i.level == "error"]
    if errors:
        raise DocumentError(str(path), f"{errors[0].message}" + (f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""), errors[0].path)
    if not isinstance(loaded.document, model):
        raise DocumentError(str(path), f"is a {type(loaded.document).__name__}, expected {model.__name__}")
    return loaded.document
