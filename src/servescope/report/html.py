"""HTML building blocks. Every piece of text that came from a document goes
through ``esc`` (element text and attribute values alike); data for the charts
travels in ``<script type="application/json">`` blocks whose ``<``, ``>`` and
``&`` are JSON-escaped, so no document text can close the block or open a tag.
Pages allow scripts from the site's own files only (the CSP meta tag)."""

from __future__ import annotations

import functools
import html
import json
import math
from typing import Any

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'"
)


def esc(value: object) -> str:
    return html.escape(value if isinstance(value, str) else "" if value is None else str(value), quote=True)


def json_for_script(data: Any) -> str:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def fmt(value: object, digits: int = 4) -> str:
    """A number for a table: ``—`` for not measured (null), never 0."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):  # a formatted number holds no character that needs escaping
        return repr(value) if math.isnan(value) or math.isinf(value) else f"{value:.{digits}g}"
    if isinstance(value, int):
        return str(value)
    return esc(value)


def link(href: str, text: object, cls: str | None = None) -> str:
    c = f' class="{esc(cls)}"' if cls else ""
    return f'<a href="{esc(href)}"{c}>{esc(text)}</a>'


def page(title: str, body: str, *, depth: int) -> str:
    """A whole page; Plotly (4.8 MB of JS to parse) is loaded only where a chart is."""
    up = "../" * depth
    plotly = f'<script src="{up}assets/plotly.min.js" defer></script>\n' if 'class="chart-spec"' in body else ""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)} — servescope report</title>\n"
        f'<link rel="stylesheet" href="{up}assets/report.css">\n'
        f"{plotly}"
        f'<script src="{up}assets/report.js" defer></script>\n'
        "</head>\n<body>\n"
        f'<nav><a href="{up}index.html">servescope report</a></nav>\n<main>\n<h1>{esc(title)}</h1>\n'
        f"{body}\n</main>\n</body>\n</html>\n"
    )


class Charts:
    """Numbers the chart divs of one page; each figure is a plain Plotly dict."""

    def __init__(self) -> None:
        self.count = 0

    def div(self, figure: dict[str, Any], caption: str = "") -> str:
        self.count += 1
        cid = f"chart-{self.count}"
        cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
        return (
            f'<figure class="chart-box"><div class="chart" id="{cid}"></div>{cap}'
            f'<script type="application/json" class="chart-spec" data-for="{cid}">{json_for_script(figure)}</script></figure>'
        )


def table(headers: list[str], rows: list[list[str]], *, cls: str = "data", sortable: bool = False) -> str:
    """Cells are HTML already (escaped by the caller); headers are plain text."""
    attrs = f' class="{cls}{" sortable" if sortable else ""}"'
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table{attrs}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def sort_cell(shown: str, key: float | str | None) -> str:
    """A cell whose sort key differs from what it shows (a number with its CI)."""
    k = "" if key is None else (repr(key) if isinstance(key, float) else str(key))
    return f'<td data-sort="{esc(k)}">{shown}</td>'


@functools.lru_cache(maxsize=4096)
def _key(name: str) -> str:
    """A field name as a table header: the same few hundred names on every page."""
    return f"<tr><th>{esc(name)}</th><td>"


def fields(value: Any) -> str:
    """Every field of a document, nested, as definition tables (null shown as null)."""
    if isinstance(value, dict):
        if not value:
            return '<span class="null">{}</span>'
        rows = "".join(_key(str(k)) + fields(v) + "</td></tr>" for k, v in value.items())
        return f'<table class="fields">{rows}</table>'
    if isinstance(value, list):
        if not value:
            return '<span class="null">[]</span>'
        if all(not isinstance(v, dict | list) for v in value):
            return esc(", ".join("null" if v is None else str(v) for v in value))
        return '<ol start="0">' + "".join(f"<li>{fields(v)}</li>" for v in value) + "</ol>"
    if value is None:
        return '<span class="null">null</span>'
    return fmt(value, 6)
