"""The default view of a run in `inspect view`: every count headed as one, whichever scorer
writes it, and the target a column the Columns menu adds."""

from __future__ import annotations

from attunebench_inspect.score._scorers import scorer_families, viewer_config


def test_the_stability_scorers_counts_are_headed_as_counts_and_the_target_is_hidden() -> None:
    view = viewer_config(scorer_families()).task_samples_view
    assert view is not None and not isinstance(view, list)
    assert view.score_labels is not None and view.columns is not None
    # The stability scorer (an instrument's) writes these into its value: the viewer headed them
    # PAIRWISE_CHOICES and PAIRWISE_EARLIER.
    assert view.score_labels["pairwise_choices"] == "pairwise choices (count)"
    assert view.score_labels["pairwise_earlier"] == "pairwise earlier (count)"
    assert view.score_labels["parse_failure_rate"] == "Parse-failure rate"
    # A column the view does not name is shown: the target (a long account of the participant's
    # labels) was, between the Four-Branch scores and the stability scorer's.
    visible = {c.id: c.visible for c in view.columns}
    assert visible["target"] is False and visible["answer"] is True
