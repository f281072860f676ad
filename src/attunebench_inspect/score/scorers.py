"""Thin Inspect scorers over `score_conversation`: one per metric family, plus the Composite.

Everything a run-level metric needs (per-conversation values and the counts behind pooled
metrics) is in `Score.value`, which Inspect reduces across epochs; per-turn values, used by
reports, ride in the Composite score's metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from weakref import WeakKeyDictionary

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import Store

from ..data.codebook import cached_codebook
from ..data.samples import truth_of, visible_of
from ..solve.record import STORE_PREFIX, CallRecord, CallType
from ..solve.schemas import BRANCHES, JUDGE_CRITERIA
from ..solve.store import judge_of
from . import metrics as m
from . import similarity
from .conversation import ACCURACY_KEYS, BINARY_VIEWS, ConversationScores, score_conversation

EMOTION_KEYS = ("emotion_f1", "emotion_va", "emotion_intensity_mae", "emotion_hit_rate")
BINARY_KEYS = tuple(ACCURACY_KEYS.values())
PAIRWISE_KEYS = ("pairwise_accuracy", "kendall_tau")
DRAFT_KEYS = (
    "draft_judge",
    *(f"draft_judge_{c}" for c in JUDGE_CRITERIA),
    "draft_binary_alignment",
)
CONVERSATION_KEYS = (
    "panas_baseline_adjusted",
    "panas_normalized",
    "panas_item_normalized",
    "q1_goals",
    "q2_clarity",
    "q3_fit",
    "q3_exact",
    "q3_follow_up",
    "four_branch",
    *(f"four_branch_{b}" for b in BRANCHES),
)
COMPOSITE_KEYS = (
    "composite",
    "emotion_pillar",
    "evaluation_pillar",
    "holistic_pillar",
    "parse_failure_rate",
)


def per_key(keys: Sequence[str]) -> dict[str, list[Metric]]:
    return {key: [mean(), stderr()] for key in keys}


def records_of(state_store: Store) -> dict[tuple[CallType, int | None], CallRecord]:
    records: dict[tuple[CallType, int | None], CallRecord] = {}
    for key, value in state_store.items():
        if not key.startswith(STORE_PREFIX) or not isinstance(value, dict):
            continue
        record = CallRecord.model_validate(value)
        records[(record.call, record.turn)] = record
    return records


# Every scorer of a sample scores the same records: they are scored once per sample state.
_SCORED: WeakKeyDictionary[TaskState, tuple[tuple[str, str | None], ConversationScores]] = (
    WeakKeyDictionary()
)


def conversation_scores(
    state: TaskState, target: Target, codebook: str | None
) -> ConversationScores:
    key = (target.text, codebook)
    cached = _SCORED.get(state)
    if cached is not None and cached[0] == key:
        return cached[1]
    scores = score_conversation(
        truth_of(target.text),
        records_of(state.store),
        q3_options=cached_codebook(codebook).q3_options,
        judged=judge_of(state.store) is not None,
    )
    _SCORED[state] = (key, scores)
    return scores


def _value(sample: SampleScore, key: str) -> float:
    value = sample.score.value
    if not isinstance(value, dict):
        raise TypeError(f"expected a dict score value with {key!r}; got {value!r}")
    return float(value[key])


def turn_metadata(turns: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """One small key per turn ("turn_01", ...), rounded: Inspect's sample summaries keep
    metadata keys under 1 KB, and reports read summaries."""
    return {f"turn_{int(t['turn']):02d}": {k: round(v, 6) for k, v in t.items()} for t in turns}


@metric
def pooled_binary() -> Metric:
    """Precision, recall, F1 and MCC ("yes" positive) pooled over every judgement of the run."""

    def calculate(scores: list[SampleScore]) -> dict[str, float]:
        result: dict[str, float] = {}
        for view in BINARY_VIEWS:
            totals = {
                f: sum(_value(s, f"{view}_{f}") for s in scores) for f in ("tp", "fp", "fn", "tn")
            }
            for name, value in m.pooled_binary(**totals).items():
                result[f"{view}_{name}"] = value
        return result

    return calculate


@scorer(metrics=[per_key(COMPOSITE_KEYS)])
def composite_scorer(codebook: str | None = None) -> Scorer:
    """The Composite (0-100), its three pillars and the parse-failure rate."""

    async def score(state: TaskState, target: Target) -> Score:
        scores = conversation_scores(state, target, codebook)
        return Score(value=scores.composite, metadata=turn_metadata(scores.turns))

    return score


@scorer(metrics=[per_key(EMOTION_KEYS)])
def emotion_scorer(codebook: str | None = None) -> Scorer:
    """Emotion F1, Emotion VA, Emotion Intensity MAE and Emotion Hit Rate (turn means)."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=conversation_scores(state, target, codebook).emotion)

    return score


@scorer(metrics=[per_key(BINARY_KEYS), pooled_binary()])
def binary_scorer(codebook: str | None = None) -> Scorer:
    """Binary OM/HP accuracy in both phrasings, with the counts behind pooled P/R/F1/MCC."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=conversation_scores(state, target, codebook).binary)

    return score


@scorer(metrics=[per_key(PAIRWISE_KEYS)])
def pairwise_scorer(codebook: str | None = None) -> Scorer:
    """Pairwise Accuracy and Kendall tau-b of the implied rankings."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=conversation_scores(state, target, codebook).pairwise)

    return score


@scorer(metrics=[per_key(DRAFT_KEYS)])
def draft_scorer(codebook: str | None = None) -> Scorer:
    """Draft Judge (overall and per criterion) and Draft Binary Alignment; NaN without a judge."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=conversation_scores(state, target, codebook).draft)

    return score


@scorer(metrics=[per_key(CONVERSATION_KEYS)])
def conversation_wide_scorer(codebook: str | None = None) -> Scorer:
    """PANAS (three forms), Q1-Q3 and the follow-up, and Four-Branch (overall and per branch)."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=conversation_scores(state, target, codebook).conversation_wide)

    return score


@scorer(metrics=[per_key(("response_similarity",))])
def response_similarity_scorer() -> Scorer:
    """Response Similarity: embedding cosine of each draft to the participant's edited response."""

    async def score(state: TaskState, target: Target) -> Score:
        conv = visible_of(state.metadata)
        records = records_of(state.store)
        drafts = [
            (record.prediction or {}).get("text") if record else None
            for record in (records.get(("draft", t.turn_number)) for t in conv.turns)
        ]
        per_turn = similarity.response_similarity(
            drafts, [t.human_response for t in conv.turns], similarity.minilm()
        )
        return Score(
            value={"response_similarity": m.nanmean(per_turn)},
            metadata={"per_turn": per_turn},
        )

    return score


def attunebench_scorers(codebook: str | None = None) -> list[Scorer]:
    """Every scorer of the task; the Composite first, as the headline.

    `codebook` is the path of the codebook the run used (None: the bundled one).
    """
    return [
        composite_scorer(codebook),
        emotion_scorer(codebook),
        binary_scorer(codebook),
        pairwise_scorer(codebook),
        draft_scorer(codebook),
        conversation_wide_scorer(codebook),
        # Informational and optional: present only where the `similarity` extra is installed.
        *([response_similarity_scorer()] if similarity.available() else []),
    ]
