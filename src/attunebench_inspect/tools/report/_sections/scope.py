"""The report's first table: what its numbers are. The data set each task's runs read (and, for the
bundled set, that they are not AttuneBench results), over how many conversations and epochs,
the filters the report applies, and how many runs over other conversations or epochs were set
aside, and why (`_compared.py`)."""

from __future__ import annotations

from .._build import Report
from .._compared import MAIN_TASK, SYNTHETIC, Compared
from .._table import Cell, Table
from .base import Section, at_version

RULE = (
    "Each task ranks only runs over one conversation set and number of epochs: the largest among "
    "the logs (the most conversations; then the set more runs cover, then the newest). A run "
    "over fewer or other conversations (a --limit or --sample-id run, another data set) or of "
    "other epochs or epoch reducer is set aside, never ranked beside them, and listed with its "
    "reason under 'skipped logs' at the end."
)


def title(report: Report) -> str:
    """The report's first line: the data set's nature, then what the report compares."""
    synthetic = any(c.synthetic for c in report.compared)
    head = f"{SYNTHETIC[:1].upper()}{SYNTHETIC[1:]}. " if synthetic else ""
    where = f", conversations where {report.where}" if report.where else ""
    return f"{head}What this report compares{at_version(report)}{where}"


def _filters(report: Report) -> str:
    """What the report's filters do, said before any number they change."""
    where = (
        f"--where {report.where}: every table reads only the conversations that match (the "
        "contamination probe's verdict reads every text it probed). "
        if report.where
        else ""
    )
    compare = (
        f"--compare {report.compare}: the subgroup table sets the conversations that match "
        "against the rest. "
        if report.compare
        else ""
    )
    return where + compare


def _conversations(report: Report, task: Compared) -> Cell:
    """A task's conversations, and how many of them `--where` kept (its runs' most)."""
    others = {c.task for c in report.compared} - {MAIN_TASK}
    kept = [
        r.conversations
        for r in report.runs
        if (r.mode == task.task) or (task.task == MAIN_TASK and r.mode not in others)
    ]
    if not report.where or not kept or max(kept) == task.conversations:
        return task.conversations
    return f"{max(kept)} of {task.conversations}"


def _note(report: Report) -> str:
    synthetic = (
        "The bundled set's conversations were written for this project: its scores are demo and "
        "test numbers and say nothing of how a model does on the real data. "
        if any(c.synthetic for c in report.compared)
        else ""
    )
    aside = sum(c.set_aside for c in report.compared)
    said = f"{aside} run(s) set aside. " if aside else "No run set aside. "
    reduced = "".join(
        f"The {c.task}'s runs were logged by the {c.reducer} of their epochs (--epochs-reducer): "
        "ranked here by their mean over epochs, as every run, their logs' Composite differs. "
        for c in report.compared
        if c.reducer != "mean"
    )
    return _filters(report) + synthetic + said + reduced + RULE


def _tables(report: Report) -> list[Table]:
    if not report.compared:
        return []
    return [
        Table(
            title(report),
            ["task", "data set", "conversations", "epochs", "runs ranked", "set aside"],
            [
                [c.task, c.data_set, _conversations(report, c), c.epochs, c.runs, c.set_aside]
                for c in report.compared
            ],
            _note(report),
        )
    ]


SECTION = Section("scope", _tables)
