"""The report as terminal text, within `WIDTH` columns: each table's columns aligned, its note
below it. A table wider than the terminal wraps its widest columns' cells onto more lines, and
titles, notes and the lines that replace empty tables wrap at word boundaries."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence

from ..._arguments import WIDTH
from .._table import Table, text

GAP = "  "
LONGEST_WORD = 40
"""A wrapped column keeps its longest word whole up to this many characters (a path is cut)."""
NARROWEST = 6
"""Where nothing else fits, a heading is cut mid-word, to no fewer characters a line than this."""
SHORT_CELL = 24
"""A cell this short is never wrapped (a number with its interval, a model's name): headings and
prose wrap first."""


def _wrap(paragraphs: str) -> str:
    return "\n".join(
        "\n".join(textwrap.wrap(p, WIDTH, break_on_hyphens=False)) or p
        for p in paragraphs.split("\n")
    )


def _kept(cell: str) -> str:
    """A short cell with its breaks inside an interval made unbreakable: a wrapped interval
    moves to its own line whole (`0.188` above `[0.153, 0.220]`)."""
    return cell.replace(", ", ",\xa0") if len(cell) <= SHORT_CELL else cell


def _longest_word(cells: list[list[str]], column: int) -> int:
    return min(LONGEST_WORD, max(len(w) for r in cells for w in [*_kept(r[column]).split(" "), ""]))


def _fitted(cells: list[list[str]]) -> list[int]:
    """Column widths that fit `WIDTH` where they can, the widest columns narrowed first: headings
    and prose before short cells (a number with its interval), then short cells at their word
    boundaries, then headings mid-word; a cell's word (a model's name) is never cut, up to
    `LONGEST_WORD`."""
    columns = range(len(cells[0]))
    widths = [max(len(r[i]) for r in cells) for i in columns]
    words = [_longest_word(cells, i) for i in columns]
    data_words = [_longest_word(cells[1:], i) if cells[1:] else 0 for i in columns]
    short = [max([len(r[i]) for r in cells[1:] if len(r[i]) <= SHORT_CELL] + [0]) for i in columns]
    for floors in (
        [max(s, w) for s, w in zip(short, words, strict=True)],
        words,
        [max(NARROWEST, w) for w in data_words],
    ):
        widths = _narrowed(widths, [min(f, w) for f, w in zip(floors, widths, strict=True)])
    return widths


def _narrowed(widths: list[int], floors: list[int]) -> list[int]:
    widths = list(widths)
    while (over := sum(widths) + len(GAP) * (len(widths) - 1) - WIDTH) > 0:
        narrowable = [i for i in range(len(widths)) if widths[i] > floors[i]]
        if not narrowable:
            break
        # The widest columns are levelled down together: no column is cut while a wider one
        # stays whole.
        widest = max(narrowable, key=lambda i: widths[i])
        next_width = max([widths[i] for i in narrowable if widths[i] < widths[widest]] + [0])
        widths[widest] = max(floors[widest], next_width, widths[widest] - over)
    return widths


def _lines(row: list[str], widths: list[int]) -> list[str]:
    """A row as one or more lines, each cell wrapped to its column."""
    wrapped = [
        [
            line.replace("\xa0", " ")
            for line in textwrap.wrap(_kept(cell), width, break_on_hyphens=False) or [""]
        ]
        if len(cell) > width
        else [cell]
        for cell, width in zip(row, widths, strict=True)
    ]
    height = max(len(w) for w in wrapped)
    return [
        GAP.join(
            (w[line] if line < len(w) else "").ljust(width)
            for w, width in zip(wrapped, widths, strict=True)
        ).rstrip()
        for line in range(height)
    ]


def terminal_text(tables: Sequence[Table]) -> str:
    out = io.StringIO()
    for table in tables:
        if table.unsaid:
            out.write(f"\n{_wrap(table.title)}\n{_wrap(table.unsaid)}\n")
            continue
        cells = [table.columns, *([text(c) for c in row] for row in table.rows)]
        widths = _fitted(cells)
        out.write(f"\n{_wrap(table.title)}\n")
        for i, row in enumerate(cells):
            out.write("\n".join(_lines(row, widths)) + "\n")
            if i == 0:
                out.write(GAP.join("-" * w for w in widths) + "\n")
        if table.note:
            out.write(f"{_wrap(table.note)}\n")
    return out.getvalue()
