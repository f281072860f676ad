"""How the runs went: parse failures, errors, tokens and time, and the logs set aside."""

from __future__ import annotations

from ....score._catalog import label
from .._build import Report
from .._table import Cell, Table, number
from .base import Section


def _failures(report: Report) -> Table:
    return Table(
        "Operations: parse failures and errors",
        [
            "mode",
            "model",
            "conversations",
            "errored",
            label("parse_failure_rate"),
            "repaired calls",
            "judge parse failures",
        ],
        [
            [
                o.mode,
                o.model,
                o.conversations,
                len(o.errored),
                number(o.parse_failure_rate),
                int(o.repaired_calls),
                int(o.judge_parse_failures),
            ]
            for o in report.operations
        ],
    )


def _costs(report: Report) -> Table:
    return Table(
        "Operations: tokens and time per conversation (every role's calls)",
        [
            "mode",
            "model",
            "input tokens/conv",
            "output tokens/conv",
            "cached tokens/conv",
            "seconds/conv",
            "wall seconds",
        ],
        [
            [
                o.mode,
                o.model,
                number(o.tokens_per_conversation.get("input", 0.0), 0),
                number(o.tokens_per_conversation.get("output", 0.0), 0),
                number(o.tokens_per_conversation.get("cache_read", 0.0), 0),
                number(o.seconds_per_conversation, 2),
                number(o.wall_seconds, 1),
            ]
            for o in report.operations
        ],
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
    return [_failures(report), _costs(report), _roles(report), *([failures] if errored else [])]


SECTION = Section("operations", _tables)
