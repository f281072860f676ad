"""RESULTS.md from a fine-tuning run's records and Inspect logs (finetune.py's results stage).

Every Composite, pillar and interval comes from the suite's own report code: the newest
successful log of a folder (`tools.report._logs.read_runs`), the per-conversation Composite
(`tools.report._composite.run_composite`) and pillars (`tools.report._logs.score_values`), and
the suite's percentile bootstrap over conversations (`bootstrap.mean_cis`). The probe's verdict
and guided-general difference are read from its log header, as its scorer wrote them, and beside
them the same completions rescored by the probe's current code (`rescore`).

**Inflation** of a variant V over the untuned model U, on the Composite or a pillar:

    (mean over trained-half conversations of V - U) - (mean over held-out ones of V - U)

which is (trained - held-out for V) - (trained - held-out for U): the untuned model's difference
between the halves (how much easier one half is) is taken out, and, because V and U answer the
same conversations, the per-conversation difference V - U also removes how hard each
conversation is. Its interval is a stratified percentile bootstrap over conversations: each
half's differences are resampled with replacement separately (a two-sample bootstrap, Efron &
Tibshirani 1993, ch. 8; `scipy.stats.bootstrap` with the two samples unpaired), 95%, seeded.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai.log import list_eval_logs, read_eval_log
from numpy.typing import NDArray
from scipy import stats

from attunebench_inspect._util.bootstrap import DEFAULT_SEED, Interval, mean_cis
from attunebench_inspect.instruments.contamination._recall import PublishedText, Recall
from attunebench_inspect.instruments.contamination._rules import (
    RECALL_NEEDED,
    RECALL_RUN_WORDS,
    InstanceResult,
    Verdict,
    decide,
)
from attunebench_inspect.instruments.contamination._verdict import ProbeVerdict, reading_of
from attunebench_inspect.score._metrics import nanmean
from attunebench_inspect.tools.report._composite import run_composite
from attunebench_inspect.tools.report._logs import COMPOSITE_SCORER, Run, read_runs, score_values

# bench/contamination/ is on the import path (finetune.py and the tests put it there)
# isort: off
from corpus import HALVES
from layout import MODELS, log_dir, model_dir

# isort: on

PILLARS = {"emotion_pillar": "E", "evaluation_pillar": "Q", "holistic_pillar": "H"}
MEASURES = ("composite", *PILLARS)
NAN = float("nan")
PROBE_SCORER = "contamination_scorer"
NOTES = "<!-- notes: written by hand, kept when the tables are rewritten -->"
OLD_VERDICT = {"too_few_instances": "too few instances to decide"}
"""The third reading of logs written before the abstention table (task version 3-A and
before)."""


# --- pure: the inflation and its interval --------------------------------------------------------


def inflation(
    variant: Mapping[str, float],
    untuned: Mapping[str, float],
    trained: Sequence[str],
    held_out: Sequence[str],
    *,
    resamples: int = 10_000,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """(mean_T(V - U) - mean_H(V - U)) with its stratified percentile bootstrap interval.

    Conversations where either model has no value (NaN) are left out; with fewer than two
    conversations in a half the interval is NaN (nothing to resample)."""

    def differences(ids: Sequence[str]) -> NDArray[np.float64]:
        d = np.array([variant.get(c, NAN) - untuned.get(c, NAN) for c in ids], dtype=float)
        return d[~np.isnan(d)]

    t, h = differences(trained), differences(held_out)
    n = len(t) + len(h)
    if not len(t) or not len(h):
        return Interval(NAN, NAN, NAN, n)
    estimate = float(t.mean() - h.mean())
    if len(t) < 2 or len(h) < 2:
        return Interval(estimate, NAN, NAN, n)

    def statistic(a: NDArray[np.float64], b: NDArray[np.float64], axis: int) -> Any:
        return a.mean(axis=axis) - b.mean(axis=axis)

    result = stats.bootstrap(
        (t, h),
        statistic,
        paired=False,
        vectorized=True,
        n_resamples=resamples,
        confidence_level=0.95,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    low, high = result.confidence_interval
    return Interval(estimate, float(low), float(high), n)


# --- reading the logs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MainResult:
    values: dict[str, dict[str, float]]
    """Per measure (composite and pillars), per conversation."""
    intervals: dict[str, Interval]
    parse_failure: float
    seconds: float


@dataclass(frozen=True)
class ProbeResult:
    verdict: str
    metrics: dict[str, float]
    seconds: float


def _run(folder: Path) -> Run | None:
    if not folder.exists():
        return None
    runs, _ = read_runs([folder])
    return runs[0] if runs else None


def _seconds(timing: Any) -> float:
    """A log's wall time, from Inspect's own start and end stamps."""
    if not timing.started_at or not timing.completed_at:
        return NAN
    end = datetime.fromisoformat(timing.completed_at)
    return (end - datetime.fromisoformat(timing.started_at)).total_seconds()


def main_result(folder: Path, resamples: int) -> MainResult | None:
    run = _run(folder)
    if run is None:
        return None
    composite = run_composite(run, resamples=resamples)
    epochs = score_values(run.scored(), COMPOSITE_SCORER)
    values: dict[str, dict[str, float]] = {"composite": composite.per_conversation}
    for pillar in PILLARS:
        values[pillar] = {
            c: nanmean([e.get(pillar, NAN) for e in per_epoch]) for c, per_epoch in epochs.items()
        }
    ids = sorted(composite.per_conversation)
    pillar_cis = mean_cis([[values[p][c] for c in ids] for p in PILLARS], resamples=resamples)
    intervals = {"composite": composite.interval, **dict(zip(PILLARS, pillar_cis, strict=True))}
    failure = NAN
    for score in run.header.results.scores if run.header.results else []:
        if score.name == "parse_failure_rate" and "mean" in score.metrics:
            failure = float(score.metrics["mean"].value)
    timing = read_eval_log(run.location, header_only=True).stats
    return MainResult(values, intervals, failure, _seconds(timing))


@dataclass(frozen=True)
class Rescored:
    """A probe log's completions scored again by the probe's current method (heuristics 1-3)."""

    verdict: Verdict
    runs: dict[str, list[Recall]]
    """Per instruction, each completion's recall of its own conversation's other texts."""
    control: dict[str, list[int]]
    """Per instruction, each completion's longest run with the texts of the run's OTHER
    conversations (the same rule): a control, not part of the verdict."""


def rescore(folder: Path, texts: Mapping[str, Sequence[PublishedText]]) -> Rescored | None:
    """The newest successful probe log of `folder`, rescored through the probe's own pure
    functions (`completions.score_instance`, `verdict.decide`): its instances and completions as
    logged, the published texts of its conversations from `texts` (by conversation ID). Logs
    written before heuristic 3 carry no texts, so `inspect score` cannot add it to them; the
    instances and prompts are the same as the current probe's (same seed, same code)."""
    from attunebench_inspect.instruments.contamination._completions import score_instance
    from attunebench_inspect.instruments.contamination._instances import FIELDS
    from attunebench_inspect.instruments.contamination._recall import recall, text_key
    from attunebench_inspect.instruments.contamination._solver import (
        INSTRUCTIONS,
        ProbeStore,
        instances_of,
    )

    for info in list_eval_logs(str(folder)) if folder.exists() else []:
        log = read_eval_log(info.name)
        if log.status != "success":
            continue
        results: list[InstanceResult] = []
        runs: dict[str, list[Recall]] = {"guided": [], "general": []}
        control: dict[str, list[int]] = {"guided": [], "general": []}
        ids = [str(s.id) for s in log.samples or []]
        for sample in log.samples or []:
            # The store as logged (a StoreModel built outside a sample would read the process's
            # one default store, not this sample's).
            said = {
                call: sample.store.get(f"{ProbeStore.__name__}:{call}", [])
                for call in ("guided", "general")
            }
            others = [t for cid in ids if cid != sample.id for t in texts[cid]]
            for i, instance in enumerate(instances_of(sample.metadata)):
                completions = {k: v[i] if i < len(v) else "" for k, v in said.items()}
                s = score_instance(instance, list(texts[str(sample.id)]), **completions)
                results.append(s.result())
                runs["guided"].append(s.guided_recall)
                runs["general"].append(s.general_recall)
                own = text_key(instance.turn, FIELDS[instance.kind])
                for call, completion in completions.items():
                    prompt = INSTRUCTIONS[call](instance)  # type: ignore[index]
                    control[call].append(recall(completion, prompt, others, own).run)
        return Rescored(decide(results), runs, control)
    return None


def probe_result(folder: Path) -> ProbeResult | None:
    if not folder.exists():
        return None
    for info in list_eval_logs(str(folder)):
        header = read_eval_log(info.name, header_only=True)
        if header.status != "success" or header.results is None:
            continue
        metrics: dict[str, float] = {}
        for score in header.results.scores:
            if score.scorer == PROBE_SCORER or score.name == PROBE_SCORER:
                metrics.update({k: float(m.value) for k, m in score.metrics.items()})
        old = next((OLD_VERDICT[k] for k in OLD_VERDICT if metrics.get(k) == 1.0), None)
        verdict = reading_of(metrics) or old or "no verdict"
        return ProbeResult(verdict, metrics, _seconds(header.stats))
    return None


def layout_lines(out: Path) -> list[str]:
    """The files-layout probe's readings (`-T methods=layout`), model by half, from the logs."""
    lines = [
        "",
        "## The files-layout probe",
        "",
        "Each conversation's document in the files' layout, cut at each turn's message and "
        "continued (docs/contamination.md); recalled: a continuation writing 13+ unshown words "
        "of a published text of its conversation in a row; the control: the same document of a "
        "never-published conversation (each text's words shuffled, a new ID). The label cut: "
        'the same document cut after each turn\'s response at `"moodShiftTags": [`; label '
        "match: the mean share of the participant's labels the continuation writes (documents / "
        "control, both against the real labels), p the one-sided permutation test, reproduced: "
        "document continuations writing every label field right.",
        "",
        "| model | half | overall | layout sub-verdict | recalled (documents) | recalled "
        "(control) | longest run: documents / control | instances | empty completions "
        "| labels sub-verdict | label match: documents / control | p | reproduced of scored "
        "| served | wall time |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model in MODELS:
        for half in HALVES:
            p = probe_result(log_dir(out, model, half, "layout"))
            if p is None:
                lines.append(f"| {model} | {half} | not run |" + " |" * 12)
                continue
            m = p.metrics
            lines.append(
                f"| {model} | {half} | **{p.verdict}** | {_sub(m, 'layout')} | "
                f"{_f(m.get('layout_recalled', NAN), 0)} | "
                f"{_f(m.get('layout_control_recalled', NAN), 0)} | "
                f"{_f(m.get('layout_longest', NAN), 0)} / "
                f"{_f(m.get('layout_control_longest', NAN), 0)} | "
                f"{_f(m.get('layout_instances', NAN), 0)} | "
                f"{_f(m.get('layout_empty_completions', NAN), 0)} | "
                f"{_sub(m, 'labels')} | "
                f"{_f(m.get('layout_labels_match', NAN), 3)} / "
                f"{_f(m.get('layout_labels_control_match', NAN), 3)} | "
                f"{_f(m.get('layout_labels_p_value', NAN), 3)} | "
                f"{_f(m.get('layout_labels_reproduced', NAN), 0)} of "
                f"{_f(m.get('layout_labels_scored', NAN), 0)} | "
                f"{_served(out, model, 'layout')} | {_minutes(p.seconds)} |"
            )
    return lines


def _sub(metrics: dict[str, float], cut: str) -> str:
    """A layout cut's sub-verdict from a run's metrics (the log header's record)."""
    found = ProbeVerdict.from_metrics(metrics)
    verdict = getattr(found, cut, None) if found else None
    return verdict.reading if verdict else "-"


# --- the page ------------------------------------------------------------------------------------


def _f(value: float, digits: int = 2) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _ci(interval: Interval, digits: int = 2) -> str:
    if math.isnan(interval.estimate):
        return "-"
    if math.isnan(interval.low) or interval.n < 2:
        return f"{interval.estimate:.{digits}f} (no CI: n={interval.n})"
    return interval.show(digits)


def _minutes(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds / 60:.1f} min"


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _commands(out: Path) -> list[str]:
    path = out / "commands.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _served(out: Path, model: str, task: str) -> str:
    s = _json(model_dir(out, model) / f"serve-{task}.json")
    return f"{s['slots']} slots, {s['threads']} thread(s)" if s else "-"


def write_results(out: Path, target: Path, *, resamples: int = 10_000) -> None:
    split = _json(out / "split.json")
    hardware = _json(out / "hardware.json")
    load = ", ".join(_f(x, 1) for x in hardware.get("load_average_at_start", []))
    lines = [
        "# A real model that has read the published conversations: results",
        "",
        "Written by `bench/contamination/finetune.py` (its results stage) from the records and",
        f"Inspect logs under `{out.name}/`. The data are the bundled **synthetic** conversations.",
        "",
        f"- Hardware: {hardware.get('cpu', '?')}, {hardware.get('cores', '?')} cores, no GPU, "
        f"shared with other work (load average {load} when the run started); every time below "
        "is wall time on that shared CPU.",
        f"- Split (seed {split.get('seed')}): {split.get('rule')}. {split.get('used')} of "
        f"{split.get('conversations')} conversations used.",
        f"  - trained: {', '.join(split.get('trained', []))}",
        f"  - held out: {', '.join(split.get('held_out', []))}",
        "- Commands, in the order they ran (each stage skips what is already there):",
        "",
        "```",
        *_commands(out),
        "```",
        "",
        "## Training and memorisation",
        "",
        "Loss: mean negative log-likelihood per token (nats) of each half's published texts, laid "
        "out as the `text` variant lays them, over the first windows of each document "
        "(`nll_windows_per_document` x block tokens, in `models/*/train.json`).",
        "",
        "| model | tokens trained on | epochs | lr | steps | training time | loss per epoch "
        "| loss, trained half | loss, held-out half |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for model in MODELS:
        r = _json(model_dir(out, model) / "train.json")
        if not r:
            lines.append(f"| {model} | not trained yet | | | | | | | |")
            continue
        nll = r.get("nll", {})
        epochs = ", ".join(_f(x, 3) for x in r.get("epoch_loss", [])) or "-"
        lines.append(
            f"| {model} | {r.get('documents_tokens', 0)} | {r.get('epochs', 0)} | "
            f"{r.get('learning_rate', '-')} | {r.get('steps', 0)} | "
            f"{_minutes(r.get('train_seconds', NAN))} | {epochs} | "
            f"{_f(nll.get('trained', NAN), 3)} | {_f(nll.get('held_out', NAN), 3)} |"
        )

    from attunebench_inspect.data._codebook import load_codebook
    from attunebench_inspect.data._load import load_conversations
    from attunebench_inspect.data._split import split as visible_part
    from attunebench_inspect.instruments.contamination._recall import published_texts

    texts = {
        c.conversation.conversationId: published_texts(visible_part(c.conversation)[0])
        for half in HALVES
        for c in load_conversations(out / "data" / half, load_codebook(None)).conversations
    }
    lines += [
        "",
        "## The contamination probe",
        "",
        "**In the log**: the verdict and figures as the probe's scorer wrote them in each log's "
        "header when it ran (ROUGE-L guided - general with its 95% bootstrap interval over "
        "instances; p of the one-sided paired permutation test; exact and near-exact guided "
        "completions): heuristics 1 and 2. **Rescored**: the same logs' completions scored again "
        "by the probe's current code (`results.rescore`: the probe's `score_instance` and "
        "`decide`), which adds heuristic 3: completions (of the 2 per instance) writing out "
        f"{RECALL_RUN_WORDS}+ unshown words of another published text of their conversation, "
        f"{RECALL_NEEDED} needed.",
        "",
        "| model | half | verdict in the log | verdict rescored | guided - general [95% CI] "
        "| p | exact | near-exact | recalled | longest run (text) | instances | served "
        "| wall time |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rescored: dict[tuple[str, str], Rescored] = {}
    for model in MODELS:
        for half in HALVES:
            folder = log_dir(out, model, half, "probe")
            p = probe_result(folder)
            r = rescore(folder, texts)
            if p is None or r is None:
                lines.append(f"| {model} | {half} | not run | | | | | | | | | | |")
                continue
            rescored[model, half] = r
            m = p.metrics
            diff = Interval(
                m.get("difference", NAN),
                m.get("ci_low", m.get("difference_ci_low", NAN)),
                m.get("ci_high", m.get("difference_ci_high", NAN)),
                int(m.get("instances", 0)),
            )
            v = r.verdict
            best = max((x for k in r.runs.values() for x in k), key=lambda x: x.run)
            lines.append(
                f"| {model} | {half} | {p.verdict} | **{v.reading}** | {_ci(diff, 3)} | "
                f"{_f(m.get('p_value', NAN), 3)} | {_f(m.get('exact', NAN), 0)} | "
                f"{_f(m.get('near_exact', NAN), 0)} | {v.recalled} of {2 * v.instances} | "
                f"{best.run} ({best.text or '-'}) | {v.instances} | "
                f"{_served(out, model, 'probe')} | {_minutes(p.seconds)} |"
            )

    lines += layout_lines(out)
    lines += [
        "",
        "### Heuristic 3 in detail, and a control",
        "",
        "Per instruction: each completion's longest run of unshown words shared with another "
        "published text of its own conversation (median / max, and how many reach "
        f"{RECALL_RUN_WORDS}); the control is the same completion's longest run with the texts of "
        "the run's *other* conversations (same rule, not in the verdict).",
        "",
        "| model | half | guided: median / max | guided recalled | general: median / max "
        "| general recalled | control guided: median / max | control general: median / max |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (model, half), r in rescored.items():
        cells = []
        for call in ("guided", "general"):
            runs = sorted(x.run for x in r.runs[call])
            recalled = sum(x >= RECALL_RUN_WORDS for x in runs)
            cells += [f"{runs[len(runs) // 2]} / {runs[-1]}", f"{recalled} of {len(runs)}"]
        for call in ("guided", "general"):
            runs = sorted(r.control[call])
            cells.append(f"{runs[len(runs) // 2]} / {runs[-1]}")
        lines.append(f"| {model} | {half} | " + " | ".join(cells) + " |")

    results: dict[tuple[str, str], MainResult] = {}
    lines += [
        "",
        "## The main task (default mode)",
        "",
        "Composite (0-100) and pillars (0-1): mean over conversations with the suite's 95% "
        "percentile bootstrap interval (`tools.report._composite.run_composite`, `bootstrap`).",
        "",
        "| model | half | conversations | Composite | E | Q | H | parse failures | served "
        "| wall time |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model in MODELS:
        for half in HALVES:
            r = main_result(log_dir(out, model, half, "main"), resamples)
            if r is None:
                lines.append(f"| {model} | {half} | not run |" + " |" * 12)
                continue
            results[model, half] = r
            lines.append(
                f"| {model} | {half} | {r.intervals['composite'].n} | "
                f"{_ci(r.intervals['composite'])} | "
                + " | ".join(_ci(r.intervals[p], 3) for p in PILLARS)
                + f" | {_f(r.parse_failure, 3)} | {_served(out, model, 'main')} | "
                f"{_minutes(r.seconds)} |"
            )

    lines += [
        "",
        "## Inflation",
        "",
        "(trained - held-out for the variant) - (trained - held-out for the untuned model), per "
        "conversation paired with the untuned model, on the conversations both ran; 95% "
        "stratified bootstrap interval (results.py says how; none with one conversation in a "
        "half).",
        "",
        "| variant | Composite | E | Q | H |",
        "|---|---|---|---|---|",
    ]
    for variant in MODELS[1:]:
        if not all((m, h) in results for m in (MODELS[0], variant) for h in HALVES):
            lines.append(f"| {variant} | not run | | | |")
            continue
        cells = []
        for measure in MEASURES:

            def merged(model: str, measure: str = measure) -> dict[str, float]:
                return {k: v for h in HALVES for k, v in results[model, h].values[measure].items()}

            interval = inflation(
                merged(variant),
                merged(MODELS[0]),
                list(results[variant, "trained"].values[measure]),
                list(results[variant, "held_out"].values[measure]),
                resamples=resamples,
            )
            cells.append(_ci(interval, 2 if measure == "composite" else 3))
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")

    # A reading written by hand below the marker survives a re-run of this stage.
    kept = ""
    if target.exists():
        _, marker, kept = target.read_text(encoding="utf-8").partition(NOTES)
        kept = marker + kept
    target.write_text("\n".join(lines) + "\n" + ("\n" + kept if kept else ""), encoding="utf-8")
