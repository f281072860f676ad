"""The files-layout probe's label cut over seeds: its false-positive rate and power
(docs/contamination.md, "The label cut").

    nice -n 19 .venv/bin/python bench/contamination/label_power.py --seeds 20

For every seed, `inspect eval attunebench_inspect/contamination -T methods=layout -T seed=N` on
the bundled set with each model (`-M seed=N`): the negative `memorizer/guess_labels` (plausible
labels drawn at random from the codebook), the suite's `attunebench/random` (no label written:
the label cut cannot decide) and the positives `memorizer/files` at shares 0.1 and 0.2 of the
conversations read. Each row counts the label sub-verdicts and gives the mean label matches of
the documents and the controls over the seeds that scored any instance.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from typing import Any

import numpy as np
from inspect_ai import eval

from attunebench_inspect import contamination
from attunebench_inspect.instruments.contamination._verdict import ProbeVerdict

MODELS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("memorizer/guess_labels", {}),
    ("attunebench/random", {}),
    ("memorizer/files", {"share": 0.1}),
    ("memorizer/files", {"share": 0.2}),
)


def _labels(metrics: dict[str, float]) -> str:
    """The label cut's reading of a run (its log header's record, `_verdict.py`)."""
    found = ProbeVerdict.from_metrics(metrics)
    return found.labels.reading if found and found.labels else "no label cut"


def _metrics(model: str, args: dict[str, Any], seed: int, logs: str) -> dict[str, float]:
    log = eval(
        contamination(methods="layout", seed=seed),
        model=model,
        model_args={**args, "seed": seed},
        display="none",
        log_dir=logs,
    )[0]
    assert log.results is not None, log.error
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    seeds = range(parser.parse_args().seeds)
    print("| model | readings over seeds | documents' mean match | controls' mean match |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as logs:
        for model, args in MODELS:
            runs = [_metrics(model, args, seed, logs) for seed in seeds]
            readings = Counter(_labels(m).partition(":")[0] for m in runs)
            shown = ", ".join(f"{reading} {n}" for reading, n in sorted(readings.items()))
            # A run with no instance scored has no mean (NaN): left out.
            match = np.nanmean([m["layout_labels_match"] for m in runs])
            control = np.nanmean([m["layout_labels_control_match"] for m in runs])
            name = model + "".join(f" {k}={v}" for k, v in args.items())
            print(f"| {name} | {shown} | {match:.3f} | {control:.3f} |", flush=True)


if __name__ == "__main__":
    main()
