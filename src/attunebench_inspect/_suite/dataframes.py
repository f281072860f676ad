"""`metrics_df`: per-conversation metric values as DataFrame columns (tools/report/_dataframes.py),
without the logs the instruments say hold a verdict per run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import instruments
from ..tools.report._build import chosen_runs
from ..tools.report._dataframes import log_paths, metrics_frame
from .report import is_person

if TYPE_CHECKING:
    import pandas as pd


def metrics_df(logs: str | Path | Sequence[str | Path], *, ranked: bool = False) -> pd.DataFrame:
    """One row per sample (conversation and epoch) of the given logs or log folders: Inspect's
    sample columns, `model`, `task_name` and `mode`, then one column per metric value. Logs of a
    verdict per run (the contamination probe's) are left out. `ranked=True`: only the runs
    `attunebench report` ranks (its first table's "runs ranked": the newest successful log of
    each run at the newest task version, over one conversation set and number of epochs per
    task), without the runs it sets aside or lists as superseded, and without people's runs.
    Needs the `analysis` extra (pandas and pyarrow):
    `pip install "attunebench-inspect[analysis]"`."""
    if ranked:
        runs = chosen_runs(log_paths(logs), None, is_person).runs
        logs = [r.location for r in runs if not is_person(r.model)]
    return metrics_frame(logs, [i.verdict_runs for i in instruments.INSTRUMENTS if i.verdict_runs])
