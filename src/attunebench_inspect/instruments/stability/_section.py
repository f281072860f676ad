"""The report's Stability section: where the pairwise choices fall, whether they follow the
content, reruns, the judge panel, self-judging and rank stability (docs/stability.md)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ..._util.verdict import cannot_decide
from ...tools.report._analyses import PHRASING_EFFECTS
from ...tools.report._build import Report
from ...tools.report._sections.base import Section
from ...tools.report._table import Table, ci, number, sentence
from ._report import RankTable, RunStability, StabilityPart
from ._retest import Icc
from ._rules import RULES

if TYPE_CHECKING:  # figures need the `plots` extra
    from ...tools.report._plot import Chart


def _tables(report: Report) -> list[Table]:
    """Does the score hold still? Position and phrasing, reruns, the judge panel, ranks."""
    part = report.part(StabilityPart)
    runs = part.stability
    if not runs:
        return []
    return [
        _position(runs),
        _position_shares(runs),
        _content(runs),
        _reruns(runs),
        *_judge_tables(report),
        *map(_ranks, part.rank_stability),
    ]


def _position(runs: Sequence[RunStability]) -> Table:
    return Table(
        "Stability: does the answer follow the content? Where the pairwise choices fall",
        ["mode", "model", "choices", "earlier-shown share [95% CI]", "permutation p", "verdict"],
        [
            [
                r.mode,
                r.model,
                r.position_bias.choices,
                ci(r.position_bias.earlier),
                number(r.position_bias.permutation_p, 4),
                _read(r, r.position_bias.verdict),
            ]
            for r in runs
        ],
        f"{sentence(RULES['position_bias'])}. By display position: the next table and the figures.",
    )


def _position_shares(runs: Sequence[RunStability]) -> Table:
    return Table(
        "Stability: pairwise choices by display position (95% bootstrap CI over conversations)",
        ["mode", "model", "position", "share of choices", "expected if blind to position"],
        [
            [r.mode, r.model, s.position, ci(s.share), number(s.expected)]
            for r in runs
            for s in r.position_bias.positions
        ],
        empty="No pairwise choice in these logs (logs of task version 3-A carry none).",
    )


def _content(runs: Sequence[RunStability]) -> Table:
    return Table(
        "Stability: does the answer follow the content? The same choice in another order, the "
        "same answer in another phrasing",
        [
            "mode",
            "model",
            "epochs",
            "swaps",
            "consistency [95% CI]",
            "chance",
            "verdict",
            *(
                f"{effect.split(':')[0]} phrasing effect, pp [95% CI]"
                for effect in PHRASING_EFFECTS
            ),
        ],
        [
            [
                r.mode,
                r.model,
                r.epochs,
                r.position_consistency.swaps,
                ci(r.position_consistency.consistency),
                number(r.position_consistency.chance),
                _read(r, r.position_consistency.verdict),
                *(ci(g.points, 1) for g in r.phrasing_effect),
            ]
            for r in runs
        ],
        f"Consistency: {RULES['position_consistency']}. Chance: the consistency of a chooser "
        "blind to content with the model's own position shares (1/2 for a coin, 0 for one that "
        "always picks the earlier reply). Phrasing effect: the binary answers asked in two "
        "phrasings, observer - HP-facing accuracy in percentage points: an answer that follows "
        "the content does not move with the wording, as a choice that follows the content does "
        "not move with the order.",
    )


def _reruns(runs: Sequence[RunStability]) -> Table:
    """Test-retest of the per-conversation Composite, for runs of two or more epochs."""
    several = [r for r in runs if r.epochs >= 2]
    return Table(
        "Stability: reruns, test-retest of the per-conversation Composite across epochs",
        [
            "mode",
            "model",
            "epochs",
            "complete conversations",
            "ICC(A,1) [95% CI]",
            "reading",
            "run Composite per epoch",
            "SD across epochs",
        ],
        [
            [
                r.mode,
                r.model,
                r.epochs,
                r.test_retest.conversations,
                _icc(r.test_retest.icc),
                r.test_retest.reading,
                ", ".join(number(x, 2) for x in r.test_retest.run_composites),
                number(r.test_retest.spread_sd, 2),
            ]
            for r in several
        ],
        RULES["test_retest"] + ".",
        empty="Every run has one epoch: run with --epochs 2 or more to measure reruns "
        "(docs/stability.md says how many).",
    )


def _read(run: RunStability, verdict: str) -> str:
    """A verdict, or why there is none: logs of task version 3-A keep no stability records, and
    `--where` may leave a run no conversation."""
    if run.records:
        return verdict
    return cannot_decide("no records (a 3-A log, or no conversation left by --where)")


def _icc(found: Icc | None) -> str:
    if found is None:
        return "-"
    return f"{number(found.value)} [{number(found.low)}, {number(found.high)}]"


def _self_judge(run: RunStability, role: str) -> str:
    relation = run.self_judge.get(role)
    if relation is None:
        return "-"
    return f"{relation.upper()}{' (allowed)' if run.self_judge_allowed else ''}"


def _criterion(name: str) -> str:
    """A criterion as words (`emotional_appropriateness`: "emotional appropriateness"), which a
    narrow column wraps between."""
    return name.replace("_", " ")


def _judge_tables(report: Report) -> list[Table]:
    judged = [r for r in report.part(StabilityPart).stability if r.judges]
    if not judged:
        return []
    agreement = Table(
        "Stability: judge panel agreement, Krippendorff's alpha (95% CI over conversations)",
        ["mode", "model", "judges", "rated", "units", "alpha [95% CI]", "reading"],
        [
            [r.mode, r.model, len(r.judges), _criterion(a.item), a.agreement.drafts,
             ci(a.agreement.alpha), a.agreement.reading]
            for r in judged
            for a in r.judge_agreement
        ],
        f"{sentence(RULES['judge_agreement'])}. "
        f"{sentence(RULES['panel'])}. Units: drafts rated by two judges or more (binary: one "
        "question about one draft).",
        empty="Every judged run has one judge: bind judge_2, judge_3, ... for a panel "
        "(docs/stability.md).",
    )  # fmt: skip
    leniency = Table(
        "Stability: each judge's leniency and collapse, beside the panel",
        ["mode", "model", "judge (role)", "criterion", "drafts", "mean rating", "panel mean",
         "modal share", "collapsed"],
        [[r.mode, r.model, f"{j.model} ({j.role})", _criterion(j.criterion), j.profile.drafts,
          number(j.profile.mean, 2), number(j.panel_mean, 2), number(j.profile.modal_share),
          j.profile.verdict]
         for r in judged
         for j in r.judge_leniency],
        sentence(RULES["judge_collapse"]) + ". A judge of the evaluated model or its family: the "
        "self-judging table.",
        empty="No judged run in these logs.",
    )  # fmt: skip
    silent = Table(
        "Stability: judged runs without a judge answer to read",
        ["mode", "model", "judges", "why"],
        [[r.mode, r.model, ", ".join(r.judges.values()), r.judge_note] for r in judged
         if r.judge_note],
    )  # fmt: skip
    selves = [(r, role) for r in judged for role in r.self_judge]
    marked = Table(
        "Stability: self-judging",
        ["mode", "model", "role", "judge", "relation"],
        [[r.mode, r.model, role, r.judges[role], _self_judge(r, role)] for r, role in selves],
        "The draft metrics of these runs are judged by the evaluated model or its family, which "
        "may favour its own kind of writing (allowed: -T allow_self_judge=true).",
    )
    return [agreement, leniency, *([silent] if silent.rows else []), *([marked] if selves else [])]


def _ranks(ranks: RankTable) -> Table:
    pairs = [(i, j) for i in range(len(ranks.models)) for j in range(i + 1, len(ranks.models))]
    settled = sum(ranks.settled[i][j] for i, j in pairs)
    return Table(
        f"Stability: rank stability ({ranks.mode}), {settled} of {len(pairs)} pairs settled",
        ["higher", "Composite", "lower", "Composite", "order holds in", "verdict"],
        [
            [
                ranks.models[i],
                number(ranks.estimates[i], 2),
                ranks.models[j],
                number(ranks.estimates[j], 2),
                number(ranks.holds[i][j]),
                ranks.verdicts[i][j],
            ]
            for i, j in pairs
        ],
        f"{sentence(ranks.rule)}; {ranks.resamples} replicates, {ranks.shared} conversations "
        "every model has"
        + ("" if ranks.epochs_resampled else " (one epoch: conversations only)")
        + ".",
    )


def _charts(report: Report, mode: str) -> Iterator[Chart]:
    from ...tools.report._plot import Chart
    from ._charts import position_shares, rank_matrix

    part = report.part(StabilityPart)
    runs = [r for r in part.stability if r.mode == mode and r.position_bias.positions]
    if runs:
        yield Chart(f"position_{mode}", mode, position_shares(mode, runs))
    for ranks in (r for r in part.rank_stability if r.mode == mode):
        yield Chart(f"rank_stability_{mode}", mode, rank_matrix(ranks))


SECTION = Section("stability", _tables, _charts)
