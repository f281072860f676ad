"""One conversation's stored predictions and ground truth -> every catalogued metric value (a
turn-level one as the mean over the turns where it is defined). Pure: which metrics exist, and how
each is computed, is the catalog's business; this module only assembles their inputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..data._split import GroundTruth
from ..solve._call_record import CallType
from ..solve._predictions import Walk
from . import _metrics as metrics
from ._catalog import CATALOG, pillars
from ._counts import COUNT_FIELDS, METADATA_COUNTS
from ._inputs import BINARY_VIEWS, PostInputs, TurnInputs
from ._metric_spec import Family

EVALUATED_CALLS: tuple[CallType, ...] = ("draft", "emotion", "binary_hp", "pairwise", "post")
"""The calls of the evaluated model (the judge's are not): what the parse-failure rate counts."""
TURN_FAMILIES: tuple[Family, ...] = ("emotion", "binary", "pairwise", "draft")


@dataclass
class ConversationScores:
    """Per family, its metrics and counts (`value` and `counts` split them between a score's
    value and its metadata); per turn, the turn-level values."""

    families: dict[Family, dict[str, float]] = field(default_factory=dict)
    turns: list[dict[str, float]] = field(default_factory=list)

    def __getitem__(self, family: Family) -> dict[str, float]:
        return self.families.get(family, {})

    def value(self, family: Family) -> dict[str, float]:
        """The family's `Score.value`: its metrics, and the counts a run-level metric reads."""
        return {k: v for k, v in self[family].items() if k not in METADATA_COUNTS}

    def counts(self, family: Family) -> dict[str, float]:
        """The family's other counts, for its `Score.metadata` (off the viewer's score list)."""
        return {k: v for k, v in self[family].items() if k in METADATA_COUNTS}

    def flat(self) -> dict[str, float]:
        """Every family's values in one dict (names are unique across families)."""
        return {k: v for values in self.families.values() for k, v in values.items()}


def _turn_values(inputs: TurnInputs, families: Sequence[Family]) -> dict[str, float]:
    return {s.name: s.turn(inputs) for s in CATALOG if s.family in families and s.turn}


def _counts(turns: Sequence[TurnInputs]) -> dict[str, float]:
    counts: dict[str, float] = {}
    for view in BINARY_VIEWS:
        total = sum((t.counts(view) for t in turns), metrics.BinaryCounts())
        counts.update(
            {f"{view}_{f}": float(v) for f, v in zip(COUNT_FIELDS, total.as_tuple(), strict=True)}
        )
    return counts


def score_conversation(
    truth: GroundTruth, walk: Walk, *, q3_options: Sequence[str]
) -> ConversationScores:
    """Every catalogued metric of one conversation from its walk and ground truth."""
    judged = walk.judged
    inputs = [TurnInputs.of(walk.turn(t.turn_number), t) for t in truth.turns]
    families = TURN_FAMILIES if judged else tuple(f for f in TURN_FAMILIES if f != "draft")
    per_turn = [_turn_values(i, families) for i in inputs]
    scores = ConversationScores()
    for family in families:
        scores.families[family] = {
            s.name: metrics.nanmean([values[s.name] for values in per_turn])
            for s in CATALOG
            if s.family == family and s.turn
        }
    scores.turns = [
        {"turn": float(t.turn_number), "turn_count": float(len(truth.turns)), **values}
        for t, values in zip(truth.turns, per_turn, strict=True)
    ]

    scores.families["binary"].update(_counts(inputs))
    taus = [tau for i in inputs for tau in metrics.kendall_tau(i.winners, i.gold_winners)]
    defined = sum(1 for tau in taus if tau == tau)
    scores.families["pairwise"].update(
        {"tau_defined": float(defined), "tau_undefined": float(len(taus) - defined)}
    )
    if judged:
        scores.families["draft"]["judge_parse_failures"] = float(
            sum(1 for r in walk.judgements.values() if not r.parsed)
        )

    post = PostInputs.of(walk.post(), truth, q3_options)
    scores.families["conversation_wide"] = {
        s.name: s.conversation(post)
        for s in CATALOG
        if s.family == "conversation_wide" and s.conversation
    }

    canonical = {
        **scores.families["emotion"],
        **scores.families["binary"],
        **scores.families["pairwise"],
        **scores.families["conversation_wide"],
    }
    parts = pillars(canonical)
    statuses = [r.status for (call, _), r in walk.records.items() if call in EVALUATED_CALLS]
    scores.families["composite"] = {
        "composite": metrics.composite(
            parts["emotion_pillar"], parts["evaluation_pillar"], parts["holistic_pillar"]
        ),
        **parts,
        "parse_failure_rate": metrics.parse_failure_rate(statuses),
        "calls": float(len(statuses)),
        "parse_failures": float(sum(1 for s in statuses if s == "failed")),
        "repaired": float(sum(1 for s in statuses if s == "repaired")),
    }
    return scores
