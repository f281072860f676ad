"""The report as Markdown: a heading and a pipe table per table."""

from __future__ import annotations

from collections.abc import Sequence

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
