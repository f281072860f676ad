"""Draft judging as a model-graded scorer: re-judge the stored drafts of an existing log
(`inspect score ... draft_rejudge`, README.md), never regenerated, through the walk's own judge
call (solve/_judges.py). A judge that keeps failing stops the re-judge in one line before anything
is written: `inspect score` writes the log only once every sample is scored."""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from .._parameters import told
from ..data._codebook import cached_codebook
from ..data._problems import InputError
from ..data._samples import CONVERSATION_KEY, truth_of, visible_of
from ..data._split import VisibleTurn
from ..solve import JUDGE_ROLE, MODES, judge_bound, judge_draft, read_walk
from ..solve._call_record import CallRecord
from ..solve._predictions import Walk
from ..solve._transport import ProviderReplyError
from ._conversation import score_conversation
from ._metric_spec import REJUDGE_PREFIX
from ._scorers import run_metrics

NOT_THE_MAIN_TASK = (
    "draft_rejudge: sample {id} holds no drafts: the log is not of the main task (a profile or "
    f"contamination probe log?); re-judge a log of attunebench_inspect/{', '.join(MODES)} "
    "(nothing was written)"
)
JUDGE_FAILED = (
    "draft_rejudge: sample {id}: {fault}; nothing was written (the log is as it was): run the "
    "same inspect score again once the judge answers"
)
NO_JUDGE = (
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
    """Judge the stored drafts again and score Draft Judge and Draft Binary Alignment.
    `max_retries`: the judge's retries of a call that fails (an HTTP 500, an attempt past
    `attempt_timeout` seconds), before the re-judge stops with one line naming the call and the
    model (`inspect score` has neither --max-retries nor --attempt-timeout)."""
    with told():
        if judge is not None and (not isinstance(judge, str) or not judge.strip()):
            raise InputError(f"{NO_JUDGE}; got {judge!r}")
        _count("max_retries", max_retries, 0)
        if attempt_timeout is not None:
            _count("attempt_timeout", attempt_timeout, 1)

    async def score(state: TaskState, target: Target) -> Score:
        with told():
            if CONVERSATION_KEY not in state.metadata:
                raise InputError(NOT_THE_MAIN_TASK.format(id=state.sample_id))
            if judge is None and not judge_bound():
                raise InputError(NO_JUDGE)
        book = cached_codebook(codebook)
        retries = GenerateConfig(max_retries=max_retries, attempt_timeout=attempt_timeout)
        model = (
            get_model(judge, config=retries)
            if judge
            else get_model(role=JUDGE_ROLE, required=True, config=retries)
        )
        conv = visible_of(state.metadata)
        walk = read_walk(state.store)

        async def judge_turn(turn: VisibleTurn) -> CallRecord | None:
            draft = walk.turn(turn.turn_number).draft
            return await judge_draft(model, conv, turn, draft, book) if draft is not None else None

        try:
            done = await collect(*(judge_turn(t) for t in conv.turns))
        except ProviderReplyError as ex:
            with told():
                raise InputError(JUDGE_FAILED.format(id=state.sample_id, fault=ex.fault)) from None
        judged = [r for r in done if r]
        # The walk as if the later judge had been its only judge.
        later = Walk(
            {JUDGE_ROLE: str(model)},
            walk.records,
            {(JUDGE_ROLE, r.turn): r for r in judged if r.turn is not None},
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
