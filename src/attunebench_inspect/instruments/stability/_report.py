"""The report's stability: the pure statistics on each run's records, rank stability per mode."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ...data._problems import InputError
from ...score._panel import ANSWER_DOMAIN, RATING_DOMAIN, panel_rating
from ...solve._identity import SelfJudge
from ...solve._judges import panel_roles, self_judging
from ...tools._instrument import Reported
from ...tools.report._analyses import PHRASING_EFFECTS, Gap, Settings
from ...tools.report._build import Part, Scope
from ...tools.report._logs import Run
from ...tools.report._run_table import CHANCE_LABEL, RunTable
from ._agreement import Agreement, JudgeProfile, judge_agreement, judge_profile, panel_data
from ._log_figures import draft_digests, judged_drafts
from ._position import PositionBias, PositionConsistency, position_bias, position_consistency
from ._ranks import rank_stability
from ._record import StabilityRecord, records_of
from ._retest import RetestReliability, retest_reliability
from ._rules import RANK_SETTLED, RULES


@dataclass(frozen=True)
class JudgeRow:
    """One judge of a run's panel on one criterion: its leniency beside the panel's."""

    role: str
    model: str
    criterion: str
    profile: JudgeProfile
    panel_mean: float
    """The panel's mean rating of the same drafts (each draft's mean over its judges)."""
    self_judge: SelfJudge | None


@dataclass(frozen=True)
class AgreementRow:
    item: str
    """A rating criterion (ordinal) or "binary" (every yes/no/na answer, nominal)."""
    agreement: Agreement


@dataclass(frozen=True)
class RunStability:
    """The stability of one (model, mode) run."""

    model: str
    mode: str
    epochs: int
    conversations: int
    position_bias: PositionBias
    position_consistency: PositionConsistency
    phrasing_effect: list[Gap]
    """The dual-phrasing binary answers, observer - HP-facing: the same family of question."""
    test_retest: RetestReliability
    judges: dict[str, str]
    """The judge panel, model role -> model, in panel order (empty: no judge)."""
    judge_agreement: list[AgreementRow]
    judge_leniency: list[JudgeRow]
    self_judge: dict[str, SelfJudge]
    """model role -> how that judge relates to the evaluated model; empty: no self-judging."""
    self_judge_allowed: bool
    """`-T allow_self_judge=true`: the run said it was meant."""
    records: bool
    """Whether the log has stability records (task version 3-A's logs have none)."""
    judge_note: str = ""
    """Why a judged run has no judge answers to read, in its own words (empty: it has some)."""


@dataclass(frozen=True)
class RankTable:
    """Rank stability of the models of one mode."""

    mode: str
    models: list[str]
    estimates: list[float]
    """Each model's run Composite, as ranked (the mean of its conversations' epoch means)."""
    holds: list[list[float]]
    """holds[i][j]: how often models i and j keep their order in replicates (NaN: diagonal, tie)."""
    settled: list[list[bool]]
    resamples: int
    epochs_resampled: bool
    verdicts: list[list[str]] = field(default_factory=list)
    """verdicts[i][j]: the verdict on the order of models i and j ("" on the diagonal)."""
    shared: int = 0
    """Conversations every model of the mode has."""
    rule: str = RULES["rank_stability"]
    threshold: float = RANK_SETTLED


def _judges(run: Run) -> tuple[dict[str, str], dict[str, SelfJudge], bool]:
    """The panel the header records, its self-judging (as the task recorded it, or read from
    the model roles where the task was made before its eval) and whether it was allowed."""
    metadata = run.header.eval.metadata or {}
    roles = run.header.eval.model_roles or {}
    judges = dict(metadata.get("judges") or {})
    if not judges:
        try:
            panel = panel_roles(list(roles))
        except InputError:  # a log of roles the suite never ran with
            panel = ()
        judges = {r: c.model for r in panel if not isinstance(c := roles[r], list)}
    related = metadata.get("self_judge")
    if related is None:
        related = self_judging(run.model, judges)
    return judges, dict(related), bool(metadata.get("allow_self_judge", False))


def _judge_note(table: RunTable, records: Sequence[StabilityRecord], judged: bool) -> str:
    """Why a judged run has no judge answers to read, each failure in its own words."""
    if judged:
        return ""
    if not records:
        return "no records: a log of task version 3-A keeps no judge answers"
    failures = np.nansum(table.metric("judge_parse_failures"))
    if failures > 0 or any(r.drafts for r in records):
        return (
            "no judge answer could be used: every judge call failed to parse or came back "
            "empty (the run's judge_parse_failures)"
        )
    return "no draft to judge: the model wrote no usable draft (its draft calls failed)"


def _panel(
    table: RunTable,
    records: Sequence[StabilityRecord],
    judges: dict[str, str],
    related: dict[str, SelfJudge],
    draws: dict[str, int],
) -> tuple[list[AgreementRow], list[JudgeRow]]:
    """The panel's agreement (two judges or more) and each judge's leniency and collapse."""
    judged = judged_drafts(records)
    if not judges or not judged:
        return [], []
    data = panel_data(list(judges), judged, draft_digests(records))
    agreement = []
    if len(judges) >= 2:
        clusters = data.clusters(data.drafts)
        for criterion, rows in data.ratings.items():
            found = judge_agreement(rows, "ordinal", RATING_DOMAIN, clusters=clusters, **draws)
            agreement.append(AgreementRow(criterion, found))
        binary = data.clusters(data.answer_drafts)
        answers = judge_agreement(data.answers, "nominal", ANSWER_DOMAIN, clusters=binary, **draws)
        agreement.append(AgreementRow("binary", answers))
    leniency = []
    for criterion, rows in data.ratings.items():
        panel = [panel_rating(list(draft)) for draft in zip(*rows, strict=True)]
        for role, row in zip(data.roles, rows, strict=True):
            rated = [m for m, v in zip(panel, row, strict=True) if v is not None]
            mean = sum(rated) / len(rated) if rated else math.nan
            profile = judge_profile(row, data.digests)
            leniency.append(
                JudgeRow(role, judges[role], criterion, profile, mean, related.get(role))
            )
    return agreement, leniency


def run_stability(run: Run, table: RunTable, settings: Settings) -> RunStability:
    """Every stability figure of one run (its table cut by `--where`), the phrasing effect aside."""
    draws = {"resamples": settings.resamples, "seed": settings.seed}
    records = records_of(table)
    choices = [c for r in records for c in r.choices]
    judges, related, allowed = _judges(run)
    agreement, leniency = _panel(table, records, judges, related, draws)
    return RunStability(
        model=table.label,
        mode=table.mode,
        epochs=max((len(v) for v in table.epoch_composites.values()), default=0),
        conversations=len(table.conversations),
        position_bias=position_bias(choices, **draws),
        position_consistency=position_consistency(choices, **draws),
        phrasing_effect=[],
        test_retest=retest_reliability(table.epoch_composites),
        judges=judges,
        judge_agreement=agreement,
        judge_leniency=leniency,
        self_judge=related,
        self_judge_allowed=allowed,
        records=bool(records),
        judge_note=_judge_note(table, records, bool(judged_drafts(records))) if judges else "",
    )


@dataclass(frozen=True)
class StabilityPart(Part):
    """The report's stability: per run, and per mode across models."""

    stability: list[RunStability]
    """Per run: position, reruns, the judge panel (docs/stability.md)."""
    rank_stability: list[RankTable]
    """Per mode: how often each pair of models keeps its order over bootstrap replicates."""


def _phrasing(run: RunStability, gaps: Sequence[Gap]) -> RunStability:
    """A run's dual-phrasing answers among the report's perspective gaps."""
    mine = [
        g
        for g in gaps
        if g.model == run.model and g.mode == run.mode and g.label in PHRASING_EFFECTS
    ]
    return replace(run, phrasing_effect=mine)


def stability_part(scope: Scope) -> Reported:
    """Each main-task run's stability (read as its records were held); per mode, rank stability."""
    return Reported(
        StabilityPart(
            stability=[_phrasing(run, scope.main.perspective) for run in scope.of_runs],
            rank_stability=rank_tables(scope.models, scope.settings),
        )
    )


def rank_tables(tables: Sequence[RunTable], settings: Settings) -> list[RankTable]:
    """Per mode with two models or more besides chance: for every pair, the share of
    bootstrap replicates (conversations, then epochs within each where a run has several) in
    which their order holds."""
    result = []
    for mode in sorted({t.mode for t in tables}):
        # The chance baseline is a baseline: ranks leave it out, as elsewhere in the report.
        group = [t for t in tables if t.mode == mode and t.label != CHANCE_LABEL]
        if len(group) < 2:
            continue
        several = any(len(v) > 1 for t in group for v in t.epoch_composites.values())
        found = rank_stability(
            {t.label: t.epoch_composites for t in group},
            resamples=settings.resamples,
            seed=settings.seed,
            resample_epochs=several,
        )
        order = sorted(range(len(found.models)), key=lambda i: -found.estimates[i])
        verdicts = [[found.verdict(i, j) if i != j else "" for j in order] for i in order]
        result.append(
            RankTable(
                mode,
                [found.models[i] for i in order],
                [found.estimates[i] for i in order],
                found.holds[np.ix_(order, order)].tolist(),
                found.settled()[np.ix_(order, order)].tolist(),
                found.resamples,
                several,
                verdicts,
                found.shared,
            )
        )
    return result
