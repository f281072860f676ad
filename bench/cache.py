"""The bill a provider's prompt cache makes of a run, measured against loopback endpoints that
follow each provider's documented cache rules
(src/attunebench_inspect/tools/estimate/_cache/rules.py), beside the estimate's prediction and the
structural limit; and the wall time of the bundled run, this code against an
earlier revision, from the same bench run.

    bench/cache.py                            # defaults below; results go to bench/CACHE.md
    bench/cache.py --baseline 154da15 --conversations 8 --connections 16 --runs 2

Every eval runs in a fresh interpreter, the current code's and the baseline revision's alike
(a git worktree of it on PYTHONPATH), against the current endpoint in its own process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# bench/run.py puts the repository root, and so loopback/, on the import path.
# isort: off
from run import endpoint_process
from loopback.endpoint import EndpointConfig, RequestRecord

# isort: on
from attunebench_inspect._util.bundled import bundled_conversations_dir
from attunebench_inspect.data import load_codebook
from attunebench_inspect.tools.estimate import Plan, Prices, default_tokenizer, estimate_modes
from attunebench_inspect.tools.estimate._bill import bills
from attunebench_inspect.tools.estimate._cache.rules import rules_for

ROOT = Path(__file__).resolve().parent.parent
MODELS = {"openai": "openai/gpt-4o", "anthropic": "anthropic/claude-sonnet-4-6"}
"""The provider each cache model stands for, as Inspect names one of its models."""
RUNNER = """
import json, sys, time
from inspect_ai import eval
from inspect_ai.model import get_model
from attunebench_inspect import attunebench
args = json.loads(sys.argv[1])
model = get_model(args["model"], base_url=args["base_url"], api_key="local", memoize=False)
start = time.monotonic()
log = eval(attunebench(data=args["data"], **args["task"]), model=model,
           max_connections=args["connections"], display="none", log_dir=args["logs"])[0]
print(json.dumps({"wall": time.monotonic() - start, "status": log.status}))
"""


@dataclass(frozen=True)
class Counted:
    """One run as the endpoint counted it."""

    code: str
    dialect: str
    wall: float
    calls: int
    rejected: int
    prompt: int
    read: int
    written: int

    @property
    def served(self) -> float:
        return self.read / self.prompt

    def bill(self) -> float:
        """Input as billed (uncached, writes and reads at the provider's documented prices, as
        `attunebench estimate` prices them) over the uncached bill."""
        rules = rules_for(MODELS[self.dialect])
        assert rules is not None
        uncached = self.prompt - self.read - self.written
        billed = uncached + rules.write_price * self.written + rules.read_price * self.read
        return billed / self.prompt


def first_conversations(n: int, folder: Path) -> Path:
    """The first `n` bundled conversations, in the order a run takes them."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in sorted(bundled_conversations_dir().glob("*.json"))[:n]:
        shutil.copy(source, folder / source.name)
    return folder


def checkout(revision: str, work: Path) -> Path:
    """A worktree of `revision`: its src/ is the baseline's code."""
    tree = work / f"baseline-{revision}"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), revision],
        check=True,
        capture_output=True,
    )
    return tree


def run_eval(
    src: Path,
    dialect: str,
    data: Path,
    connections: int,
    config: EndpointConfig,
    work: Path,
    task: dict[str, Any],
) -> tuple[float, list[RequestRecord]]:
    with endpoint_process(config) as (base_url, records):
        url = base_url.removesuffix("/v1") if dialect == "anthropic" else base_url
        arguments = {
            "model": MODELS[dialect],
            "base_url": url,
            "data": str(data),
            "connections": connections,
            "logs": str(work / "logs"),
            "task": task,
        }
        env = {**os.environ, "PYTHONPATH": str(src)}
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, json.dumps(arguments)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == "success", done.stderr[-2000:]
    return float(result["wall"]), records


def counted(code: str, dialect: str, wall: float, records: list[RequestRecord]) -> Counted:
    answered = [r for r in records if r.prompt_tokens]
    return Counted(
        code=code,
        dialect=dialect,
        wall=wall,
        calls=len(records),
        rejected=len(records) - len(answered),
        prompt=sum(r.prompt_tokens for r in answered),
        read=sum(r.cache_read for r in answered),
        written=sum(r.cache_written for r in answered),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="154da15", help="the revision to compare with")
    parser.add_argument("--conversations", type=int, default=8, help="for the cache figures")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per call")
    parser.add_argument("--jitter", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=2, help="wall-time runs of each code")
    parser.add_argument("--output", default=str(ROOT / "bench" / "CACHE.md"))
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="attunebench-cache-"))
    baseline = checkout(args.baseline, work)
    codes = {"current": ROOT / "src", f"baseline {args.baseline}": baseline / "src"}
    tokenizer = default_tokenizer()
    try:
        data = first_conversations(args.conversations, work / "data")
        caches: list[Counted] = []
        for dialect in MODELS:
            config = EndpointConfig(
                latency=args.latency,
                jitter=args.jitter,
                seed=1,
                cache=dialect,
                keep_messages=False,
                tokenizer=tokenizer,
            )
            for code, src in codes.items():
                wall, records = run_eval(src, dialect, data, args.connections, config, work, {})
                caches.append(counted(code, dialect, wall, records))
                print(f"{code}, {dialect} cache: {caches[-1]}", flush=True)

        estimates = estimate_modes(
            str(data), load_codebook(), ["default"], False, tokenizer, plan=Plan()
        )
        predicted = {
            b.cache: b
            for b in bills(
                estimates.bill,
                [(m, Prices(1.0, 0.0)) for m in MODELS.values()],
                estimates.tokens,
                estimates.plan,
            )
        }

        walls: dict[str, list[float]] = {code: [] for code in codes}
        bundled = bundled_conversations_dir()
        plain = EndpointConfig(
            latency=args.latency, jitter=args.jitter, keep_messages=False, tokenizer=tokenizer
        )
        for _ in range(args.runs):
            for code, src in codes.items():
                wall, _ = run_eval(src, "openai", bundled, args.connections, plain, work, {})
                walls[code].append(wall)
                print(f"{code}, bundled run: {wall:.1f} s", flush=True)
        write(Path(args.output), args, tokenizer, caches, predicted, walls)
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(work, ignore_errors=True)


def write(
    path: Path,
    args: argparse.Namespace,
    tokenizer: str,
    caches: list[Counted],
    predicted: dict[str, Any],
    walls: dict[str, list[float]],
) -> None:
    current, base = walls
    lines = [
        "# Prompt-cache bill and wall time",
        "",
        f"Command: `bench/cache.py {' '.join(sys.argv[1:])}`".replace("py `", "py`"),
        f"Machine: {platform.platform()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; measured {time.strftime('%Y-%m-%d')}; tokens counted "
        f"with {tokenizer}.",
        "",
        f"## Cache: the first {args.conversations} bundled conversations, default mode, "
        f"{args.connections} connections, latency {args.latency} s ± {args.jitter} s",
        "",
        "Served: the share of prompt tokens read from the cache. Input bill: uncached + written "
        "x the write price + read x the read price, over the uncached bill, at each provider's "
        "documented prices (Anthropic: writes 1.25, reads 0.1; OpenAI gpt-4o: writes free, "
        "reads 0.5).",
        "",
        "| code | cache rules | calls | rejected | prompt tokens | read | written | "
        "served from cache | input bill / uncached | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {c.code} | {c.dialect} | {c.calls} | {c.rejected} | {c.prompt:,} | {c.read:,} | "
        f"{c.written:,} | {100 * c.served:.1f}% | {c.bill():.3f} | {c.wall:.1f} |"
        for c in caches
    ]
    lines += [
        "",
        "## The estimate against the counted cache, and the structural limit",
        "",
        "Estimate: `attunebench estimate` on the same conversations, offline. Floor: every "
        "prefix shared with a call sent before it read from the cache, no write charged, at "
        "the same prices. Reached: how much of the saving the floor allows the run made.",
        "",
        "| cache rules | counted read | estimated read | counted written | estimated written | "
        "difference (read) | run input bill | floor | reached |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in caches:
        if c.code != "current":
            continue
        bill = predicted[c.dialect]
        floor = bill.cost_usd_floor / bill.cost_usd
        run = c.bill()
        lines.append(
            f"| {c.dialect} | {c.read:,} | {bill.cache_read_tokens:,} | {c.written:,} | "
            f"{bill.cache_written_tokens:,} | "
            f"{100 * (bill.cache_read_tokens - c.read) / max(c.read, 1):+.1f}% | {run:.3f} | "
            f"{floor:.3f} | {100 * (1 - run) / (1 - floor):.0f}% |"
        )
    lines += [
        "",
        f"## Wall time: the bundled set (25 conversations), default mode, {args.connections} "
        f"connections, latency {args.latency} s ± {args.jitter} s, {args.runs} runs each",
        "",
        "| code | runs s | median s |",
        "|---|---|---|",
    ]
    lines += [
        f"| {code} | {', '.join(f'{w:.1f}' for w in runs)} | {statistics.median(runs):.1f} |"
        for code, runs in walls.items()
    ]
    ratio = statistics.median(walls[current]) / statistics.median(walls[base])
    lines += ["", f"Current / baseline (medians): {ratio:.2f}.", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
