"""The profile task's analyses: metrics per run, diagnoses named vs reported, capability split."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..._util.bootstrap import EMPTY, Interval
from ...data._schema import NO_DIAGNOSIS
from ...tools._instrument import Reported
from ...tools.report._analyses import (
    CANONICAL,
    NAN,
    Settings,
    any_value,
    by_mode,
    metric_intervals,
    nan_mean,
    or_low,
    spearman_rho,
)
from ...tools.report._build import Part, Scope
from ...tools.report._logs import RunInfo
from ...tools.report._run_table import CHANCE_LABEL, Conversation, RunTable
from ._catalog import PROFILE_METRICS, UNPLACED_LABELS, in_groups
from ._table import NAMED, PLACED, is_profile_run, profile_table

PROFILE_SUMMARY = in_groups("headline", "part")
"""The profile composite and its four parts: what the capability split correlates."""
ANY_DIAGNOSIS = "any diagnosis"


@dataclass(frozen=True)
class ProfileRow:
    model: str
    conversations: int
    errored: int
    metrics: dict[str, Interval]
    """Every profile metric with a value, with its bootstrap interval over conversations."""
    unplaced: int
    """The participants' labels the vocabulary could not place (their fields unscored)."""

    @property
    def composite(self) -> Interval:
        return self.metrics.get("profile_composite", EMPTY)


def profile_leaderboard(tables: Sequence[RunTable], settings: Settings) -> list[ProfileRow]:
    """Every profile metric of every profile run, best profile composite first."""
    per_table = metric_intervals(tables, [s.name for s in PROFILE_METRICS], settings)
    rows = [
        ProfileRow(
            t.label,
            len(t.conversations),
            len(t.errors),
            per_table[id(t)],
            int(np.nansum(t.metric(UNPLACED_LABELS))),
        )
        for t in tables
    ]
    return sorted(rows, key=lambda r: (-or_low(r.composite.estimate), r.model))


@dataclass(frozen=True)
class DiagnosisInference:
    """Is a diagnosis named more often than participants report it?"""

    model: str
    diagnosis: str
    """A reported or named diagnosis, or "any diagnosis"."""
    participants: int
    """Conversations whose participant reported it."""
    base_rate: float
    """The share of answers whose participant reported it."""
    named_rate: float
    """The share of answers naming it."""
    precision: float
    """Of the answers naming it, the share whose participant reported it."""
    recall: float
    """Of the answers whose participant reported it, the share naming it."""
    answers: int
    """Parsed answers, every epoch of every conversation (a parse failure names nothing)."""


def _inference(
    model: str, diagnosis: str, pairs: list[tuple[bool, bool]], n: int
) -> DiagnosisInference:
    has = sum(h for h, _ in pairs)
    says = sum(s for _, s in pairs)
    both = sum(h and s for h, s in pairs)
    answers = len(pairs)
    return DiagnosisInference(
        model,
        diagnosis,
        n,
        has / answers,
        says / answers,
        both / says if says else NAN,
        both / has if has else NAN,
        answers,
    )


def _reported(conversation: Conversation) -> set[str]:
    """The participant's diagnoses in the terms the model could name them (vocabulary options),
    or, in logs without them, as the data gives them."""
    placed = conversation.facts.get(PLACED)
    if isinstance(placed, list):
        return set(placed)
    return set(conversation.facts.get("diagnoses") or []) - {NO_DIAGNOSIS}


def diagnosis_inference(tables: Sequence[RunTable]) -> list[DiagnosisInference]:
    """Per profile run and diagnosis (and any): base rate, how often named, precision and recall."""
    rows = []
    for table in tables:
        reported = {i: _reported(c) for i, c in table.conversations.items()}
        answers = [
            (reported[i], set(named))
            for i, c in table.conversations.items()
            for named in c.facts[NAMED]
            if named is not None
        ]
        if not answers:
            continue
        for diagnosis in sorted(set().union(*(r | s for r, s in answers))):
            pairs = [(diagnosis in r, diagnosis in s) for r, s in answers]
            n = sum(diagnosis in r for r in reported.values())
            rows.append(_inference(table.label, diagnosis, pairs, n))
        pairs = [(bool(r), bool(s)) for r, s in answers]
        rows.append(
            _inference(table.label, ANY_DIAGNOSIS, pairs, sum(map(bool, reported.values())))
        )
    return rows


@dataclass(frozen=True)
class ProfileCapability:
    mode: str
    """The main task's mode."""
    models: list[str]
    """Models (besides chance) with a profile run and a main-task run in this mode."""
    profile_metrics: list[str]
    metrics: list[str]
    spearman: dict[str, dict[str, float]]
    """profile metric -> main-task metric -> Spearman rank correlation across the models."""


def profile_capability(
    tables: Sequence[RunTable], profile_tables: Sequence[RunTable]
) -> list[ProfileCapability]:
    """The capability split across tasks: does a model that reads people well in conversation
    also infer more about them? Spearman over the models run in both."""
    profile = {t.label: t for t in profile_tables if t.label != CHANCE_LABEL}
    result = []
    for mode, group in by_mode(tables).items():
        shared = [t for t in group if t.label in profile]
        if not shared:
            continue
        models = [t.label for t in shared]
        metrics = [
            "composite",
            *(m for m in CANONICAL if any(any_value(t.metric(m)) for t in shared)),
        ]
        mine = [m for m in PROFILE_SUMMARY if any(any_value(profile[x].metric(m)) for x in models)]
        spearman = {
            p: {
                m: spearman_rho(
                    [nan_mean(profile[x].metric(p)) for x in models],
                    [nan_mean(t.metric(m)) for t in shared],
                )
                for m in metrics
            }
            for p in mine
        }
        result.append(ProfileCapability(mode, models, mine, metrics, spearman))
    return result


@dataclass(frozen=True)
class ProfilePart(Part):
    profile: list[ProfileRow]
    """The profile task's runs: every profile metric with its bootstrap interval."""
    diagnosis_inference: list[DiagnosisInference]
    profile_capability: list[ProfileCapability]

    def alone(self) -> bool:
        return True


def profile_part(scope: Scope) -> Reported:
    """The profile task's runs (cut by `--where`), their analyses and the capability split."""
    tables = [scope.kept(profile_table(r)) for r in scope.runs if is_profile_run(r)]
    version = scope.main.task_version
    return Reported(
        ProfilePart(
            profile=profile_leaderboard(tables, scope.settings),
            diagnosis_inference=diagnosis_inference(tables),
            profile_capability=profile_capability(scope.tables, tables),
        ),
        [
            RunInfo(t.label, t.mode, t.task, len(t.conversations), t.location, version)
            for t in tables
        ],
    )
