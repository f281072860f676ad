"""The paper's four tasks as catalog metrics, every model's per-conversation task values under
both label sets (`task_scores`), and the self-specific gain (`self_specific_gains`;
docs/third-party.md, 'The self-specific gain'). Pure: no Inspect, no I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, mean_cis
from ...providers import BASELINE_PROVIDER
from ...score import _metrics as m
from ..human import is_human

NAN = float("nan")

# --- the four tasks -------------------------------------------------------------------------------

TASKS: dict[str, tuple[str, ...]] = {
    "emotion_recognition": ("emotion_f1", "emotion_va"),
    "behavioral_classification": ("binary_om_accuracy",),
    "preference_prediction": ("binary_hp_accuracy", "pairwise_accuracy"),
    "judged_response_quality": ("draft_judge",),
}
"""The paper's four tasks as catalog metrics; a task's value in a conversation is the mean of its
metrics that are defined there. Each kind of label belongs to one task (docs/third-party.md, 'The
four tasks')."""
TASK_LABELS = {
    "emotion_recognition": "Emotion recognition",
    "behavioral_classification": "Behavioral classification",
    "preference_prediction": "Preference prediction",
    "judged_response_quality": "Judged response quality",
}

# --- per-conversation task values of several models --------------------------------------------

Values = Mapping[str, float]


@dataclass(frozen=True)
class TaskScores:
    """Per-conversation task values of several models, against the participants' labels (`own`)
    and the third parties' (`third`): arrays (models, tasks, conversations), NaN where a model has
    no value."""

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    conversations: tuple[str, ...]
    own: NDArray[np.float64]
    third: NDArray[np.float64]


def task_scores(
    rescored: Mapping[str, Mapping[str, tuple[Values, Values]]],
    tasks: Mapping[str, Sequence[str]] = TASKS,
) -> TaskScores:
    """From model -> conversation -> (self values, third-party values), as `rescore_pair` gives
    them, the task values of every model on the union of their conversations; a task no model has
    a value for (the draft judge without a judge) is left out."""
    models = tuple(rescored)
    conversations = tuple(sorted({c for per in rescored.values() for c in per}))
    names = tuple(tasks)
    arrays = np.full((2, len(models), len(names), len(conversations)), NAN)
    for i, model in enumerate(models):
        for k, conv in enumerate(conversations):
            pair = rescored[model].get(conv)
            if pair is None:
                continue
            for side in (0, 1):
                for j, task in enumerate(names):
                    values = [pair[side].get(name, NAN) for name in tasks[task]]
                    arrays[side, i, j, k] = m.nanmean(values)
    kept = [j for j in range(len(names)) if np.any(~np.isnan(arrays[:, :, j]))]
    return TaskScores(
        models, tuple(names[j] for j in kept), conversations, arrays[0][:, kept], arrays[1][:, kept]
    )


def excluded_from_ranking(model: str) -> str | None:
    """Why a run is not one of the ranked models (None: it is): the offline baselines and the
    replayed human runs (a baseline last on every task would make every pair of rankings agree)."""
    if model.startswith(BASELINE_PROVIDER + "/"):
        return "an offline baseline"
    if is_human(model):
        return "a replayed human run"
    return None


# --- the self-specific gain ---------------------------------------------------------------------


@dataclass(frozen=True)
class Gain:
    model: str
    task: str
    own: Interval
    """Against the participants' labels."""
    third: Interval
    """Against the third parties' labels, on the same conversations."""
    gain: Interval
    """own - third, paired per conversation: how much better the model reads this person than
    the outsiders' reading of the same conversation predicts."""


def self_specific_gains(
    scores: TaskScores,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> list[Gain]:
    """Per model and task, on the conversations where both values are defined."""
    gains = []
    for i, model in enumerate(scores.models):
        for j, task in enumerate(scores.tasks):
            own, third = scores.own[i, j], scores.third[i, j]
            both = ~(np.isnan(own) | np.isnan(third))
            own_ci, third_ci, gain = mean_cis(
                [own[both], third[both], own[both] - third[both]],
                resamples=resamples,
                seed=seed,
                level=level,
            )
            gains.append(Gain(model, task, own_ci, third_ci, gain))
    return gains
