"""Thin Inspect scorers over `score_conversation`: one per metric family, plus the Composite,
and `draft_rejudge`, which judges a log's stored drafts again.
What a run-level metric needs is in `Score.value`, which Inspect reduces across epochs; per-turn
values ride in the Composite score's metadata.

What `inspect view` shows of a run by default (`viewer_config`: Inspect's `ViewerConfig`, which a
user's own choices in the browser override): the sample list opens on the Composite, its pillars
and the parse-failure rate, every other score a column the Columns menu adds; every score column is
labelled as the report labels it; a sample's Scores panel opens as a sortable grid."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig, get_model
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
from inspect_ai.viewer import SampleScoreView, TaskSamplesColumn, TaskSamplesView, ViewerConfig

from .._parameters import told
from ..data._codebook import cached_codebook
from ..data._problems import InputError
from ..data._samples import CONVERSATION_KEY, truth_of, visible_of
from ..data._split import VisibleTurn
from ..solve import JUDGE_ROLE, MODES, judge_bound, judge_draft, read_walk
from ..solve._call_record import CallRecord
from ..solve._predictions import Walk
from ..solve._solver import concurrently
from ..solve._transport import ProviderReplyError
from . import _metrics as metrics
from . import _similarity as similarity
from ._catalog import BY_NAME, POOLED_STATS, POOLED_VIEWS, of_family, pooled_name
from ._conversation import ConversationScores, answer_line, explanation, score_conversation
from ._counts import COUNTS, VALUE_COUNTS
from ._metric_spec import FAMILIES, REJUDGE_PREFIX, Family

HEADLINE = HeadlineMetric(scorer="composite_scorer", score="composite", metric="mean")
"""The Composite's mean: what `inspect view`, `evals_df` and the progress line show first."""


def run_metrics(family: Family) -> dict[str, list[Metric]]:
    """Mean and stderr over conversations of the family's run-level metrics (the catalog's
    headline, pillar, canonical, alongside and operational groups). Diagnostic variants get no
    run-level metric: they stay in every sample's `Score.value`. A key a sample's value lacks
    (the draft metrics without a judge) gets no entry in the results at all, not a NaN."""
    return {
        s.name: [mean(), stderr()] for s in of_family(family) if s.run_level and s.level != "run"
    }


def scored_walk(state: TaskState, codebook: str | None) -> tuple[Walk, ConversationScores]:
    """The sample's call records and their scores. Each scorer computes them again: a few
    milliseconds per conversation, which a cache shared between scorers would not repay."""
    walk = read_walk(state.store)
    scores = score_conversation(
        truth_of(state.metadata), walk, q3_options=cached_codebook(codebook).q3_options
    )
    return walk, scores


def family_scorer(family: Family, codebook: str | None, no_value: str | None = None) -> Scorer:
    """The scorer of a family's `family_score`; `no_value`: the explanation of a score without
    values."""

    async def score(state: TaskState, target: Target) -> Score:
        found = family_score(scored_walk(state, codebook)[1], family)
        if no_value is not None and not found.value:
            found.explanation = no_value
        return found

    return score


def family_score(scores: ConversationScores, family: Family) -> Score:
    """A family's metrics as the score's value, its other counts as its metadata; a metric that
    does not apply to the conversation (the Q3 follow-up where it was not asked) is NaN,
    Inspect's "not scored", and the explanation says so where `inspect view` shows NaN."""
    value = scores.value(family)
    unscored = [BY_NAME[k].label for k, v in value.items() if k in BY_NAME and math.isnan(v)]
    return Score(
        value=value,
        explanation=f"Not applicable to this conversation (NaN, left out of the run's mean): "
        f"{', '.join(unscored)}."
        if unscored
        else None,
        metadata=scores.counts(family) or None,
    )


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
    """Precision, recall, F1 and MCC ("yes" positive) pooled over every judgement of the run,
    for the observer-phrased views (the HP-facing ones are diagnostic)."""

    def calculate(scores: list[SampleScore]) -> dict[str, float]:
        result: dict[str, float] = {}
        for view in POOLED_VIEWS:
            totals = {
                f: sum(_value(s, f"{view}_{f}") for s in scores) for f in ("tp", "fp", "fn", "tn")
            }
            for stat, value in metrics.pooled_binary(**totals).items():
                if stat in POOLED_STATS:
                    result[pooled_name(view, stat)] = value
        return result

    return calculate


@scorer(metrics=run_metrics("composite"))
def composite_scorer(codebook: str | None = None) -> Scorer:
    """The Composite (0-100), its three pillars and the parse-failure rate."""

    async def score(state: TaskState, target: Target) -> Score:
        walk, scores = scored_walk(state, codebook)
        return Score(
            value=scores.value("composite"),
            answer=answer_line(scores["composite"]),
            explanation=explanation(
                truth_of(state.metadata), walk, q3_options=cached_codebook(codebook).q3_options
            ),
            metadata=turn_metadata(scores.turns),
        )

    return score


@scorer(metrics=run_metrics("emotion"))
def emotion_scorer(codebook: str | None = None) -> Scorer:
    """Emotion F1, Emotion VA, Emotion Intensity MAE and Emotion Hit Rate (turn means)."""
    return family_scorer("emotion", codebook)


@scorer(metrics=[run_metrics("binary"), pooled_binary()])
def binary_scorer(codebook: str | None = None) -> Scorer:
    """Binary OM/HP accuracy in both phrasings, with the counts behind pooled P/R/F1/MCC."""
    return family_scorer("binary", codebook)


@scorer(metrics=run_metrics("pairwise"))
def pairwise_scorer(codebook: str | None = None) -> Scorer:
    """Pairwise Accuracy and Kendall tau-b of the implied rankings."""
    return family_scorer("pairwise", codebook)


# Said where `inspect view` would show "(No Explanation)" beside an empty score.
NO_JUDGE = (
    "No judge was bound, so no draft was judged: the draft metrics are absent, not zero "
    "(--model-role judge=MODEL judges them)."
)


@scorer(metrics=run_metrics("draft"))
def draft_scorer(codebook: str | None = None) -> Scorer:
    """Draft Judge (overall, per criterion) and Draft Binary Alignment; absent without a judge."""
    return family_scorer("draft", codebook, no_value=NO_JUDGE)


@scorer(metrics=run_metrics("conversation_wide"))
def conversation_wide_scorer(codebook: str | None = None) -> Scorer:
    """PANAS (three forms), Q1-Q3 and the follow-up, and Four-Branch (overall and per branch)."""
    return family_scorer("conversation_wide", codebook)


@scorer(metrics=run_metrics("similarity"))
def response_similarity_scorer() -> Scorer:
    """Response Similarity: embedding cosine of each draft to the participant's edited response."""

    async def score(state: TaskState, target: Target) -> Score:
        conv = visible_of(state.metadata)
        walk = read_walk(state.store)
        drafts = [walk.turn(t.turn_number).draft for t in conv.turns]
        per_turn = similarity.response_similarity(
            drafts, [t.human_response for t in conv.turns], similarity.minilm()
        )
        return Score(
            value={"response_similarity": metrics.nanmean(per_turn)},
            metadata={"per_turn": per_turn},
        )

    return score


CORE_SCORERS = frozenset(
    {
        *(f"{family}_scorer" for family in FAMILIES if family not in ("similarity", "stability")),
        "response_similarity_scorer",
        "draft_rejudge",
    }
)
"""The names of the main task's own scorers in a log; any other is an instrument's."""


def scorer_families() -> tuple[Family, ...]:
    """The families of `attunebench_scorers`, in its order."""
    optional: tuple[Family, ...] = ("similarity",) if similarity.available() else ()
    return ("composite", "emotion", "binary", "pairwise", "draft", "conversation_wide", *optional)


MainTaskScorer = Callable[[str | None], Scorer]
"""A scorer an instrument adds to the main task, made with the run's codebook path."""


def attunebench_scorers(
    codebook: str | None = None, added: Sequence[MainTaskScorer] = ()
) -> list[Scorer]:
    """Every scorer of the task, the Composite first; `codebook`: the run's (None: the bundled
    one); `added`: the instruments' scorers of the main task, made with it."""
    return [
        composite_scorer(codebook),
        emotion_scorer(codebook),
        binary_scorer(codebook),
        pairwise_scorer(codebook),
        draft_scorer(codebook),
        conversation_wide_scorer(codebook),
        *(make(codebook) for make in added),
        # Informational and optional: present only where the `similarity` extra is installed.
        *([response_similarity_scorer()] if similarity.available() else []),
    ]


SHOWN = tuple(s.name for s in of_family("composite"))
"""The score columns the sample list shows before the user picks others: the Composite, its
pillars and the parse-failure rate."""
FIELDS = ("sampleStatus", "sampleId", "input", "answer", "tokens", "duration")
"""The sample list's own columns, before the scores."""
HIDDEN_FIELDS = ("target",)
"""The sample list's own columns that the Columns menu adds: the target is a long account of the
participant's labels (the viewer shows a column the view does not name)."""


RATE_LABEL = "Parse-failure rate"
"""The viewer's heading of `parse_failure_rate`, beside the count of failed calls (the catalog's
label, "Parse failures", would head both)."""


def _count_label(name: str) -> str:
    return f"{name.replace('_', ' ')} (count)"


def _scores(family: Family) -> list[tuple[str, str]]:
    """(key, label) of every key a family's scorer writes into `Score.value`, counts as counts."""
    labelled = [
        (s.name, RATE_LABEL if s.name == "parse_failure_rate" else s.label)
        for s in of_family(family)
        if s.level != "run"
    ]
    counts = [(name, _count_label(name)) for name in VALUE_COUNTS.get(family, ())]
    return labelled + counts


def viewer_config(families: tuple[Family, ...]) -> ViewerConfig:
    """The default view of a run whose scorers are those of `families` (scorer `<family>_scorer`,
    Response Similarity's `response_similarity_scorer`)."""
    columns = [TaskSamplesColumn(id=field) for field in FIELDS]
    columns += [TaskSamplesColumn(id=field, visible=False) for field in HIDDEN_FIELDS]
    # An instrument's scorer of the main task (the stability scorer's pairwise choices) writes
    # counts too: every count is headed as one, whoever writes it.
    labels = {name: _count_label(name) for name in COUNTS}
    for family in families:
        scorer = "response_similarity_scorer" if family == "similarity" else f"{family}_scorer"
        for name, label in _scores(family):
            columns.append(TaskSamplesColumn.score(scorer, name, visible=name in SHOWN))
            labels[name] = label
    return ViewerConfig(
        task_samples_view=TaskSamplesView(name="AttuneBench", columns=columns, score_labels=labels),
        sample_score_view=SampleScoreView(default="grid"),
    )


NOT_THE_MAIN_TASK = (
    "draft_rejudge: sample {id} holds no drafts: the log is not of the main task (a profile or "
    f"contamination probe log?); re-judge a log of attunebench_inspect/{', '.join(MODES)} "
    "(nothing was written)"
)
JUDGE_FAILED = (
    "draft_rejudge: sample {id}: {fault}; nothing was written (the log is as it was): run the "
    "same inspect score again once the judge answers"
)
REJUDGE_NEEDS_JUDGE = (
    "draft_rejudge needs a judge: pass -S judge=<model> (e.g. -S judge=attunebench/majority) or "
    f"bind the '{JUDGE_ROLE}' model role"
)


def _count(name: str, value: object, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InputError(f"draft_rejudge: -S {name} must be {least} or more; got {value!r}")


@scorer(metrics=run_metrics("rejudge"))
def draft_rejudge(
    judge: str | None = None,
    codebook: str | None = None,
    max_retries: int = 3,
    attempt_timeout: int | None = None,
) -> Scorer:
    """Judge the stored drafts again and score Draft Judge and Draft Binary Alignment: the drafts
    of an existing log (`inspect score ... draft_rejudge`, README.md), never regenerated, through
    the walk's own judge call (solve/_judges.py). A judge that keeps failing stops the re-judge in
    one line before anything is written: `inspect score` writes the log only once every sample is
    scored. `max_retries`: the judge's retries of a call that fails (an HTTP 500, an attempt past
    `attempt_timeout` seconds), before the re-judge stops with one line naming the call and the
    model (`inspect score` has neither --max-retries nor --attempt-timeout)."""
    with told():
        if judge is not None and (not isinstance(judge, str) or not judge.strip()):
            raise InputError(f"{REJUDGE_NEEDS_JUDGE}; got {judge!r}")
        _count("max_retries", max_retries, 0)
        if attempt_timeout is not None:
            _count("attempt_timeout", attempt_timeout, 1)

    async def score(state: TaskState, target: Target) -> Score:
        with told():
            if CONVERSATION_KEY not in state.metadata:
                raise InputError(NOT_THE_MAIN_TASK.format(id=state.sample_id))
            if judge is None and not judge_bound():
                raise InputError(REJUDGE_NEEDS_JUDGE)
        book = cached_codebook(codebook)
        retries = GenerateConfig(max_retries=max_retries, attempt_timeout=attempt_timeout)
        model = (
            get_model(judge, config=retries)
            if judge
            else get_model(role=JUDGE_ROLE, required=True, config=retries)
        )
        conv = visible_of(state.metadata)
        walk = read_walk(state.store)

        done: dict[int, CallRecord] = {}

        async def judge_turn(turn: VisibleTurn) -> None:
            draft = walk.turn(turn.turn_number).draft
            if draft is not None:
                done[turn.turn_number] = await judge_draft(model, conv, turn, draft, book)

        # `concurrently`, not Inspect's `collect`: two turns' judge calls failing at once reach
        # here as one ProviderReplyError, not as an exception group past this handler.
        try:
            await concurrently(*(judge_turn(t) for t in conv.turns))
        except ProviderReplyError as ex:
            with told():
                raise InputError(JUDGE_FAILED.format(id=state.sample_id, fault=ex.fault)) from None
        judged = [done[t.turn_number] for t in conv.turns if t.turn_number in done]
        # The walk as if the later judge had been its only judge.
        later = Walk(
            {JUDGE_ROLE: str(model)},
            walk.records,
            {(JUDGE_ROLE, n): r for n, r in done.items()},
        )
        scores = score_conversation(truth_of(state.metadata), later, q3_options=book.q3_options)
        return Score(
            value={REJUDGE_PREFIX + k: v for k, v in scores.value("draft").items()},
            metadata={
                **{REJUDGE_PREFIX + k: v for k, v in scores.counts("draft").items()},
                "judge": str(model),
                "judgements": [r.model_dump(mode="json") for r in judged],
            },
        )

    return score
