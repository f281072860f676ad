"""How the runs went: parse failures, errors, tokens and time, and the logs set aside."""

from __future__ import annotations

from ....score._catalog import label
from .._analyses import Operations
from .._build import Report
from .._table import Cell, Columns, Table, item_table, number
from .base import Section

_FAILURES: Columns[Operations] = (
    ("mode", lambda o: o.mode),
    ("model", lambda o: o.model),
    ("conversations", lambda o: o.conversations),
    ("errored", lambda o: len(o.errored)),
    (label("parse_failure_rate"), lambda o: number(o.parse_failure_rate)),
    ("repaired calls", lambda o: int(o.repaired_calls)),
    ("judge parse failures", lambda o: int(o.judge_parse_failures)),
)
_COSTS: Columns[Operations] = (
    ("mode", lambda o: o.mode),
    ("model", lambda o: o.model),
    ("input tokens/conv", lambda o: number(o.tokens_per_conversation.get("input", 0.0), 0)),
    ("output tokens/conv", lambda o: number(o.tokens_per_conversation.get("output", 0.0), 0)),
    ("cached tokens/conv", lambda o: number(o.tokens_per_conversation.get("cache_read", 0.0), 0)),
    ("seconds/conv", lambda o: number(o.seconds_per_conversation, 2)),
    ("wall seconds", lambda o: number(o.wall_seconds, 1)),
)


def _roles(report: Report) -> Table:
    return Table(
        "Tokens by role (whole run): the evaluated model and each judge",
        ["mode", "model", "role (or the evaluated model)", "input", "output", "cache read",
         "cache write"],
        [
            [o.mode, o.model, role, u["input"], u["output"], u["cache_read"], u["cache_write"]]
            for o in report.operations
            for role, u in o.tokens_by_role.items()
        ],
        "The rows of a run add up to its log's usage (Inspect's model_usage).",
    )  # fmt: skip


def _tables(report: Report) -> list[Table]:
    errored: list[list[Cell]] = [
        [o.model, o.mode, sid, reason]
        for o in report.operations
        for sid, reason in o.errored.items()
    ]
    errored += [[s.model or "-", s.mode or "-", s.location, s.reason] for s in report.skipped]
    failures = Table(
        "Errored conversations and skipped logs",
        ["model", "mode", "conversation / log", "reason"],
        errored,
    )
    return [
        item_table("Operations: parse failures and errors", report.operations, _FAILURES),
        item_table(
            "Operations: tokens and time per conversation (every role's calls)",
            report.operations,
            _COSTS,
        ),
        _roles(report),
        *([failures] if errored else []),
    ]


SECTION = Section("operations", _tables)
