"""Number options checked before a command does any work: one line each, exit 2.

click reads ``nan``, ``inf`` and ``-1`` as valid floats and ints; a rate, percentile,
timeout, count or seed that cannot mean anything must be refused by name, never reach
numpy or the simulator (where it fails late, or with someone else's words).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import typer

from servescope.errors import UsageError

if TYPE_CHECKING:
    from servescope.catalog.store import Catalog


def check_number(
    value: float | None,
    flag: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    example: str = "",
) -> None:
    """``value`` is None or a finite number in [low, high] (``(low, high]`` with ``low_open``)."""
    if value is None:
        return
    bad = not math.isfinite(value)
    if not bad and low is not None:
        bad = value <= low if low_open else value < low
    if not bad and high is not None:
        bad = value > high
    if bad:
        lo = "" if low is None else f"{'(' if low_open else '['}{low:g}"
        hi = "" if high is None else f"{high:g}]"
        if lo and hi:
            span = f" in {lo}, {hi}"
        elif lo:
            span = f" > {low:g}" if low_open else f" >= {low:g}"
        elif hi:
            span = f" <= {high:g}"
        else:
            span = ""
        raise UsageError(f"{flag} {value:g}: give a finite number{span}" + (f", e.g. {example}" if example else ""))


def check_count(value: int | None, flag: str, *, low: int = 1, high: int | None = None, what: str = "") -> None:
    """``value`` is None or a whole number in [low, high]."""
    if value is None:
        return
    if value < low or (high is not None and value > high):
        span = f"{low:,}..{high:,}" if high is not None else f"at least {low:,}"
        raise UsageError(f"{flag} {value}: give {span}" + (f" {what}" if what else ""))


def parse_levels(text: str | None, flag: str = "--concurrency", example: str = "1,4,8", high: int | None = None) -> list[int] | None:
    """``"1,4,8"`` → ``[1, 4, 8]``; None when not given. An empty list or level (``2,,3``,
    a trailing comma), a level that is not a whole number in 1..``high`` (default
    ``limits.MAX_CONCURRENCY``), or one given twice (two points of one key that compare
    and report cannot tell apart) is one line."""
    if high is None:
        from servescope import limits  # read when used: a bad SERVESCOPE_MAX_* setting is then one line, not an import failure

        high = limits.MAX_CONCURRENCY
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or "" in parts:
        what = "no level" if not text.strip() else "an empty level"
        raise UsageError(f"{flag} {text!r}: {what}; give whole numbers >= 1 separated by commas, e.g. {flag} {example}")
    levels = []
    for part in parts:
        if not (part.isascii() and part.isdigit()) or int(part) < 1:  # isdigit alone takes "²", which int() refuses
            raise UsageError(f"{flag} {text!r}: level {part!r} is not a whole number >= 1; give levels like {flag} {example}")
        if int(part) > high:
            raise UsageError(f"{flag} {int(part)}: give levels in 1..{high:,} (SERVESCOPE_MAX_CONCURRENCY)")
        if int(part) in levels:
            raise UsageError(f"{flag} {text!r}: level {int(part)} is given twice; give each level once, e.g. {flag} {example}")
        levels.append(int(part))
    return levels


def check_text(value: str | None, flag: str, example: str) -> None:
    """``value`` is None (not given) or has text: an empty one (an unset shell variable, say) is
    refused by name rather than read as "not given" or sent as an empty name."""
    if value is not None and not value.strip():
        raise UsageError(f"{flag} {value!r}: give a value, e.g. {flag} {example}, or leave {flag} out")


def check_seed(value: int | None, flag: str = "--seed") -> None:
    """A seed numpy accepts (``default_rng`` refuses -1) that a request body can carry: the
    same range on predict and run, so a load that predicts can also be measured."""
    from servescope.documents.workload import SEED_MAX

    check_count(value, flag, low=0, high=SEED_MAX, what="(2^63-1: the largest seed a request body carries to vLLM or SGLang)")


def check_scenario_name(name: str | None, flag: str = "--scenario") -> Catalog:
    """A scenario name recorded in a measurement must be one the catalog knows (compare,
    report and validate look it up); returns the catalog, loaded once for the command."""
    from servescope.catalog.store import Catalog

    catalog = Catalog.load()
    known = catalog.ids("scenarios")
    if name is not None and name not in known:
        shown = ", ".join(known[:20]) + (f" (+{len(known) - 20} more)" if len(known) > 20 else "")
        raise UsageError(
            f"{flag} {name!r}: not a scenario of the catalog; known: {shown or 'none'} "
            "(a scenario of your own: a Scenario file in a folder on SERVESCOPE_CATALOG_PATH)"
        )
    return catalog


# click's error base class, as the click typer runs on (typer 0.29 bundles its own copy,
# so ``click.ClickException`` would not catch it): found from typer's public BadParameter.
CLICK_ERROR: type[Exception] = next(k for k in typer.BadParameter.__mro__ if k.__name__ == "ClickException")


def click_error_line(exc: Exception) -> str:
    """click's parse error as one line: what was wrong, then where to read the options.
    Empty for the help a bare group prints (``servescope catalog``): already shown."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        return ""
    format_message = getattr(exc, "format_message", None)
    message = " ".join(str(format_message() if format_message else exc).split())
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        message += f" (see {ctx.command_path} --help)"
    return message


__all__ = ["CLICK_ERROR", "check_count", "check_number", "check_scenario_name", "check_seed", "click_error_line", "parse_levels"]
