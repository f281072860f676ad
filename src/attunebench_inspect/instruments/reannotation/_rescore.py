"""A model's stored walk scored again against third-party labels, without a model call, through
`score_conversation` (no metric is computed here), both label sets on the items both label
(`common_items`), so that the difference between the two scores is one of labels only
(docs/third-party.md, 'Rescoring')."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...data._split import BinaryTruth, GroundTruth, TurnTruth
from ...score._conversation import score_conversation
from ...solve._predictions import Walk
from ._labels import NOT_COVERED_METRICS, LabelSet

NAN = float("nan")


def _common_turn(a: TurnTruth, b: TurnTruth) -> tuple[TurnTruth, TurnTruth]:
    """Both turns cut to the items both label: a binary answer `na` on either side is `na` on
    both, a comparison only one side labels is left out."""
    keys = [k for k in a.pairwise if k in b.pairwise]

    def cut(turn: TurnTruth) -> TurnTruth:
        binary: dict[str, BinaryTruth] = {}
        for q in a.binary:
            x, y, mine = a.binary[q], b.binary[q], turn.binary[q]
            binary[q] = BinaryTruth(
                observed="na" if "na" in (x.observed, y.observed) else mine.observed,
                preferred="na" if "na" in (x.preferred, y.preferred) else mine.preferred,
            )
        pairwise = {k: turn.pairwise[k] for k in keys}
        return turn.model_copy(update={"binary": binary, "pairwise": pairwise})

    return cut(a), cut(b)


def common_items(mine: GroundTruth, theirs: GroundTruth) -> tuple[GroundTruth, GroundTruth]:
    """Both label sets cut to the turn items both label; `ValueError` where they are not alike."""
    shape = [(t.turn_number, sorted(t.binary), sorted(t.pairwise)) for t in mine.turns]
    other = [(t.turn_number, sorted(t.binary), sorted(t.pairwise)) for t in theirs.turns]
    same = [(n, q) for n, q, _ in shape] == [(n, q) for n, q, _ in other] and all(
        set(p) <= set(ours) for (_, _, ours), (_, _, p) in zip(shape, other, strict=True)
    )
    if mine.conversation_id != theirs.conversation_id or not same:
        raise ValueError(
            f"{theirs.conversation_id}: the third-party labels' turns and questions are not "
            f"those of the participant's labels of {mine.conversation_id} (another data version?)"
        )
    turns = [_common_turn(a, b) for a, b in zip(mine.turns, theirs.turns, strict=True)]
    return (
        mine.model_copy(update={"turns": [a for a, _ in turns]}),
        theirs.model_copy(update={"turns": [b for _, b in turns]}),
    )


def _covered(values: dict[str, float], unlabelled: frozenset[str]) -> dict[str, float]:
    return {
        k: NAN if k in unlabelled else v for k, v in values.items() if k not in NOT_COVERED_METRICS
    }


def rescore_pair(
    participant: GroundTruth,
    labels: LabelSet,
    walk: Walk,
    *,
    q3_options: Sequence[str],
) -> tuple[dict[str, float], dict[str, float]]:
    """One conversation's walk scored against the participant's labels and against
    `labels`, on the items both label (`common_items`): (self values, third-party values), the
    same metric names on both sides, NaN on both where either side cannot score."""
    mine, theirs = common_items(participant, labels.truth)
    own, other = (
        _covered(score_conversation(t, walk, q3_options=q3_options).flat(), labels.unlabelled)
        for t in (mine, theirs)
    )
    for name in own:
        if math.isnan(own[name]) or math.isnan(other[name]):
            own[name] = other[name] = NAN
    return own, other
