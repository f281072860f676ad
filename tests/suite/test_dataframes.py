"""The suite's dataframes: `metrics_df` over Inspect's own."""

from __future__ import annotations

from pathlib import Path


def test_metrics_df_still_has_every_count(baseline_logs: Path) -> None:
    from attunebench_inspect import metrics_df

    frame = metrics_df(baseline_logs)
    assert len(frame) == 2
    for count in ("om_n", "hp_hp_facing_tn", "tau_defined", "calls", "om_tp"):
        assert frame[count].notna().all(), count
