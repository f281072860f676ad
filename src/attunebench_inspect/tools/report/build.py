"""`build_report`: logs in, every analysis out, as typed objects (the Python API of the report)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ...data.codebook import load_codebook
from ...score.catalog import DIAGNOSTIC
from ...solve.modes import PRIMARY
from ..third_party.labels import read_identities
from ..third_party.study import ThirdPartySection, rescore_runs, third_party_section
from . import analyses
from .contamination import (
    PROBE_TASK,
    ContaminationRow,
    contamination_rows,
    is_contamination_run,
)
from .filters import load_groups, parse_filter
from .logs import Run, Skipped, read_runs
from .profile_table import is_profile_run, profile_table
from .table import RunTable, model_label, run_table


@dataclass(frozen=True)
class RunInfo:
    model: str
    mode: str
    task: str
    conversations: int
    log: str


@dataclass(frozen=True)
class Report:
    resamples: int
    seed: int
    where: str | None
    compare: str | None
    runs: list[RunInfo]
    skipped: list[Skipped]
    leaderboard: list[analyses.LeaderRow]
    distinguishability: list[analyses.PairDifference]
    distinguished: dict[str, dict[str, list[int]]]
    """mode -> metric -> [distinguished pairs, pairs]."""
    perspective: list[analyses.Gap]
    drift: list[analyses.Drift]
    capability: list[analyses.CapabilitySplit]
    win_rates: list[analyses.WinRates]
    mode_deltas: list[analyses.ModeDelta]
    operations: list[analyses.Operations]
    subgroups: list[analyses.SubgroupRow] = field(default_factory=list)
    human: list[analyses.HumanComparison] = field(default_factory=list)
    """Each human run beside each model on their shared conversations."""
    profile: list[analyses.ProfileRow] = field(default_factory=list)
    """The profile task's runs: every profile metric with its bootstrap interval."""
    diagnosis_inference: list[analyses.DiagnosisInference] = field(default_factory=list)
    profile_capability: list[analyses.ProfileCapability] = field(default_factory=list)
    third_party: ThirdPartySection | None = None
    """Every run against third-party labels (`--third-party`); None without answer files."""
    contamination: list[ContaminationRow] = field(default_factory=list)
    """One row per model probed for contamination: the verdict beside its Composite."""

    def composite(self, model: str, mode: str = PRIMARY) -> float:
        """The Composite of a model in a mode (NaN if absent): for gating pipelines."""
        for row in self.leaderboard:
            if row.model == model and row.mode == mode:
                return row.composite.estimate
        return float("nan")


def _only(table: RunTable, keep: set[str]) -> RunTable:
    return dataclasses.replace(
        table, conversations={k: v for k, v in table.conversations.items() if k in keep}
    )


def is_main_task_run(run: Run) -> bool:
    """A run of the main task (a mode), not of the profile task or the contamination probe: what
    the Composite, the leaderboard and every analysis of the paper read."""
    return not is_profile_run(run) and not is_contamination_run(run)


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
) -> Report:
    """Every analysis of the AttuneBench paper over the newest successful log per
    (task, model, mode) among `logs` (files or folders). Never re-runs a model.

    `third_party`: answer files of annotators who did not hold the conversations, read as labels
    (docs/third-party.md); `identities`: a JSON file, annotator -> the participant ID of an
    annotator who was also a participant; `codebook`: the one the runs and the answer files used
    (default: the bundled one). `ThirdPartyError` lists what stops their use, one line each."""
    named = load_groups(groups)
    runs, skipped = read_runs(logs)
    # Each table reads its run's summaries, then lets them go.
    tables = [run_table(r) for r in runs if is_main_task_run(r)]
    profile_tables = [profile_table(r) for r in runs if is_profile_run(r)]
    probes = [r for r in runs if is_contamination_run(r)]
    if where:
        selects = parse_filter(where, named)
        tables, profile_tables = (
            [_only(t, {i for i, c in t.conversations.items() if selects(c.facts)}) for t in group]
            for group in (tables, profile_tables)
        )
    settings = analyses.Settings(resamples=resamples, seed=seed)
    third_party_found = (
        _third_party(runs, tables, third_party, identities, codebook, settings)
        if third_party
        else None
    )
    metrics = (*analyses.CANONICAL, *(DIAGNOSTIC if diagnostics else ()))
    pairs = analyses.distinguishability(tables, settings)
    counts: dict[str, dict[str, list[int]]] = {}
    for pair in pairs:
        tally = counts.setdefault(pair.mode, {}).setdefault(pair.metric, [0, 0])
        tally[0] += pair.distinguished
        tally[1] += 1
    leaderboard = analyses.leaderboard(tables, settings, metrics)
    contamination = contamination_rows(
        [(model_label(r.model), r) for r in probes],
        [(row.model, row.mode, row.composite) for row in leaderboard],
    )
    return Report(
        resamples=resamples,
        seed=seed,
        where=where,
        compare=compare,
        runs=[
            *(
                RunInfo(t.label, t.mode, t.task, len(t.conversations), t.location)
                for t in (*tables, *profile_tables)
            ),
            *(
                RunInfo(c.model, PROBE_TASK, run.task, c.contamination.conversations, run.location)
                for c, run in zip(contamination, probes, strict=True)
            ),
        ],
        skipped=skipped,
        leaderboard=leaderboard,
        distinguishability=pairs,
        distinguished=counts,
        perspective=analyses.perspective_gaps(tables, settings),
        drift=analyses.turn_drift(tables, settings),
        capability=analyses.capability_split(tables),
        win_rates=analyses.win_rates(tables),
        mode_deltas=analyses.mode_deltas(tables),
        operations=analyses.operations(tables),
        human=analyses.human_comparison(tables, settings),
        profile=analyses.profile_leaderboard(profile_tables, settings),
        diagnosis_inference=analyses.diagnosis_inference(profile_tables),
        profile_capability=analyses.profile_capability(tables, profile_tables),
        subgroups=analyses.compare_subgroup(tables, parse_filter(compare, named), settings)
        if compare
        else [],
        third_party=third_party_found,
        contamination=contamination,
    )


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
