"""Several third parties' labels of one conversation -> one consensus label set, by the rules of
docs/third-party.md, "The consensus": one annotator's consensus is that annotator's labels, and a
split vote never invents a label. Every tie is reported with what broke it."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..._util.text_match import close, normalise
from ...data._codebook import Codebook
from ...data._panas import PANAS_ITEMS
from ...data._schema import ResponseSource
from ...data._split import BinaryTruth, BinaryValue, GroundTruth, TurnTruth
from ...solve._schemas import BRANCHES
from ._labels import LabelSet, ThirdParty

CONSENSUS = "consensus"
"""The annotator name of a consensus label set."""
RATING_MIDDLE = 4.0
"""The middle of the 1-7 scales, toward which a tied median is broken."""


@dataclass(frozen=True)
class Tie:
    """A split vote and how it was settled."""

    conversation_id: str
    where: str
    values: tuple[str, ...]
    outcome: str

    def __str__(self) -> str:
        return (
            f"{self.conversation_id}: {self.where}: tie between {', '.join(self.values)}; "
            f"{self.outcome}"
        )


@dataclass(frozen=True)
class Consensus:
    labels: LabelSet
    annotators: tuple[str, ...]
    ties: tuple[Tie, ...]


class _Vote:
    """The votes of one conversation, collecting its ties."""

    def __init__(self, conversation_id: str, voters: int) -> None:
        self.cid = conversation_id
        self.voters = voters
        self.ties: list[Tie] = []

    def tie(self, where: str, values: Sequence[object], outcome: str) -> None:
        self.ties.append(Tie(self.cid, where, tuple(map(str, values)), outcome))

    def plurality(self, where: str, values: Sequence[str], outcome: str) -> str | None:
        """The most frequent value; None (a tie, settled as `outcome` says) where several share."""
        counts = Counter(values).most_common()
        top = [v for v, c in counts if c == counts[0][1]]
        if len(top) > 1:
            self.tie(where, sorted(top), outcome)
            return None
        return top[0]

    def median(self, where: str, values: Sequence[int], middle: float) -> int:
        """The median; a half-integer one goes to its neighbour nearer `middle` (the lower of
        two equally near)."""
        value = statistics.median(values)
        if value == int(value):
            return int(value)
        low, high = math.floor(value), math.ceil(value)
        pick = low if abs(low - middle) <= abs(high - middle) else high
        self.tie(where, (low, high), f"{pick}, the nearer to the middle of the scale")
        return pick

    def majority(self, where: str, count: int) -> bool:
        """Whether an entry given by `count` annotators is in (a strict majority)."""
        if 2 * count == self.voters:
            self.tie(where, ("given", "not given"), "left out (a strict majority is needed)")
        return 2 * count > self.voters


def _binary(vote: _Vote, where: str, values: Sequence[BinaryValue]) -> BinaryValue:
    found = vote.plurality(where, values, "no label (na, excluded from scoring)")
    return "na" if found is None else found  # type: ignore[return-value]


def _turn(vote: _Vote, turns: Sequence[TurnTruth]) -> TurnTruth:
    at = f"turns.{turns[0].turn_number}"
    tagged = Counter(e for t in turns for e in t.mood_shift)
    mood = {
        e: vote.median(
            f"{at}.mood_shift.{e}",
            [t.mood_shift[e] for t in turns if e in t.mood_shift],
            RATING_MIDDLE,
        )
        for e in PANAS_ITEMS
        if vote.majority(f"{at}.mood_shift.{e}", tagged[e])
    }
    binary = {
        q: BinaryTruth(
            **{
                v: _binary(vote, f"{at}.binary.{q}.{v}", [getattr(t.binary[q], v) for t in turns])
                for v in ("observed", "preferred")
            }
        )
        for q in turns[0].binary
    }
    pairwise: dict[str, ResponseSource] = {}
    for key in turns[0].pairwise:
        winner = vote.plurality(
            f"{at}.pairwise.{key}", [t.pairwise[key] for t in turns], "left out (no label)"
        )
        if winner is not None:
            pairwise[key] = winner  # type: ignore[assignment]
    return TurnTruth(
        turn_number=turns[0].turn_number, mood_shift=mood, binary=binary, pairwise=pairwise
    )


def _follow_up(vote: _Vote, given: Sequence[Sequence[str]]) -> list[str]:
    """Entries (options and one's own words) given by a strict majority, an entry counting as
    given by an annotator when one of theirs matches it; each kept once, in first-seen order."""
    chosen: list[str] = []
    seen: list[str] = []
    for entries in given:
        for entry in entries:
            key = normalise(entry)
            if not key or any(close(key, s) for s in seen):
                continue
            seen.append(key)
            count = sum(any(close(key, normalise(e)) for e in theirs) for theirs in given)
            if vote.majority(f"q3_follow_up.{entry}", count):
                chosen.append(entry)
    return chosen


def consensus(label_sets: Sequence[LabelSet], codebook: Codebook) -> Consensus:
    """The consensus of several annotators' labels of one conversation (self-ratings excluded)."""
    truths = [s.truth for s in label_sets]
    first = truths[0]
    vote = _Vote(label_sets[0].conversation_id, len(truths))
    turns = [_turn(vote, [t.turns[i] for t in truths]) for i in range(len(first.turns))]
    q1_counts = Counter(o for t in truths for o in t.q1_looking_for)
    q1 = [o for o in codebook.q1_options if vote.majority(f"q1_looking_for.{o}", q1_counts[o])]
    q2 = vote.plurality(
        "q2_emotion_clarity", [t.q2_emotion_clarity for t in truths], "no label (not scored)"
    )
    ranks = [codebook.q3_options.index(t.q3_model_fit) for t in truths]
    q3 = codebook.q3_options[vote.median("q3_model_fit", ranks, (len(codebook.q3_options) - 1) / 2)]
    post_panas = {
        i: vote.median(f"post_panas.{i}", [t.post_panas[i] for t in truths], RATING_MIDDLE)
        for i in PANAS_ITEMS
    }
    truth = GroundTruth(
        conversation_id=first.conversation_id,
        om_model="",
        turns=turns,
        pre_panas=post_panas,
        post_panas=post_panas,
        four_branch={
            b: vote.median(f"four_branch.{b}", [t.four_branch[b] for t in truths], RATING_MIDDLE)
            for b in BRANCHES
        },
        q1_looking_for=q1,
        q2_emotion_clarity=q2 or "",
        q3_model_fit=q3,
        q3_follow_up=_follow_up(vote, [t.q3_follow_up for t in truths]),
    )
    # Pairwise strata read the page's order; annotators who saw different orders have none.
    seeds = {s.shuffle_seed for s in label_sets}
    labels = LabelSet(
        label_sets[0].conversation_id,
        CONSENSUS,
        truth,
        ", ".join(s.source for s in label_sets),
        unlabelled=frozenset() if q2 is not None else frozenset({"q2_clarity"}),
        shuffle_seed=next(iter(seeds)) if len(seeds) == 1 else None,
    )
    return Consensus(labels, tuple(s.annotator for s in label_sets), tuple(vote.ties))


def consensus_all(third: ThirdParty, codebook: Codebook) -> dict[str, Consensus]:
    """Conversation ID -> the consensus of its third parties (self-ratings left out)."""
    return {cid: consensus(sets, codebook) for cid, sets in third.by_conversation().items()}


def ties_of(found: Mapping[str, Consensus]) -> list[str]:
    """Every tie, one line each, conversation by conversation."""
    return [str(t) for cid in sorted(found) for t in found[cid].ties]
