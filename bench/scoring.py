"""What scoring costs: the suite scored, unscored, and scored with `--no-score-display`, each run
in a fresh interpreter after a warm-up there, with the in-process baseline (`attunebench/random`)
or, with `--latency`, through the `openai-api` provider against `bench/run.py`'s local endpoint.
Prints CPU per sample (median and range over the runs) and how often Inspect computed the run's
metrics and what that took: its live progress-line metrics are recomputed over every scored
sample while the run goes, so a long run computes them many times.

    .venv/bin/python bench/scoring.py                      # 64 conversations, 5 runs a variant
    .venv/bin/python bench/scoring.py --latency 1 --connections 16 --runs 2   # 90 s runs
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from run import endpoint_model, endpoint_process, in_fresh_interpreter, scale_dataset

VARIANTS = ("scored", "unscored", "no-score-display")


def _timed_metric_computations() -> dict[str, float]:
    """Count and time Inspect's computations of a run's metrics (instrumentation of a private
    function: this is a benchmark, not the suite)."""
    import inspect_ai._eval.task.run as task_run

    spent = {"count": 0.0, "cpu": 0.0}
    compute: Callable[..., Any] = task_run.eval_results  # type: ignore[attr-defined]

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return compute(*args, **kwargs)
        finally:
            spent["count"] += 1
            spent["cpu"] += time.process_time() - started

    task_run.eval_results = timed  # type: ignore[attr-defined]
    return spent


@dataclass(frozen=True)
class Setting:
    variant: str
    conversations: int
    latency: float
    """Seconds per call at the local endpoint; 0 for the in-process baseline."""
    connections: int


def _measure(setting: Setting, data: Path, warm_up: Path) -> tuple[float, int, float]:
    """CPU per sample, and how many times Inspect computed the metrics with what CPU, of one run
    after an untimed warm-up in the same interpreter."""
    from inspect_ai import eval, task_with
    from loopback.endpoint import EndpointConfig

    from attunebench_inspect import attunebench

    spent = _timed_metric_computations()

    def run(folder: Path, samples: int, latency: float) -> float:
        task = attunebench(data=str(folder))
        if setting.variant == "unscored":
            task = task_with(task, scorer=[])
        with contextlib.ExitStack() as stack:
            model: Any = "attunebench/random"
            if latency:
                config = EndpointConfig(latency=latency, jitter=latency / 10)
                base_url, _ = stack.enter_context(endpoint_process(config))
                model = endpoint_model(base_url)
            started = time.process_time()
            eval(
                task,
                model=model,
                display="none",
                log_dir=tempfile.mkdtemp(),
                max_samples=samples,
                max_connections=setting.connections,
                score_display=setting.variant != "no-score-display",
            )
            return time.process_time() - started

    run(warm_up, 4, min(setting.latency, 0.01))
    spent.update(count=0.0, cpu=0.0)
    cpu = run(data, setting.conversations, setting.latency)
    return cpu / setting.conversations, int(spent["count"]), spent["cpu"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5, help="runs per variant, interleaved")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument(
        "--latency", type=float, default=0.0, help="seconds per call at the local endpoint"
    )
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
    variants = args.variants.split(",")
    if unknown := set(variants) - set(VARIANTS):
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")

    work = Path(tempfile.mkdtemp(prefix="attunebench-scoring-"))
    data = scale_dataset(args.conversations, work / "data")
    warm_up = scale_dataset(4, work / "warm-up", seed=1)
    results: dict[str, list[tuple[float, int, float]]] = {v: [] for v in variants}
    for _ in range(args.runs):
        # Interleaved, so a slow spell of the machine falls on every variant alike.
        for variant in variants:
            setting = Setting(variant, args.conversations, args.latency, args.connections)
            results[variant].append(in_fresh_interpreter(_measure, setting, data, warm_up))
    where = (
        f"local endpoint, {args.latency} s a call, {args.connections} connections"
        if args.latency
        else "attunebench/random in process"
    )
    print(f"{args.conversations} conversations, {args.runs} runs a variant, {where}")
    for variant, runs in results.items():
        per_sample = [1000 * r[0] for r in runs]
        computations = statistics.median(r[1] for r in runs)
        metrics_cpu = statistics.median(r[2] for r in runs)
        print(
            f"{variant}: CPU per sample {statistics.median(per_sample):.1f} ms "
            f"({min(per_sample):.1f}-{max(per_sample):.1f}); metrics computed "
            f"{computations:.0f} times, {metrics_cpu:.2f} s of CPU"
        )


if __name__ == "__main__":
    main()
