"""A prompt file to send (``--input-file PATH``), one of two shapes:

- JSONL, one request a line: ``{"prompt": "..."}`` or ``{"messages": [{"role": ..., "content": ...}, ...]}``,
  with an optional ``max_tokens``;
- ShareGPT JSON: a list of ``{"conversations": [{"from": "human", "value": "..."}, ...]}``;
  the first human turn of each conversation is its prompt. Conversations without a
  human turn are skipped and counted; a file with none at all is refused.

JSONL is streamed (bounded memory whatever the size); ShareGPT is one JSON document,
read whole, so it is refused above ``MAX_SHAREGPT_BYTES`` (convert it to JSONL).
Every bad entry is one ``UsageError`` naming the file, the line or entry and the field.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servescope.errors import UsageError
from servescope.workload.jsonl_lines import DuplicateKeyError, jsonl_values, no_duplicate_keys, not_utf8, require_file, shown, token_count

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_SHAREGPT_BYTES = 256 * 1024 * 1024
MAX_FILE_PROMPTS = 200_000
ROLES = ("system", "user", "assistant", "tool", "developer")


@dataclass(frozen=True, slots=True)
class FilePrompt:
    prompt: str  # the text (messages: their contents joined, for length estimates)
    messages: tuple[dict[str, str], ...] | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class PromptFile:
    path: str
    format: str  # jsonl or sharegpt
    prompts: list[FilePrompt]
    sha256: str
    skipped: int = 0  # ShareGPT conversations without a human turn


def _max_tokens(value: Any, where: str) -> int:
    return token_count(value, where, "max_tokens")  # the trace reader's rule: 10.0 is 10 in both


def _messages(value: Any, where: str) -> tuple[dict[str, str], ...]:
    if not isinstance(value, list) or not value:
        raise UsageError(f'{where}: messages: give a non-empty list of {{"role": ..., "content": ...}}')
    out = []
    for i, m in enumerate(value):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise UsageError(f'{where}: messages[{i}]: give {{"role": one of {"/".join(ROLES)}, "content": text}}')
        out.append({"role": m["role"], "content": m["content"]})
    if not any(m["role"] == "user" for m in out):
        roles = ", ".join(dict.fromkeys(m["role"] for m in out))
        raise UsageError(f'{where}: messages has no user turn (only {roles}); a chat to send needs a {{"role": "user", "content": ...}} message')
    if not any(m["content"].strip() for m in out if m["role"] == "user"):
        raise UsageError(f"{where}: messages: every user turn is empty; give the user's text")
    return tuple(out)


def _jsonl_prompt(obj: Any, where: str) -> FilePrompt:
    if not isinstance(obj, dict):
        raise UsageError(f"{where}: give one JSON object per line with prompt or messages")
    if "conversations" in obj:
        raise UsageError(
            f"{where}: a ShareGPT conversation; a ShareGPT file is a JSON list of conversations: wrap them in [ ] (or give JSONL lines with prompt or messages)"
        )
    unknown = sorted(set(obj) - {"prompt", "messages", "max_tokens"})
    if unknown:
        trace_like = not {"prompt", "messages"} & set(obj) and {"timestamp", "input_length", "output_length", "hash_ids"} & set(obj)
        hint = " (this line looks like a trace: give the file with --trace)" if trace_like else ""
        raise UsageError(f"{where}: field {unknown[0]!r} is not read; a line has prompt or messages, and optional max_tokens{hint}")
    mt = _max_tokens(obj["max_tokens"], where) if "max_tokens" in obj else None
    if ("prompt" in obj) == ("messages" in obj):
        raise UsageError(f"{where}: give exactly one of prompt (text) or messages (a chat)")
    if "prompt" in obj:
        if not isinstance(obj["prompt"], str) or not obj["prompt"].strip():
            raise UsageError(f"{where}: prompt: give non-empty text")
        return FilePrompt(obj["prompt"], None, mt)
    msgs = _messages(obj["messages"], where)
    return FilePrompt("\n".join(m["content"] for m in msgs), msgs, mt)


def _beyond_cap(cap: int) -> str:
    return f"more than {cap:,} prompts; give --num-requests N to send the first N (at most {cap:,} are read)"


def _read_jsonl(path: Path, flag: str, cap: int, refuse_beyond: bool) -> PromptFile:
    digest = hashlib.sha256()
    lines = jsonl_values(
        path,
        flag,
        digest,
        cap=cap,
        max_line_bytes=MAX_LINE_BYTES,
        too_long=f"longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB",
        not_json="not JSON; give one JSON object per line (or a ShareGPT .json file)",
        beyond_cap=_beyond_cap(cap) if refuse_beyond else None,
    )
    try:
        prompts = [_jsonl_prompt(obj, where) for where, obj in lines]
    except UsageError as exc:
        whole = _one_document(path) if str(exc).startswith(f"{flag} {path}: line 1: not JSON") else None
        if isinstance(whole, dict):  # one object spread over lines: say what it is, not that its first line is not JSON
            what = (
                "a ShareGPT conversation; a ShareGPT file is a JSON list of conversations: wrap it in [ ]"
                if "conversations" in whole
                else ("one JSON object over several lines; JSONL has one object a line (write each on one line)")
            )
            raise UsageError(f"{flag} {path}: {what}") from None
        raise
    return PromptFile(str(path), "jsonl", prompts, digest.hexdigest())


def _one_document(path: Path) -> Any:
    """The file as one JSON value (None: too big, or not one): what a JSONL file that fails on
    its first line might be instead."""
    if path.stat().st_size > MAX_SHAREGPT_BYTES:
        return None
    try:
        return json.loads(path.read_bytes().removeprefix(b"\xef\xbb\xbf"))
    except ValueError:
        return None


def _read_sharegpt(path: Path, flag: str, cap: int, refuse_beyond: bool) -> PromptFile:
    size = path.stat().st_size
    if size > MAX_SHAREGPT_BYTES:
        raise UsageError(
            f"{flag} {path}: {size / 2**20:,.0f} MiB of JSON is read whole; above {MAX_SHAREGPT_BYTES // 2**20} MiB give it as JSONL "
            '(one {"prompt": ...} a line), which is streamed'
        )
    raw = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    bad = not_utf8(raw)
    if bad is not None:
        raise UsageError(f"{flag} {path}: not UTF-8 ({bad}); save the file as UTF-8")
    try:
        data = json.loads(raw, object_pairs_hook=no_duplicate_keys)
    except DuplicateKeyError as exc:
        raise UsageError(f"{flag} {path}: field {shown(exc.key)} is given twice in one object; give each field once") from None
    except ValueError as exc:
        raise UsageError(f"{flag} {path}: not JSON ({exc}); give a ShareGPT .json list or a .jsonl file") from None
    if isinstance(data, list) and data and all(isinstance(e, dict) and "conversations" not in e and ({"prompt", "messages"} & set(e)) for e in data):
        raise UsageError(
            f"{flag} {path}: a JSON array of prompt objects; give them as JSONL, one object a line (a file that starts with [ is read as ShareGPT)"
        )
    if not isinstance(data, list):
        raise UsageError(f'{flag} {path}: a ShareGPT file is a JSON list of {{"conversations": [...]}}')
    prompts: list[FilePrompt] = []
    skipped = 0
    for i, entry in enumerate(data):
        if len(prompts) >= cap:
            if refuse_beyond:
                raise UsageError(f"{flag} {path}: {_beyond_cap(cap)}")
            break
        turns = entry.get("conversations") if isinstance(entry, dict) else None
        if not isinstance(turns, list):
            raise UsageError(f'{flag} {path}: entry {i}: conversations: give a list of {{"from": ..., "value": ...}}')
        first = next((t.get("value") for t in turns if isinstance(t, dict) and t.get("from") in ("human", "user")), None)
        if first is None:
            skipped += 1
            continue
        if not isinstance(first, str) or not first:
            raise UsageError(f"{flag} {path}: entry {i}: the first human turn's value: give non-empty text")
        prompts.append(FilePrompt(first))
    if not prompts:
        raise UsageError(f"{flag} {path}: no conversation has a human turn (from: human); nothing to send")
    return PromptFile(str(path), "sharegpt", prompts, hashlib.sha256(raw).hexdigest(), skipped)


def read_prompt_file(path: Path, max_requests: int | None = None, *, flag: str = "--input-file") -> PromptFile:
    """The file's prompts (the first ``max_requests``), or one line saying what is wrong."""
    require_file(path, flag)
    cap = max_requests if max_requests is not None else MAX_FILE_PROMPTS
    with path.open("rb") as fh:
        head = fh.read(4096).removeprefix(b"\xef\xbb\xbf").lstrip()
    sharegpt = head.startswith(b"[")
    # without --num-requests the whole file is the load: a file past the safety cap is refused, never cut unsaid
    refuse_beyond = max_requests is None
    out = _read_sharegpt(path, flag, cap, refuse_beyond) if sharegpt else _read_jsonl(path, flag, cap, refuse_beyond)
    if not out.prompts:
        raise UsageError(f"{flag} {path}: no prompt in the file; give JSONL lines with prompt or messages, or a ShareGPT .json list")
    return out


__all__ = ["FilePrompt", "PromptFile", "read_prompt_file"]
