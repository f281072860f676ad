"""The report's forms that fit nothing to a width: Markdown (a heading and a pipe table per
table), CSV (one block per table that has rows, each row led by its table's title) and JSON (the
report object itself: every dataclass as an object, floats to 6 decimals, NaN and infinities as
null, keys sorted, so that the same logs give the same bytes)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Sequence
from typing import Any

from .._table import Table, text


def markdown_text(tables: Sequence[Table]) -> str:
    parts = ["# AttuneBench report", ""]
    for table in tables:
        parts += [f"## {table.title}", ""]
        if table.unsaid:
            parts += [table.unsaid, ""]
            continue
        parts.append("| " + " | ".join(table.columns) + " |")
        parts.append("|" + "---|" * len(table.columns))
        parts += ["| " + " | ".join(text(c) for c in row) + " |" for row in table.rows]
        parts += (["", table.note] if table.note else []) + [""]
    return "\n".join(parts)


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


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 6)
    return value


def json_text(report: Any) -> str:
    return json.dumps(_jsonable(report), indent=1, sort_keys=True, allow_nan=False) + "\n"
