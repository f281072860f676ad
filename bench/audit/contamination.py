"""The contamination probe's part of the verdict audit (bench/audit/run.py): its verdict on
models of planted behaviour over seeds, through the probe's own instances, prompts, scoring and
verdict (the pure method; bench/contamination/probe_power.py checks that path against
`inspect_ai.eval` of the task).

Behaviours, each with what is right for it (docs/contamination.md, "When it cannot decide"):

- negative (right: "not suspected"; "cannot decide" is a loss of power, never false): the random
  baseline, a model that echoes what it was shown, a model that never saw the texts
  (`memorizer/recall` at share 0), a memorizer of *another* data set (it has read one half of
  the bundled conversations and is probed on the other);
- uninformative (right: only "cannot decide"): a model that answers one thing (the majority
  baseline), one that answers nothing, one whose every completion is cut at the length limit,
  the random baseline on one conversation;
- positive (right: "suspected"; power): `memorizer/recall` and `memorizer/recall_other` at
  share 0.2;
- metamorphic (the verdict must not change; a change is a false verdict): the data files in
  another order, the conversations renamed (new IDs: the cuts are drawn anew). A renamed model
  is not a row: no part of the method reads the model's name (it reaches the log only).
"""

from __future__ import annotations

import asyncio
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.audit.rows import SMALL_SEEDS, AuditRow, Planted, tally
from inspect_ai.scorer import SampleScore, Score

from attunebench_inspect._util.bundled import bundled_conversations_dir
from attunebench_inspect.data._codebook import load_codebook
from attunebench_inspect.data._load import load_conversations
from attunebench_inspect.data._split import VisibleConversation, split
from attunebench_inspect.instruments.contamination._completions import score_instance
from attunebench_inspect.instruments.contamination._instances import Instance, select
from attunebench_inspect.instruments.contamination._memorizer import MemorizerAPI
from attunebench_inspect.instruments.contamination._recall import published_texts
from attunebench_inspect.instruments.contamination._rules import (
    NOT_SUSPECTED,
    SUSPECTED,
)
from attunebench_inspect.instruments.contamination._scorer import (
    RESULTS_KEY,
    contamination_verdict,
)
from attunebench_inspect.instruments.contamination._solver import CONFIG, request
from attunebench_inspect.instruments.contamination._verdict import reading_of
from attunebench_inspect.providers._baselines import BaselineAPI

INSTRUMENT = "contamination"
Visible = list[tuple[str, VisibleConversation]]
Answer = Callable[[Instance, str, int], tuple[str, bool]]
"""A planted model: (instance, call, seed) -> (completion, cut at the length limit)."""


def _visible(small: bool) -> Visible:
    loaded = load_conversations(bundled_conversations_dir(), load_codebook()).conversations
    visible = [(c.source, split(c.conversation)[0]) for c in loaded]
    return visible[:4] if small else visible


def _through(make: Callable[[int], MemorizerAPI | BaselineAPI]) -> Answer:
    """A provider's answer to the probe's request, for a seed."""
    made: dict[int, MemorizerAPI | BaselineAPI] = {}

    def answer(instance: Instance, call: str, seed: int) -> tuple[str, bool]:
        if seed not in made:
            made[seed] = make(seed)
        api = made[seed]
        output = asyncio.run(api.generate(request(instance, call), [], "none", CONFIG))  # type: ignore[arg-type]
        return output.completion, False

    return answer


def verdict(answer: Answer, visible: Visible, seed: int) -> str:
    """The probe's verdict on `visible` for a planted model, as its metric reads it: one
    sample score per conversation, handed to the metric in the files' order (the metric orders
    them itself)."""
    texts = {conv.conversation_id: published_texts(conv) for _, conv in visible}
    records: dict[str, list[dict[str, object]]] = {c.conversation_id: [] for _, c in visible}
    for instance in select(visible, seed).instances:
        guided, guided_cut = answer(instance, "guided", seed)
        general, general_cut = answer(instance, "general", seed)
        scored = score_instance(
            instance, texts[instance.conversation_id], guided, general, (guided_cut, general_cut)
        )
        records[instance.conversation_id].append({"key": instance.key, **asdict(scored.result())})
    scores = [
        SampleScore(score=Score(value=0, metadata={RESULTS_KEY: found}), sample_id=cid)
        for cid, found in records.items()
    ]
    metrics = contamination_verdict()(scores)
    assert isinstance(metrics, dict)
    return reading_of(metrics) or "no verdict"


def _renamed(visible: Visible, seed: int) -> Visible:
    rng = random.Random(f"rename/{seed}")
    return [
        (
            source,
            conv.model_copy(update={"conversation_id": str(uuid.UUID(int=rng.getrandbits(128)))}),
        )
        for source, conv in visible
    ]


def _shuffled(visible: Visible, seed: int) -> Visible:
    order = list(visible)
    random.Random(f"shuffle/{seed}").shuffle(order)
    return order


def _row(
    behaviour: str,
    planted: Planted,
    answer: Answer,
    visible: Visible,
    seeds: int,
    right: Sequence[str],
) -> AuditRow:
    start = time.perf_counter()
    said = [verdict(answer, visible, seed) for seed in range(seeds)]
    return tally(INSTRUMENT, behaviour, planted, said, right, time.perf_counter() - start)


def _metamorphic(
    behaviour: str,
    answer: Answer,
    visible: Visible,
    seeds: int,
    change: Callable[[Visible, int], Visible],
    planted: Planted,
    right: Sequence[str],
) -> AuditRow:
    """A row whose verdict must equal the unchanged input's: a seed whose verdict moved, or is
    wrong, counts once."""
    start = time.perf_counter()
    before = [verdict(answer, visible, seed) for seed in range(seeds)]
    after = [verdict(answer, change(visible, seed), seed) for seed in range(seeds)]
    return tally(
        INSTRUMENT, behaviour, planted, after, right, time.perf_counter() - start, before=before
    )


def _half(visible: Visible, first: bool) -> Visible:
    ordered = sorted(visible, key=lambda v: v[1].conversation_id)
    middle = len(ordered) // 2
    return ordered[:middle] if first else ordered[middle:]


def _memorizer_of(visible: Visible, share: float) -> Callable[[int], MemorizerAPI]:
    """`memorizer/recall` that has read the files of `visible` alone (`-M data=` a folder of
    them)."""
    folder = Path(tempfile.mkdtemp(prefix="audit-read-"))
    for source, _ in visible:
        shutil.copy(source, folder / Path(source).name)
    return lambda seed: MemorizerAPI("recall", share=share, seed=seed, data=str(folder))


def _negatives(visible: Visible, seeds: int) -> list[AuditRow]:
    never = _through(lambda s: MemorizerAPI("recall", share=0.0, seed=s))
    echo = _through(lambda s: MemorizerAPI("echo"))
    other = _through(_memorizer_of(_half(visible, True), 0.5))
    right = (NOT_SUSPECTED,)
    return [
        _row("random", "negative", RANDOM, visible, seeds, right),
        _row("echo", "negative", echo, visible, seeds, right),
        _row("never saw the texts", "negative", never, visible, seeds, right),
        _row(
            "memorizer of another data set", "negative", other, _half(visible, False), seeds, right
        ),
    ]


def _uninformative(visible: Visible, seeds: int) -> list[AuditRow]:
    constant = _through(lambda s: BaselineAPI("majority"))
    never = _through(lambda s: MemorizerAPI("recall", share=0.0, seed=s))

    def cut(instance: Instance, call: str, seed: int) -> tuple[str, bool]:
        return never(instance, call, seed)[0], True

    return [
        _row("constant (one answer)", "uninformative", constant, visible, seeds, ()),
        _row("empty", "uninformative", lambda i, c, s: ("", False), visible, seeds, ()),
        _row("truncated (every completion cut)", "uninformative", cut, visible, seeds, ()),
        _row("one conversation (random)", "uninformative", RANDOM, visible[:1], seeds, ()),
    ]


def _positives_and_metamorphic(visible: Visible, seeds: int) -> list[AuditRow]:
    memorizer = _through(lambda s: MemorizerAPI("recall", share=0.2, seed=s))
    other = _through(lambda s: MemorizerAPI("recall_other", share=0.2, seed=s))
    yes, no = (SUSPECTED,), (NOT_SUSPECTED,)
    return [
        _row("memorizer share 0.2", "positive", memorizer, visible, seeds, yes),
        _row("recall_other share 0.2", "positive", other, visible, seeds, yes),
        _metamorphic(
            "shuffled file order (memorizer 0.2)",
            memorizer,
            visible,
            seeds,
            _shuffled,
            "positive",
            yes,
        ),
        _metamorphic(
            "shuffled file order (random)", RANDOM, visible, seeds, _shuffled, "negative", no
        ),
        _metamorphic(
            "renamed conversations (memorizer 0.2)",
            memorizer,
            visible,
            seeds,
            _renamed,
            "positive",
            yes,
        ),
        _metamorphic(
            "renamed conversations (random)", RANDOM, visible, seeds, _renamed, "negative", no
        ),
    ]


RANDOM = _through(lambda s: BaselineAPI("random", seed=s))


def audit(seeds: int, small: bool) -> list[AuditRow]:
    """The probe's rows of the verdict audit: every behaviour over `seeds` seeds, on the bundled
    set (`small`: its first 4 conversations, SMALL_SEEDS seeds)."""
    visible = _visible(small)
    n = min(seeds, SMALL_SEEDS) if small else seeds
    return [
        *_negatives(visible, n),
        *_uninformative(visible, n),
        *_positives_and_metamorphic(visible, n),
    ]


if __name__ == "__main__":
    # The probe's rows alone (bench/audit/run.py runs every instrument's): SEEDS [--small].
    start = time.perf_counter()
    for row in audit(int(sys.argv[1]) if len(sys.argv) > 1 else 3, "--small" in sys.argv):
        print(row)
    print(f"{time.perf_counter() - start:.0f} s")
