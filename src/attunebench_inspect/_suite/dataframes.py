"""Per-conversation metric values as DataFrame columns, over Inspect's own dataframes.

Inspect's `samples_df` gives each scorer's dict-valued score as one JSON string per sample;
`metrics_df` flattens them into one column per metric (the catalog's names, e.g.
`emotion_f1`, and the counts beside them), with the run's model, task and mode. `third_party_df`
gives the same runs scored again against third-party labels (docs/third-party.md). The
contamination probe's logs are left out: its result is a verdict per run, not a metric per
conversation (`attunebench report` shows it). Needs the `analysis` extra (pandas and pyarrow):
`pip install "attunebench-inspect[analysis]"`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_ai.log import EvalSampleSummary, read_eval_log

from ..instruments.contamination._dataset import METHOD_KEY
from ..score._counts import metadata_counts

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


def _paths(logs: str | Path | Sequence[str | Path]) -> list[str]:
    return [str(p) for p in ([logs] if isinstance(logs, str | Path) else logs)]


def _missing(function: str, ex: ImportError) -> RuntimeError:
    return RuntimeError(
        f"{function} needs the analysis extra ({ex.name} is missing): "
        'pip install "attunebench-inspect[analysis]"'
    )


def metrics_df(logs: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """One row per sample (conversation and epoch) of the given logs or log folders: Inspect's
    sample columns, `model`, `task_name` and `mode`, then one column per metric value. The
    contamination probe's logs are left out."""
    try:
        import pandas as pd
        from inspect_ai.analysis import (
            EvalInfo,
            EvalModel,
            SampleColumn,
            SampleSummary,
            samples_df,
        )
    except ImportError as ex:  # pragma: no cover - depends on the environment
        raise _missing("metrics_df", ex) from None

    paths = _paths(logs)
    # The counts no run-level metric reads are in the scores' metadata (task version 3-B on).
    counts = SampleColumn(f"{SCORE_PREFIX}counts", path=_counts_json)
    samples = samples_df(paths, columns=[*SampleSummary, counts, *EvalInfo, *EvalModel])
    metadata = {
        path: read_eval_log(path, header_only=True).eval.metadata or {}
        for path in samples["log"].unique()
    }
    probe = samples["log"].isin([path for path, m in metadata.items() if METHOD_KEY in m])
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


def third_party_df(
    logs: str | Path | Sequence[str | Path],
    answers: Sequence[str | Path],
    *,
    identities: str | Path | None = None,
    codebook: str | Path | None = None,
) -> pd.DataFrame:
    """The main task's runs among `logs` scored again, without a model call: one row per run,
    conversation and label set (`labels`: "self", the participant's, or "third_party", the
    consensus of the answer files' annotators), on the conversations both have and the items
    both label, then one column per metric third-party labels can give (epochs averaged).
    `identities` and `codebook` as in `attunebench report --third-party`; `ThirdPartyError`
    lists what stops their use, one line each."""
    try:
        import pandas as pd
    except ImportError as ex:  # pragma: no cover - depends on the environment
        raise _missing("third_party_df", ex) from None
    from ..data._codebook import load_codebook
    from ..instruments.reannotation._labels import read_identities
    from ..instruments.reannotation._study import SELF, THIRD_PARTY, rescore_runs
    from ..tools.report._logs import is_main_task_run, read_runs

    runs, _ = read_runs(_paths(logs))
    rescored = rescore_runs(
        [r for r in runs if is_main_task_run(r)],
        answers,
        load_codebook(codebook),
        identities=read_identities(identities) if identities is not None else None,
    )
    rows = [
        {"model": r.model, "mode": r.mode, "log": r.log, "id": cid, "labels": side, **values}
        for r in rescored.runs
        for cid, pair in sorted(r.conversations.items())
        for side, values in zip((SELF, THIRD_PARTY), pair, strict=True)
    ]
    return pd.DataFrame(rows)
