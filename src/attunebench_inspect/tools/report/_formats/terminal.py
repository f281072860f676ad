"""The report as terminal text: each table's columns aligned, its note below it."""

from __future__ import annotations

import io
from collections.abc import Sequence

from .._table import Table, text


def terminal_text(tables: Sequence[Table]) -> str:
    out = io.StringIO()
    for table in tables:
        if table.unsaid:
            out.write(f"\n{table.title}\n{table.unsaid}\n")
            continue
        cells = [table.columns, *([text(c) for c in row] for row in table.rows)]
        widths = [max(len(r[i]) for r in cells) for i in range(len(table.columns))]
        out.write(f"\n{table.title}\n")
        for i, row in enumerate(cells):
            out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
            out.write("\n")
            if i == 0:
                out.write("  ".join("-" * w for w in widths) + "\n")
        if table.note:
            out.write(f"{table.note}\n")
    return out.getvalue()
