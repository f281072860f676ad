"""The contamination probe's false-positive rate and power, over seeds (docs/contamination.md).

    nice -n 10 .venv/bin/python bench/contamination/probe_power.py --seeds 50

For every seed the probe's instances are cut afresh (the seed of `-T seed=`), every model answers
every guided and general prompt, and the verdict is read by the probe's own code (instances,
prompts, overlap, verdict). The models are the real providers, called directly rather than
through `inspect eval` (the same answers, a hundred times faster): the negatives
`attunebench/random` (`-M seed` = the seed), `attunebench/majority`, `memorizer/echo`,
`memorizer/paraphrase` and `memorizer/recall` with share 0 (the generic model alone); the
positives `memorizer/recall` at shares 0.1, 0.2 and 0.5 (`-M seed` = the seed, so the recalled
texts change with it), with verbatim recall and with partial recall (fidelity 0.85: near-exact
matches but no exact one; fidelity 0.6: neither, so only heuristic 1 can see it), and
`memorizer/recall_other` at shares 0.1 and 0.2 (it writes out the turn's assistant response
instead of the text's rest, as the fine-tuned SmolLM2 did: only heuristic 3 can see it). Each is
run on the whole data set and on its first few conversations. The table's last column is the
longest recall run (heuristic 3) of any completion over all of a row's runs: on the negatives,
what heuristic 3's threshold is calibrated against.

`--inspect-check N` first runs N seeds through `inspect_ai.eval` of the task for two models and
stops if any verdict figure differs from the direct computation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from inspect_ai import eval
from inspect_ai.model import ModelAPI, get_model
from scipy import stats

from attunebench_inspect import contamination
from attunebench_inspect._util.bundled import bundled_conversations_dir
from attunebench_inspect.data._codebook import load_codebook
from attunebench_inspect.data._load import load_conversations
from attunebench_inspect.data._split import VisibleConversation, split
from attunebench_inspect.instruments.contamination._completions import score_instance
from attunebench_inspect.instruments.contamination._instances import Instance, select
from attunebench_inspect.instruments.contamination._memorizer import MemorizerAPI
from attunebench_inspect.instruments.contamination._recall import PublishedText, published_texts
from attunebench_inspect.instruments.contamination._rules import (
    ALPHA,
    MIN_INSTANCES,
    InstanceResult,
    decide,
)
from attunebench_inspect.instruments.contamination._solver import CONFIG, request
from attunebench_inspect.providers._baselines import BaselineAPI
from attunebench_inspect.solve._call_record import ProbeCall


@dataclass(frozen=True)
class Model:
    label: str
    positive: bool
    make: Callable[[int], ModelAPI]
    """The provider for a seed."""
    share: float = 0.0
    fidelity: float = 1.0
    name: str = ""
    args: tuple[tuple[str, object], ...] = ()
    """Inspect's model name and -M arguments (without the seed), for the Inspect check."""


def _recall(share: float, fidelity: float, kind: str = "recall") -> Model:
    label = f"memorizer/{kind} share {share:g}" + (
        f" fidelity {fidelity:g}" if fidelity < 1 else ""
    )
    return Model(
        label,
        share > 0,
        lambda s: MemorizerAPI(kind, share=share, fidelity=fidelity, seed=s),
        share,
        fidelity,
        f"memorizer/{kind}",
        (("share", share), ("fidelity", fidelity)),
    )


MODELS: list[Model] = [
    Model(
        "attunebench/random",
        False,
        lambda s: BaselineAPI("random", seed=s),
        name="attunebench/random",
    ),
    Model("attunebench/majority", False, lambda s: BaselineAPI("majority")),
    Model("memorizer/echo", False, lambda s: MemorizerAPI("echo")),
    Model("memorizer/paraphrase", False, lambda s: MemorizerAPI("paraphrase")),
    _recall(0.0, 1.0),
    *(_recall(share, fidelity) for fidelity in (1.0, 0.85, 0.6) for share in (0.1, 0.2, 0.5)),
    *(_recall(share, 1.0, "recall_other") for share in (0.1, 0.2)),
]


@dataclass(frozen=True)
class Run:
    model: str
    conversations: int
    seed: int
    reading: str
    heuristic_1: bool
    heuristic_2: bool
    instances: int
    p_value: float
    difference: float
    exact: int
    near_exact: int
    wilcoxon: bool
    heuristic_3: bool
    recalled: int
    longest_recall: int


async def _answers(api: ModelAPI, instances: Sequence[Instance], call: ProbeCall) -> list[str]:
    outputs = await asyncio.gather(
        *(api.generate(request(i, call), [], "none", CONFIG) for i in instances)
    )
    return [o.completion for o in outputs]


def results_of(
    api: ModelAPI, visible: Sequence[tuple[str, VisibleConversation]], seed: int
) -> list[InstanceResult]:
    # In the metric's order (conversation ID, then the conversation's own), so that heuristic
    # 1's random sign patterns, and so its p-value, are the ones `inspect eval` prints.
    instances = sorted(select(visible, seed).instances, key=lambda i: i.conversation_id)
    texts: dict[str, list[PublishedText]] = {
        conv.conversation_id: published_texts(conv) for _, conv in visible
    }
    guided = asyncio.run(_answers(api, instances, "guided"))
    general = asyncio.run(_answers(api, instances, "general"))
    results = []
    for instance, g_text, h_text in zip(instances, guided, general, strict=True):
        s = score_instance(instance, texts[instance.conversation_id], g_text, h_text)
        results.append(s.result())  # as the scorer's records keep it
    return results


def wilcoxon_fires(results: Sequence[InstanceResult]) -> bool:
    """Heuristic 1 as first written (one-sided Wilcoxon signed-rank at the same alpha), for
    comparison only: the probe uses the permutation test of the mean (verdict.py)."""
    if len(results) < MIN_INSTANCES:
        return False
    difference = np.round([r.guided - r.general for r in results], 12)
    if not difference.any():
        return False
    test = stats.wilcoxon(difference, zero_method="wilcox", alternative="greater")
    return bool(test.pvalue < ALPHA)


def inspect_check(
    seeds: Sequence[int], visible: Sequence[tuple[str, VisibleConversation]], log_dir: Path
) -> None:
    """The direct computation against `inspect_ai.eval` of the task, on the whole data set."""
    for model in (m for m in MODELS if m.name and (m.share in (0.0, 0.2)) and m.fidelity == 1.0):
        for seed in seeds:
            log = eval(
                contamination(seed=seed),
                model=get_model(model.name, seed=seed, **dict(model.args), memoize=False),
                display="none",
                log_dir=str(log_dir),
            )[0]
            assert log.results is not None
            metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
            direct = decide(results_of(model.make(seed), visible, seed))
            expected = {
                "suspected": float(direct.reading == "suspected"),
                "p_value": direct.p_value,
                "exact": float(direct.exact),
                "near_exact": float(direct.near_exact),
                "instances": float(direct.instances),
                "recalled": float(direct.recalled),
                "longest_recall": float(direct.longest_recall),
            }
            found = {k: metrics[k] for k in expected}
            if found != expected:
                sys.exit(f"{model.label} seed {seed}: inspect eval {found} != direct {expected}")
            print(
                f"inspect check: {model.label} seed {seed}: same verdict figures", file=sys.stderr
            )


def _rate(k: int, n: int) -> str:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return f"{k}/{n} = {k / n:.1%} [{ci.low:.1%}, {ci.high:.1%}]"


def _order(model: str) -> int:
    """Table order: the models as listed, each size's pooled negatives after its negatives."""
    labels = [m.label for m in MODELS]
    if model in labels:
        return labels.index(model) + (1 if labels.index(model) > 4 else 0)
    return 5


def table(runs: Sequence[Run]) -> str:
    lines = [
        "| model | conversations | instances | suspected | by heuristic 1 | by heuristic 2 "
        "| by heuristic 3 | too few | heuristic 1 by Wilcoxon (replaced) | longest recall run |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    negatives = {m.label for m in MODELS if not m.positive}
    groups: dict[tuple[str, int], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.model, run.conversations), []).append(run)
        if run.model in negatives:
            groups.setdefault(("every negative, pooled", run.conversations), []).append(run)
    for (model, conversations), group in sorted(
        groups.items(), key=lambda item: (-item[0][1], _order(item[0][0]))
    ):
        n = len(group)
        instances = sorted({r.instances for r in group})
        span = f"{instances[0]}" if len(instances) == 1 else f"{instances[0]}-{instances[-1]}"
        lines.append(
            f"| {model} | {conversations} | {span} "
            f"| {_rate(sum(r.reading == 'suspected' for r in group), n)} "
            f"| {_rate(sum(r.heuristic_1 for r in group), n)} "
            f"| {_rate(sum(r.heuristic_2 for r in group), n)} "
            f"| {_rate(sum(r.heuristic_3 for r in group), n)} "
            f"| {_rate(sum(r.reading.startswith('too few') for r in group), n)} "
            f"| {_rate(sum(r.wilcoxon for r in group), n)} "
            f"| {max(r.longest_recall for r in group)} |"
        )
    return "\n".join(lines)


def measure(
    visible: Sequence[tuple[str, VisibleConversation]],
    sizes: Sequence[int],
    seeds: Sequence[int],
) -> list[Run]:
    """Every model's verdict for every seed on the first `size` conversations, for each size."""
    runs: list[Run] = []
    for size in sizes:
        for model in MODELS:
            for seed in seeds:
                results = results_of(model.make(seed), visible[:size], seed)
                v = decide(results)
                runs.append(
                    Run(
                        model.label,
                        size,
                        seed,
                        v.reading,
                        v.heuristic_1,
                        v.heuristic_2,
                        v.instances,
                        v.p_value,
                        v.difference.estimate,
                        v.exact,
                        v.near_exact,
                        wilcoxon_fires(results),
                        v.heuristic_3,
                        v.recalled,
                        v.longest_recall,
                    )
                )
    return runs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="seeds 0..N-1 (default 50)")
    parser.add_argument("--data", default=None, help="conversations (default: the bundled set)")
    parser.add_argument(
        "--conversations",
        default="all,3",
        help="comma-separated sizes: the first N conversations, or all (default all,3)",
    )
    parser.add_argument("--inspect-check", type=int, default=2, metavar="N")
    parser.add_argument("--json", type=Path, default=None, help="write every run here")
    args = parser.parse_args(argv)

    loaded = load_conversations(args.data or bundled_conversations_dir(), load_codebook(None))
    visible = [(c.source, split(c.conversation)[0]) for c in loaded.conversations]
    sizes = [len(visible) if s == "all" else int(s) for s in args.conversations.split(",")]
    started = time.perf_counter()
    if args.inspect_check:
        with tempfile.TemporaryDirectory() as logs:
            inspect_check(range(args.inspect_check), visible, Path(logs))
    runs = measure(visible, sizes, range(args.seeds))
    print(table(runs))
    print(
        f"\n{args.seeds} seeds, {len(runs)} runs, {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
