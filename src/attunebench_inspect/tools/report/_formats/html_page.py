"""The report as one self-contained HTML page (no server, no network, no script): every table,
and every figure inline as a PNG data URI. Figures need matplotlib (the `plots` extra); without
it the page says so in one line and keeps every table."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape
from itertools import groupby
from typing import TYPE_CHECKING

from .._table import Table, text

if TYPE_CHECKING:
    from .._plot import Chart

_LONG_CELL = 40
"""Characters past which a cell may wrap: more than a number, an interval or a model name."""
PLOTS_HINT = "pip install 'attunebench-inspect[plots]'"

# 1200 px at most: no horizontal scroll in a 1280 px window. Tables fit it too, where they can: a
# column scrolled out of its box is one a reader does not see. So headings wrap, and so do long
# cells (log locations, reasons: at spaces and after slashes); a short value stays on one line,
# an interval goes under its value only where the table needs it.
# The box still scrolls what cannot wrap.
STYLE = """
body { font-family: system-ui, sans-serif; color: #222; box-sizing: border-box;
  max-width: 1200px; margin: 0 auto; padding: 1em 1.5em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.15em; margin-top: 2em; } h3 { font-size: 1em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
td { white-space: nowrap; } td.long { white-space: normal; }
th { background: #f2f2f2; } .note { color: #555; font-size: 0.85em; }
figure { margin: 0 0 1.5em 0; } figure img { display: block; max-width: 100%; height: auto; }
.scroll { overflow-x: auto; }
"""


def _wrappable(text: str) -> str:
    # "tokens/conv" or a log location has no space to wrap at; a slash offers one, taken only
    # where the table needs it.
    return escape(text).replace("/", "/<wbr>")


def _unbroken(text: str) -> str:
    return escape(text).replace(" ", "&nbsp;")


def _cell(text: str) -> str:
    if len(text) > _LONG_CELL:
        return f"<td class='long'>{_wrappable(text)}</td>"
    value, bracket, interval = text.rpartition(" [")
    if bracket and interval.endswith("]"):
        # A value and its interval: the interval may go under the value, where the table needs
        # the room (the contamination table's four intervals once pushed its last columns out).
        return f"<td class='long'>{_unbroken(value)} {_unbroken('[' + interval)}</td>"
    return f"<td>{escape(text)}</td>"


def _table(table: Table) -> str:
    title = f"<h2>{escape(table.title)}</h2>"
    if table.unsaid:
        return f"{title}<p class='note'>{escape(table.unsaid)}</p>"
    head = "".join(f"<th>{_wrappable(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(_cell(text(c)) for c in row) + "</tr>" for row in table.rows)
    note = f"<p class='note'>{escape(table.note)}</p>" if table.note else ""
    return (
        f"{title}<div class='scroll'><table><thead><tr>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table></div>{note}"
    )


def _figure(chart: Chart) -> str:
    from .._plot import DPI, png

    width, height = (round(x * DPI) for x in chart.figure.get_size_inches())
    data = base64.b64encode(png(chart.figure)).decode("ascii")
    return (
        f"<figure id='{escape(chart.name)}'><img src='data:image/png;base64,{data}' "
        f"width='{width}' height='{height}' alt='{escape(chart.figure.get_suptitle())}'>"
        "</figure>"
    )


def _figures(charts: Sequence[Chart] | None) -> str:
    if charts is None:
        return f"<p class='note'>Figures omitted: they need matplotlib ({escape(PLOTS_HINT)}).</p>"
    return "".join(
        f"<h3>Mode: {escape(mode)}</h3>" + "".join(_figure(c) for c in group)
        for mode, group in groupby(charts, key=lambda c: c.mode)
    )


def html_page(
    runs: str,
    settings: str,
    tables: Sequence[Table],
    charts: Sequence[Chart] | None,
    lead: int = 0,
) -> str:
    """The page: what it was made from (`runs`, `settings`), the first `lead` tables (what the
    report compares, and on which data), the figures (None: matplotlib is absent, said in one
    line), then every other table."""
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>AttuneBench report</title><style>{STYLE}</style></head><body>"
        "<h1>AttuneBench report</h1>"
        + "".join(_table(t) for t in tables[:lead])
        + f"<p class='note'>Runs: {escape(runs)}. {escape(settings)}. Generated from Inspect "
        "logs by <code>attunebench report</code>.</p>"
        f"<h2>Figures</h2>{_figures(charts)}"
        + "".join(_table(t) for t in tables[lead:])
        + "</body></html>\n"
    )
