"""A models x modes sweep split across worker processes that write one log store, then one report.

Each worker is `inspect eval-set` over its own share of the sweep (disjoint models, or disjoint
modes), all with the same --log-dir, --log-dir-allow-dirty (a worker's eval set holds only its own
tasks, so the others' logs are "unrelated" to it) and the same --id. The store may be a folder or
an s3:// prefix. docs/cost-and-scale.md has the recipe.

    .venv/bin/python bench/sweep.py demo                # offline baselines, two workers, report
    .venv/bin/python bench/sweep.py demo --log-dir s3://bucket/sweep
    .venv/bin/python bench/sweep.py measure             # 1 vs 2 processes at 256 connections

`measure` runs the sweep against the local endpoint (bench/run.py's, in its own process) once in
one process and once split over several, with the same total connections, and writes the
"Processes" section of bench/RESULTS.md. It needs the machine to itself: on a machine shared with
other work its numbers say nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# bench/run.py: the dataset resampler and the endpoint in its own process; it puts the
# repository root, and so loopback/, on the import path.
# isort: off
from run import PROCESSES_HEADING, ROOT, endpoint_process, scale_dataset
from loopback.endpoint import EndpointConfig

# isort: on
BIN = Path(sys.executable).parent
ENDPOINT_MODEL = "openai-api/bench/local"


def worker_command(
    modes: list[str], models: list[str], log_dir: str, options: list[str]
) -> list[str]:
    """One worker: an eval set of its modes x models, in the shared log store."""
    return [
        str(BIN / "inspect"),
        "eval-set",
        *(f"attunebench_inspect/{mode}" for mode in modes),
        "--model",
        ",".join(models),
        "--log-dir",
        log_dir,
        "--log-dir-allow-dirty",
        "--id",
        "attunebench-sweep",
        "--display",
        "none",
        *options,
    ]


def shares(items: list[str], workers: int) -> list[list[str]]:
    """Disjoint, near-equal shares, one per worker (none empty)."""
    return [share for share in (items[i::workers] for i in range(workers)) if share]


@dataclass(frozen=True)
class Finished:
    wall: float
    cpu: float
    """CPU seconds of every worker process together."""


def run_workers(commands: list[list[str]], env: dict[str, str] | None = None) -> Finished:
    start = time.monotonic()
    processes = [subprocess.Popen(command, env=env) for command in commands]
    cpu = 0.0
    for command, process in zip(commands, processes, strict=True):
        # Each worker's own CPU, from its exit status (not every child of this process so far).
        _, status, usage = os.wait4(process.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"worker failed: {' '.join(command)}")
        cpu += usage.ru_utime + usage.ru_stime
    return Finished(time.monotonic() - start, cpu)


def demo(args: argparse.Namespace) -> None:
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="attunebench-sweep-")
    models, modes = ["attunebench/random", "attunebench/majority"], ["default", "verbose"]
    options = ["--limit", str(args.limit)]
    commands = [
        worker_command(modes, share, log_dir, options) for share in shares(models, args.workers)
    ]
    for command in commands:
        print(" ".join(command), flush=True)
    finished = run_workers(commands)
    print(f"{len(commands)} workers done in {finished.wall:.1f} s; one report of {log_dir}:")
    subprocess.run([str(BIN / "attunebench"), "report", log_dir, "--resamples", "1000"], check=True)


@dataclass(frozen=True)
class Measured:
    processes: int
    connections: int
    calls: int
    wall: float
    bound: float
    cpu: float


def measure_once(data: Path, processes: int, args: argparse.Namespace, work: Path) -> Measured:
    config = EndpointConfig(latency=args.latency, jitter=args.jitter, keep_messages=False)
    per_worker = args.connections // processes
    log_dir = str(work / f"logs-{processes}")
    options = ["-T", f"data={data}", "--max-connections", str(per_worker)]
    options += ["--max-samples", str(args.conversations)]
    with endpoint_process(config) as (base_url, records):
        commands = [
            worker_command(
                share, [ENDPOINT_MODEL], log_dir, [*options, "--model-base-url", base_url]
            )
            for share in shares(args.modes.split(","), processes)
        ]
        finished = run_workers(commands, env={**os.environ, "BENCH_API_KEY": "local"})
    calls = len(records)
    latency = sum(r.end - r.start for r in records) / calls
    return Measured(
        processes=processes,
        connections=per_worker,
        calls=calls,
        wall=finished.wall,
        bound=max(args.latency + args.jitter, calls * latency / args.connections),
        cpu=finished.cpu,
    )


def measure(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="attunebench-sweep-"))
    data = scale_dataset(args.conversations, work / "data")
    results = []
    for processes in (1, args.workers):
        result = measure_once(data, processes, args, work)
        results.append(result)
        print(
            f"{processes} process(es) x {result.connections} connections: {result.calls} calls, "
            f"{result.wall:.1f} s (bound {result.bound:.1f} s), CPU per call "
            f"{1000 * result.cpu / result.calls:.1f} ms",
            flush=True,
        )
    write_section(Path(args.output), args, results)


def write_section(path: Path, args: argparse.Namespace, results: list[Measured]) -> None:
    """Replace (or add) this benchmark's section of the results file, keeping the others."""
    lines = [
        f"{PROCESSES_HEADING}: {args.conversations} conversations x modes {args.modes}, one model, "
        f"latency {args.latency} s ± {args.jitter} s per call, {args.connections} connections "
        "in all",
        "",
        f"Command: `.venv/bin/python bench/sweep.py {' '.join(sys.argv[1:])}`; "
        f"{platform.platform()}, {os.cpu_count()} cores; measured {time.strftime('%Y-%m-%d')}. "
        "Wall time includes each worker's start-up.",
        "",
        "| processes | connections each | calls | wall s | bound s | wall / bound | "
        "CPU per call ms (all workers) |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {r.processes} | {r.connections} | {r.calls} | {r.wall:.1f} | {r.bound:.1f} | "
            f"{r.wall / r.bound:.2f} | {1000 * r.cpu / r.calls:.1f} |"
            for r in results
        ),
        "",
    ]
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    if PROCESSES_HEADING in text:
        start = text.index(PROCESSES_HEADING)
        following = text.find("\n## ", start + len(PROCESSES_HEADING))
        text = text[:start] + text[following + 1 :] if following >= 0 else text[:start]
    path.write_text(text.rstrip("\n") + "\n\n" + "\n".join(lines), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_demo = commands.add_parser("demo", help="offline baselines, two workers, one report")
    run_demo.add_argument("--log-dir", help="the shared store (default: a new temporary folder)")
    run_demo.add_argument("--workers", type=int, default=2)
    run_demo.add_argument("--limit", type=int, default=5, help="conversations per run")
    run_demo.set_defaults(run=demo)
    run_measure = commands.add_parser("measure", help="1 vs N processes against the endpoint")
    run_measure.add_argument("--workers", type=int, default=2)
    run_measure.add_argument("--conversations", type=int, default=64)
    run_measure.add_argument("--modes", default="default,verbose")
    run_measure.add_argument("--latency", type=float, default=1.0, help="seconds per call")
    run_measure.add_argument("--jitter", type=float, default=0.1)
    run_measure.add_argument("--connections", type=int, default=256, help="in all, split evenly")
    run_measure.add_argument("--output", default=str(ROOT / "bench" / "RESULTS.md"))
    run_measure.set_defaults(run=measure)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
