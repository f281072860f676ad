"""The per-conversation counts kept beside the metrics: the pooled metrics and report read them."""

from __future__ import annotations

from collections.abc import Mapping

from ._catalog import POOLED_VIEWS
from ._inputs import BINARY_VIEWS
from ._metric_spec import REJUDGE_PREFIX, Family

COUNT_FIELDS = ("n", "correct", "tp", "fp", "fn", "tn")
COUNTS: dict[str, str] = {
    **{
        f"{view}_{count}": f"binary judgements ({view} view): {count}"
        for view in BINARY_VIEWS
        for count in COUNT_FIELDS
    },
    "tau_defined": "Kendall τ values that were defined",
    "tau_undefined": "Kendall τ values skipped (a ranking with all ties, or a parse failure)",
    "pairwise_choices": "pairwise comparisons answered (parsed): the stability scorer's",
    "pairwise_earlier": "pairwise choices of the reply shown earlier of the two compared",
    "judge_parse_failures": "judge answers that failed to parse",
    REJUDGE_PREFIX + "judge_parse_failures": "the later judge's answers that failed to parse",
    "calls": "calls of the evaluated model",
    "parse_failures": "calls of the evaluated model whose answer failed to parse",
    "repaired": "calls whose answer parsed after the repair round",
}
"""Per-conversation counts kept beside the metrics: in `Score.value` where a run-level metric
reads them (`VALUE_COUNTS`), else in `Score.metadata`
(task version 3-B on; before it, every count was in the value). The report reads both places."""
VALUE_COUNTS: dict[Family, tuple[str, ...]] = {
    "composite": ("calls", "parse_failures", "repaired"),
    "binary": tuple(
        f"{view}_{count}" for view in POOLED_VIEWS for count in ("tp", "fp", "fn", "tn")
    ),
}
"""Per family, the counts a run-level metric or the report's operations table reads from its
scorer's `Score.value`: the calls behind the parse-failure rate, and the pooled binary metrics'
(observer-phrased views). Inspect's viewer lists every key of a value as a score of the sample,
so no other count is kept there."""
METADATA_COUNTS = frozenset(COUNTS) - {n for names in VALUE_COUNTS.values() for n in names}
"""The counts no run-level metric reads: a score's metadata holds them."""


def metadata_counts(metadata: Mapping[str, object] | None) -> dict[str, float]:
    """The counts in a score's metadata (its other entries are not counts)."""
    return {
        k: float(v)
        for k, v in (metadata or {}).items()
        if k in COUNTS and isinstance(v, int | float) and not isinstance(v, bool)
    }
