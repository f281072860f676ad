"""The per-conversation counts kept beside the metrics in `Score.value`: the pooled metrics, the
report's operations table and its profile table are computed from them."""

from __future__ import annotations

from .inputs import BINARY_VIEWS
from .metric_spec import REJUDGE_PREFIX

COUNT_FIELDS = ("n", "correct", "tp", "fp", "fn", "tn")
UNPLACED_LABELS = "profile_unplaced_labels"
"""The count, in a profile score, of the participant's labels the vocabulary could not place."""
COUNTS: dict[str, str] = {
    **{
        f"{view}_{count}": f"binary judgements ({view} view): {count}"
        for view in BINARY_VIEWS
        for count in COUNT_FIELDS
    },
    "tau_defined": "Kendall τ values that were defined",
    "tau_undefined": "Kendall τ values skipped (a ranking with all ties, or a parse failure)",
    "judge_parse_failures": "judge answers that failed to parse",
    REJUDGE_PREFIX + "judge_parse_failures": "the later judge's answers that failed to parse",
    "calls": "calls of the evaluated model",
    "parse_failures": "calls of the evaluated model whose answer failed to parse",
    "repaired": "calls whose answer parsed after the repair round",
    UNPLACED_LABELS: "the count of the participant's labels that the profile vocabulary cannot "
    "place (their fields are not scored)",
}
"""Per-conversation counts kept beside the metrics in `Score.value` (the pooled metrics, the
report's operations table and its profile table are computed from them)."""
