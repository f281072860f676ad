"""Speed and cost of an AttuneBench run, measured against a local OpenAI-compatible endpoint.

For each connection count: calls, wall time, the bound max(critical path, calls x latency /
connections), their ratio, peak in-flight calls and the CPU the run's process spends per call
(framework overhead), for default mode with and without judge, without Inspect's realtime event
log, for a floor task that makes as many calls with a one-line prompt (Inspect and the client
alone), and for a replay of the suite's own requests (captured offline, as `attunebench estimate`
does) through plain Inspect `generate`: identical traffic, so suite / replay is our overhead alone;
input tokens per conversation and the share of input in a prefix shared with another call
of the same conversation (what provider prefix caches can reuse). Then the time and peak memory of
`attunebench report` over many logs. Results go to bench/RESULTS.md.

    bench/run                           # the defaults below
    bench/run --conversations 200 --latency 2 --connections 16,64,256
    bench/run --variants suite,replay    # only these (the keys of VARIANTS)
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import multiprocessing
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, TypeVar

from inspect_ai import Task, eval, task_with
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

# loopback/ (the fake providers) sits at the top of the repository, outside the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loopback.endpoint import Endpoint, EndpointConfig, RequestRecord

from attunebench_inspect import attunebench
from attunebench_inspect._util.bundled import bundled_conversations_dir
from attunebench_inspect.data import load_codebook
from attunebench_inspect.solve._modes import mode_spec
from attunebench_inspect.tools.estimate._bill import visible_conversations
from attunebench_inspect.tools.estimate._capture import Request, capture

ROOT = Path(__file__).resolve().parent.parent
MODEL = "openai-api/bench/local"
NAN = float("nan")
RUNS_HEADING = "## Runs"
REPORT_HEADING = "## Report"
PROCESSES_HEADING = "## Processes"
REPLAY_HEADING = "## Suite and replay"
SUITE = "suite"
REPLAY = "replay"
UNSCORED = "unscored"
T = TypeVar("T")


def scale_dataset(n: int, folder: Path, seed: int = 0) -> Path:
    """`n` conversations resampled from the bundled set with fresh IDs (never committed).

    Each copy's first participant message is tagged with its ID, so no two conversations are
    identical, as in real data: identical copies would share whole prompts and inflate the
    measured cacheable share."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = sorted(bundled_conversations_dir().glob("*.json"))
    rng = random.Random(seed)
    for i in range(n):
        data = json.loads(rng.choice(sources).read_text(encoding="utf-8"))
        data["conversationId"] = f"bench-{i:05d}"
        data["turns"][0]["userMessage"] = f"(bench-{i:05d}) " + data["turns"][0]["userMessage"]
        (folder / f"bench-{i:05d}.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def cacheable_share(records: list[RequestRecord]) -> float:
    """Share of input in a prefix shared with a request that had finished (the endpoint's
    `shared` cache model)."""
    total = sum(r.prompt_tokens for r in records)
    return sum(r.cache_read for r in records) / total if total else 0.0


@dataclass(frozen=True)
class Variant:
    key: str
    """What `--variants` names it by."""
    name: str
    judge: bool = False
    log_realtime: bool = True
    score_display: bool = True
    """False: `--no-score-display`, no metrics recomputed over the finished samples while the
    run goes."""
    floor: bool = False
    """Not AttuneBench: the same number of calls with a one-line prompt and no schema, so the
    CPU per call is Inspect's and the client's alone, the floor under ours."""
    replay: bool = False
    """Not AttuneBench: the suite's own requests (default mode, no judge), sent again through
    plain Inspect `generate`, each conversation's all at once (the all_at_once schedule): the
    same traffic without our prompts, parsing, store and scoring, so the suite's CPU over it is
    ours."""
    scored: bool = True
    """False: the suite with its scorers taken off (`task_with(scorer=[])`), so suite less this
    is what scoring costs: our metric functions, and Inspect's scorer spans, score events,
    reducers and live metrics over them."""


VARIANTS = (
    Variant(SUITE, "AttuneBench"),
    Variant("judge", "AttuneBench + judge", judge=True),
    Variant("no-log-realtime", "AttuneBench, --no-log-realtime", log_realtime=False),
    Variant("no-score-display", "AttuneBench, --no-score-display", score_display=False),
    Variant("floor", "Inspect floor", floor=True),
    Variant(REPLAY, "Inspect replay of the suite's requests", replay=True),
    Variant(UNSCORED, "AttuneBench without scorers", scored=False),
)


@solver
def fan_out(calls: int) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        await collect(*(model.generate("Reply with one word.") for _ in range(calls)))
        return state

    return solve


# Plain functions, not @task: `inspect list tasks` from the repository root lists the suite only.
def floor_task(conversations: int, calls: int) -> Task:
    return Task(
        name="floor",
        dataset=MemoryDataset([Sample(id=i, input="-") for i in range(conversations)]),
        solver=fan_out(calls),
    )


def captured_requests(data: Path) -> list[list[Request]]:
    """Every request the suite makes for `data` in default mode without judge, per conversation,
    built offline by the solver's own walk (`attunebench estimate`'s capture)."""
    codebook = load_codebook()
    return capture(
        visible_conversations(data, codebook), codebook, mode_spec("default"), judge=False
    )


_replayed: list[list[Request]] = []
"""The requests the replay sends, per conversation. Not a task or solver argument: Inspect logs
those in the eval header, and serialising every request of the run into its log again and again
would cost the replay what the suite never pays."""


@solver
def replay_requests() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        await collect(
            *(
                model.generate(
                    list(r.chat), config=GenerateConfig(response_schema=r.response_schema)
                )
                for r in _replayed[int(state.sample_id)]
            )
        )
        return state

    return solve


def replay_task(conversations: int) -> Task:
    return Task(
        name="replay",
        dataset=MemoryDataset([Sample(id=i, input="-") for i in range(conversations)]),
        solver=replay_requests(),
    )


@dataclass(frozen=True)
class RunResult:
    connections: int
    variant: str
    calls: int
    wall: float
    bound: float
    peak_in_flight: int
    cpu_per_call: float
    """CPU seconds the run's own process spent per call (the framework overhead): start-up,
    prompts, the client, Inspect's event and log machinery, parsing, scoring."""
    gc_share: float
    """Of that CPU, the share spent in CPython's cyclic garbage collector (timed with
    `gc.callbacks`): it walks every live container, Inspect's and ours, at each full collection."""
    input_tokens_per_conversation: float
    cacheable: float

    @property
    def ratio(self) -> float:
        return self.wall / self.bound


def _serve(config: EndpointConfig, pipe: Connection) -> None:
    # A provider accepts hundreds of connections at once; the standard library's listen backlog
    # of 5 drops the surplus SYNs, which the client only retries after a second or more, so at
    # 256 connections the run would wait on our endpoint rather than on its calls. This is the
    # endpoint's own process.
    ThreadingHTTPServer.request_queue_size = 1024
    with Endpoint(config) as endpoint:
        pipe.send(endpoint.base_url)
        pipe.recv()  # until the run is over
    pipe.send(endpoint.records)


@contextmanager
def endpoint_process(config: EndpointConfig) -> Iterator[tuple[str, list[RequestRecord]]]:
    """The endpoint in its own process, as a provider is: its request handling must not take
    the interpreter lock from the run being measured. Yields its base URL and, once the block
    is over, its records."""
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(
        target=_serve, args=(config, theirs), daemon=True
    )
    server.start()
    records: list[RequestRecord] = []
    try:
        yield str(ours.recv()), records
    finally:
        ours.send("stop")
        records.extend(ours.recv())
        server.join()


class GcTimer:
    """CPU time in the garbage collector from construction to `stop()`."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)


def run_once(
    data: Path,
    conversations: int,
    connections: int,
    variant: Variant,
    latency: float,
    jitter: float,
    logs: Path,
    floor_calls: int = 20,
    replayed: list[list[Request]] | None = None,
) -> RunResult:
    config = EndpointConfig(latency=latency, jitter=jitter, seed=connections, cache="shared")
    with endpoint_process(config) as (base_url, records):
        model = endpoint_model(base_url)
        if variant.floor:
            evaluated = floor_task(conversations, floor_calls)
        elif variant.replay:
            assert replayed is not None, "the replay needs the captured requests"
            _replayed[:] = replayed
            evaluated = replay_task(len(replayed))
        else:
            evaluated = attunebench(data=str(data))
            if not variant.scored:
                evaluated = task_with(evaluated, scorer=[])
        collecting = GcTimer()
        start, cpu = time.monotonic(), time.process_time()
        log = eval(
            evaluated,
            model=model,
            model_roles={"judge": model} if variant.judge else None,
            max_connections=connections,
            display="none",
            log_dir=str(logs),
            log_realtime=variant.log_realtime,
            score_display=variant.score_display,
            max_samples=conversations,
        )[0]
        wall, cpu = time.monotonic() - start, time.process_time() - cpu
        collecting.stop()
    assert log.status == "success", log.error
    calls = len(records)
    mean_latency = sum(r.end - r.start for r in records) / calls
    critical = (2 if variant.judge else 1) * (latency + jitter)
    bound = max(critical, calls * mean_latency / connections)
    input_tokens = sum(r.prompt_tokens for r in records)
    return RunResult(
        connections=connections,
        variant=variant.name,
        calls=calls,
        wall=wall,
        bound=bound,
        peak_in_flight=max(r.in_flight for r in records),
        cpu_per_call=cpu / calls,
        gc_share=collecting.seconds / cpu,
        input_tokens_per_conversation=input_tokens / conversations,
        cacheable=NAN if variant.floor else cacheable_share(records),
    )


def _send_result(pipe: Connection, target: Callable[..., Any], args: tuple[Any, ...]) -> None:
    pipe.send(target(*args))


def in_fresh_interpreter(target: Callable[..., T], *args: Any) -> T:
    """`target(*args)` in a new spawned interpreter (a module-level function and picklable
    arguments), its result sent back: no run inherits another's heap or warm caches."""
    ours, theirs = multiprocessing.Pipe()
    child = multiprocessing.get_context("spawn").Process(
        target=_send_result, args=(theirs, target, args)
    )
    child.start()
    result: T = ours.recv()
    child.join()
    return result


def endpoint_model(base_url: str) -> Model:
    """A fresh client for a local endpoint (Inspect memoizes models by name), through the real
    openai-api provider."""
    return get_model(MODEL, base_url=base_url, api_key="local", memoize=False)


def _warmed_up_run(warm_up: Path, args: tuple[Any, ...], kwargs: dict[str, Any]) -> RunResult:
    # The first eval of a process pays one-time costs (Inspect's lazy imports, the provider's
    # client, schema and prompt caches): an untimed run of 4 conversations takes them.
    run_once(warm_up, 4, 16, VARIANTS[0], 0.01, 0.0, warm_up.parent / "warm-up-logs")
    return run_once(*args, **kwargs)


def run_fresh(
    data: Path,
    conversations: int,
    connections: int,
    variant: Variant,
    latency: float,
    jitter: float,
    work: Path,
    floor_calls: int,
    replayed: list[list[Request]],
) -> RunResult:
    """`run_once` in a fresh interpreter after a warm-up there: in one long-lived process each
    run would inherit the heap of the runs before it (the garbage collector walks it all) and
    the first would pay the warm-up, so the order of the variants would change their CPU."""
    warm_up = work / "warm-up"
    if not warm_up.exists():
        scale_dataset(4, warm_up)
    return in_fresh_interpreter(
        _warmed_up_run,
        warm_up,
        (data, conversations, connections, variant, latency, jitter, work / "logs"),
        {"floor_calls": floor_calls, "replayed": replayed},
    )


def report_benchmark(logs: int, conversations: int, resamples: int, work: Path) -> dict[str, float]:
    """`attunebench report` over `logs` runs x `conversations` conversations."""
    data = scale_dataset(conversations, work / "report-data", seed=1)
    source = work / "report-source"
    first = eval(
        attunebench(data=str(data)), model="attunebench/random", display="none", log_dir=str(source)
    )[0]
    folder = work / "report-logs"
    folder.mkdir()
    with zipfile.ZipFile(first.location) as original:
        entries = {name: original.read(name) for name in original.namelist()}
    for k in range(logs):
        # Distinct model names make distinct runs of the same content: only the header and the
        # start journal name the model, so the samples are copied byte for byte.
        copy = dict(entries)
        for name in ("header.json", "_journal/start.json"):
            if name in copy:
                document = json.loads(copy[name])
                document["eval"]["model"] = f"bench/model-{k:02d}"
                copy[name] = json.dumps(document).encode()
        # Named as Inspect names logs ({timestamp}_{task}_{id}.eval): other names make Inspect's
        # listing open every log to find its task.
        name = f"2026-01-01T00-00-{k:02d}+00-00_attunebench-default_bench{k:02d}.eval"
        with zipfile.ZipFile(folder / name, "w", zipfile.ZIP_DEFLATED) as out:
            for name, content in copy.items():
                out.writestr(name, content)
    command = [
        str(Path(sys.executable).parent / "attunebench"),
        "report",
        str(folder),
        "--resamples",
        str(resamples),
        "--format",
        "json",
        "-o",
        str(work / "r.json"),
    ]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The report process's own peak, not that of every child so far (the endpoints).
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"attunebench report failed: {' '.join(command)}")
    peak_kb = usage.ru_maxrss
    return {
        "seconds": seconds,
        "peak_rss_mb": peak_kb / 1024,
        "logs": logs,
        "conversations": conversations,
        "resamples": resamples,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=64)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per call")
    parser.add_argument("--jitter", type=float, default=0.1)
    parser.add_argument("--connections", default="16,64,256")
    parser.add_argument(
        "--variants",
        default=",".join(v.key for v in VARIANTS),
        help=f"which runs, comma-separated: {', '.join(v.key for v in VARIANTS)}",
    )
    parser.add_argument("--report-logs", type=int, default=33)
    parser.add_argument("--report-conversations", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument(
        "--skip-runs",
        action="store_true",
        help="only the report benchmark (the runs section of the results file is kept)",
    )
    parser.add_argument("--output", default=str(ROOT / "bench" / "RESULTS.md"))
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="attunebench-bench-"))
    results: list[RunResult] = []
    try:
        if not args.skip_runs:
            data = scale_dataset(args.conversations, work / "data")
            # Captured before any run is timed; the floor makes as many calls as the suite
            # without judge.
            replayed = captured_requests(data)
            calls_per_conversation = round(sum(map(len, replayed)) / args.conversations)
            chosen = args.variants.split(",")
            unknown = set(chosen) - {v.key for v in VARIANTS}
            if unknown:
                parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
            for variant in (v for v in VARIANTS if v.key in chosen):
                for connections in (int(c) for c in args.connections.split(",")):
                    result = run_fresh(
                        data,
                        args.conversations,
                        connections,
                        variant,
                        args.latency,
                        args.jitter,
                        work,
                        floor_calls=calls_per_conversation,
                        replayed=replayed,
                    )
                    results.append(result)
                    print(
                        f"{variant.name}, {connections} connections: {result.calls} calls, "
                        f"{result.wall:.1f} s, bound {result.bound:.1f} s, "
                        f"ratio {result.ratio:.2f}, CPU per call "
                        f"{1000 * result.cpu_per_call:.1f} ms ({100 * result.gc_share:.0f}% in gc)",
                        flush=True,
                    )
        report = report_benchmark(args.report_logs, args.report_conversations, args.resamples, work)
        print(f"report: {report['seconds']:.1f} s, peak {report['peak_rss_mb']:.0f} MB", flush=True)
        write_results(Path(args.output), args, results, report)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def replay_section(results: list[RunResult]) -> list[str]:
    """Suite against the replay of its own requests, per connection count where both ran, with
    the unscored suite beside them where it ran too (scoring's share of the difference)."""
    by = {(r.variant, r.connections): r for r in results}
    suite_name, replay_name, unscored_name = (
        next(v.name for v in VARIANTS if v.key == k) for k in (SUITE, REPLAY, UNSCORED)
    )
    pairs = [
        (by[suite_name, c], by[replay_name, c], by.get((unscored_name, c)))
        for c in sorted({r.connections for r in results})
        if (suite_name, c) in by and (replay_name, c) in by
    ]
    if not pairs:
        return []
    lines = [
        f"{REPLAY_HEADING}: the same requests (default mode, no judge) through plain "
        "Inspect `generate`",
        "",
        "| connections | suite wall / bound | replay wall / bound | suite / replay wall | "
        "suite CPU per call ms | replay CPU per call ms | suite / replay CPU per call | "
        "unscored suite CPU per call ms | unscored suite / replay CPU per call |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s.connections} | {s.ratio:.2f} | {r.ratio:.2f} | {s.wall / r.wall:.2f} | "
        f"{1000 * s.cpu_per_call:.1f} | {1000 * r.cpu_per_call:.1f} | "
        f"{s.cpu_per_call / r.cpu_per_call:.2f} | "
        + (
            f"{1000 * u.cpu_per_call:.1f} | {u.cpu_per_call / r.cpu_per_call:.2f} |"
            if u is not None
            else "- | - |"
        )
        for s, r, u in pairs
    ]
    return [*lines, ""]


def write_results(
    path: Path, args: argparse.Namespace, results: list[RunResult], report: dict[str, float]
) -> None:
    lines = [
        "# Benchmark results",
        "",
        f"Command: `bench/run {' '.join(sys.argv[1:])}`".replace("`bench/run `", "`bench/run`"),
        f"Machine: {platform.platform()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}.",
        "",
    ]
    if not results and path.exists():
        previous = path.read_text(encoding="utf-8")
        if RUNS_HEADING in previous and REPORT_HEADING in previous:
            start = previous.index(RUNS_HEADING)
            lines += [previous[start : previous.index(REPORT_HEADING)].rstrip(), ""]
    if results:
        lines += [
            f"{RUNS_HEADING}: {args.conversations} conversations (resampled from the bundled set), "
            f"default mode, latency {args.latency} s ± {args.jitter} s per call",
            "",
            "| run | connections | calls | wall s | bound s | wall / bound | peak in flight | "
            "CPU per call ms | of it, garbage collection | input tokens / conversation | "
            "cacheable input share |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.variant} | {r.connections} | {r.calls} | {r.wall:.1f} | "
            f"{r.bound:.1f} | {r.ratio:.2f} | {r.peak_in_flight} | "
            f"{1000 * r.cpu_per_call:.1f} | {100 * r.gc_share:.0f}% | "
            f"{r.input_tokens_per_conversation:.0f} | "
            f"{'-' if math.isnan(r.cacheable) else f'{100 * r.cacheable:.1f}%'} |"
            for r in results
        ]
        lines += ["", *replay_section(results)]
    lines += [
        REPORT_HEADING,
        "",
        f"`attunebench report` over {report['logs']:.0f} logs x {report['conversations']:.0f} "
        f"conversations, {report['resamples']:.0f} resamples: {report['seconds']:.1f} s, "
        f"peak RSS {report['peak_rss_mb']:.0f} MB.",
        "",
    ]
    # Sections other scripts write (bench/sweep.py's "## Processes") are kept as they were.
    if path.exists():
        previous = path.read_text(encoding="utf-8")
        if PROCESSES_HEADING in previous:
            lines += [previous[previous.index(PROCESSES_HEADING) :].rstrip(), ""]
    path.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
