"""The verdict audit of the stability instrument (docs/stability.md): every verdict on inputs of
planted behaviour over seeds, the uninformative inputs on which it must abstain, and the
metamorphic checks (renamed conversations and models, shuffled record order: no verdict moves).

Pairwise calls are made as the solver makes them: the three replies under labels 1-3 in the solver's
own order for each conversation, turn and epoch (`pairwise_labels`), comparisons between labels in
label order, read back through `pair_choices` as the report reads a log. Choosers, judges, reruns
and pilots are the generators of tests/instruments/stability/test_statistics.py and their kin. The
statistics run with the report's defaults (10,000 bootstrap resamples, seed 0).
"""

from __future__ import annotations

import random
import sys
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.audit.rows import SMALL_SEEDS, AuditRow, Planted, tally

from attunebench_inspect._util.bundled import bundled_conversations_dir
from attunebench_inspect.data import load_codebook
from attunebench_inspect.data._load import load_conversations
from attunebench_inspect.data._split import VisibleConversation, VisibleTurn, comparison_pair, split
from attunebench_inspect.instruments import stability as s
from attunebench_inspect.instruments.stability._plan import stated
from attunebench_inspect.instruments.stability._power import Variances, pilot_abstention
from attunebench_inspect.score._panel import RATING_DOMAIN
from attunebench_inspect.solve._identity import self_judge
from attunebench_inspect.solve._solver import pairwise_labels

INSTRUMENT = "stability"
Verdict = Callable[[int], str]
"""seed -> the verdict read on that seed's input."""


@dataclass(frozen=True)
class Call:
    """One pairwise call as the solver makes it: a turn's three replies under labels 1-3 in
    the solver's order, and every comparison the participant made on that turn."""

    turn: VisibleTurn
    labels: dict[str, str]
    """label -> source, in display order."""
    rng: random.Random

    def earlier(self, key: str) -> str:
        shown = list(self.labels.values())
        return min(comparison_pair(key), key=shown.index)


Chooser = Callable[[Call], dict[str, str]]
"""A call -> each comparison's key -> the source chosen."""


@cache
def bundled() -> tuple[VisibleConversation, ...]:
    """The bundled conversations' visible parts: their real turns, replies and comparisons
    (twelve a turn on average, every one of a call answered from one reading)."""
    loaded = load_conversations(bundled_conversations_dir(), load_codebook()).conversations
    return tuple(split(c.conversation)[0] for c in loaded)


def _by_length(call: Call, key: str, longer: bool) -> str:
    a, b = comparison_pair(key)
    size = {x: len(call.turn.response(x)) for x in (a, b)}  # type: ignore[arg-type]
    return max((a, b), key=size.__getitem__) if longer else min((a, b), key=size.__getitem__)


def longer(call: Call) -> dict[str, str]:
    """Reads only the content: the longer reply wins every comparison of the call (verbosity
    bias), blind to the order shown."""
    return {c.key: _by_length(call, c.key, True) for c in call.turn.comparisons}


def shorter(call: Call) -> dict[str, str]:
    return {c.key: _by_length(call, c.key, False) for c in call.turn.comparisons}


def per_question(call: Call) -> dict[str, str]:
    """A content rule of its own for each question: the longer reply for some questions, the
    shorter for the others, the human-written one first for a third (fixed per question)."""
    chosen = {}
    for c in call.turn.comparisons:
        rule = zlib.crc32(c.question_id.encode()) % 3
        pair = comparison_pair(c.key)
        chosen[c.key] = (
            ("human" if "human" in pair else pair[0])
            if rule == 2
            else _by_length(call, c.key, rule == 0)
        )
    return chosen


def coin(call: Call) -> dict[str, str]:
    return {c.key: call.rng.choice(comparison_pair(c.key)) for c in call.turn.comparisons}


def earlier(call: Call) -> dict[str, str]:
    """The majority baseline: the schema's first option, the earlier-shown reply."""
    return {c.key: call.earlier(c.key) for c in call.turn.comparisons}


def middle(call: Call) -> dict[str, str]:
    """Blind to content, drawn to the middle position where it is shown, else a coin."""
    pick = {}
    for c in call.turn.comparisons:
        pair = comparison_pair(c.key)
        pick[c.key] = call.labels["2"] if call.labels["2"] in pair else call.rng.choice(pair)
    return pick


def mixture(share: float, base: Chooser = longer, other: Chooser = earlier) -> Chooser:
    """`other`'s choice on a share of the comparisons, else `base`'s."""

    def choose(call: Call) -> dict[str, str]:
        first, second = base(call), other(call)
        return {k: second[k] if call.rng.random() < share else v for k, v in first.items()}

    return choose


def lapses(share: float, base: Chooser = longer, other: Chooser = earlier) -> Chooser:
    """`other` for every comparison of a share of the calls, else `base`: a bias that takes a
    whole call at once."""
    return lambda call: (other if call.rng.random() < share else base)(call)


def solver_choices(
    chooser: Chooser, *, conversations: int = 25, turns: int = 10, epochs: int = 2, seed: int = 0
) -> list[s.PairChoice]:
    """The bundled conversations' pairwise calls in the solver's order of each epoch (its
    `seed`), answered by `chooser`."""
    rng = random.Random(seed)
    result = []
    for conversation in bundled()[:conversations]:
        cid = conversation.conversation_id
        for turn in conversation.turns[:turns]:
            for epoch in range(1, epochs + 1):
                labels = dict(pairwise_labels(seed, cid, turn.turn_number, epoch))
                chosen = chooser(Call(turn, labels, rng))
                result += s.pair_choices(
                    cid, epoch, turn.turn_number, list(labels.values()), chosen
                )
    return result


def _row(
    verdict: str,
    behaviour: str,
    planted: Planted,
    read: Verdict,
    seeds: int,
    right: Sequence[str] = (),
) -> AuditRow:
    start = time.perf_counter()
    said = [read(seed) for seed in range(seeds)]
    return tally(
        f"{INSTRUMENT}: {verdict}", behaviour, planted, said, right, time.perf_counter() - start
    )


# --- position --------------------------------------------------------------------------------


def _bias(chooser: Chooser, **shape: int) -> Verdict:
    return lambda seed: s.position_bias(solver_choices(chooser, seed=seed, **shape)).verdict


def _consistency(chooser: Chooser, **shape: int) -> Verdict:
    return lambda seed: s.position_consistency(solver_choices(chooser, seed=seed, **shape)).verdict


CONTENT = {
    "the longer reply wins (one reading a call, twelve dependent answers)": longer,
    "the shorter reply wins (one reading a call)": shorter,
    "a content rule per question (longer, shorter or the human reply; one reading a call)": (
        per_question
    ),
}
"""Choosers that read only the content, every answer of a call from one reading: structured
nulls of position bias."""


def position_rows(seeds: int) -> list[AuditRow]:
    biased, blind = ["position-biased"], ["no position bias found"]
    chance = ["consistent only by chance"]
    return [
        _row("position bias", "always the earlier-shown reply (the majority baseline)",
             "positive", _bias(earlier), seeds, biased),
        _row("position bias", "the middle when shown, else a coin", "positive", _bias(middle),
             seeds, biased),
        *(
            _row("position bias", f"the earlier-shown reply on {share:.0%} of comparisons, else "
                 "the longer", "positive", _bias(mixture(share)), seeds, biased)
            for share in (0.05, 0.1, 0.2)
        ),
        *(
            _row("position bias", f"the earlier-shown reply for a whole call in {share:.0%} of "
                 "calls, else the longer", "positive", _bias(lapses(share)), seeds, biased)
            for share in (0.1, 0.2, 0.4)
        ),
        *(
            _row("position bias", behaviour, "negative", _bias(chooser), seeds, blind)
            for behaviour, chooser in CONTENT.items()
        ),
        _row("position bias", "flips a coin", "negative", _bias(coin), seeds, blind),
        _row("position bias", "one turn of one conversation (under 30 choices)",
             "uninformative", _bias(earlier, conversations=1, turns=1), seeds),
        _row("position bias", "every pairwise answer failed to parse (no choice)",
             "uninformative", lambda seed: s.position_bias([]).verdict, seeds),
        _row("position consistency", "the longer reply wins", "positive",
             _consistency(longer), seeds, ["follows content"]),
        *(
            _row("position consistency", f"the longer on {1 - share:.0%} of comparisons, else "
                 "a coin", "positive", _consistency(mixture(share, longer, coin)), seeds,
                 ["follows content"])
            for share in (0.75, 0.5, 0.25)
        ),
        _row("position consistency", "flips a coin", "negative", _consistency(coin), seeds,
             chance),
        _row("position consistency", "always the earlier-shown reply", "negative",
             _consistency(earlier), seeds, chance),
        _row("position consistency", "the middle when shown, else a coin", "negative",
             _consistency(middle), seeds, chance),
        _row("position consistency", "one epoch", "uninformative",
             _consistency(longer, epochs=1), seeds),
        _row("position consistency", "five conversations (under 10)", "uninformative",
             _consistency(longer, conversations=5), seeds),
    ]  # fmt: skip


# --- reruns and ranks ------------------------------------------------------------------------


def reruns(seed: int, between: float, rerun: float, conversations: int = 25, epochs: int = 2):
    """Per conversation its Composite in each epoch: a conversation effect (SD `between`) and
    rerun noise (SD `rerun`)."""
    rng = np.random.default_rng(seed)
    level = rng.normal(50, between, conversations)
    return {
        f"c{i}": list(x + rng.normal(0, rerun, epochs)) if rerun else [float(x)] * epochs
        for i, x in enumerate(level)
    }


def _retest(**shape: float) -> Verdict:
    """The test-retest reading's band (its first word), or the abstention."""

    def read(seed: int) -> str:
        reading = s.retest_reliability(reruns(seed, **shape)).reading  # type: ignore[arg-type]
        return reading if reading.startswith("cannot") else reading.split()[0]

    return read


def two_models(
    seed: int, shift: float, conversations: int = 40
) -> dict[str, dict[str, list[float]]]:
    """Two models over shared conversations (a shared difficulty, SD 10), 2 epochs each (rerun SD
    4); b is `shift` points better (tests/instruments/stability/test_statistics.py's
    `_two_models`)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(50, 10, size=conversations)
    return {
        model: {
            f"c{i}": list(d + offset + rng.normal(0, 4, size=2)) for i, d in enumerate(difficulty)
        }
        for model, offset in (("a", 0.0), ("b", shift))
    }


def _rank(make: Callable[[int], Mapping[str, Mapping[str, Sequence[float]]]]) -> Verdict:
    def read(seed: int) -> str:
        found = s.rank_stability(make(seed))
        return found.verdict(0, 1) if len(found.models) > 1 else str(found.reason)

    return read


def rerun_rows(seeds: int) -> list[AuditRow]:
    reliable = ["good", "excellent"]
    return [
        _row("test-retest", "conversations differ (SD 10), reruns barely (SD 3)", "positive",
             _retest(between=10, rerun=3), seeds, reliable),
        _row("test-retest", "deterministic reruns (a model that answers one thing per input)",
             "positive", _retest(between=10, rerun=0), seeds, ["excellent"]),
        _row("test-retest", "reruns differ (SD 10) more than conversations (SD 3)", "negative",
             _retest(between=3, rerun=10), seeds, ["poor"]),
        _row("test-retest", "one epoch", "uninformative", _retest(between=10, rerun=3, epochs=1),
             seeds),
        _row("test-retest", "three conversations (under 5)", "uninformative",
             _retest(between=10, rerun=3, conversations=3), seeds),
        _row("test-retest", "every Composite the same", "uninformative",
             _retest(between=0, rerun=0), seeds),
        *(
            _row("rank stability", f"two models {shift:g} point(s) apart, 40 conversations",
                 "positive", _rank(lambda seed, shift=shift: two_models(seed, shift)), seeds,
                 ["settled"])
            for shift in (1.0, 2.0, 3.0)
        ),
        _row("rank stability", "two models of one true Composite", "negative",
             _rank(lambda seed: two_models(seed, 0.0)), seeds, ["not settled"]),
        _row("rank stability", "two models 3 points apart, five conversations (under 10)",
             "uninformative", _rank(lambda seed: two_models(seed, 3.0, 5)), seeds),
        _row("rank stability", "one model", "uninformative",
             _rank(lambda seed: {"a": two_models(seed, 0.0)["a"]}), seeds),
        _row("rank stability", "two copies of one run (a tie)", "uninformative",
             _rank(lambda seed: dict.fromkeys(("a", "b"), two_models(seed, 0.0)["a"])), seeds),
    ]  # fmt: skip


# --- the judge panel ---------------------------------------------------------------------------


def panel(seed: int, agree: float, drafts: int = 120, judges: int = 2) -> list[list[int | None]]:
    """Judges of 1-7 ratings: each rates a draft's quality (uniform 1-7) with probability
    `agree`, else at random; 5 drafts a conversation."""
    rng = random.Random(seed)
    quality = [rng.randint(1, 7) for _ in range(drafts)]
    return [
        [q if rng.random() < agree else rng.randint(1, 7) for q in quality] for _ in range(judges)
    ]


def _alpha(agree: float, constant: bool = False, **shape: int) -> Verdict:
    def read(seed: int) -> str:
        data = panel(seed, agree, **shape)
        if constant:
            data = [[5] * len(row) for row in data]
        clusters = [f"c{u // 5:03d}" for u in range(len(data[0]))]
        return s.judge_agreement(data, "ordinal", RATING_DOMAIN, clusters=clusters).reading

    return read


def _collapse(share: float, drafts: int = 60, one_draft: bool = False) -> Verdict:
    """A judge that rates 5 with probability `share`, else at random, on `drafts` drafts
    (one text for all of them with `one_draft`)."""

    def read(seed: int) -> str:
        rng = random.Random(seed)
        ratings = [5 if rng.random() < share else rng.randint(1, 7) for _ in range(drafts)]
        texts = ["d"] * drafts if one_draft else [f"d{i}" for i in range(drafts)]
        return s.judge_profile(ratings, texts).verdict  # type: ignore[arg-type]

    return read


RELATED = [
    ("openai/gpt-4o", "openai/gpt-4o-2024-08-06"),
    ("openai/gpt-4o", "openai/gpt-4o-mini"),
    ("openai/ft:gpt-4o-mini-2024-07-18:org::abc123", "openai/gpt-4o-mini"),
    ("anthropic/claude-opus-4-6", "anthropic/claude-sonnet-4-5"),
    ("openrouter/google/gemini-2.5-pro", "google/gemini-2.0-flash"),
    ("bedrock/us.anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic/claude-3-5-sonnet"),
    ("mistral/ft:open-mistral-7b:587a6b29:20240514:7e773925", "mistral/mistral-large-latest"),
]
UNRELATED = [
    ("openai/gpt-4o", "openai/o3"),
    ("openai/gpt-4o", "anthropic/claude-opus-4-6"),
    ("openai/ft:gpt-4o-mini-2024-07-18:org::abc123", "anthropic/claude-opus-4-6"),
    ("google/gemini-2.5-pro", "openai/gpt-4.1"),
    ("attunebench/random", "openai/gpt-4o"),
]


def _relation(pairs: Sequence[tuple[str, str]]) -> Verdict:
    return lambda i: self_judge(*pairs[i]) or "not related"


def judge_rows(seeds: int) -> list[AuditRow]:
    reliable, related = ["reliable"], ["same model", "same family"]
    return [
        _row("judge agreement", "two judges who read the draft 95% of the time", "positive",
             _alpha(0.95), seeds, reliable),
        _row("judge agreement", "two judges who answer at random", "negative", _alpha(0.0),
             seeds, ["unreliable"]),
        _row("judge agreement", "two judges who always rate 5", "uninformative",
             _alpha(0.0, constant=True), seeds),
        _row("judge agreement", "one judge", "uninformative", _alpha(0.95, judges=1), seeds),
        _row("judge agreement", "ten drafts (under 20)", "uninformative", _alpha(0.95, drafts=10),
             seeds),
        _row("judge agreement", "four conversations of five drafts (under 10)",
             "uninformative", _alpha(0.95, drafts=20), seeds),
        _row("judge collapse", "rates 5 on 95% of varying drafts", "positive", _collapse(0.95),
             seeds, ["collapsed"]),
        _row("judge collapse", "rates at random", "negative", _collapse(0.0), seeds,
             ["not collapsed"]),
        _row("judge collapse", "rates 5 on one fixed draft (a model that answers one thing)",
             "uninformative", _collapse(0.95, one_draft=True), seeds),
        _row("judge collapse", "ten rated drafts (under 20)", "uninformative",
             _collapse(0.95, drafts=10), seeds),
        _row("self-judging", "a judge of the evaluated model's family (fine-tunes included)",
             "positive", _relation(RELATED), len(RELATED), related),
        _row("self-judging", "a judge of another family or maker", "negative",
             _relation(UNRELATED), len(UNRELATED), ["not related"]),
    ]  # fmt: skip


# --- the plan ----------------------------------------------------------------------------------


def _pilot(**shape: float) -> Verdict:
    """A pilot of two models (`two_models`, 2 epochs): "conversations needed" where the plan can
    be read, else its abstention."""

    def read(seed: int) -> str:
        conversations = int(shape.get("conversations", 40))
        a, b = two_models(seed, 2.0, conversations).values()
        if shape.get("epochs") == 1:
            a, b = ({c: v[:1] for c, v in m.items()} for m in (a, b))
        if shape.get("identical"):
            a = b = {c: [50.0, 50.0] for c in a}
        if shape.get("twice"):
            b = a
        return pilot_abstention(a, b) or "conversations needed"

    return read


def _stated(scale: float) -> Verdict:
    """Stated variances of a seeded size times `scale` (the attack's 1e-12)."""

    def read(seed: int) -> str:
        size = scale * (1 + random.Random(seed).random())
        return stated(Variances(size, size, size)).abstention or "conversations needed"

    return read


def plan_rows(seeds: int) -> list[AuditRow]:
    return [
        _row("plan", "a pilot of 40 conversations x 2 epochs", "positive", _pilot(), seeds,
             ["conversations needed"]),
        _row("plan", "a pilot of one epoch", "uninformative", _pilot(epochs=1), seeds),
        _row("plan", "a pilot of five conversations (under 10)", "uninformative",
             _pilot(conversations=5), seeds),
        _row("plan", "a pilot of two models that answer one thing (no variance)",
             "uninformative", _pilot(identical=True), seeds),
        _row("plan", "one run given as both models", "uninformative", _pilot(twice=True), seeds),
        _row("plan", "stated variances of 1-2 x 1e-12 (near zero)", "uninformative",
             _stated(1e-12), seeds),
    ]  # fmt: skip


# --- metamorphic: renaming and reordering move no verdict ------------------------------------


def _renamed(choices: Sequence[s.PairChoice], seed: int) -> list[s.PairChoice]:
    """The same choices under other conversation names, in another order."""
    rng = random.Random(f"rename/{seed}")
    names = {c.conversation for c in choices}
    new = {name: f"x{rng.random():.12f}" for name in sorted(names)}
    moved = [
        s.PairChoice(new[c.conversation], c.epoch, c.turn, c.comparison, c.earlier, c.later,
                     c.positions, c.chosen)
        for c in choices
    ]  # fmt: skip
    rng.shuffle(moved)
    return moved


def _unmoved(seed: int) -> str:
    """Every verdict of one input, then of the same input renamed and reordered: the same?"""
    choices = solver_choices(mixture(0.5, longer, coin), seed=seed)
    models = two_models(seed, 3.0)
    renamed_models = {
        f"model-{m}": {f"y{c}": v for c, v in per.items()} for m, per in models.items()
    }

    def verdicts(
        found: Sequence[s.PairChoice], ranked: Mapping[str, Mapping[str, list[float]]]
    ) -> list[str]:
        return [
            s.position_bias(found).verdict,
            s.position_consistency(found).verdict,
            s.retest_reliability(next(iter(ranked.values()))).reading,
            s.rank_stability(ranked).verdict(0, 1),
        ]

    same = verdicts(choices, models) == verdicts(_renamed(choices, seed), renamed_models)
    return "unchanged" if same else "changed"


def metamorphic_rows(seeds: int) -> list[AuditRow]:
    return [
        _row("every verdict", "renamed conversations and models, records reordered",
             "negative", _unmoved, seeds, ["unchanged"]),
    ]  # fmt: skip


def audit(seeds: int, small: bool) -> list[AuditRow]:
    """Every stability verdict on every planted behaviour, over `seeds` seeds (SMALL_SEEDS with
    `small`)."""
    n = min(seeds, SMALL_SEEDS) if small else seeds
    return [*position_rows(n), *rerun_rows(n), *judge_rows(n), *plan_rows(n),
            *metamorphic_rows(n)]  # fmt: skip
