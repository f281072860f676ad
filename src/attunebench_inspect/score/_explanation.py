"""What a person reads in `inspect view` for one conversation: the model's predictions beside the
participant's own labels, turn by turn, and the Composite they add up to (the Composite scorer's
`answer` and `explanation`). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..data._split import GroundTruth
from ..solve._predictions import Walk
from . import _metrics as metrics
from ._inputs import PostInputs, TurnInputs


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
    rows = [
        ("Q1 looking for", ", ".join(answer.q1_looking_for) or "-",
         ", ".join(post.q1_looking_for) or "-"),
        ("Q2 emotion clarity", answer.q2_emotion_clarity, post.q2_emotion_clarity),
        ("Q3 model fit", answer.q3_model_fit, post.q3_model_fit),
        ("Q3 what felt off", "; ".join(own) or "-", "; ".join(post.q3_follow_up) or "(not asked)"),
        ("Four-Branch", _branches(answer.four_branch), _branches(post.four_branch)),
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
            *_post_lines(PostInputs.of(walk.post(), truth, q3_options)),
            "",
            "Every metric of this conversation: the Scoring tab. Every call's parsed prediction "
            "and parse status (and, where an answer could not be read as is, what the model "
            "wrote): the Info tab, Store (`WalkStore:records`). Every answer as written: the "
            "Transcript tab.",
        ]
    )
