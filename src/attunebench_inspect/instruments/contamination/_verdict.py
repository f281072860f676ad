"""The probe's verdict as one record, from the scorer to the report (pure, no Inspect).

`probe_verdict` decides a run by the rules (`_rules.py`); the scorer's metric writes the record
into the log header with `ProbeVerdict.metrics` (Inspect keeps a run's figures as named numbers),
and the report reads the same record back with `ProbeVerdict.from_metrics`: one record, written
and read beside each other, so that what `inspect view` shows and what the report prints cannot
drift apart (a round-trip test holds them together). The metric names are a log format: logs of
earlier versions keep being read.

`inspect view`'s log list shows the headline metric, `suspected` (`HEADLINE_METRIC`): 1 for
suspected, 0 for not suspected, NaN where the run cannot decide (no number that reads as a
verdict); a log's header shows it first, then the verdict's own word at 1 (`suspected`,
`not_suspected` or `cannot_decide`), the difference with its interval; the rest are in its "All
scoring" table. A `cannot_decide` reason is not a number: it is recomputed from the evidence
counts the record keeps, by the same abstention table (the likelihood method's from its figures,
`_likelihood.read`, with the run's model named where the provider cannot answer it). Logs of 4-A
wrote all three words, the two false ones at 0; they read the same.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..._util.bootstrap import Interval
from ._likelihood import (
    ConversationLikelihood,
    LikelihoodVerdict,
    decide_likelihood,
    read,
)
from ._rules import (
    ALPHA,
    EXACT_NEEDED,
    GUIDED,
    LABEL_FIELDS,
    LAYOUT,
    LIKELIHOOD,
    NEAR_EXACT_NEEDED,
    NOT_SUSPECTED,
    RECALL_NEEDED,
    SUSPECTED,
    Evidence,
    InstanceResult,
    LabelResult,
    LabelsVerdict,
    LayoutVerdict,
    Verdict,
    abstention,
    decide,
    decide_labels,
    decide_layout,
    overall,
)

INDICATORS = {SUSPECTED: "suspected", NOT_SUSPECTED: "not_suspected"}
CANNOT_DECIDE = "cannot_decide"
HEADLINE_METRIC = INDICATORS[SUSPECTED]
"""The log list's number: 1 suspected, 0 not suspected, absent where the run cannot decide."""
_EVIDENCE = {
    "conversations": "conversations",
    "with_text": "with_text",
    "empty_completions": "empty",
    "cut_completions": "cut",
    "answered": "answered",
    "one_answer": "one_answer",
}
"""The metrics that hold the abstention table's evidence, by Evidence's field."""


@dataclass(frozen=True)
class ProbeVerdict:
    """A probe run's verdict (`OVERALL_RULE` over the methods run) and each method's."""

    reading: str
    guided: Verdict | None
    """The guided probe's verdict (None where it did not run)."""
    layout: LayoutVerdict | None = None
    """The files-layout probe's text cut (None where it did not run)."""
    labels: LabelsVerdict | None = None
    """The files-layout probe's label cut (None where it did not run, or in a log before it)."""
    likelihood: LikelihoodVerdict | None = None
    """The likelihood method's (None where it did not run)."""

    def metrics(self) -> dict[str, float]:
        """The record as the log header keeps it: named numbers, counts as integers."""
        indicator = INDICATORS.get(self.reading, CANNOT_DECIDE)
        shown = self.guided or decide([])
        both = self.guided is not None and (self.layout or self.likelihood) is not None
        decided = indicator != CANNOT_DECIDE
        return {
            indicator: 1.0,
            HEADLINE_METRIC: float(self.reading == SUSPECTED) if decided else math.nan,
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
            "general_exact": shown.general_exact,
            "general_near_exact": shown.general_near_exact,
            "longest_recall": shown.longest_recall,
            **_evidence_metrics(shown.evidence, ""),
            **({"guided_suspected": float(shown.reading == SUSPECTED)} if both else {}),
            **(_layout_metrics(self.layout) if self.layout else {}),
            **(_labels_metrics(self.labels) if self.labels else {}),
            **(_likelihood_metrics(self.likelihood) if self.likelihood else {}),
        }

    def readings(self) -> list[tuple[str, str]]:
        """Each sub-verdict by its method's name, in `METHODS`' order (the label cut after the
        files layout's)."""
        found = (GUIDED, self.guided), (LAYOUT, self.layout), ("labels", self.labels)
        return [(m, v.reading) for m, v in (*found, (LIKELIHOOD, self.likelihood)) if v]

    @classmethod
    def from_metrics(
        cls, metrics: Mapping[str, float], provider: str = "the provider"
    ) -> ProbeVerdict | None:
        """The record a log header keeps (None where its metrics indicate no verdict);
        `provider`: the run's model, named where it cannot answer the likelihood method."""
        if not any(metrics.get(n) == 1.0 for n in (*INDICATORS.values(), CANNOT_DECIDE)):
            return None
        layout = _layout_of(metrics)
        likelihood = _likelihood_of(metrics, provider)
        found = cls(
            "",
            _guided_of(metrics, layout is None and likelihood is None),
            layout,
            _labels_of(metrics),
            likelihood,
        )
        return replace(found, reading=overall(found.readings()))


def reading_of(metrics: Mapping[str, float]) -> str | None:
    """The verdict a run's metrics indicate (None if they indicate none)."""
    found = ProbeVerdict.from_metrics(metrics)
    return found.reading if found else None


def probe_verdict(
    methods: Sequence[str],
    guided: Sequence[InstanceResult],
    layout: Sequence[InstanceResult],
    labels: Sequence[LabelResult],
    likelihood: Sequence[ConversationLikelihood] = (),
    control_test: bool = False,
    provider: str = "the provider",
) -> ProbeVerdict:
    """A run's verdict from its pooled instances (each in conversation-ID order) and the methods
    it ran: each method's sub-verdict, then `OVERALL_RULE`. The likelihood method's test is the
    control test where the run was given control conversations (`control_test`)."""
    found = ProbeVerdict(
        "",
        decide(guided) if GUIDED in methods else None,
        decide_layout(layout) if LAYOUT in methods else None,
        decide_labels(labels) if LAYOUT in methods and labels else None,
        decide_likelihood(likelihood, control_test, provider) if LIKELIHOOD in methods else None,
    )
    return replace(found, reading=overall(found.readings()))


def _evidence_metrics(e: Evidence, prefix: str) -> dict[str, float]:
    return {f"{prefix}{name}": getattr(e, field) for name, field in _EVIDENCE.items()}


def _layout_metrics(layout: LayoutVerdict) -> dict[str, float]:
    return {
        "layout_suspected": float(layout.reading == SUSPECTED),
        "layout_recalled": layout.recalled,
        "layout_control_recalled": layout.control_recalled,
        "layout_longest": layout.longest,
        "layout_control_longest": layout.control_longest,
        "layout_instances": layout.instances,
        **_evidence_metrics(layout.evidence, "layout_"),
    }


def _labels_metrics(labels: LabelsVerdict) -> dict[str, float]:
    return {
        "layout_labels_suspected": float(labels.reading == SUSPECTED),
        "layout_labels_match": labels.match,
        "layout_labels_control_match": labels.control_match,
        "layout_labels_p_value": labels.p_value,
        "layout_labels_reproduced": labels.reproduced,
        "layout_labels_scored": labels.scored,
        "layout_labels_instances": labels.instances,
        **_evidence_metrics(labels.evidence, "layout_labels_"),
    }


def _likelihood_metrics(v: LikelihoodVerdict) -> dict[str, float]:
    return {
        "likelihood_suspected": float(v.reading == SUSPECTED),
        "likelihood_p_value": v.p_value,
        "likelihood_published": v.published,
        "likelihood_control": v.control,
        "likelihood_conversations": v.conversations,
        "likelihood_controls": v.controls,
        "likelihood_control_test": float(v.control_test),
        "likelihood_texts": v.texts,
        "likelihood_skipped": v.skipped,
        "likelihood_missing": v.missing,
        "likelihood_canary": v.canary,
        "likelihood_not_random": v.not_random,
    }


def _count(metrics: Mapping[str, float], name: str) -> int:
    value = metrics.get(name, math.nan)
    return int(value) if math.isfinite(value) else 0


def _evidence_of(metrics: Mapping[str, float], prefix: str) -> Evidence:
    counts = {field: _count(metrics, prefix + name) for name, field in _EVIDENCE.items()}
    return Evidence(instances=_count(metrics, prefix + "instances"), **counts)


def _reading(metrics: Mapping[str, float], flag: str, e: Evidence, carried: str) -> str:
    if metrics.get(flag) == 1.0:
        return SUSPECTED
    return abstention(e, carried) or NOT_SUSPECTED


def _guided_of(metrics: Mapping[str, float], alone: bool) -> Verdict | None:
    """The guided probe's verdict: alone, the indicators are its own; beside the layout probe,
    `guided_suspected` says whether it ran and what it read."""
    if not alone and "guided_suspected" not in metrics:
        return None
    e = _evidence_of(metrics, "")
    flag = "suspected" if alone else "guided_suspected"
    exact, near_exact = _count(metrics, "exact"), _count(metrics, "near_exact")
    recalled, p_value = _count(metrics, "recalled"), metrics.get("p_value", math.nan)
    nan = math.nan
    return Verdict(
        reading=_reading(metrics, flag, e, "text"),
        instances=e.instances,
        guided_rouge_l=metrics.get("guided_rouge_l", nan),
        general_rouge_l=metrics.get("general_rouge_l", nan),
        difference=Interval(
            metrics.get("difference", nan),
            metrics.get("ci_low", nan),
            metrics.get("ci_high", nan),
            e.instances,
        ),
        p_value=p_value,
        heuristic_1=abstention(e) is None and p_value < ALPHA,
        exact=exact,
        near_exact=near_exact,
        general_exact=_count(metrics, "general_exact"),
        general_near_exact=_count(metrics, "general_near_exact"),
        heuristic_2=exact >= EXACT_NEEDED or near_exact >= NEAR_EXACT_NEEDED,
        evidence=e,
        recalled=recalled,
        longest_recall=_count(metrics, "longest_recall"),
        heuristic_3=recalled >= RECALL_NEEDED,
    )


def _layout_of(metrics: Mapping[str, float]) -> LayoutVerdict | None:
    if "layout_instances" not in metrics:
        return None
    e = _evidence_of(metrics, "layout_")
    return LayoutVerdict(
        reading=_reading(metrics, "layout_suspected", e, "text"),
        instances=e.instances,
        recalled=_count(metrics, "layout_recalled"),
        control_recalled=_count(metrics, "layout_control_recalled"),
        longest=_count(metrics, "layout_longest"),
        control_longest=_count(metrics, "layout_control_longest"),
        evidence=e,
    )


def _labels_of(metrics: Mapping[str, float]) -> LabelsVerdict | None:
    if "layout_labels_instances" not in metrics:
        return None
    e = _evidence_of(metrics, "layout_labels_")
    return LabelsVerdict(
        reading=_reading(metrics, "layout_labels_suspected", e, LABEL_FIELDS),
        instances=e.instances,
        scored=_count(metrics, "layout_labels_scored"),
        match=metrics.get("layout_labels_match", math.nan),
        control_match=metrics.get("layout_labels_control_match", math.nan),
        reproduced=_count(metrics, "layout_labels_reproduced"),
        p_value=metrics.get("layout_labels_p_value", math.nan),
        evidence=e,
    )


def _likelihood_of(metrics: Mapping[str, float], provider: str) -> LikelihoodVerdict | None:
    if "likelihood_conversations" not in metrics:
        return None
    nan = math.nan
    figures = LikelihoodVerdict(
        reading="",
        control_test=metrics.get("likelihood_control_test") == 1.0,
        p_value=metrics.get("likelihood_p_value", nan),
        conversations=_count(metrics, "likelihood_conversations"),
        controls=_count(metrics, "likelihood_controls"),
        published=metrics.get("likelihood_published", nan),
        control=metrics.get("likelihood_control", nan),
        texts=_count(metrics, "likelihood_texts"),
        skipped=_count(metrics, "likelihood_skipped"),
        missing=_count(metrics, "likelihood_missing"),
        canary=metrics.get("likelihood_canary", nan),
        not_random=_count(metrics, "likelihood_not_random"),
    )
    return read(figures, provider)
