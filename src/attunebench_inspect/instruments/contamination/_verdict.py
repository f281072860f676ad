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
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar, get_type_hints

from ..._util.bootstrap import Interval
from ._likelihood import (
    ConversationLikelihood,
    LikelihoodVerdict,
    decide_likelihood,
    read,
)
from ._rules import (
    GUIDED,
    LABEL_FIELDS,
    LAYOUT,
    LIKELIHOOD,
    NOT_SUSPECTED,
    SUSPECTED,
    TEXT,
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
        found = {
            indicator: 1.0,
            HEADLINE_METRIC: float(self.reading == SUSPECTED) if decided else math.nan,
            **_figures(shown, ""),
        }
        if both:
            found["guided_suspected"] = float(shown.reading == SUSPECTED)
        cuts = ("layout_", self.layout), ("layout_labels_", self.labels)
        for prefix, v in (*cuts, ("likelihood_", self.likelihood)):
            if v:
                found |= {
                    f"{prefix}suspected": float(v.reading == SUSPECTED),
                    **_figures(v, prefix),
                }
        return found

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
        layout = _sub_verdict(metrics, "layout_", LayoutVerdict, TEXT)
        likelihood = (
            read(
                LikelihoodVerdict("", **_figures_of(metrics, "likelihood_", LikelihoodVerdict)),
                provider,
            )
            if "likelihood_conversations" in metrics
            else None
        )
        found = cls(
            "",
            _guided_of(metrics, layout is None and likelihood is None),
            layout,
            _sub_verdict(metrics, "layout_labels_", LabelsVerdict, LABEL_FIELDS),
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


def _figures(
    v: Verdict | LayoutVerdict | LabelsVerdict | LikelihoodVerdict, prefix: str
) -> dict[str, float]:
    """A verdict's figures as the log header keeps them, in its fields' order: a flag as 1 or 0,
    counts as integers, the guided difference with its interval's bounds, the evidence by
    `_EVIDENCE`."""
    found: dict[str, float] = {}
    for f in fields(v):
        value = getattr(v, f.name)
        if isinstance(value, Evidence):
            found |= {prefix + name: getattr(value, field) for name, field in _EVIDENCE.items()}
        elif isinstance(value, Interval):
            found |= {f.name: value.estimate, "ci_low": value.low, "ci_high": value.high}
        elif f.name != "reading":
            found[prefix + f.name] = float(value) if isinstance(value, bool) else value
    return found


def _count(metrics: Mapping[str, float], name: str) -> int:
    value = metrics.get(name, math.nan)
    return int(value) if math.isfinite(value) else 0


def _evidence_of(metrics: Mapping[str, float], prefix: str) -> Evidence:
    counts = {field: _count(metrics, prefix + name) for name, field in _EVIDENCE.items()}
    return Evidence(instances=_count(metrics, prefix + "instances"), **counts)


def _figures_of(metrics: Mapping[str, float], prefix: str, record: type[Any]) -> dict[str, Any]:
    """The figures `_figures` (or `ProbeVerdict.metrics`, prefix "") wrote of `record`'s fields,
    by each field's type: a count absent or NaN reads 0, a figure absent NaN."""
    found: dict[str, Any] = {}
    for name, kind in get_type_hints(record).items():
        if kind is int:
            found[name] = _count(metrics, prefix + name)
        elif kind is float:
            found[name] = metrics.get(prefix + name, math.nan)
        elif kind is bool:
            found[name] = metrics.get(prefix + name) == 1.0
    return found


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
    estimate, low, high = (
        metrics.get(name, math.nan) for name in ("difference", "ci_low", "ci_high")
    )
    return Verdict(
        **_figures_of(metrics, "", Verdict),
        reading=_reading(metrics, "suspected" if alone else "guided_suspected", e, TEXT),
        difference=Interval(estimate, low, high, e.instances),
        evidence=e,
    )


_Cut = TypeVar("_Cut", LayoutVerdict, LabelsVerdict)


def _sub_verdict(
    metrics: Mapping[str, float], prefix: str, record: type[_Cut], carried: str
) -> _Cut | None:
    """The files-layout probe's text cut or label cut (None where it did not run)."""
    if f"{prefix}instances" not in metrics:
        return None
    e = _evidence_of(metrics, prefix)
    reading = _reading(metrics, f"{prefix}suspected", e, carried)
    return record(**_figures_of(metrics, prefix, record), reading=reading, evidence=e)
