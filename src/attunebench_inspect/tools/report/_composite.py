"""The run Composite recomputed from logs, with a bootstrap CI over conversations."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, mean_ci
from ...score._catalog import PILLAR_NAMES
from ...score._metrics import composite, nanmean
from ._logs import COMPOSITE_SCORER, Run, score_values


@dataclass(frozen=True)
class RunComposite:
    run: Run
    per_conversation: dict[str, float]
    interval: Interval
    logged: float | None
    """The Composite mean in the log header, for comparison."""


def conversation_composites(run: Run) -> dict[str, float]:
    """Per conversation: the Composite from its pillars, averaged over epochs."""
    return {
        sample_id: nanmean([composite(*(e[p] for p in PILLAR_NAMES)) for e in epochs])
        for sample_id, epochs in score_values(run.scored(), COMPOSITE_SCORER).items()
    }


def logged_composite(run: Run) -> float | None:
    for score in run.header.results.scores if run.header.results else []:
        if score.name == "composite" and "mean" in score.metrics:
            return score.metrics["mean"].value
    return None


def run_composite(
    run: Run, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> RunComposite:
    per = conversation_composites(run)
    interval = mean_ci([per[k] for k in sorted(per)], resamples=resamples, seed=seed)
    return RunComposite(run, per, interval, logged_composite(run))


def agrees(result: RunComposite, tolerance: float = 1e-6) -> bool:
    return result.logged is not None and math.isclose(
        result.interval.estimate, result.logged, abs_tol=tolerance
    )
