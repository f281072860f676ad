"""The contamination probe's part of the verdict audit (bench/audit/run.py): its verdict on
models of planted behaviour over seeds, through the probe's own instances, prompts, scoring and
verdict (the pure method; bench/contamination/probe_power.py checks that path against
`inspect_ai.eval` of the task).

Behaviours, each with what is right for it (docs/contamination.md, "When it cannot decide"):

- negative (right: "not suspected"; "cannot decide" is a loss of power, never false): the random
  baseline, a model that echoes what it was shown, a model that never saw the texts
  (`memorizer/recall` at share 0), a memorizer of *another* data set (it has read one half of
  the bundled conversations and is probed on the other);
- structured negatives (issue 45; contamination_nulls.py): a pattern copier and a prompt echoer,
  on the bundled (varied) texts and on synthetic repetitive conversations, whose pieces predict
  their own rest; the pattern copier on the files-layout probe's text cut too;
- uninformative (right: only "cannot decide"): a model that answers one thing (the majority
  baseline), one that answers nothing, one whose every completion is cut at the length limit,
  the random baseline on one conversation;
- positive (right: "suspected"; power): `memorizer/recall` and `memorizer/recall_other` at
  share 0.2, on the bundled set and on the repetitive one (a memorizer that writes out the true
  rest of a repetitive text must still be caught), and `memorizer/files` on the layout text cut;
- metamorphic (the verdict must not change; a seed whose verdict is wrong or changed counts
  once): the data files in another order, the conversations renamed (new IDs: the cuts are drawn
  anew). A renamed model is not a row: no part of the method reads the model's name.

The layout rows read the text cut's sub-verdict alone (`-T methods=layout` would add the label
cut, on which a model that writes no label field cannot decide: docs/contamination.md).
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

from bench.audit.contamination_nulls import copier, echoer, write_repetitive
from bench.audit.rows import SMALL_SEEDS, AuditRow, Planted, tally
from inspect_ai.model import ModelAPI
from inspect_ai.scorer import SampleScore, Score

from attunebench_inspect._util.bundled import bundled_conversations_dir
from attunebench_inspect.data._codebook import load_codebook
from attunebench_inspect.data._load import load_conversations
from attunebench_inspect.data._split import VisibleConversation, split
from attunebench_inspect.instruments.contamination._completions import answer_key, score_instance
from attunebench_inspect.instruments.contamination._dataset import METHODS_KEY
from attunebench_inspect.instruments.contamination._instances import Instance, select
from attunebench_inspect.instruments.contamination._layout import (
    LAYOUT_INSTRUCTION,
    continuation,
    control_texts,
    layout_instances,
    layout_run,
)
from attunebench_inspect.instruments.contamination._memorizer import MemorizerAPI
from attunebench_inspect.instruments.contamination._prompts import general, guided
from attunebench_inspect.instruments.contamination._recall import published_texts
from attunebench_inspect.instruments.contamination._rules import (
    GUIDED,
    LAYOUT,
    NOT_SUSPECTED,
    SUSPECTED,
    InstanceResult,
)
from attunebench_inspect.instruments.contamination._scorer import (
    LAYOUT_RESULTS_KEY,
    RESULTS_KEY,
    contamination_verdict,
)
from attunebench_inspect.instruments.contamination._solver import (
    CONFIG,
    LAYOUT_CONFIG,
    LAYOUT_MAX_TOKENS,
    layout_request,
    request,
)
from attunebench_inspect.instruments.contamination._verdict import reading_of
from attunebench_inspect.providers._baselines import BaselineAPI

INSTRUMENT = "contamination"
Visible = list[tuple[str, VisibleConversation]]
Answer = Callable[[Instance, str, int], tuple[str, bool]]
"""A planted model: (instance, call, seed) -> (completion, cut at the length limit)."""
Continue = Callable[[str, int], str]
"""A planted model at the layout probe: (the document's start, seed) -> its continuation."""
REPETITIVE = "repetitive texts (synthetic)"
LAYOUT_ROW = "files layout, text cut"


def _visible(folder: Path, small: bool) -> Visible:
    loaded = load_conversations(folder, load_codebook()).conversations
    visible = [(c.source, split(c.conversation)[0]) for c in loaded]
    return visible[:4] if small else visible


def _through(make: Callable[[int], ModelAPI]) -> Answer:
    """A provider's answer to the probe's request, for a seed."""
    made: dict[int, ModelAPI] = {}

    def answer(instance: Instance, call: str, seed: int) -> tuple[str, bool]:
        if seed not in made:
            made[seed] = make(seed)
        messages = request(instance, call)  # type: ignore[arg-type]
        output = asyncio.run(made[seed].generate(messages, [], "none", CONFIG))
        return output.completion, False

    return answer


def _prompted(model: Callable[[str], str]) -> Answer:
    """A structured null that answers from the prompt alone (contamination_nulls.py)."""
    prompts = {GUIDED: guided, "general": general}
    return lambda instance, call, seed: (model(prompts[call](instance)), False)


def _through_layout(make: Callable[[int], ModelAPI]) -> Continue:
    """A provider's continuation of a layout call (the solver's request), for a seed."""
    made: dict[int, ModelAPI] = {}

    def answer(prefix: str, seed: int) -> str:
        if seed not in made:
            made[seed] = make(seed)
        output = asyncio.run(made[seed].generate(layout_request(prefix), [], "none", LAYOUT_CONFIG))
        return output.completion

    return answer


def _read(records: dict[str, list[dict[str, object]]], key: str, method: str) -> str:
    """The verdict the probe's metric reads from one sample score per conversation, handed to it
    in the files' order (the metric orders them itself)."""
    scores = [
        SampleScore(
            score=Score(value=0, metadata={key: found, METHODS_KEY: [method]}), sample_id=cid
        )
        for cid, found in records.items()
    ]
    metrics = contamination_verdict()(scores)
    assert isinstance(metrics, dict)
    return reading_of(metrics) or "no verdict"


def verdict(answer: Answer, visible: Visible, seed: int) -> str:
    """The guided probe's verdict on `visible` for a planted model."""
    texts = {conv.conversation_id: published_texts(conv) for _, conv in visible}
    records: dict[str, list[dict[str, object]]] = {c.conversation_id: [] for _, c in visible}
    for instance in select(visible, seed).instances:
        completions = [answer(instance, call, seed) for call in (GUIDED, "general")]
        (guided_text, guided_cut), (general_text, general_cut) = completions
        scored = score_instance(
            instance,
            texts[instance.conversation_id],
            guided_text,
            general_text,
            (guided_cut, general_cut),
        )
        records[instance.conversation_id].append({"key": instance.key, **asdict(scored.result())})
    return _read(records, RESULTS_KEY, GUIDED)


def layout_verdict(answer: Continue, visible: Visible, seed: int) -> str:
    """The layout probe's text-cut sub-verdict on `visible` for a planted model: each turn's
    document and its control continued and scored as the scorer scores them."""
    records: dict[str, list[dict[str, object]]] = {}
    for _, conv in visible:
        texts, control = published_texts(conv), control_texts(conv, seed)
        found = records.setdefault(conv.conversation_id, [])
        for layout in layout_instances(conv, seed):
            real = continuation(answer(layout.prefix, seed), layout.prefix)
            fake = continuation(answer(layout.control_prefix, seed), layout.control_prefix)
            result = InstanceResult(
                0.0,
                0.0,
                "none",
                "none",
                layout_run(real, layout.prefix, texts),
                layout_run(fake, layout.control_prefix, control),
                conv.conversation_id,
                answer_key(real),
                answer_key(fake),
            )
            found.append({"key": layout.key, **asdict(result)})
    return _read(records, LAYOUT_RESULTS_KEY, LAYOUT)


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
    read: Callable[[int], str],
    seeds: int,
    right: Sequence[str],
) -> AuditRow:
    start = time.perf_counter()
    said = [read(seed) for seed in range(seeds)]
    return tally(INSTRUMENT, behaviour, planted, said, right, time.perf_counter() - start)


def _guided_row(
    behaviour: str,
    planted: Planted,
    answer: Answer,
    visible: Visible,
    seeds: int,
    right: Sequence[str],
) -> AuditRow:
    return _row(behaviour, planted, lambda seed: verdict(answer, visible, seed), seeds, right)


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


def _memorizer_of(visible: Visible, share: float) -> Callable[[int], MemorizerAPI]:
    """`memorizer/recall` that has read the files of `visible` alone (`-M data=` a folder of
    them)."""
    folder = Path(tempfile.mkdtemp(prefix="audit-read-"))
    for source, _ in visible:
        shutil.copy(source, folder / Path(source).name)
    return lambda seed: MemorizerAPI("recall", share=share, seed=seed, data=str(folder))


def _half(visible: Visible, first: bool) -> Visible:
    ordered = sorted(visible, key=lambda v: v[1].conversation_id)
    middle = len(ordered) // 2
    return ordered[:middle] if first else ordered[middle:]


def _negatives(visible: Visible, seeds: int) -> list[AuditRow]:
    never = _through(lambda s: MemorizerAPI("recall", share=0.0, seed=s))
    echo = _through(lambda s: MemorizerAPI("echo"))
    other = _through(_memorizer_of(_half(visible, True), 0.5))
    right = (NOT_SUSPECTED,)
    return [
        _guided_row("random", "negative", RANDOM, visible, seeds, right),
        _guided_row("echo", "negative", echo, visible, seeds, right),
        _guided_row("never saw the texts", "negative", never, visible, seeds, right),
        _guided_row(
            "memorizer of another data set", "negative", other, _half(visible, False), seeds, right
        ),
    ]


def _structured(visible: Visible, repetitive: Visible, seeds: int) -> list[AuditRow]:
    """Issue 45's nulls: a pattern read as recall."""
    right = (NOT_SUSPECTED,)
    rows = [
        _guided_row(f"{name}, {shape}", "negative", _prompted(model), texts, seeds, right)
        for name, model in (("pattern copier", copier), ("prompt echoer", echoer))
        for shape, texts in (("varied texts", visible), (REPETITIVE, repetitive))
    ]
    rows.append(_guided_row(f"random, {REPETITIVE}", "negative", RANDOM, repetitive, seeds, right))
    for shape, texts in (("varied texts", visible), (REPETITIVE, repetitive)):
        rows.append(
            _row(
                f"{LAYOUT_ROW}: pattern copier, {shape}",
                "negative",
                lambda seed, texts=texts: layout_verdict(
                    lambda prefix, s: copier(f"{LAYOUT_INSTRUCTION}\n{prefix}", LAYOUT_MAX_TOKENS),
                    texts,
                    seed,
                ),
                seeds,
                right,
            )
        )
    return rows


def _uninformative(visible: Visible, seeds: int) -> list[AuditRow]:
    constant = _through(lambda s: BaselineAPI("majority"))
    never = _through(lambda s: MemorizerAPI("recall", share=0.0, seed=s))

    def cut(instance: Instance, call: str, seed: int) -> tuple[str, bool]:
        return never(instance, call, seed)[0], True

    def empty(instance: Instance, call: str, seed: int) -> tuple[str, bool]:
        return "", False

    return [
        _guided_row("constant (one answer)", "uninformative", constant, visible, seeds, ()),
        _guided_row("empty", "uninformative", empty, visible, seeds, ()),
        _guided_row("truncated (every completion cut)", "uninformative", cut, visible, seeds, ()),
        _guided_row("one conversation (random)", "uninformative", RANDOM, visible[:1], seeds, ()),
    ]


def _positives(visible: Visible, repetitive: Visible, folder: Path, seeds: int) -> list[AuditRow]:
    """Planted positives on the bundled set and on the repetitive one (read from `folder`)."""
    yes = (SUSPECTED,)

    def reader(kind: str, share: float, data: Path | None) -> Callable[[int], ModelAPI]:
        found = None if data is None else str(data)
        return lambda seed: MemorizerAPI(kind, share=share, seed=seed, data=found)

    rows = [
        _guided_row(
            f"{name} share 0.2" + (f", {REPETITIVE}" if data else ""),
            "positive",
            _through(reader(kind, 0.2, data)),
            texts,
            seeds,
            yes,
        )
        for texts, data in ((visible, None), (repetitive, folder))
        for name, kind in (("memorizer", "recall"), ("recall_other", "recall_other"))
    ]
    # It reads whole conversations: at 0.5 the small run's 4 hold some to read.
    files = _through_layout(reader("files", 0.5, folder))
    rows.append(
        _row(
            f"{LAYOUT_ROW}: memorizer/files share 0.5, {REPETITIVE}",
            "positive",
            lambda seed: layout_verdict(files, repetitive, seed),
            seeds,
            yes,
        )
    )
    return rows


def _metamorphics(visible: Visible, seeds: int) -> list[AuditRow]:
    memorizer = _through(lambda s: MemorizerAPI("recall", share=0.2, seed=s))
    yes, no = (SUSPECTED,), (NOT_SUSPECTED,)
    return [
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
    set and its repetitive copy (`small`: their first 4 conversations, SMALL_SEEDS seeds)."""
    n = min(seeds, SMALL_SEEDS) if small else seeds
    with tempfile.TemporaryDirectory(prefix="audit-repetitive-") as made:
        bundled = bundled_conversations_dir()
        visible = _visible(bundled, small)
        folder = write_repetitive(bundled, Path(made))
        repetitive = _visible(folder, small)
        return [
            *_negatives(visible, n),
            *_structured(visible, repetitive, n),
            *_uninformative(visible, n),
            *_positives(visible, repetitive, folder, n),
            *_metamorphics(visible, n),
        ]


if __name__ == "__main__":
    # The probe's rows alone (bench/audit/run.py runs every instrument's): SEEDS [--small].
    start = time.perf_counter()
    for row in audit(int(sys.argv[1]) if len(sys.argv) > 1 else 3, "--small" in sys.argv):
        print(row)
    print(f"{time.perf_counter() - start:.0f} s")
