"""The probe's scorer: per conversation, each instance's overlap; per run, the verdict.

A sample's `Score.value` holds the conversation's figures (mean ROUGE-L under each instruction,
their difference, guided exact and near-exact matches, recalled completions, instances, empty
completions); its explanation has one line per instance (with each completion's longest run of
another published text and the text it matched, recall.py), and its metadata each instance's two
scores and two recall runs, which the run-level metric `contamination_verdict` pools into the
verdict (verdict.py). Inspect hands metrics epoch-reduced values but only the first epoch's
metadata, so under `--epochs` the verdict reads the first epoch's completions (the calls are at
temperature 0: further epochs add cost, not evidence).

The run's metrics, in `inspect view` and the log header, group `contamination_verdict`: the
verdict as three indicators of which exactly one is 1 (`suspected`, `not_suspected`,
`cannot_decide`), the one that is 1 first, so that the log's headline reads the verdict as its
name (`NOT_SUSPECTED 1`); then the figures it reads: `difference` (mean guided minus general
ROUGE-L over instances) with its 95% bootstrap interval (`ci_low`, `ci_high`), the guided
completions' `exact` and `near_exact` matches, heuristic 3's `recalled` completions and
`longest_recall` run, `guided_rouge_l`, `general_rouge_l`, heuristic 1's `p_value`,
`instances`, the general completions' matches, and the evidence the abstention table reads
(`conversations`, `with_text`, `empty_completions`, `cut_completions`, `answered`,
`one_answer`): a reader of the log recomputes the reason of a `cannot_decide` from them
(`reading_of`). The rule they follow is the score's metadata (`rule`) and the task's
(`contamination_method`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from ._completions import Scored, answer_key, score_instance
from ._dataset import CONTROL_TEXTS_KEY, GUIDED, LAYOUT, METHODS_KEY, labels_of, texts_of
from ._instances import Instance
from ._labels import CARRIED, LabelResult, LabelsVerdict, decide_labels, label_result
from ._layout import LayoutInstance, LayoutVerdict, continuation, decide_layout, layout_run
from ._overlap import Overlap
from ._recall import RECALL_RUN_WORDS, Recall, recalled
from ._solver import ProbeStore, instances_of, layout_of
from ._verdict import (
    NOT_SUSPECTED,
    RULE,
    SUSPECTED,
    Evidence,
    InstanceResult,
    Verdict,
    abstention,
    decide,
    evidence,
    overall,
)

LABEL_RESULTS_KEY = "labels"
"""Score metadata: each label instance's two matches (None where a continuation writes no label
field) and its two written labels' digests (labels.py)."""
LAYOUT_RESULTS_KEY = "layout"
"""Score metadata: each layout instance's two runs (the document's and its control's), answers
and cuts."""
RESULTS_KEY = "instances"
"""Score metadata: each instance's key, its two overlap scores and matches, its two recall runs
with the text each matched, its two answers' digests and whether each was cut, and how many of
its two completions were empty."""
SCORER = "contamination_scorer"
CONTAMINATION_HEADLINE = HeadlineMetric(scorer=SCORER)
"""The first of the verdict's metrics: the indicator that is 1, named for the verdict."""

_EVIDENCE = {
    "conversations": "conversations",
    "with_text": "with_text",
    "empty_completions": "empty",
    "cut_completions": "cut",
    "answered": "answered",
    "one_answer": "one_answer",
}
"""The metrics that hold the abstention table's evidence, by Evidence's field."""


def _evidence(metrics: Mapping[str, float], prefix: str) -> Evidence:
    counts = {field: int(metrics.get(prefix + name, 0)) for name, field in _EVIDENCE.items()}
    return Evidence(instances=int(metrics.get(prefix + "instances", 0)), **counts)


def _sub_reading(
    metrics: Mapping[str, float], method: str, prefix: str, carried: str = "text"
) -> str:
    if metrics.get(f"{method}_suspected") == 1.0:
        return SUSPECTED
    return abstention(_evidence(metrics, prefix), carried) or NOT_SUSPECTED


def layout_reading(metrics: Mapping[str, float]) -> str:
    """The files-layout probe's sub-verdict, from a run's metrics that hold its figures."""
    return _sub_reading(metrics, "layout", "layout_")


def labels_reading(metrics: Mapping[str, float]) -> str:
    """The label cut's sub-verdict, from a run's metrics that hold its figures."""
    return _sub_reading(metrics, "layout_labels", "layout_labels_", CARRIED)


def reading_of(metrics: Mapping[str, float]) -> str | None:
    """The verdict that a run's metrics (`metric_values`) indicate, an abstention with its
    reason recomputed from the evidence they hold; None if they indicate none."""
    if metrics.get("suspected") == 1.0:
        return SUSPECTED
    if metrics.get("not_suspected") == 1.0:
        return NOT_SUSPECTED
    if metrics.get("cannot_decide") != 1.0:
        return None
    if "layout_instances" not in metrics:
        return abstention(_evidence(metrics, ""))
    readings = [("layout", layout_reading(metrics))]
    if "layout_labels_instances" in metrics:
        readings.append(("labels", labels_reading(metrics)))
    if "guided_suspected" in metrics:
        readings.insert(0, ("guided", _sub_reading(metrics, "guided", "")))
    return overall(readings)


def _layout_values(guided: Verdict | None, layout: LayoutVerdict, e: Evidence) -> dict[str, float]:
    """The layout probe's figures, and each method's sub-verdict where both ran."""
    sub = {"guided_suspected": float(guided.reading == SUSPECTED)} if guided else {}
    return {
        **sub,
        "layout_suspected": float(layout.reading == SUSPECTED),
        "layout_recalled": layout.recalled,
        "layout_control_recalled": layout.control_recalled,
        "layout_longest": layout.longest,
        "layout_control_longest": layout.control_longest,
        "layout_instances": layout.instances,
        **{f"layout_{name}": getattr(e, field) for name, field in _EVIDENCE.items()},
    }


def _labels_values(labels: LabelsVerdict) -> dict[str, float]:
    """The label cut's figures (labels.py)."""
    e = labels.evidence
    return {
        "layout_labels_suspected": float(labels.reading == SUSPECTED),
        "layout_labels_match": labels.match,
        "layout_labels_control_match": labels.control_match,
        "layout_labels_p_value": labels.p_value,
        "layout_labels_reproduced": labels.reproduced,
        "layout_labels_scored": labels.scored,
        "layout_labels_instances": labels.instances,
        **{f"layout_labels_{name}": getattr(e, field) for name, field in _EVIDENCE.items()},
    }


def metric_values(
    verdict: Verdict | None,
    layout: tuple[LayoutVerdict, Evidence] | None = None,
    labels: LabelsVerdict | None = None,
) -> dict[str, float]:
    """The run's metrics. `inspect view` heads a log with the first five (and its log list with
    the first): the verdict's own indicator, then the evidence it reads, the difference with its
    interval and the exact matches; then the rest, in its "All scoring" table. Counts are
    integers. `verdict`: the guided probe's (None where it did not run); `layout`: the layout
    probe's and its evidence (None where it did not run); `labels`: its label cut's."""
    readings = [("guided", verdict.reading)] if verdict else []
    readings += [("layout", layout[0].reading)] if layout else []
    readings += [("labels", labels.reading)] if labels else []
    reading = overall(readings)
    indicators = {
        "suspected": float(reading == SUSPECTED),
        "not_suspected": float(reading == NOT_SUSPECTED),
        "cannot_decide": float(reading not in (SUSPECTED, NOT_SUSPECTED)),
    }
    first = max(indicators, key=lambda name: indicators[name])
    shown = verdict or decide([])
    e = shown.evidence
    return {
        first: 1.0,
        "difference": shown.difference.estimate,
        "ci_low": shown.difference.low,
        "ci_high": shown.difference.high,
        "exact": shown.exact,
        "near_exact": shown.near_exact,
        "recalled": shown.recalled,
        "guided_rouge_l": shown.guided_rouge_l,
        "general_rouge_l": shown.general_rouge_l,
        "p_value": shown.p_value,
        "instances": shown.instances,
        **{name: value for name, value in indicators.items() if name != first},
        "general_exact": shown.general_exact,
        "general_near_exact": shown.general_near_exact,
        "longest_recall": shown.longest_recall,
        **{name: getattr(e, field) for name, field in _EVIDENCE.items()},
        **(_layout_values(verdict if layout and verdict else None, *layout) if layout else {}),
        **(_labels_values(labels) if labels else {}),
    }


def _records(score: Score, key: str = RESULTS_KEY) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = (score.metadata or {}).get(key, [])
    return records


def results_of(
    score: Score, conversation: str = "", key: str = RESULTS_KEY
) -> list[InstanceResult]:
    """A sample's instances as the verdict reads them (`conversation`: its ID; `key`: the
    guided probe's records, or `LAYOUT_RESULTS_KEY` the layout probe's)."""
    return [
        InstanceResult(
            guided=float(r["guided"]),
            general=float(r["general"]),
            guided_match=r["guided_match"],
            general_match=r["general_match"],
            guided_recall=int(r.get("guided_recall", 0)),
            general_recall=int(r.get("general_recall", 0)),
            conversation=str(r.get("conversation", conversation)),
            guided_answer=r.get("guided_answer"),
            general_answer=r.get("general_answer"),
            guided_cut=bool(r.get("guided_cut", False)),
            general_cut=bool(r.get("general_cut", False)),
        )
        for r in _records(score, key)
    ]


def _ordered(scores: Sequence[SampleScore]) -> list[SampleScore]:
    """The samples by conversation ID (the order a log keeps its samples in, so the figures
    recomputed from a log are the printed ones)."""
    return sorted(scores, key=lambda s: (str(s.sample_id), s.sample_id is None))


def pooled(scores: Sequence[SampleScore], key: str = RESULTS_KEY) -> list[InstanceResult]:
    """Every instance of the run, by conversation ID, then in instance order."""
    return [r for s in _ordered(scores) for r in results_of(s.score, str(s.sample_id), key)]


def pooled_labels(scores: Sequence[SampleScore]) -> list[LabelResult]:
    """Every label instance of the run, by conversation ID, then by turn."""
    return [
        LabelResult(
            conversation=str(s.sample_id),
            match=r["match"],
            control_match=r["control_match"],
            answer=r["answer"],
            control_answer=r["control_answer"],
        )
        for s in _ordered(scores)
        for r in _records(s.score, LABEL_RESULTS_KEY)
    ]


def methods_of(scores: Sequence[SampleScore]) -> list[str]:
    """The methods the run chose (the guided probe alone in a log that records none)."""
    for s in scores:
        return list((s.score.metadata or {}).get(METHODS_KEY, [GUIDED]))
    return [GUIDED]


@metric
def contamination_verdict() -> Metric:
    """The verdict over every instance of the run (verdict.RULE, OVERALL_RULE), with its
    figures."""

    def calculate(scores: list[SampleScore]) -> dict[str, float]:
        # Everything from the metadata, so that the verdict and its counts read the same epoch.
        methods = methods_of(scores)
        layout = pooled(scores, LAYOUT_RESULTS_KEY)
        labels = pooled_labels(scores)
        return metric_values(
            decide(pooled(scores)) if GUIDED in methods else None,
            (decide_layout(layout), evidence(layout)) if LAYOUT in methods else None,
            decide_labels(labels) if LAYOUT in methods and labels else None,
        )

    return calculate


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _line(instance: Instance, scored: Scored) -> str:
    def part(name: str, o: Overlap) -> str:
        notes = [o.match.replace("_", "-")] if o.match != "none" else []
        if o.empty:
            notes.append("empty")
        elif o.echoed:
            notes.append(f"{o.echoed} echoed word(s) removed")
        return f"{name} {o.rouge_l:.2f}" + (f" ({', '.join(notes)})" if notes else "")

    def run(name: str, r: Recall) -> str:
        if not r.run:
            return f"{name} 0"
        # The words themselves only where they decide: a recalled run.
        shown = f': "{r.words}"' if recalled(r) else ""
        return f"{name} {r.run} ({r.text}{shown})"

    return (
        f"- {instance.key}: {instance.shown} of {instance.words} words shown; ROUGE-L "
        f"{part('guided', scored.guided)}, {part('general', scored.general)}; longest run of "
        f"another text: {run('guided', scored.guided_recall)}, "
        f"{run('general', scored.general_recall)}"
    )


def _value(scored: Sequence[tuple[Instance, Scored]]) -> dict[str, float]:
    """A conversation's figures, three decimals: what a reader compares in the sample list (the
    verdict reads the per-instance scores of the metadata)."""
    guided_scores = [s.guided.rouge_l for _, s in scored]
    general_scores = [s.general.rouge_l for _, s in scored]
    differences = [g - h for g, h in zip(guided_scores, general_scores, strict=True)]
    return {
        "guided_rouge_l": round(_mean(guided_scores), 3),
        "general_rouge_l": round(_mean(general_scores), 3),
        "difference": round(_mean(differences), 3),
        "exact": sum(s.guided.match == "exact" for _, s in scored),
        "near_exact": sum(s.guided.match == "near_exact" for _, s in scored),
        "recalled": sum(
            recalled(r) for _, s in scored for r in (s.guided_recall, s.general_recall)
        ),
        "instances": len(scored),
        "empty": sum(s.guided.empty + s.general.empty for _, s in scored),
    }


def _record(instance: Instance, s: Scored) -> dict[str, Any]:
    return {
        "key": instance.key,
        **asdict(s.result()),
        "guided_recall_text": s.guided_recall.text,
        "general_recall_text": s.general_recall.text,
        "empty": int(s.guided.empty) + int(s.general.empty),
    }


def _scored(state: TaskState) -> list[tuple[Instance, Scored]]:
    store = store_as(ProbeStore)
    texts = texts_of(state.metadata)

    def at(values: Sequence[Any], i: int, missing: Any) -> Any:
        return values[i] if i < len(values) else missing

    return [
        (
            instance,
            score_instance(
                instance,
                texts,
                at(store.guided, i, ""),
                at(store.general, i, ""),
                (at(store.guided_cut, i, False), at(store.general_cut, i, False)),
            ),
        )
        for i, instance in enumerate(instances_of(state.metadata))
    ]


def _layout_scored(state: TaskState) -> list[tuple[LayoutInstance, InstanceResult]]:
    """Each layout instance: the document's completion (as `guided`) and its control's (as
    `general`), each as its longest run of unshown words of its conversation's texts; never
    read as cut (the solver still records the stop)."""
    store = store_as(ProbeStore)
    texts = texts_of(state.metadata)
    control = texts_of(state.metadata, CONTROL_TEXTS_KEY)
    scored = []
    for i, layout in enumerate(layout_of(state.metadata)):
        real = continuation(store.layout[i], layout.prefix)
        fake = continuation(store.layout_control[i], layout.control_prefix)
        scored.append(
            (
                layout,
                InstanceResult(
                    guided=0.0,
                    general=0.0,
                    guided_match="none",
                    general_match="none",
                    guided_recall=layout_run(real, layout.prefix, texts),
                    general_recall=layout_run(fake, layout.control_prefix, control),
                    conversation=layout.conversation_id,
                    guided_answer=answer_key(real),
                    general_answer=answer_key(fake),
                    # A file has no end: the length limit is a window on its continuation,
                    # so a completion cut there still carries text (unlike a guided one).
                ),
            )
        )
    return scored


def _labels_scored(state: TaskState) -> list[tuple[LayoutInstance, LabelResult]]:
    """Each label cut: the label fields the document's and the control's continuations write,
    scored against the turn's labels."""
    store = store_as(ProbeStore)
    labels = labels_of(state.metadata)
    return [
        (
            layout,
            label_result(
                layout.conversation_id,
                continuation(store.layout_labels[i], layout.label_prefix),
                continuation(store.layout_labels_control[i], layout.label_control_prefix),
                labels.get(layout.turn),
            ),
        )
        for i, layout in enumerate(layout_of(state.metadata))
        if layout.label_prefix and i < len(store.layout_labels)
    ]


def _labels_line(layout: LayoutInstance, r: LabelResult) -> str:
    def shown(match: float | None) -> str:
        return "no label field" if match is None else f"label match {match:.2f}"

    return (
        f"- {layout.key}: the document's label cut writes {shown(r.match)}, "
        f"the control's {shown(r.control_match)}"
    )


def _layout_line(layout: LayoutInstance, r: InstanceResult) -> str:
    return (
        f"- {layout.key}: the document's continuation writes {r.guided_recall} unshown word(s) "
        f"of a published text in a row, the control's {r.general_recall}"
    )


@scorer(metrics=[contamination_verdict()], rule=RULE)
def contamination_scorer() -> Scorer:
    """Each instance's guided and general completion against the unseen rest of its text, and
    each layout instance's continuation against the conversation's published texts."""

    async def score(state: TaskState, target: Target) -> Score:
        scored = _scored(state)
        layout = _layout_scored(state)
        labels = _labels_scored(state)
        value = _value(scored)
        lines = [_line(i, s) for i, s in scored] + [_layout_line(i, r) for i, r in layout]
        lines += [_labels_line(i, r) for i, r in labels]
        answer = (
            f"ROUGE-L guided {value['guided_rouge_l']:.2f}, general "
            f"{value['general_rouge_l']:.2f}; {value['exact']} exact, "
            f"{value['near_exact']} near-exact; {value['recalled']} recalled"
        )
        if layout:
            value["layout_recalled"] = sum(r.guided_recall >= RECALL_RUN_WORDS for _, r in layout)
            answer += f"; layout: {value['layout_recalled']} recalled"
        if labels:
            value["layout_labels_reproduced"] = sum(r.match == 1.0 for _, r in labels)
            answer += f", labels reproduced in {value['layout_labels_reproduced']}"
        return Score(
            value=value,
            answer=answer,
            explanation="\n".join(lines) or "no instance probed",
            metadata={
                METHODS_KEY: state.metadata.get(METHODS_KEY, [GUIDED]),
                RESULTS_KEY: [_record(i, s) for i, s in scored],
                LAYOUT_RESULTS_KEY: [{"key": i.key, **asdict(r)} for i, r in layout],
                LABEL_RESULTS_KEY: [{"key": i.key, **asdict(r)} for i, r in labels],
            },
        )

    return score
