"""Credentials out of every text and structure servescope stores or prints: one rule.

A server may echo what it was sent (an ``Authorization`` header in an error body), a
user may pass a token in ``--extra-body`` or paste a URL with ``user:password@`` in it;
any of them would otherwise reach ``records.jsonl``, ``result.json`` or the terminal.
The rule, the same for a mapping and for a text:

* **credential-like keys** (:func:`is_secret_key`): ``authorization``, ``api_key``,
  ``x-api-key``, ``token``, ``password``, ``cookie``, ``client_secret``, and any key whose
  last word is ``token``/``secret``/``key``/``password``/... (``-``, ``_``, ``.`` and
  camelCase are words) — their string values become ``<redacted>``. A number or a
  boolean is never a secret, so ``max_tokens: 64``, ``prompt_tokens`` or a KV cache's
  ``key: 3`` stay; ``tokenizer`` and ``top_k`` are not credential names at all;
* **credential-like values** wherever they are: ``Bearer …``/``Basic …``, and the shapes
  of well-known keys (OpenAI ``sk-…``/``sk-proj-…``, Anthropic ``sk-ant-…``, Hugging Face
  ``hf_…``, GitHub ``ghp_…``/``github_pat_…``, AWS ``AKIA…``, Slack ``xox…``, Google
  ``AIza…``, Stripe ``sk_live_…``, JWTs, PEM private keys), each with a length floor so
  ordinary words stay;
* **known secrets**: the ones a caller passes, and the ones this process has learned
  (:func:`remember`): the API key, every value found under a credential-like key,
  and (:func:`remember_environment`) the values of credential-named environment
  variables such as ``OPENAI_API_KEY`` — so a server that echoes a bare token is caught;
* **URL userinfo** (``scheme://user:password@``).

:func:`redact` applies it to a text, including JSON or ``key=value`` forms inside it
(``"authorization": "…"``, ``\\"api_key\\": \\"…\\"`` in an escaped body,
``?api_key=…``, ``Cookie: …``); :func:`redact_obj` to a dict/list/str recursively.
Pure apart from the learned secrets; imports nothing of ours.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "<redacted>"

# Shorter "secrets" would redact ordinary words (a key of "a" is not worth hiding text for).
_MIN_SECRET_LEN = 4
# A secret learned from a structure or the environment must be longer: ``USE_TOKEN=true``
# must not redact every "true" servescope writes afterwards.
_MIN_LEARNED_LEN = 8

# --- keys ---------------------------------------------------------------------------------

# Words that name a credential, as the whole key or as its last word (``token``,
# ``hf_token``, ``client_secret``, ``set-cookie``, ``proxy-authorization``).
_CREDENTIAL_WORDS = frozenset(
    {
        "authorization",
        "auth",
        "apikey",
        "token",
        "secret",
        "secrets",
        "password",
        "passwords",
        "passwd",
        "pwd",
        "passphrase",
        "cookie",
        "cookies",
        "credential",
        "credentials",
    }
)
# A key that is a credential on its own (one word after splitting): also an auth scheme's
# name (a bare ``key`` is not: a KV cache's ``key: 3``).
_SECRET_WORDS = _CREDENTIAL_WORDS | {"bearer", "jwt"}
# The last word of a longer key that makes it a credential (also ``x-api-key``,
# ``aws_secret_access_key``).
_SECRET_LAST_WORDS = _CREDENTIAL_WORDS | {"key", "keys"}
# Any word of a key that makes it a credential wherever it stands (``password_file`` is not
# a credential but its neighbour ``db_password_v2`` is; better one redacted path too many).
_SECRET_ANY_WORDS = frozenset({"password", "passwd", "passphrase"})
# Longer keys whose last word is one of these but that are not credentials.
_NOT_SECRET_KEYS = frozenset({"sort_key", "primary_key", "foreign_key", "partition_key", "dict_key"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")


def _words(key: str) -> list[str]:
    return [w for w in _WORD_SPLIT.split(_CAMEL.sub("_", key.strip()).lower()) if w]


def is_secret_key(key: object) -> bool:
    """Whether a mapping key, header name, flag or variable name names a credential
    (case, ``-``/``_``/``.`` and camelCase do not matter; leading dashes and a
    ``request.`` prefix are looked through). ``max_tokens``, ``tokenizer``, ``top_k``
    and a bare ``key`` are not."""
    return isinstance(key, str) and _is_secret_name(key)


@functools.lru_cache(maxsize=4096)  # the same few keys, once per record and document
def _is_secret_name(key: str) -> bool:
    words = _words(key)
    if words and words[0] == "request":
        words = words[1:]
    if not words:
        return False
    if len(words) == 1:
        return words[0] in _SECRET_WORDS
    if "_".join(words) in _NOT_SECRET_KEYS:
        return False
    return words[-1] in _SECRET_LAST_WORDS or any(w in _SECRET_ANY_WORDS for w in words)


# --- values -------------------------------------------------------------------------------

_B = r"(?<![A-Za-z0-9_-])"  # not in the middle of a longer token
_E = r"(?![A-Za-z0-9_-])"
_VALUE_SHAPES = re.compile(
    "|".join(
        (
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
            _B + r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}" + _E,  # OpenAI, Anthropic
            _B + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}" + _E,  # Stripe
            _B + r"hf_[A-Za-z0-9]{30,}" + _E,  # Hugging Face
            _B + r"gh[pousr]_[A-Za-z0-9]{30,}" + _E,  # GitHub tokens
            _B + r"github_pat_[A-Za-z0-9_]{40,}" + _E,
            r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])",  # AWS access key id
            _B + r"xox[abposr]-[A-Za-z0-9-]{10,}" + _E,  # Slack
            _B + r"AIza[0-9A-Za-z_-]{35}" + _E,  # Google API key
            _B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*" + _E,  # JWT (header.payload.signature)
            _B + r"glpat-[A-Za-z0-9_-]{20,}" + _E,  # GitLab
        )
    ),
    re.DOTALL,
)
# Bearer abc..., Basic abc... (an auth scheme and its credentials; see _looks_random)
_AUTH_SCHEME = re.compile(r"\b(?P<scheme>bearer|basic)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE)
# scheme://user:password@host or scheme://token@host: everything between :// and @ on one "word".
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s@\"'<>]+)@")

# A URL's query string and fragment: a key travels under any parameter name (?key=, ?sig=,
# ?code=, an Azure SAS), so every value that is not a number or a boolean is hidden, and a
# fragment that looks random (a digit, or both cases: not a page anchor like #section-2... see
# _looks_random) too.
_URL_TAIL = re.compile(r"(?P<base>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s?#\"'<>]+)(?:\?(?P<query>[^\s#\"'<>]*))?(?:#(?P<fragment>[^\s\"'<>]*))?")
_QUERY_PART = re.compile(r"(?P<name>[^&=;]*)(?P<sep>=?)(?P<value>[^&;]*)")


def _url_tail(m: re.Match[str]) -> str:
    query, fragment = m["query"], m["fragment"]
    if not query and not fragment:
        return m[0]
    out = m["base"]
    if query is not None:
        out += "?" + _QUERY_PART.sub(lambda q: q[0] if not q["sep"] or _not_a_secret(q["value"]) else f"{q['name']}={REDACTED}", query)
    if fragment is not None:
        out += "#" + (REDACTED if fragment and _looks_random(fragment) and fragment != REDACTED else fragment)
    return out


# --- key = value in text ------------------------------------------------------------------

# A credential-like name in a text: "authorization", api_key, x-api-key, HF_TOKEN, clientSecret,
# Set-Cookie ... (the same words as is_secret_key; checked again on the match).
_NAME = r"(?<![A-Za-z0-9_.])(?P<name>[A-Za-z][A-Za-z0-9_.-]{0,80}+)"  # possessive: one try per word
# The name and its separator only: a name that is no credential must not swallow its value,
# which may hold one (``"error": "{\\"api_key\\": ...}"``); the value is read by _VALUE.
_NAME_SEP = re.compile(_NAME + r"(?P<close>\\*[\"'])?" + r"(?P<sep>\s*[:=]\s*)")  # the key's closing quote, escaped or not
_VALUE = re.compile(
    r"(?P<q>\\+\")(?P<ev>.*?)(?P=q)"  # \"value\" (JSON inside a JSON string)
    + r"|\"(?P<dv>(?:\\.|[^\"\\\n])*)\""  # "value"
    + r"|'(?P<sv>[^'\n]*)'"  # 'value'
    + r"|(?P<uv>(?:(?:bearer|basic|token)\s+)?(?:<redacted>|[^\s\"',;&{}\[\])<>][^\s\"',;&}\])<>]*))",  # bare (a header, a query string)
    re.IGNORECASE,
)
# A command line's credential flag and its value: --api-key abc, -hft 'abc', --hf-token=abc
# (the ``=`` form is _NAME_SEP's).
_FLAG_VALUE = re.compile(
    r"(?<![A-Za-z0-9_-])(?P<flag>--?(?P<name>[A-Za-z][A-Za-z0-9_.-]{0,80}+))(?P<sep>\s+)"
    r"(?:\"(?P<dv>(?:\\.|[^\"\\\n])*)\"|'(?P<sv>[^'\n]*)'|(?P<uv>[^\s\"'(\[{<-][^\s\"']*))"  # (a bracket opens prose: "(Possible options")
)
_SHORT_SECRET_FLAGS = frozenset({"hft"})  # llama.cpp -hft = --hf-token
# A Cookie / Set-Cookie header line: the value runs to the end of the line (``a=b; c=d``).
_COOKIE_LINE = re.compile(r"(?P<name>\b(?:set-)?cookie\s*:\s*)(?P<value>[^\r\n]+)", re.IGNORECASE)
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$", re.IGNORECASE)
_BOOL_OR_NULL = frozenset({"true", "false", "null", "none"})
# Each pass runs only on a text that holds what it looks for (lower-cased substrings):
# most texts (model outputs) hold none, and a substring test is a hundred times cheaper
# than a case-insensitive regular expression.
_NAME_HINTS = ("auth", "key", "token", "secret", "pass", "pwd", "cookie", "credential", "bearer", "jwt")
_SHAPE_HINTS = (
    "-----begin",
    "sk-",
    "sk_",
    "rk_",
    "pk_",
    "hf_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "akia",
    "asia",
    "xox",
    "aiza",
    "eyj",
    "glpat-",
)
_SHAPE_HINT = re.compile("|".join(re.escape(h) for h in _SHAPE_HINTS))
_NAME_HINT = re.compile("|".join(re.escape(h) for h in (*_NAME_HINTS, "-hft")))

# --- known secrets ------------------------------------------------------------------------

_LEARNED: set[str] = set()
_LEARNED_LOCK = threading.Lock()
# The learned secrets, longest first (a secret that contains another is replaced whole):
# rebuilt when one is learned, read without the lock on every redact.
_LEARNED_ORDERED: tuple[str, ...] = ()


def remember(*secrets: str | None) -> None:
    """Learn secrets every later :func:`redact` replaces wherever they appear (the API
    key, a token given under a credential-like key). Short values are not learned."""
    global _LEARNED_ORDERED
    new = [s for s in secrets if s and s != REDACTED and len(s) >= _MIN_LEARNED_LEN and s not in _LEARNED]
    if not new:
        return
    with _LEARNED_LOCK:
        _LEARNED.update(new)
        _LEARNED_ORDERED = tuple(sorted(_LEARNED, key=len, reverse=True))


# The shell's own variables whose names read like a credential's: PWD is the working directory
# (not a password), and hiding it would turn every absolute path printed into "<redacted>/...".
_SHELL_VARIABLES = frozenset({"PWD", "OLDPWD"})


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """Learn the values of credential-named environment variables (``OPENAI_API_KEY``,
    ``SERVESCOPE_API_KEY``, ``HF_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ...)."""
    env = os.environ if environ is None else environ
    remember(*(value for name, value in env.items() if is_secret_key(name) and name not in _SHELL_VARIABLES))


def forget_learned() -> None:
    """Forget what :func:`remember` learned (tests)."""
    global _LEARNED_ORDERED
    with _LEARNED_LOCK:
        _LEARNED.clear()
        _LEARNED_ORDERED = ()


def _known(extra: Iterable[str | None]) -> tuple[str, ...]:
    given = [s for s in extra if s and len(s) >= _MIN_SECRET_LEN and s != REDACTED and s not in _LEARNED]
    learned = _LEARNED_ORDERED
    if not given:
        return learned
    return tuple(sorted({*given, *learned}, key=len, reverse=True))


# --- the rule -----------------------------------------------------------------------------


def _not_a_secret(value: str) -> bool:
    v = value.strip()
    return not v or v == REDACTED or v.lower() in _BOOL_OR_NULL or bool(_NUMBER.match(v))


def _redact_key_values(text: str) -> str:
    """Every value of a credential-like name in ``text`` (``"key": "v"``, ``key=v``,
    ``Key: v``), nested ones included, replaced; the name and its quoting kept."""
    out: list[str] = []
    done = 0  # text[:done] is in out
    for m in _NAME_SEP.finditer(text):
        if m.start() < done or not is_secret_key(m["name"]):
            continue
        v = _VALUE.match(text, m.end())
        if v is None:
            continue
        group = next(g for g in ("ev", "dv", "sv", "uv") if v[g] is not None)
        value = v[group]
        if _not_a_secret(value) or (group == "uv" and value.endswith((":", "="))):
            continue  # not a secret, or the next name ("credential: token: abc"): its own match follows
        scheme = re.match(r"(?i)(bearer|basic|token)\s+", value) if group == "uv" else None
        start, end = v.span(group)
        out += [text[done:start], scheme.group(0) if scheme else "", REDACTED]
        done = end
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _flag_value(m: re.Match[str]) -> str:
    name = m["name"]
    if not (is_secret_key(name) or name.lower() in _SHORT_SECRET_FLAGS):
        return m[0]
    for group in ("dv", "sv", "uv"):
        if m[group] is not None:
            break
    if _not_a_secret(m[group]):
        return m[0]
    start, end = m.span(group)
    return m[0][: start - m.start()] + REDACTED + m[0][end - m.start() :]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every known secret, credential-shaped value, credential-named
    ``key: value`` / ``key=value`` (JSON, escaped JSON, headers, query strings) and
    URL userinfo replaced by ``<redacted>``."""
    if not isinstance(text, str) or len(text) < _MIN_SECRET_LEN:
        return text
    for secret in _known(secrets):
        if secret in text:
            text = text.replace(secret, REDACTED)
    low = text.lower()
    if _SHAPE_HINT.search(low):
        text = _VALUE_SHAPES.sub(REDACTED, text)
    if "@" in text and "://" in text:
        text = _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    if "://" in text and ("?" in text or "#" in text):
        text = _URL_TAIL.sub(_url_tail, text)
    if "cookie" in low:
        text = _COOKIE_LINE.sub(lambda m: m["name"] + (m["value"] if m["value"].strip() == REDACTED else REDACTED), text)
    if _NAME_HINT.search(low):
        if "=" in text or ":" in text:
            text = _redact_key_values(text)
        if "-" in text:
            text = _FLAG_VALUE.sub(_flag_value, text)
    if "bearer" in low or "basic" in low:
        text = _AUTH_SCHEME.sub(lambda m: f"{m['scheme']} {REDACTED}" if _looks_random(m["value"]) else m[0], text)
    return text


def _looks_random(value: str) -> bool:
    """A credential after ``Bearer``/``Basic``, not an English word ("basic arithmetic"):
    it has a digit, base64's padding or symbols, or both cases after its first letter."""
    rest = value[1:]
    return value != REDACTED and (any(c.isdigit() for c in value) or any(c in "+/=_~." for c in value) or (rest.lower() != rest and rest.upper() != rest))


def _secret_leaves(value: Any) -> Any:
    """Everything under a credential-like key: every string leaf is a secret (learned
    and replaced); numbers, booleans and nulls stay (they are not secrets)."""
    if isinstance(value, str):
        if _not_a_secret(value):
            return value
        remember(value)
        return REDACTED
    if isinstance(value, Mapping):
        return {k: _secret_leaves(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_secret_leaves(v) for v in value]
    return value


def _learn(value: Any) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            if is_secret_key(k):
                _secret_leaves(v)
            else:
                _learn(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _learn(v)


def redact_obj(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """A copy of ``value`` (dicts, lists, tuples as lists, strings; anything else as it
    is) under the one rule: a credential-like key's string values are ``<redacted>``
    (and learned, so the same token elsewhere is caught too), every string passes
    :func:`redact`. Keys are kept, numbers and booleans are never secrets."""
    known = tuple(secrets)
    if isinstance(value, str):
        return redact(value, known)
    _learn(value)  # first: a token under "api_key" is then caught in every string beside it

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return redact(v, known)
        if isinstance(v, Mapping):
            return {k: (_secret_leaves(x) if is_secret_key(k) else walk(x)) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [walk(x) for x in v]
        return v

    return walk(value)


class RedactingStream:
    """A text stream whose every ``write`` passes :func:`redact`: what the CLI puts on
    the terminal (tables, notices, click's and typer's own error lines, progress) is
    under the same rule as what it writes to disk. Everything else is the wrapped
    stream's (``isatty``, ``fileno``, ``encoding``, ``flush``)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text) if isinstance(text, str) else text)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


__all__ = ["REDACTED", "RedactingStream", "forget_learned", "is_secret_key", "redact", "redact_obj", "remember", "remember_environment"]
