"""Per-conversation metric values as DataFrame columns, over Inspect's own dataframes.

Inspect's `samples_df` gives each scorer's dict-valued score as one JSON string per sample;
`metrics_df` flattens them into one column per metric (the catalog's names, e.g.
`emotion_f1`, and the counts beside them), with the run's model, task and mode. Logs whose
result is a verdict per run, not a metric per conversation (the contamination probe's:
`Instrument.verdict_runs`), are left out (`attunebench report` shows them). Needs the `analysis`
extra (pandas and pyarrow): `pip install "attunebench-inspect[analysis]"`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_ai.log import EvalSampleSummary, read_eval_log

from ...score._counts import metadata_counts

if TYPE_CHECKING:
    import pandas as pd

SCORE_PREFIX = "score_"


def _value(cell: Any) -> dict[str, Any]:
    if isinstance(cell, str):
        parsed = json.loads(cell)
        return parsed if isinstance(parsed, dict) else {}
    return cell if isinstance(cell, dict) else {}


def _counts_json(sample: EvalSampleSummary) -> str:
    scores = (sample.scores or {}).values()
    return json.dumps({k: v for s in scores for k, v in metadata_counts(s.metadata).items()})


def log_paths(logs: str | Path | Sequence[str | Path]) -> list[str]:
    """One log or folder, or several, as a list of paths."""
    return [str(p) for p in ([logs] if isinstance(logs, str | Path) else logs)]


def analysis_missing(function: str, ex: ImportError) -> RuntimeError:
    return RuntimeError(
        f"{function} needs the analysis extra ({ex.name} is missing): "
        'pip install "attunebench-inspect[analysis]"'
    )


def metrics_frame(
    logs: str | Path | Sequence[str | Path], verdict_runs: Sequence[Callable[[Any], bool]]
) -> pd.DataFrame:
    """One row per sample (conversation and epoch) of the given logs or log folders: Inspect's
    sample columns, `model`, `task_name` and `mode`, then one column per metric value. Logs of
    a verdict per run (`verdict_runs`, by their task metadata) are left out."""
    try:
        import pandas as pd
        from inspect_ai.analysis import EvalInfo, EvalModel, SampleColumn, SampleSummary, samples_df
    except ImportError as ex:  # pragma: no cover - depends on the environment
        raise analysis_missing("metrics_df", ex) from None

    paths = log_paths(logs)
    # The counts no run-level metric reads are in the scores' metadata (task version 3-B on).
    counts = SampleColumn(f"{SCORE_PREFIX}counts", path=_counts_json)
    samples = samples_df(paths, columns=[*SampleSummary, counts, *EvalInfo, *EvalModel])
    metadata = {
        path: read_eval_log(path, header_only=True).eval.metadata or {}
        for path in samples["log"].unique()
    }
    probe = samples["log"].isin([p for p, m in metadata.items() if any(v(m) for v in verdict_runs)])
    # Without the probe's rows, and without the columns only they fill (its sample metadata).
    only_probe = [c for c in samples.columns if samples.loc[~probe, c].isna().all()]
    samples = samples.loc[~probe].drop(columns=[c for c in only_probe if samples[c].notna().any()])
    scores = [c for c in samples.columns if c.startswith(SCORE_PREFIX)]
    flat = pd.DataFrame(
        [
            {k: v for c in scores for k, v in _value(row[c]).items()}
            for _, row in samples.iterrows()
        ],
        index=samples.index,
    )
    modes = {path: m.get("mode") for path, m in metadata.items()}
    samples = samples.drop(columns=scores).assign(mode=samples["log"].map(modes))
    return pd.concat([samples, flat.apply(pd.to_numeric, errors="coerce")], axis=1)
