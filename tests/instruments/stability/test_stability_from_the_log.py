"""Every printed figure reproducible from the log alone: the report's stability intervals
recomputed from a saved log's samples as the log stores them, and in any other order, are the
printed ones exactly (every resampling draws conversations in id order, with the report's seed)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log

from attunebench_inspect import build_report
from attunebench_inspect.instruments import stability as s
from attunebench_inspect.instruments.stability._agreement import panel_data
from attunebench_inspect.instruments.stability._log_figures import (
    draft_digests,
    epoch_composites,
    judged_drafts,
)
from attunebench_inspect.instruments.stability._record import SCORER, StabilityRecord, read_record
from attunebench_inspect.score._panel import RATING_DOMAIN
from tests.runs import PANEL, run_main

RESAMPLES = 2000


def _records(log: Path) -> list[StabilityRecord]:
    """The stability records of a saved log, in the order the log stores its samples."""
    stored = read_eval_log(str(log))
    found = (
        read_record(str(sample.id), sample.scores[SCORER].metadata)
        for sample in stored.samples or []
        if sample.scores and SCORER in sample.scores
    )
    return [r for r in found if r is not None]


def test_the_printed_intervals_are_recomputed_from_the_log_exactly(
    small_dataset: Callable[[int], Path], tmp_path: Path
) -> None:
    data = small_dataset(12)
    run_main(data, "attunebench/random", model_roles=PANEL, epochs=2)
    [run] = build_report([tmp_path / "logs"], resamples=RESAMPLES).stability
    [location] = [info.name for info in list_eval_logs(str(tmp_path / "logs"))]
    stored = _records(Path(location.removeprefix("file://")))
    shuffled = random.Random(0).sample(stored, len(stored))
    for records in (stored, shuffled, stored[::-1]):
        choices = [c for r in records for c in r.choices]
        bias = s.position_bias(choices, resamples=RESAMPLES)
        consistency = s.position_consistency(choices, resamples=RESAMPLES)
        assert bias.earlier == run.position_bias.earlier
        assert bias.positions == run.position_bias.positions
        assert (consistency.consistency, consistency.excess) == (
            run.position_consistency.consistency,
            run.position_consistency.excess,
        )
        assert s.retest_reliability(epoch_composites(records)) == run.test_retest
        roles = list(run.judges)
        panel = panel_data(roles, judged_drafts(records), draft_digests(records))
        overall = s.judge_agreement(
            panel.ratings["overall"],
            "ordinal",
            RATING_DOMAIN,
            clusters=panel.clusters(panel.drafts),
            resamples=RESAMPLES,
        )
        [printed] = [a.agreement for a in run.judge_agreement if a.item == "overall"]
        assert overall == printed
