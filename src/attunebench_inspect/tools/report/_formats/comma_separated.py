"""The report as CSV: one block per table that has rows, each row led by its table's title."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from .._table import Table, text


def csv_text(tables: Sequence[Table]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # CSV is for data: a table with nothing to say has no rows to write.
    for table in (t for t in tables if not t.unsaid):
        writer.writerow(["table", *table.columns])
        for row in table.rows:
            writer.writerow([table.title, *(text(c) for c in row)])
        writer.writerow([])
    return out.getvalue()
