"""The report's first table: what its numbers are. The data set each task's runs read (and, for the
bundled set, that they are not AttuneBench results), over how many conversations, and how many
runs over other conversations were set aside, and why (`_compared.py`)."""

from __future__ import annotations

from .._build import Report
from .._compared import SYNTHETIC
from .._table import Table
from .base import Section, at_version

RULE = (
    "Each task ranks only runs over one conversation set: the largest among the logs (the most "
    "conversations; then the set more runs cover, then the newest). A run over fewer or other "
    "conversations (a --limit or --sample-id run, another data set) is set aside, never ranked "
    "beside them, and listed with its reason under 'skipped logs' at the end."
)


def title(report: Report) -> str:
    """The report's first line: the data set's nature, then what the report compares."""
    synthetic = any(c.synthetic for c in report.compared)
    head = f"{SYNTHETIC[:1].upper()}{SYNTHETIC[1:]}. " if synthetic else ""
    return f"{head}What this report compares{at_version(report)}"


def _note(report: Report) -> str:
    synthetic = (
        "The bundled set's conversations were written for this project: its scores are demo and "
        "test numbers and say nothing of how a model does on the real data. "
        if any(c.synthetic for c in report.compared)
        else ""
    )
    aside = sum(c.set_aside for c in report.compared)
    said = f"{aside} run(s) set aside. " if aside else "No run set aside. "
    return synthetic + said + RULE


def _tables(report: Report) -> list[Table]:
    if not report.compared:
        return []
    return [
        Table(
            title(report),
            ["task", "data set", "conversations", "runs ranked", "set aside"],
            [[c.task, c.data_set, c.conversations, c.runs, c.set_aside] for c in report.compared],
            _note(report),
        )
    ]


SECTION = Section("scope", _tables)
