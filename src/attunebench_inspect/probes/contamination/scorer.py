"""The probe's scorer: per conversation, each instance's overlap; per run, the verdict.

A sample's `Score.value` holds the conversation's figures (mean ROUGE-L under each instruction,
their difference, guided exact and near-exact matches, instances, empty completions); its
explanation has one line per instance, and its metadata each instance's two scores, which the
run-level metric `contamination_verdict` pools into the verdict (verdict.py). Inspect hands metrics
epoch-reduced values but only the first epoch's metadata, so under `--epochs` the verdict reads
the first epoch's completions (the calls are at temperature 0: further epochs add cost, not
evidence).

The run's metrics, in `inspect view` and the log header, group `contamination_verdict`: the
verdict as three indicators of which exactly one is 1 (`suspected`, `not_suspected`,
`too_few_instances`), then the figures it reads; the rule they follow is the score's metadata
(`rule`).
"""

from __future__ import annotations

import math

from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from .instances import Instance
from .overlap import Overlap, overlap
from .solver import ProbeStore, instances_of
from .verdict import RULE, InstanceResult, Verdict, decide

RESULTS_KEY = "instances"
"""Score metadata: each instance's key and its two overlap scores and matches."""
HEADLINE = HeadlineMetric(scorer="contamination_scorer", metric="suspected")

_INDICATORS = {
    "suspected": "suspected",
    "not suspected": "not_suspected",
    "too few instances to decide": "too_few_instances",
}


def metric_values(verdict: Verdict, empty: int) -> dict[str, float]:
    """The run's metrics: the verdict's indicators first, then what it reads."""
    values = {name: float(verdict.reading == reading) for reading, name in _INDICATORS.items()}
    values.update(
        {
            "guided_rouge_l": verdict.guided_rouge_l,
            "general_rouge_l": verdict.general_rouge_l,
            "difference": verdict.difference.estimate,
            "difference_ci_low": verdict.difference.low,
            "difference_ci_high": verdict.difference.high,
            "p_value": verdict.p_value,
            "exact": float(verdict.exact),
            "near_exact": float(verdict.near_exact),
            "general_exact": float(verdict.general_exact),
            "general_near_exact": float(verdict.general_near_exact),
            "instances": float(verdict.instances),
            "empty_completions": float(empty),
        }
    )
    return values


def results_of(score: Score) -> list[InstanceResult]:
    return [
        InstanceResult(
            guided=float(r["guided"]),
            general=float(r["general"]),
            guided_match=r["guided_match"],
            general_match=r["general_match"],
        )
        for r in (score.metadata or {}).get(RESULTS_KEY, [])
    ]


@metric
def contamination_verdict() -> Metric:
    """The verdict over every instance of the run (verdict.RULE), with its figures."""

    def calculate(scores: list[SampleScore]) -> dict[str, float]:
        results = [r for s in scores for r in results_of(s.score)]
        empty = 0
        for s in scores:
            value = s.score.value
            if isinstance(value, dict):
                empty += int(value.get("empty", 0) or 0)
        return metric_values(decide(results), empty)

    return calculate


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _line(instance: Instance, guided: Overlap, general: Overlap) -> str:
    def part(name: str, o: Overlap) -> str:
        notes = [o.match.replace("_", "-")] if o.match != "none" else []
        if o.empty:
            notes.append("empty")
        elif o.echoed:
            notes.append(f"{o.echoed} echoed word(s) removed")
        return f"{name} {o.rouge_l:.2f}" + (f" ({', '.join(notes)})" if notes else "")

    return (
        f"- {instance.key}: {instance.shown} of {instance.words} words shown; ROUGE-L "
        f"{part('guided', guided)}, {part('general', general)}"
    )


@scorer(metrics=[contamination_verdict()], rule=RULE)
def contamination_scorer() -> Scorer:
    """Each instance's guided and general completion against the unseen rest of its text."""

    async def score(state: TaskState, target: Target) -> Score:
        instances = instances_of(state.metadata)
        store = store_as(ProbeStore)
        scored: list[tuple[Instance, Overlap, Overlap]] = []
        for i, instance in enumerate(instances):
            guided = store.guided[i] if i < len(store.guided) else ""
            general = store.general[i] if i < len(store.general) else ""
            scored.append(
                (
                    instance,
                    overlap(instance.segment, instance.reference, guided),
                    overlap(instance.segment, instance.reference, general),
                )
            )
        guided_scores = [g.rouge_l for _, g, _ in scored]
        general_scores = [h.rouge_l for _, _, h in scored]
        differences = [g - h for g, h in zip(guided_scores, general_scores, strict=True)]
        exact = sum(g.match == "exact" for _, g, _ in scored)
        near_exact = sum(g.match == "near_exact" for _, g, _ in scored)
        value: dict[str, float] = {
            "guided_rouge_l": _mean(guided_scores),
            "general_rouge_l": _mean(general_scores),
            "difference": _mean(differences),
            "exact": exact,
            "near_exact": near_exact,
            "instances": len(scored),
            "empty": sum(g.empty + h.empty for _, g, h in scored),
        }
        return Score(
            value=value,
            answer=(
                f"ROUGE-L guided {value['guided_rouge_l']:.2f}, general "
                f"{value['general_rouge_l']:.2f}; {exact} exact, {near_exact} near-exact"
            ),
            explanation="\n".join(_line(i, g, h) for i, g, h in scored) or "no instance probed",
            metadata={
                RESULTS_KEY: [
                    {
                        "key": i.key,
                        "guided": round(g.rouge_l, 6),
                        "general": round(h.rouge_l, 6),
                        "guided_match": g.match,
                        "general_match": h.match,
                    }
                    for i, g, h in scored
                ]
            },
        )

    return score
