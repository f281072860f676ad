"""Humans beside models: each replayed answer file's run beside each model run of its mode."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..._util.bootstrap import Interval, mean_cis
from ...score._catalog import PILLAR_NAMES
from ...tools._instrument import Reported
from ...tools.report._analyses import CANONICAL, Settings, any_value, by_mode, shared_ids
from ...tools.report._build import Part, Scope
from ...tools.report._run_table import RunTable
from ._answers import is_human

HUMAN_METRICS = ("composite", *PILLAR_NAMES, *CANONICAL)


@dataclass(frozen=True)
class HumanComparison:
    mode: str
    human: str
    model: str
    metric: str
    conversations: int
    """How many conversations both answered: every value below is over these only."""
    human_value: Interval
    model_value: Interval
    difference: Interval
    """Human - model, paired per conversation."""


def human_comparison(tables: Sequence[RunTable], settings: Settings) -> list[HumanComparison]:
    """Each human run (`human/<annotator>`) beside each model run of its mode (chance included)
    on the conversations both answered only, since a person answers a few: means with bootstrap
    intervals, and the paired difference."""
    rows = []
    for mode, group in by_mode(tables, chance=True).items():
        models = [t for t in group if not is_human(t.model)]
        for human in (t for t in group if is_human(t.model)):
            for model in (m for m in models if shared_ids(human, m)):
                ids = shared_ids(human, model)
                for metric in HUMAN_METRICS:
                    mine, theirs = human.metric(metric, ids), model.metric(metric, ids)
                    if not (any_value(mine) or any_value(theirs)):
                        continue
                    values = mean_cis(
                        [mine, theirs, mine - theirs],
                        resamples=settings.resamples,
                        seed=settings.seed,
                    )
                    rows.append(
                        HumanComparison(mode, human.label, model.label, metric, len(ids), *values)
                    )
    return rows


@dataclass(frozen=True)
class HumanPart(Part):
    human: list[HumanComparison]
    """Each human run beside each model on their shared conversations."""


def human_part(scope: Scope) -> Reported:
    return Reported(HumanPart(human_comparison(scope.tables, scope.settings)))
