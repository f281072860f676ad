"""The stability scorer's figures, read over every epoch unreduced."""

from __future__ import annotations

import pytest
from inspect_ai.scorer import Score
from pytest_inspect_evals.metrics import run_metrics

from attunebench_inspect.instruments.stability._scorer import stability_figures


def _record(epoch: int, composite: float, shown: list[str], chosen: str) -> Score:
    metadata = {
        "epoch": epoch,
        "composite": composite,
        "judges": {},
        "turn_01/pairwise": {"shown": shown, "chosen": {"general:alternate-original": chosen}},
    }
    return Score(value={"pairwise_choices": 1.0}, metadata=metadata)


def test_the_stability_figures_read_every_epoch_unreduced() -> None:
    first, swapped = ["original", "alternate", "human"], ["alternate", "original", "human"]
    # Conversation a keeps "original" when the pair swaps (the earlier, then the later reply);
    # b picks the earlier reply both times. Earlier share 3/4; consistency 1/2; the chance of a
    # chooser with the same earlier share q = 3/4: 2 q (1 - q) = 3/8 per swap; run Composites
    # 40 and 43 across epochs, SD 2.1213; too few conversations for an ICC, no judge panel.
    values = run_metrics(
        [stability_figures()],
        [
            [_record(1, 50.0, first, "original"), _record(2, 52.0, swapped, "original")],
            [_record(1, 30.0, first, "original"), _record(2, 34.0, swapped, "alternate")],
        ],
    )
    assert values == {
        "pairwise_earlier_share": pytest.approx(0.75),
        "position_consistency": pytest.approx(0.5),
        "position_consistency_excess": pytest.approx(0.125),
        "composite_epoch_sd": pytest.approx(2.1213203),
    }
