"""The probe's scorer: per conversation, each instance's overlap; per run, the verdict.

A sample's `Score.value` holds the conversation's figures (mean ROUGE-L under each instruction,
their difference, guided exact and near-exact matches, recalled completions, instances, empty
completions); its explanation has one line per instance (with each completion's longest run of
another published text and the text it matched, `_recall.py`), and its metadata each instance's
two scores and two recall runs, which the run-level metric `contamination_verdict` pools into the
verdict (`_verdict.py`, which also says how the log header keeps it). Inspect hands metrics
epoch-reduced values but only the first epoch's metadata, so under `--epochs` the verdict reads
the first epoch's completions (the calls are at temperature 0: further epochs add cost, not
evidence). The rule is the score's metadata (`rule`) and the task's (`contamination_method`).
With the likelihood method, a sample's score also holds the conversation's likelihood figures
(`_likelihood.ConversationLikelihood`: its Min-K% Prob, or how many decoy IDs score at least its
real one), which the metric pools into the method's sub-verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, fields
from typing import Any, TypeVar

from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from ._completions import Scored, answer_key, score_instance
from ._dataset import CONTROL_TEXTS_KEY, METHODS_KEY, labels_of
from ._instances import Instance
from ._labels import label_result
from ._layout import LayoutInstance, continuation, layout_run
from ._likelihood import ConversationLikelihood, conversation_likelihood, route_check
from ._likelihood_route import LikelihoodStore, is_control, plan_of
from ._overlap import Overlap
from ._recall import Recall, recalled
from ._rules import (
    DECOYS,
    GUIDED,
    NO_TEXT_LOGPROBS,
    RECALL_RUN_WORDS,
    RULE,
    InstanceResult,
    LabelResult,
)
from ._solver import ProbeStore, instances_of, layout_of, texts_of
from ._verdict import HEADLINE_METRIC, probe_verdict

LABEL_RESULTS_KEY = "labels"
"""Score metadata: each label instance's two matches (None where a continuation writes no label
field) and its two written labels' digests (`_labels.py`)."""
LAYOUT_RESULTS_KEY = "layout"
"""Score metadata: each layout instance's two runs (the document's and its control's), answers
and cuts."""
RESULTS_KEY = "instances"
"""Score metadata: each instance's key, its two overlap scores and matches, its two recall runs
with the text each matched, its two answers' digests and whether each was cut, and how many of
its two completions were empty."""
LIKELIHOOD_RESULTS_KEY = "likelihood"
"""Score metadata: the conversation's likelihood figures (`ConversationLikelihood`), with the
run's test (`likelihood_control_test`) and its model (`provider`), which the metric reads."""
SCORER = "contamination_scorer"
CONTAMINATION_HEADLINE = HeadlineMetric(scorer=SCORER, metric=HEADLINE_METRIC)
"""The first of the verdict's metrics: the indicator that is 1, named for the verdict."""


def _ordered(scores: Sequence[SampleScore]) -> list[SampleScore]:
    """The samples by conversation ID (the order a log keeps its samples in, so the figures
    recomputed from a log are the printed ones)."""
    return sorted(scores, key=lambda s: (str(s.sample_id), s.sample_id is None))


_Result = TypeVar("_Result", InstanceResult, LabelResult)


def pooled(scores: Sequence[SampleScore], record: type[_Result], key: str) -> list[_Result]:
    """Every instance of the run under `key`, by conversation ID, then in instance order. A
    score's record holds `record`'s fields as `asdict` wrote them; a log written before a field
    was added reads its default (and the sample's ID as the conversation)."""
    names = {f.name for f in fields(record)}
    return [
        record(**{"conversation": str(s.sample_id), **{k: r[k] for k in names & r.keys()}})
        for s in _ordered(scores)
        for r in (s.score.metadata or {}).get(key, [])
    ]


def pooled_likelihood(scores: Sequence[SampleScore]) -> list[ConversationLikelihood]:
    """Every conversation's likelihood figures, by conversation ID."""
    return [
        ConversationLikelihood(**found)
        for s in _ordered(scores)
        if (found := (s.score.metadata or {}).get(LIKELIHOOD_RESULTS_KEY))
    ]


def _run_fact(scores: Sequence[SampleScore], key: str, missing: Any) -> Any:
    """A fact every sample's score records alike (the first sample's)."""
    return next((s.score.metadata or {} for s in scores), {}).get(key, missing)


@metric
def contamination_verdict() -> Metric:
    """The verdict over every instance of the run (`_rules.py`), as the log header keeps it
    (`ProbeVerdict.metrics`)."""

    def calculate(scores: list[SampleScore]) -> dict[str, float]:
        # Everything from the metadata, so that the verdict and its counts read the same epoch.
        return probe_verdict(
            # The guided probe alone in a log that records no methods.
            list(_run_fact(scores, METHODS_KEY, [GUIDED])),
            pooled(scores, InstanceResult, RESULTS_KEY),
            pooled(scores, InstanceResult, LAYOUT_RESULTS_KEY),
            pooled(scores, LabelResult, LABEL_RESULTS_KEY),
            pooled_likelihood(scores),
            bool(_run_fact(scores, "likelihood_control_test", False)),
            str(_run_fact(scores, "provider", "the provider")),
        ).metrics()

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
    counted = [s.result().counted for _, s in scored]
    return {
        "guided_rouge_l": round(_mean(guided_scores), 3),
        "general_rouge_l": round(_mean(general_scores), 3),
        "difference": round(_mean(differences), 3),
        "exact": counted.count("exact"),
        "near_exact": counted.count("near_exact"),
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
        result = InstanceResult(
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
        )
        scored.append((layout, result))
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


def _likelihood_scored(state: TaskState) -> ConversationLikelihood | None:
    """The conversation's likelihood figures (None where the method was not chosen)."""
    plan = plan_of(state.metadata)
    if not (plan.control_test or plan.window):
        return None
    store = store_as(LikelihoodStore)
    return conversation_likelihood(
        str(state.sample_id), store.canary, store.texts, store.windows, is_control(state.metadata)
    )


def _likelihood_line(found: ConversationLikelihood) -> str:
    if found.missing or math.isnan(found.canary):
        return f"likelihood: the provider {NO_TEXT_LOGPROBS}"
    route = route_check(found.canary)
    if route is not None:
        return f"likelihood: {route}"
    if found.decoys_above is not None:
        return (
            f"likelihood: {found.decoys_above} of {DECOYS} decoy IDs score the document's start "
            "at least as high as its real ID"
        )
    kind = "never-published control" if found.control else "published"
    return (
        f"likelihood ({kind}): Min-K% Prob {found.score:.3f} nats over {found.texts} text(s) "
        f"({found.skipped} too short)"
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
        lines = [_line(i, s) for i, s in scored] + [
            f"- {i.key}: the document's continuation writes {r.guided_recall} unshown word(s) "
            f"of a published text in a row, the control's {r.general_recall}"
            for i, r in layout
        ]
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
        likelihood = _likelihood_scored(state)
        if likelihood is not None:
            said = _likelihood_line(likelihood)
            lines.append(f"- {said}")
            answer = said if likelihood.control else f"{answer}; {said}"
            if likelihood.decoys_above is not None:
                value["likelihood_decoys_above"] = likelihood.decoys_above
            else:
                value["likelihood_min_k"] = likelihood.score
        return Score(
            value=value,
            answer=answer,
            explanation="\n".join(lines) or "no instance probed",
            metadata={
                METHODS_KEY: state.metadata.get(METHODS_KEY, [GUIDED]),
                RESULTS_KEY: [_record(i, s) for i, s in scored],
                LAYOUT_RESULTS_KEY: [{"key": i.key, **asdict(r)} for i, r in layout],
                LABEL_RESULTS_KEY: [{"key": i.key, **asdict(r)} for i, r in labels],
                LIKELIHOOD_RESULTS_KEY: asdict(likelihood) if likelihood else None,
                "likelihood_control_test": plan_of(state.metadata).control_test,
                "provider": str(state.model),
            },
        )

    return score
