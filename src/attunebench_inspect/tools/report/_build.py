"""The report as data: its main-task part, built here from logs (`build_main`), and one part per
instrument (`Part`), which the suite adds by looping over the instruments
(`_suite/report.py`). `Report` is what `build_report` returns and every form of the report reads.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ...score._catalog import DIAGNOSTIC
from ...solve._modes import PRIMARY
from . import _analyses as analyses
from ._compared import MAIN_TASK, SYNTHETIC, Compared, compared
from ._filters import FilterError, load_groups, parse_filter
from ._logs import Run, RunInfo, Skipped, is_main_task_run, read_runs
from ._run_table import RunTable, run_table


@dataclass(frozen=True)
class Beside:
    """A column an instrument puts beside the Composite on the leaderboard, so that no reader
    sees one without the other (the contamination verdict)."""

    column: str
    values: dict[str, str]
    """By the model's name on the leaderboard."""
    missing: str
    """What a model without a value shows."""
    note: str
    """The sentence the leaderboard's note adds."""


class Part:
    """An instrument's part of the report: a frozen dataclass of its own whose fields are keys of
    the JSON report beside the main task's."""

    def beside(self) -> list[Beside]:
        """Its columns beside the Composite on the leaderboard (none by default)."""
        return []

    def alone(self) -> bool:
        """Whether its section shows in a report of no main-task run: its own task's runs."""
        return False


P = TypeVar("P", bound=Part)


@dataclass(frozen=True)
class Report:
    """Every analysis of the paper over the runs compared, and each instrument's part."""

    resamples: int
    seed: int
    where: str | None
    compare: str | None
    task_version: str
    """The task version of every run reported ("" where there were none)."""
    versions: dict[str, int]
    """Every task version among the logs read, and how many runs each has."""
    runs: list[RunInfo]
    skipped: list[Skipped]
    leaderboard: list[analyses.LeaderRow] = field(default_factory=list)
    distinguishability: list[analyses.PairDifference] = field(default_factory=list)
    distinguished: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    """mode -> metric -> [distinguished pairs, pairs]."""
    perspective: list[analyses.Gap] = field(default_factory=list)
    drift: list[analyses.Drift] = field(default_factory=list)
    capability: list[analyses.CapabilitySplit] = field(default_factory=list)
    win_rates: list[analyses.WinRates] = field(default_factory=list)
    mode_deltas: list[analyses.ModeDelta] = field(default_factory=list)
    operations: list[analyses.Operations] = field(default_factory=list)
    subgroups: list[analyses.SubgroupRow] = field(default_factory=list)
    compared: list[Compared] = field(default_factory=list)
    """Per task, the conversation set its ranked runs cover and how many runs were set aside
    (the report's first table)."""
    notice: str = ""
    """"synthetic: not AttuneBench results" where a task's runs read the bundled set."""
    parts: Mapping[str, Part] = field(default_factory=dict)
    """Each instrument's part, by the instrument's name."""

    def part(self, kind: type[P]) -> P:
        """The instrument part of this type (the instrument's section reads it)."""
        found = next((p for p in self.parts.values() if isinstance(p, kind)), None)
        if found is None:
            raise KeyError(f"the report has no {kind.__name__}")
        return found

    def __getattr__(self, name: str) -> Any:
        # The Python API: an instrument's field reads as the report's own (`report.contamination`),
        # as it stands in the JSON report.
        if name.startswith("_") or name == "parts":
            raise AttributeError(name)
        for part in self.parts.values():
            if name in {f.name for f in dataclasses.fields(part)}:  # type: ignore[arg-type]
                return getattr(part, name)
        raise AttributeError(f"'Report' object has no attribute {name!r}")

    def document(self) -> dict[str, Any]:
        """The report as the JSON form writes it: the main task's fields and every part's, side
        by side."""
        own = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "parts"}
        for part in self.parts.values():
            own.update({f.name: getattr(part, f.name) for f in dataclasses.fields(part)})  # type: ignore[arg-type]
        return own

    def beside_composite(self) -> list[Beside]:
        """The instruments' columns beside the Composite on the leaderboard."""
        return [column for part in self.parts.values() for column in part.beside()]

    def composite(self, model: str, mode: str = PRIMARY) -> float:
        """The Composite of a model in a mode (NaN if absent): for gating pipelines."""
        for row in self.leaderboard:
            if row.model == model and row.mode == mode:
                return row.composite.estimate
        return float("nan")


@dataclass(frozen=True)
class Scope:
    """What an instrument's part of the report is built from."""

    main: Report
    """The main task's part, its analyses done."""
    runs: Sequence[Run]
    """Every run the report compares, of every task."""
    tables: Sequence[RunTable]
    """The main task's runs as tables, cut by `--where`: the models' and the people's."""
    models: Sequence[RunTable]
    """The models' tables among them (people left out)."""
    kept: Callable[[RunTable], RunTable]
    """The `--where` cut, for the tables of a task of the instrument's own."""
    settings: analyses.Settings
    of_runs: Sequence[Any] = ()
    """What the instrument read of each main-task run (`Instrument.of_run`), in table order."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The report's options, by name (an instrument's own among them)."""


OfRun = Callable[[Run, RunTable, analyses.Settings], Any]


@dataclass(frozen=True)
class MainBuild:
    """The main task's part of a report, and what the instruments' parts are built from."""

    scope: Scope
    """Without what the instruments read of each run, and without the options."""
    of_runs: list[list[Any]]
    """Per hook given, what it read of each main-task run."""
    cut: list[int]
    """Conversations kept by each `--where` cut made so far (the main task's and any other's)."""


def version_order(version: str) -> tuple[int, str]:
    """Task versions in release order: `3-A` after `2-B`, `10-A` after `9-A`."""
    number, _, letter = version.partition("-")
    return (int(number), letter) if number.isdigit() else (-1, version)


def one_version(
    runs: list[Run], wanted: str | None
) -> tuple[str, dict[str, int], list[Run], list[Skipped]]:
    """The runs of one task version (`wanted`, else the newest present), and the others listed
    as skipped: scores of different task versions are not comparable, so never ranked together."""
    versions = dict(Counter(r.version for r in runs))
    chosen = wanted or max(versions, key=version_order, default="")
    if wanted and wanted not in versions:
        present = ", ".join(sorted(versions, key=version_order)) or "none"
        raise FilterError(f"--task-version {wanted}: no run of that version (present: {present})")
    kept = [r for r in runs if r.version == chosen]
    skipped = [
        Skipped.run(
            r,
            f"task version {r.version}: not ranked with the {chosen} runs (scores of different "
            f"task versions are not comparable); report it with --task-version {r.version}",
        )
        for r in runs
        if r.version != chosen
    ]
    return chosen, versions, kept, skipped


@dataclass(frozen=True)
class Chosen:
    """The runs a report reads among logs, and what it left out (`chosen_runs`)."""

    runs: list[Run]
    skipped: list[Skipped]
    version: str
    versions: dict[str, int]
    compared: list[Compared]


def chosen_runs(
    logs: Sequence[str | Path], task_version: str | None, is_person: Callable[[str], bool]
) -> Chosen:
    """The runs a report reads: the newest successful log per run among `logs`, at one task
    version, over one conversation set and number of epochs per task (`compared`); people's
    runs (`is_person`) are compared in their own section, not ranked, so they stay out of the
    rule."""
    every, skipped = read_runs(logs)
    version, versions, runs, other = one_version(every, task_version)

    def task_of(run: Run) -> str | None:
        if is_person(run.model):
            return None
        return MAIN_TASK if is_main_task_run(run) else run.mode

    runs, aside, scope = compared(runs, task_of)
    return Chosen(runs, [*skipped, *other, *aside], version, versions, scope)


def build_main(
    logs: Sequence[str | Path],
    *,
    resamples: int,
    seed: int,
    where: str | None,
    compare: str | None,
    groups: str | Path | None,
    diagnostics: bool,
    task_version: str | None,
    is_person: Callable[[str], bool],
    of_run: Sequence[OfRun] = (),
) -> MainBuild:
    """The main task's part over the runs `chosen_runs` reads; `is_person`: models that are
    people (compared in their own section, not ranked); `of_run`: what instruments read of each
    main-task run while its records are held."""
    named = load_groups(groups)
    chosen = chosen_runs(logs, task_version, is_person)
    runs, version, scope = chosen.runs, chosen.version, chosen.compared
    settings = analyses.Settings(resamples=resamples, seed=seed)
    cut: list[int] = []
    kept = _where(parse_filter(where, named) if where else None, cut)
    tables, perspective, read = _main_task(runs, kept, settings, of_run)
    models = [t for t in tables if not is_person(t.model)]
    metrics = (*analyses.CANONICAL, *(DIAGNOSTIC if diagnostics else ()))
    pairs = analyses.distinguishability(models, settings)
    selects = parse_filter(compare, named) if compare else None
    report = Report(
        resamples=resamples,
        seed=seed,
        where=where,
        compare=compare,
        task_version=version,
        versions=chosen.versions,
        runs=[
            RunInfo(t.label, t.mode, t.task, len(t.conversations), t.location, version)
            for t in tables
        ],
        skipped=chosen.skipped,
        leaderboard=analyses.leaderboard(models, settings, metrics),
        distinguishability=pairs,
        distinguished=_distinguished(pairs),
        perspective=perspective,
        drift=analyses.turn_drift(models, settings),
        capability=analyses.capability_split(models),
        win_rates=analyses.win_rates(models),
        mode_deltas=analyses.mode_deltas(models),
        operations=analyses.operations(tables),
        subgroups=analyses.compare_subgroup(models, selects, settings) if selects else [],
        compared=scope,
        notice=SYNTHETIC if any(c.synthetic for c in scope) else "",
    )
    return MainBuild(Scope(report, runs, tables, models, kept, settings), read, cut)


def _where(
    selects: Callable[[dict[str, Any]], bool] | None, cut: list[int]
) -> Callable[[RunTable], RunTable]:
    """A run table cut to the conversations `--where` selects (whole without a filter); `cut`
    gains how many each cut kept."""

    def kept(table: RunTable) -> RunTable:
        if selects is None:
            return table
        keep = {i for i, c in table.conversations.items() if selects(c.facts)}
        cut.append(len(keep))
        return dataclasses.replace(
            table,
            conversations={k: v for k, v in table.conversations.items() if k in keep},
            epoch_composites={k: v for k, v in table.epoch_composites.items() if k in keep},
            instrument_scores=[s for s in table.instrument_scores if s.conversation in keep],
        )

    return kept


def _main_task(
    runs: Sequence[Run],
    kept: Callable[[RunTable], RunTable],
    settings: analyses.Settings,
    of_run: Sequence[OfRun],
) -> tuple[list[RunTable], list[analyses.Gap], list[list[Any]]]:
    """The main task's run tables and perspective gaps, run by run, and what each hook reads of
    each run: a table reads its run's summaries, then lets its instruments' records go (a
    sweep's would not fit in memory together)."""
    tables: list[RunTable] = []
    perspective: list[analyses.Gap] = []
    read: list[list[Any]] = [[] for _ in of_run]
    for run in filter(is_main_task_run, runs):
        table = kept(run_table(run))
        perspective += analyses.perspective_gaps([table], settings)
        for hook, found in zip(of_run, read, strict=True):
            found.append(hook(run, table, settings))
        tables.append(dataclasses.replace(table, instrument_scores=[]))
    return tables, perspective, read


def _distinguished(pairs: Sequence[analyses.PairDifference]) -> dict[str, dict[str, list[int]]]:
    counts: dict[str, dict[str, list[int]]] = {}
    for pair in pairs:
        tally = counts.setdefault(pair.mode, {}).setdefault(pair.metric, [0, 0])
        tally[0] += pair.distinguished
        tally[1] += 1
    return counts
