"""The stability instrument's part of the main task: its scorer, and the run's figures."""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from ...data._samples import truth_of
from ...score._scorers import scored_walk
from ._log_figures import log_metrics
from ._record import read_record, stability_record


@metric(scores="unreduced")
def stability_figures() -> Metric:
    """The run's stability figures from every epoch's records: Inspect hands them over unreduced."""

    def calculate(scores: list[SampleScore]) -> dict[str, float]:
        records = [read_record(str(s.sample_id), s.score.metadata) for s in scores]
        return log_metrics([r for r in records if r is not None])

    return calculate


@scorer(metrics=[stability_figures()])
def stability_scorer(codebook: str | None = None) -> Scorer:
    """What the stability instruments read of each sample and epoch (its metadata: `_record.py`)
    and the run's stability figures; its value: the pairwise choices, and the earlier-shown's."""

    async def score(state: TaskState, target: Target) -> Score:
        walk, scores = scored_walk(state, codebook)
        turns = len(truth_of(state.metadata).turns)
        composite = scores["composite"]["composite"]
        record = stability_record(walk, turns, state.epoch, composite)
        read = read_record(str(state.sample_id), record)
        shown = read.choices if read is not None else []
        return Score(
            value={
                "pairwise_choices": float(len(shown)),
                "pairwise_earlier": float(sum(c.chose_earlier for c in shown)),
            },
            metadata=record,
        )

    return score
