"""What an instrument gives the suite, as one record (`Instrument`): its folder's `__init__`
exports it as `INSTRUMENT`, `instruments/__init__.py` lists it once, and everything that joins the
instruments to the suite (the main task's scorers, the report and its forms, the estimate, the
`attunebench` command, the metric catalog, the dataframes) loops over that list
(ARCHITECTURE.md, "Adding an instrument"). A field an instrument does not use keeps its default.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..data._problems import DataProblem
from ..data._validate import Check
from ..score import MainTaskScorer
from ._arguments import Commands
from .estimate import PricedTask
from .report._analyses import Settings
from .report._build import Part, Scope
from .report._logs import Run, RunInfo
from .report._run_table import RunTable
from .report._sections.base import Section


@dataclass(frozen=True)
class Reported:
    """An instrument's part of the report, and the runs of its own task it read (listed among
    the report's runs after the main task's)."""

    part: Part
    runs: Sequence[RunInfo] = ()


@dataclass(frozen=True)
class Options:
    """Options an instrument adds to `attunebench report` (and `build_report`'s keywords)."""

    names: tuple[str, ...]
    """The keywords, as `build_report` takes them and `Scope.options` holds them."""
    add: Callable[[argparse.ArgumentParser], None]
    """Adds them to the command's parser (their `dest` is their name)."""
    mistaken: Callable[[argparse.Namespace], str | None]
    """What is wrong with them before any log is read (None where nothing is)."""


@dataclass(frozen=True)
class Validation:
    """What an instrument adds to `attunebench validate`: its arguments, and under them the
    problems of its own inputs (listed first) and its checks of each conversation."""

    add: Callable[[argparse.ArgumentParser], None]
    checks: Callable[[argparse.Namespace], tuple[list[DataProblem], list[Check]]]


@dataclass(frozen=True)
class Catalog:
    """The metrics an instrument declares, as scorers/METRICS.md shows them (after the main
    task's) and as the conformance vectors check them."""

    markdown: Callable[[], list[str]]
    names: frozenset[str] = frozenset()
    """The metrics its conformance cases name (none: it has no cases)."""
    compute: Callable[[str, Mapping[str, Any]], float] | None = None
    """The value the code gives a conformance case of one of `names`."""


@dataclass(frozen=True)
class Instrument:
    """One validity instrument, as the suite assembles it."""

    name: str
    """Its folder under instruments/."""
    doc: str
    """Its page of docs/, linked from the README."""
    report: Callable[[Scope], Reported]
    """Its part of the report, from the runs the report compares (every instrument has one, so
    that the JSON report has every key whatever the logs hold)."""
    of_run: Callable[[Run, RunTable, Settings], Any] | None = None
    """What it reads of each main-task run while the report holds the run's records (their
    table, the report's `Settings`), handed to `report` in `Scope.of_runs`: a sweep's records
    would not fit in memory together."""
    section: Section | None = None
    """Its tables (and figures) of the report."""
    after: str = ""
    """The main task's section its section follows (`Section.name`)."""
    main_task_scorers: tuple[MainTaskScorer, ...] = ()
    """Scorers it adds to the main task's samples."""
    priced: tuple[PricedTask, ...] = ()
    """Its tasks on the bill: `attunebench estimate --<name>` each."""
    commands: tuple[Callable[[Commands], None], ...] = ()
    """Its subcommands of `attunebench`."""
    catalog: Catalog | None = None
    options: Options | None = None
    validation: Validation | None = None
    is_person: Callable[[str], bool] | None = None
    """Models of the main task that are people (their runs are compared with models on shared
    conversations, in its section, not ranked among them)."""
    verdict_runs: Callable[[Mapping[str, Any]], bool] | None = None
    """Logs of its own task (by their task metadata) whose samples hold a verdict's evidence, not
    metrics per conversation: `metrics_df` leaves them out."""
