"""What `inspect view` shows of a run: the score list of a sample, the columns it opens on, the
explanation table."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from attunebench_inspect.score._scorers import SHOWN


@pytest.fixture
def one_run(baseline_logs: Path) -> Path:
    """The random baseline's log of one conversation."""
    return next(
        p
        for p in baseline_logs.glob("*.eval")
        if read_eval_log(str(p), header_only=True).eval.model == "attunebench/random"
    )


def test_a_samples_score_list_holds_metrics_and_the_counts_metrics_read(one_run: Path) -> None:
    log = read_eval_log(str(one_run))
    assert log.samples is not None
    scores = log.samples[0].scores or {}
    listed = [k for s in scores.values() if isinstance(s.value, dict) for k in s.value]
    # 57 at task version 3-A; 18 counts are now in metadata, and the stability scorer adds the
    # two a run-level metric reads (pairwise_choices, pairwise_earlier).
    assert len(listed) == 41
    binary = scores["binary_scorer"]
    assert {"om_tp", "hp_tn"} <= set(binary.value) and "om_n" not in binary.value  # type: ignore[operator]
    assert binary.metadata is not None and {"om_n", "hp_hp_facing_tn"} <= set(binary.metadata)
    assert set(scores["pairwise_scorer"].metadata or {}) == {"tau_defined", "tau_undefined"}


def test_the_viewer_opens_on_the_headline_columns(one_run: Path) -> None:
    viewer = read_eval_log(str(one_run), header_only=True).eval.viewer
    assert viewer is not None and viewer.task_samples_view is not None
    view = viewer.task_samples_view
    assert not isinstance(view, list) and view.columns is not None and view.score_labels
    shown = [c.id for c in view.columns if c.visible and c.id.startswith("score__")]
    assert shown == [f"score__composite_scorer__{name}" for name in SHOWN]
    assert view.score_labels["emotion_f1"] == "Emotion F1"


def test_the_explanation_table_has_only_short_cells(one_run: Path) -> None:
    log = read_eval_log(str(one_run))
    assert log.samples is not None
    text = (log.samples[0].scores or {})["composite_scorer"].explanation or ""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert rows[0] == "| turn | binary OM | binary HP | pairwise |"
    # No cell long enough to squeeze its neighbours to a letter a line.
    assert all(len(cell.strip()) <= 9 for row in rows for cell in row.strip("|").split("|"))
    assert "the Info tab, Store (`WalkStore:records`)" in text and "Store tab" not in text
