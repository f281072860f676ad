"""`metrics_df`: per-conversation metric values as DataFrame columns (tools/report/_dataframes.py),
without the logs the instruments say hold a verdict per run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import instruments
from ..tools.report._dataframes import metrics_frame

if TYPE_CHECKING:
    import pandas as pd


def metrics_df(logs: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """One row per sample (conversation and epoch) of the given logs or log folders: Inspect's
    sample columns, `model`, `task_name` and `mode`, then one column per metric value. Logs of a
    verdict per run (the contamination probe's) are left out. Needs the `analysis` extra
    (pandas and pyarrow): `pip install "attunebench-inspect[analysis]"`."""
    return metrics_frame(logs, [i.verdict_runs for i in instruments.INSTRUMENTS if i.verdict_runs])
