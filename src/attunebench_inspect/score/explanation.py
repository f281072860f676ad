"""What a person reads in `inspect view` for one conversation: the model's predictions beside the
participant's own labels, turn by turn, and the Composite they add up to.

Pure (no Inspect call): the Composite scorer puts `answer` and `explanation` on its Score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..data.split import GroundTruth
from ..solve.predictions import Walk
from . import metrics
from .inputs import PostInputs, TurnInputs


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
        return ["Post-conversation answer: *parse failure* (scored as wrong)."]
    own = post.follow_up() or []
    rows = [
        ("Q1 looking for", ", ".join(answer.q1_looking_for) or "-",
         ", ".join(post.q1_looking_for) or "-"),
        ("Q2 emotion clarity", answer.q2_emotion_clarity, post.q2_emotion_clarity),
        ("Q3 model fit", answer.q3_model_fit, post.q3_model_fit),
        ("Q3 what felt off", "; ".join(own) or "-", "; ".join(post.q3_follow_up) or "(not asked)"),
        ("Four-Branch", _branches(answer.four_branch), _branches(post.four_branch)),
    ]  # fmt: skip
    return [
        "| post-conversation | model | participant |",
        "|---|---|---|",
        *(f"| {name} | {model} | {truth} |" for name, model, truth in rows),
    ]


def _branches(values: Mapping[str, int] | None) -> str:
    return ", ".join(f"{b} {v}" for b, v in (values or {}).items()) or "-"


def explanation(truth: GroundTruth, walk: Walk, *, q3_options: Sequence[str]) -> str:
    """Markdown: per turn the predicted and labelled mood shift and the share of binary
    judgements and comparisons the model got right; then the post-conversation answers."""
    lines = [
        "| turn | mood shift: model | mood shift: participant | binary OM | binary HP | pairwise |",
        "|---|---|---|---|---|---|",
    ]
    for turn_truth in truth.turns:
        turn = TurnInputs.of(walk.turn(turn_truth.turn_number), turn_truth)
        lines.append(
            f"| {turn_truth.turn_number} | {_mood(turn.mood)} | {_mood(turn.gold_mood)} "
            f"| {_share(turn.counts('om'))} | {_share(turn.counts('hp'))} | {_pairwise(turn)} |"
        )
    lines += ["", *_post_lines(PostInputs.of(walk.post(), truth, q3_options)), ""]
    lines.append(
        "Every call's parsed prediction and parse status (and, for an answer that could not "
        "be read as is, what the model wrote): the Store tab (`WalkStore:records`); every "
        "answer as written: the Transcript tab; every metric: the Scores tab."
    )
    return "\n".join(lines)
