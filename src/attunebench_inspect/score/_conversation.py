"""One conversation's stored predictions and ground truth -> every catalogued metric value (a
turn-level one as the mean over the turns where it is defined); and what a person reads in `inspect
view` for it: the model's predictions beside the participant's own labels, turn by turn, and the
Composite they add up to (the Composite scorer's `answer` and `explanation`). Pure: which metrics
exist, and how each is computed, is the catalog's business; this module assembles their inputs
and lays out what `inspect view` shows of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

    post = PostInputs(walk.post(), truth, q3_options)
    scores.families["conversation_wide"] = {
        s.name: s.conversation(post)
        for s in CATALOG
        if s.family == "conversation_wide" and s.conversation
    }

    # The pillars read the canonical metrics, which no draft metric is.
    canonical: tuple[Family, ...] = ("emotion", "binary", "pairwise", "conversation_wide")
    parts = pillars({k: v for f in canonical for k, v in scores[f].items()})
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


def answer_line(composite: Mapping[str, float]) -> str:
    """One line for the sample list's ANSWER column."""
    return (
        f"Composite {composite['composite']:.1f} (E {composite['emotion_pillar']:.2f}, "
        f"Q {composite['evaluation_pillar']:.2f}, H {composite['holistic_pillar']:.2f})"
    )


def _mood(mood: Mapping[str, int] | None) -> str:
    if mood is None:
        return "*parse failure*"
    return ", ".join(f"{e} {i}" for e, i in mood.items()) or "no shift"


def _share(counts: metrics.BinaryCounts) -> str:
    return f"{counts.correct}/{counts.n}" if counts.n else "-"


def _pairwise(turn: TurnInputs) -> str:
    if not turn.gold_winners:
        return "-"
    won = sum(
        1
        for key, winner in turn.gold_winners.items()
        if turn.winners is not None and turn.winners.get(key) == winner
    )
    return f"{won}/{len(turn.gold_winners)}"


def _post_lines(post: PostInputs) -> list[str]:
    answer = post.post
    if answer is None:
        return ["- *parse failure* (scored as wrong)"]
    own = post.follow_up() or []
    gold = post.truth
    rows = [
        ("Q1 looking for", ", ".join(answer.q1_looking_for) or "-",
         ", ".join(gold.q1_looking_for) or "-"),
        ("Q2 emotion clarity", answer.q2_emotion_clarity, gold.q2_emotion_clarity),
        ("Q3 model fit", answer.q3_model_fit, gold.q3_model_fit),
        ("Q3 what felt off", "; ".join(own) or "-", "; ".join(gold.q3_follow_up) or "(not asked)"),
        ("Four-Branch", _branches(answer.four_branch), _branches(gold.four_branch)),
    ]  # fmt: skip
    return [f"- **{name}**: model: {model}; participant: {truth}" for name, model, truth in rows]


def _branches(values: Mapping[str, int] | None) -> str:
    return ", ".join(f"{b} {v}" for b, v in (values or {}).items()) or "-"


def explanation(truth: GroundTruth, walk: Walk, *, q3_options: Sequence[str]) -> str:
    """Markdown: per turn the share of binary judgements and comparisons the model got right (a
    table of short cells, so no column is squeezed to a letter a line), the predicted and
    labelled mood shifts, then the post-conversation answers beside the participant's."""
    scores = ["| turn | binary OM | binary HP | pairwise |", "|---|---|---|---|"]
    moods = ["**Mood shift after each turn**, model and participant:", ""]
    for turn_truth in truth.turns:
        turn = TurnInputs.of(walk.turn(turn_truth.turn_number), turn_truth)
        number = turn_truth.turn_number
        scores.append(
            f"| {number} | {_share(turn.counts('om'))} | {_share(turn.counts('hp'))} "
            f"| {_pairwise(turn)} |"
        )
        moods.append(
            f"- **turn {number}**: model: {_mood(turn.mood)}; participant: {_mood(turn.gold_mood)}"
        )
    return "\n".join(
        [
            "**Right answers per turn** (binary judgements, observer phrasing; pairwise "
            "comparisons):",
            "",
            *scores,
            "",
            *moods,
            "",
            "**After the conversation**, model and participant:",
            "",
            *_post_lines(PostInputs(walk.post(), truth, q3_options)),
            "",
            "Every metric of this conversation: the Scoring tab. Every call's parsed prediction "
            "and parse status (and, where an answer could not be read as is, what the model "
            "wrote): the Info tab, Store (`WalkStore:records`). Every answer as written: the "
            "Transcript tab.",
        ]
    )
