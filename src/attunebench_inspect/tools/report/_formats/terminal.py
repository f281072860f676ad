"""The report as terminal text, within `WIDTH` columns: each table's columns aligned, its note
below it. A table wider than the terminal wraps its widest columns' cells onto more lines at word
boundaries (a heading's word is never cut), and titles, notes and the lines that replace empty
tables wrap at word boundaries. What would stand tall or cut in a column moves to a numbered
note under the table: the reason of a "cannot decide" (the cell keeps the words), and a word
too long for a column (a log's location), which its note keeps whole on a line of its own."""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Sequence

from ...._util.verdict import CANNOT_DECIDE, is_abstention
from ..._arguments import WIDTH
from .._table import Table, text

GAP = "  "
LONGEST_WORD = 40
"""A cell of one longer word (a log's location) moves to a note; a wrapped column keeps its
longest word whole up to this many characters."""
SHORT_CELL = 24
"""A cell this short is never wrapped (a number with its interval, a model's name): headings and
prose wrap first."""


def _wrap(paragraphs: str) -> str:
    return "\n".join(
        "\n".join(textwrap.wrap(p, WIDTH, break_on_hyphens=False)) or p
        for p in paragraphs.split("\n")
    )


_INTERVAL = re.compile(r"\[([^\s\]]+), ([^\s\]]+)\]")


def _kept(cell: str) -> str:
    """A cell with its breaks inside an interval made unbreakable (a short cell's every break
    after a comma): a wrapped interval moves to its own line whole (`0.188` above `[0.153,
    0.220]`)."""
    if len(cell) <= SHORT_CELL:
        return cell.replace(", ", ",\xa0")
    return _INTERVAL.sub("[\\1,\xa0\\2]", cell)


def _longest_word(cells: list[list[str]], column: int) -> int:
    return min(LONGEST_WORD, max(len(w) for r in cells for w in [*_kept(r[column]).split(" "), ""]))


def _fitted(cells: list[list[str]]) -> list[int]:
    """Column widths that fit `WIDTH` where they can, the widest columns narrowed first: headings
    and prose before short cells (a number with its interval), then short cells at their word
    boundaries; no word is cut (a heading's, a model's name), up to `LONGEST_WORD`. A table
    whose words alone are wider than the terminal is its section's to narrow (shorter headings,
    reasons in notes)."""
    columns = range(len(cells[0]))
    widths = [max(len(r[i]) for r in cells) for i in columns]
    words = [_longest_word(cells, i) for i in columns]
    short = [max([len(r[i]) for r in cells[1:] if len(r[i]) <= SHORT_CELL] + [0]) for i in columns]
    for floors in ([max(s, w) for s, w in zip(short, words, strict=True)], words):
        widths = _narrowed(widths, [min(f, w) for f, w in zip(floors, widths, strict=True)])
    return widths


def _noted(rows: list[list[str]]) -> tuple[list[list[str]], list[str]]:
    """The rows with what would stand tall or be cut in a column replaced by a numbered mark,
    and the notes, each once however many cells share it."""
    notes: list[str] = []

    def mark(note: str) -> str:
        if note not in notes:
            notes.append(note)
        return f"[{notes.index(note) + 1}]"

    def shown(cell: str) -> str:
        if is_abstention(cell):
            return f"{CANNOT_DECIDE} {mark(cell.partition(': ')[2])}"
        if len(cell) > LONGEST_WORD and " " not in cell:
            return mark(cell)
        return cell

    return [[shown(c) for c in row] for row in rows], notes


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
        rows, notes = _noted([[text(c) for c in row] for row in table.rows])
        cells = [table.columns, *rows]
        widths = _fitted(cells)
        out.write(f"\n{_wrap(table.title)}\n")
        for i, row in enumerate(cells):
            out.write("\n".join(_lines(row, widths)) + "\n")
            if i == 0:
                out.write(GAP.join("-" * w for w in widths) + "\n")
        for number, note in enumerate(notes, 1):
            mark = f"[{number}] "
            # A note of one word (a log's location) stays whole beside its mark, however long.
            lines = (
                [mark + note]
                if " " not in note
                else textwrap.wrap(
                    mark + note,
                    WIDTH,
                    subsequent_indent=" " * len(mark),
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
            out.write("\n".join(lines) + "\n")
        if table.note:
            out.write(f"{_wrap(table.note)}\n")
    return out.getvalue()
