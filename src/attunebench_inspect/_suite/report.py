"""`build_report`: logs in, every analysis out, as typed objects (the Python API of the report):
the main task's analyses (tools/report/) and each instrument's."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..data._codebook import load_codebook
from ..instruments.contamination._report import (
    PROBE_TASK,
    ContaminationRow,
    contamination_rows,
    is_contamination_run,
)
from ..instruments.contamination._section import beside
from ..instruments.human._answers import is_human
from ..instruments.human._comparison import HumanComparison, human_comparison
from ..instruments.profile._analyses import (
    DiagnosisInference,
    ProfileCapability,
    ProfileRow,
    diagnosis_inference,
    profile_capability,
    profile_leaderboard,
)
from ..instruments.profile._table import is_profile_run, profile_table
from ..instruments.reannotation._labels import read_identities
from ..instruments.reannotation._study import ThirdPartySection, rescore_runs, third_party_section
from ..instruments.stability._report import RankTable, RunStability, rank_tables, run_stability
from ..score._catalog import DIAGNOSTIC
from ..solve._modes import PRIMARY
from ..tools.report import _analyses as analyses
from ..tools.report._compared import MAIN_TASK, SYNTHETIC, Compared, compared
from ..tools.report._filters import FilterError, load_groups, parse_filter
from ..tools.report._logs import Run, RunInfo, Skipped, is_main_task_run, read_runs
from ..tools.report._run_table import RunTable, model_label, run_table
from ..tools.report._sections.base import Beside


@dataclass(frozen=True)
class Report:
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
    human: list[HumanComparison] = field(default_factory=list)
    """Each human run beside each model on their shared conversations."""
    profile: list[ProfileRow] = field(default_factory=list)
    """The profile task's runs: every profile metric with its bootstrap interval."""
    diagnosis_inference: list[DiagnosisInference] = field(default_factory=list)
    profile_capability: list[ProfileCapability] = field(default_factory=list)
    stability: list[RunStability] = field(default_factory=list)
    """Per run: position, reruns, the judge panel (docs/stability.md)."""
    rank_stability: list[RankTable] = field(default_factory=list)
    """Per mode: how often each pair of models keeps its order over bootstrap replicates."""
    third_party: ThirdPartySection | None = None
    """Every run against third-party labels (`--third-party`); None without answer files."""
    contamination: list[ContaminationRow] = field(default_factory=list)
    """One row per model probed for contamination: the verdict beside its Composite."""
    compared: list[Compared] = field(default_factory=list)
    """Per task, the conversation set its ranked runs cover and how many runs were set aside
    (the report's first table)."""
    notice: str = ""
    """"synthetic: not AttuneBench results" where a task's runs read the bundled set."""

    def beside_composite(self) -> list[Beside]:
        """The instruments' columns beside the Composite on the leaderboard."""
        return beside(self.contamination)

    def composite(self, model: str, mode: str = PRIMARY) -> float:
        """The Composite of a model in a mode (NaN if absent): for gating pipelines."""
        for row in self.leaderboard:
            if row.model == model and row.mode == mode:
                return row.composite.estimate
        return float("nan")


def _only(table: RunTable, keep: set[str]) -> RunTable:
    return dataclasses.replace(
        table,
        conversations={k: v for k, v in table.conversations.items() if k in keep},
        epoch_composites={k: v for k, v in table.epoch_composites.items() if k in keep},
        instrument_scores=[s for s in table.instrument_scores if s.conversation in keep],
    )


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
        Skipped(
            r.location,
            f"task version {r.version}: not ranked with the {chosen} runs (scores of different "
            f"task versions are not comparable); report it with --task-version {r.version}",
        )
        for r in runs
        if r.version != chosen
    ]
    return chosen, versions, kept, skipped


def task_of(run: Run) -> str | None:
    """A run's task as the report compares them (`compared`): the main task's modes together, the
    other tasks each alone; a person's answers (`human/<annotator>`) are compared with models on
    the conversations both answered, in their own section, so they stay out of the rule."""
    if is_human(run.model):
        return None
    return MAIN_TASK if is_main_task_run(run) else run.mode


def build_report(
    logs: Sequence[str | Path],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    where: str | None = None,
    compare: str | None = None,
    groups: str | Path | None = None,
    diagnostics: bool = False,
    third_party: Sequence[str | Path] = (),
    identities: str | Path | None = None,
    codebook: str | Path | None = None,
    task_version: str | None = None,
) -> Report:
    """Every analysis of the AttuneBench paper over the newest successful log per
    (task, model, mode) among `logs` (files or folders), at one task version (`task_version`,
    else the newest among them), over one conversation set per task (`compared`). Never re-runs
    a model.

    `third_party`: answer files of annotators who did not hold the conversations, read as labels
    (docs/third-party.md); `identities`: a JSON file, annotator -> the participant ID of an
    annotator who was also a participant; `codebook`: the one the runs and the answer files used
    (default: the bundled one). `ThirdPartyError` lists what stops their use, one line each."""
    named = load_groups(groups)
    every, skipped = read_runs(logs)
    version, versions, runs, other = one_version(every, task_version)
    runs, aside, scope = compared(runs, task_of)
    settings = analyses.Settings(resamples=resamples, seed=seed)
    kept = _where(parse_filter(where, named) if where else None)
    tables, perspective, stability = _main_task(runs, kept, settings)
    third_party_found = (
        _third_party(runs, tables, third_party, identities, codebook, settings)
        if third_party
        else None
    )
    report = _analyse(
        Report(
            resamples=resamples,
            seed=seed,
            where=where,
            compare=compare,
            task_version=version,
            versions=versions,
            runs=[],
            skipped=[*skipped, *other, *aside],
            perspective=perspective,
            stability=stability,
            third_party=third_party_found,
            compared=scope,
            notice=SYNTHETIC if any(c.synthetic for c in scope) else "",
        ),
        tables,
        diagnostics,
        parse_filter(compare, named) if compare else None,
    )
    return _other_tasks(report, runs, kept, tables)


def _where(selects: Callable[[dict[str, Any]], bool] | None) -> Callable[[RunTable], RunTable]:
    """A run table cut to the conversations `--where` selects (whole without a filter)."""

    def kept(table: RunTable) -> RunTable:
        if selects is None:
            return table
        return _only(table, {i for i, c in table.conversations.items() if selects(c.facts)})

    return kept


def _analyse(
    report: Report,
    every: Sequence[RunTable],
    diagnostics: bool,
    compare: Callable[[dict[str, Any]], bool] | None,
) -> Report:
    """The paper's analyses of the main task's runs: the models' (humans are beside them)."""
    settings = analyses.Settings(resamples=report.resamples, seed=report.seed)
    tables = [t for t in every if not is_human(t.model)]
    metrics = (*analyses.CANONICAL, *(DIAGNOSTIC if diagnostics else ()))
    pairs = analyses.distinguishability(tables, settings)
    return dataclasses.replace(
        report,
        leaderboard=analyses.leaderboard(tables, settings, metrics),
        distinguishability=pairs,
        distinguished=_distinguished(pairs),
        drift=analyses.turn_drift(tables, settings),
        capability=analyses.capability_split(tables),
        win_rates=analyses.win_rates(tables),
        mode_deltas=analyses.mode_deltas(tables),
        operations=analyses.operations(every),
        human=human_comparison(every, settings),
        subgroups=analyses.compare_subgroup(tables, compare, settings) if compare else [],
        rank_stability=rank_tables(tables, settings),
    )


def _other_tasks(
    report: Report,
    runs: Sequence[Run],
    kept: Callable[[RunTable], RunTable],
    tables: list[RunTable],
) -> Report:
    """The profile task's and the contamination probe's part of the report, and every run read."""
    settings = analyses.Settings(resamples=report.resamples, seed=report.seed)
    version = report.task_version
    profile_tables = [kept(profile_table(r)) for r in runs if is_profile_run(r)]
    probes = [r for r in runs if is_contamination_run(r)]
    scored = {(t.label, t.mode): frozenset(t.ids) for t in tables}
    contamination = contamination_rows(
        [(model_label(r.model), r) for r in probes],
        [
            (row.model, row.mode, row.composite, scored.get((row.model, row.mode), frozenset()))
            for row in report.leaderboard
        ],
    )
    return dataclasses.replace(
        report,
        runs=[
            *(
                RunInfo(t.label, t.mode, t.task, len(t.conversations), t.location, version)
                for t in (*tables, *profile_tables)
            ),
            *(
                RunInfo(
                    c.model, PROBE_TASK, r.task, c.contamination.conversations, r.location, version
                )
                for c, r in zip(contamination, probes, strict=True)
            ),
        ],
        profile=profile_leaderboard(profile_tables, settings),
        diagnosis_inference=diagnosis_inference(profile_tables),
        profile_capability=profile_capability(tables, profile_tables),
        contamination=contamination,
    )


def _main_task(
    runs: Sequence[Run], kept: Callable[[RunTable], RunTable], settings: analyses.Settings
) -> tuple[list[RunTable], list[analyses.Gap], list[RunStability]]:
    """The main task's run tables, perspective gaps and stability, run by run: each table reads
    its run's summaries, then lets them go, and a run's stability records go once its stability
    is computed (a sweep's would not fit in memory together)."""
    tables, perspective, stability = [], [], []
    for run in filter(is_main_task_run, runs):
        table = kept(run_table(run))
        gaps = analyses.perspective_gaps([table], settings)
        perspective += gaps
        stability.append(run_stability(run, table, gaps, settings))
        tables.append(dataclasses.replace(table, instrument_scores=[]))
    return tables, perspective, stability


def _distinguished(pairs: Sequence[analyses.PairDifference]) -> dict[str, dict[str, list[int]]]:
    """mode -> metric -> [pairs distinguished, pairs]."""
    counts: dict[str, dict[str, list[int]]] = {}
    for pair in pairs:
        tally = counts.setdefault(pair.mode, {}).setdefault(pair.metric, [0, 0])
        tally[0] += pair.distinguished
        tally[1] += 1
    return counts


def _third_party(
    runs: Sequence[Run],
    tables: Sequence[RunTable],
    answers: Sequence[str | Path],
    identities: str | Path | None,
    codebook: str | Path | None,
    settings: analyses.Settings,
) -> ThirdPartySection:
    """The main task's runs scored again against the answer files' labels, on the conversations
    the report reads (`--where` applies)."""
    book = load_codebook(codebook)
    kept = {t.location: set(t.conversations) for t in tables}
    rescored = rescore_runs(
        [r for r in runs if r.location in kept],
        answers,
        book,
        identities=read_identities(identities) if identities is not None else None,
        only=kept,
    )
    return third_party_section(rescored, book, resamples=settings.resamples, seed=settings.seed)
