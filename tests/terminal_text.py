"""A table as the terminal report prints it, read back: what a person sees at 120 columns."""

from __future__ import annotations

import re

from attunebench_inspect.tools._arguments import WIDTH
from attunebench_inspect.tools.report._formats import terminal_text
from attunebench_inspect.tools.report._table import Table, text

NOTE = re.compile(r"^\[\d+\] ")
ONE_WORD_NOTE = re.compile(r"^\[\d+\] \S+$")


def _words(cells: list[str]) -> set[str]:
    return {w for c in cells for w in c.split()}


def read_back(table: Table) -> None:
    """The table as the terminal prints it, read back column by column: each heading whole, its
    lines joined at word boundaries, and every word of a column one of its cells' words (or a
    note's mark), within `WIDTH`."""
    lines = terminal_text([table]).split("\n")[1:]
    title = 0
    while " ".join(lines[: title + 1]) != table.title:
        title += 1
    dashes = next(i for i, line in enumerate(lines) if re.fullmatch(r"-+(  -+)*", line))
    spans = [m.span() for m in re.finditer(r"-+", lines[dashes])]
    ends = [s for _, s in spans[:-1]] + [WIDTH]
    rows = []
    for line in lines[dashes + 1 :]:
        if not line or NOTE.match(line) or (table.note and table.note.startswith(line)):
            break
        rows.append(line)
    for i, (heading, (start, _)) in enumerate(zip(table.columns, spans, strict=True)):
        pieces = [line[start : ends[i]].strip() for line in lines[title + 1 : dashes]]
        assert " ".join(p for p in pieces if p) == heading, (table.title, heading, pieces)
        shown = _words([text(r[i]) for r in table.rows]) | {"cannot", "decide"}
        for line in rows:
            for word in line[start : ends[i]].split():
                assert word in shown or re.fullmatch(r"\[\d+\]", word), (table.title, word)
    # Beyond the width only a note of one word no width can hold: a log's location, whole.
    assert [line for line in lines if len(line) > WIDTH and not ONE_WORD_NOTE.match(line)] == []
