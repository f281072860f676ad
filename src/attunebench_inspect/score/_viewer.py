"""What `inspect view` shows of a run by default (Inspect's `ViewerConfig`, which a user's own
choices in the browser override): the sample list opens on the Composite, its pillars and the
parse-failure rate, every other score a column the Columns menu adds; every score column is
labelled as the report labels it; a sample's Scores panel opens as a sortable grid."""

from __future__ import annotations

from inspect_ai.viewer import SampleScoreView, TaskSamplesColumn, TaskSamplesView, ViewerConfig

from ._catalog import of_family
from ._counts import COUNTS, VALUE_COUNTS
from ._metric_spec import Family

SHOWN = tuple(s.name for s in of_family("composite"))
"""The score columns the sample list shows before the user picks others: the Composite, its
pillars and the parse-failure rate."""
FIELDS = ("sampleStatus", "sampleId", "input", "answer", "tokens", "duration")
"""The sample list's own columns, before the scores."""
HIDDEN_FIELDS = ("target",)
"""The sample list's own columns that the Columns menu adds: the target is a long account of the
participant's labels (the viewer shows a column the view does not name)."""


RATE_LABEL = "Parse-failure rate"
"""The viewer's heading of `parse_failure_rate`, beside the count of failed calls (the catalog's
label, "Parse failures", would head both)."""


def _count_label(name: str) -> str:
    return f"{name.replace('_', ' ')} (count)"


def _scores(family: Family) -> list[tuple[str, str]]:
    """(key, label) of every key a family's scorer writes into `Score.value`, counts as counts."""
    metrics = [
        (s.name, RATE_LABEL if s.name == "parse_failure_rate" else s.label)
        for s in of_family(family)
        if s.level != "run"
    ]
    counts = [(name, _count_label(name)) for name in VALUE_COUNTS.get(family, ())]
    return metrics + counts


def viewer_config(families: tuple[Family, ...]) -> ViewerConfig:
    """The default view of a run whose scorers are those of `families` (scorer `<family>_scorer`,
    Response Similarity's `response_similarity_scorer`)."""
    columns = [TaskSamplesColumn(id=field) for field in FIELDS]
    columns += [TaskSamplesColumn(id=field, visible=False) for field in HIDDEN_FIELDS]
    # An instrument's scorer of the main task (the stability scorer's pairwise choices) writes
    # counts too: every count is headed as one, whoever writes it.
    labels = {name: _count_label(name) for name in COUNTS}
    for family in families:
        scorer = "response_similarity_scorer" if family == "similarity" else f"{family}_scorer"
        for name, label in _scores(family):
            columns.append(TaskSamplesColumn.score(scorer, name, visible=name in SHOWN))
            labels[name] = label
    return ViewerConfig(
        task_samples_view=TaskSamplesView(name="AttuneBench", columns=columns, score_labels=labels),
        sample_score_view=SampleScoreView(default="grid"),
    )
