"""How many models, conversations and annotators the reviewer's test needs: a simulation of its
verdicts on per-conversation task values of known structure (docs/third-party.md, "How much data
the test needs", which states the design and its assumptions). Run
`python -m attunebench_inspect.instruments.reannotation._power` for the table.

Each replication draws true task values under self labels independent across tasks, and under
third-party labels that keep each task's ranking (`separable`) or share one ranking across the
three label tasks (`generic`); the information condition is met by construction
(`TaskInformation(stated=True)`); `reviewers_test` reads each replication."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ._agreement import TaskInformation
from ._separability import DEPENDS, HOLDS, LABELLED, reviewers_test
from ._tasks import TaskScores

Scenario = Literal["separable", "generic"]
TASK_NAMES = (
    "emotion_recognition",
    "behavioral_classification",
    "preference_prediction",
    "judged_response_quality",
)
SPREAD = 0.03
"""SD of the models' true mean task values (assumption, from the paper's per-model ranges)."""
NOISE = 0.08
"""SD of a model's per-conversation task value around its mean, beyond the conversation effect."""
DIFFICULTY = 0.15
"""SD of the conversation effect every model shares (it moves no ranking; kept for realism)."""
SHARED_NOISE = 0.5
"""Correlation of a model's per-conversation noise under the two label sets (assumption)."""
ANNOTATOR_AGREEMENT = 0.75
"""The share of items on which one annotator gives the reading the third parties share
(assumption; the paper's pilot annotators matched participants' binary labels 0.80-0.85)."""


def consensus_reliability(annotators: int, agreement: float = ANNOTATOR_AGREEMENT) -> float:
    """How much of the gap between two models against a reading survives in their scores against
    the consensus of `annotators` annotators who each give that reading on a share `agreement`
    of binary items and the other answer otherwise: 2 P(the majority gives it) - 1, a tie
    counting half (`_consensus.py` makes a tie no label)."""
    p = agreement
    right = sum(
        math.comb(annotators, k) * p**k * (1 - p) ** (annotators - k)
        for k in range(annotators + 1)
        if 2 * k > annotators
    )
    tie = (
        math.comb(annotators, annotators // 2) * (p * (1 - p)) ** (annotators // 2)
        if annotators % 2 == 0
        else 0.0
    )
    return 2 * (right + tie / 2) - 1


def simulate_scores(
    scenario: Scenario,
    models: int,
    conversations: int,
    annotators: int,
    rng: np.random.Generator,
    spread: float = SPREAD,
    noise: float = NOISE,
) -> TaskScores:
    tasks = len(TASK_NAMES)
    own_means = rng.normal(0, spread, (models, tasks))
    reliability = consensus_reliability(annotators)
    if scenario == "separable":
        third_means = reliability * own_means
    else:
        third_means = reliability * np.repeat(rng.normal(0, spread, (models, 1)), tasks, axis=1)
    third_means[:, -1] = own_means[:, -1]
    shape = (models, tasks, conversations)
    mine, other = rng.normal(0, noise, shape), rng.normal(0, noise, shape)
    # The same predictions scored twice: their model-specific noise correlates (0.5, assumed).
    shared = SHARED_NOISE * mine + math.sqrt(1 - SHARED_NOISE**2) * other
    own = own_means[..., None] + rng.normal(0, DIFFICULTY, (1, tasks, conversations)) + mine
    third = third_means[..., None] + rng.normal(0, DIFFICULTY, (1, tasks, conversations)) + shared
    third[:, -1] = own[:, -1]
    ids = tuple(f"c{i}" for i in range(conversations))
    return TaskScores(tuple(f"m{i}" for i in range(models)), TASK_NAMES, ids, own, third)


@dataclass(frozen=True)
class Rates:
    scenario: Scenario
    models: int
    conversations: int
    annotators: int
    holds: float
    depends: float
    cannot_decide: float
    third_width: float
    """Median width of the third-party rho's 95% CI over the label-task pairs."""


def rates(
    scenario: Scenario,
    models: int,
    conversations: int,
    annotators: int,
    *,
    replications: int = 200,
    resamples: int = 1000,
    seed: int = 0,
) -> Rates:
    rng = np.random.default_rng([seed, models, conversations, annotators, scenario == "generic"])
    verdicts: list[str] = []
    widths: list[float] = []
    for replication in range(replications):
        scores = simulate_scores(scenario, models, conversations, annotators, rng)
        test = reviewers_test(scores, READ_BY_CONSTRUCTION, resamples=resamples, seed=replication)
        verdicts.append(test.verdict)
        widths.extend(
            p.third.high - p.third.low
            for p in test.pairs
            if "judged_response_quality" not in p.tasks
        )
    holds, depends = (verdicts.count(verdict) / replications for verdict in (HOLDS, DEPENDS))
    width = float(np.nanmedian(widths)) if widths else math.nan
    return Rates(
        scenario, models, conversations, annotators, holds, depends, 1 - holds - depends, width
    )


GRID_MODELS = (5, 8, 11)
GRID_CONVERSATIONS = (50, 100, 200)
GRID_ANNOTATORS = (1, 3, 5)
SCENARIOS: tuple[Scenario, ...] = ("separable", "generic")
READ_BY_CONSTRUCTION = {t: TaskInformation(t, informative=True, stated=True) for t in LABELLED}
"""The simulated annotators read the participants: the information condition holds."""


def main(replications: int = 100) -> None:
    """The table of docs/third-party.md: every scenario and size of the grid."""
    print("scenario   K    n  A  holds  depends  cannot-decide  CI-width")
    grid = itertools.product(SCENARIOS, GRID_MODELS, GRID_CONVERSATIONS, GRID_ANNOTATORS)
    for scenario, models, conversations, annotators in grid:
        r = rates(scenario, models, conversations, annotators, replications=replications)
        print(
            f"{r.scenario:9} {r.models:2} {r.conversations:4} {r.annotators:2} {r.holds:6.2f} "
            f"{r.depends:8.2f} {r.cannot_decide:14.2f} {r.third_width:9.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
