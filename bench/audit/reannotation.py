"""The verdict audit of the third-party labels (docs/third-party.md): the reviewer's test, its
information condition and the chance-corrected agreement, on annotators and models of planted
behaviour, over seeds.

A world is the bundled conversations and their participants' own labels
(tests/third_party_world.py).
Each seed draws six models whose three label tasks rank them independently (the planted shares of
tests/third_party_world.py, `planted_models`), each also tracking a generic reading of every
conversation to its own degree, and annotators of one behaviour. A model's task value in a
conversation is its reading scored against the labels by the label field's own metric (the
agreement's `fields`, the metrics the scorers use): against the participant's labels and against
the annotators' consensus (`consensus`), as `rescore_pair` scores a stored walk. Then the
information condition (`task_information`) and the reviewer's test (`reviewers_test`) read it,
with the report's rules and 2,000 bootstrap resamples. The end-to-end path (real offline runs,
answer files, `attunebench report --third-party`) is tests/instruments/reannotation/.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.audit.rows import SMALL_SEEDS, AuditRow, Planted, tally
from tests.third_party_world import (
    GENERIC_SHARES,
    LABEL_TASKS,
    PERMUTATIONS,
    World,
    random_reading,
    reading,
)

from attunebench_inspect._util.verdict import CANNOT_DECIDE, cannot_decide, is_abstention
from attunebench_inspect.data._codebook import Codebook
from attunebench_inspect.data._split import BinaryTruth, GroundTruth, TurnTruth, comparison_pair
from attunebench_inspect.instruments.reannotation._agreement import (
    agreement,
    fields,
    task_information,
)
from attunebench_inspect.instruments.reannotation._consensus import consensus
from attunebench_inspect.instruments.reannotation._labels import LabelSet
from attunebench_inspect.instruments.reannotation._separability import (
    DEPENDS,
    HOLDS,
    SeparabilityTest,
    reviewers_test,
)
from attunebench_inspect.instruments.reannotation._tasks import TASKS, TaskScores
from attunebench_inspect.solve._solver import pairwise_labels
from attunebench_inspect.tools.report._analyses import FEW_CONVERSATIONS

INSTRUMENT = "reannotation"
RESAMPLES = 2000
Reader = Callable[["Draw", str, str], GroundTruth]
"""(the seed's draw, conversation id, annotator name) -> the annotator's reading."""


@dataclass(frozen=True)
class Draw:
    """One seed of a world: its generic reading of every conversation."""

    world: World
    seed: int
    generic: dict[str, GroundTruth]
    cache: dict[tuple[str, str, str], tuple[GroundTruth, list[float]]] = field(default_factory=dict)
    """(model, its planted behaviour, conversation) -> its reading and task values against the
    participant's labels: the same for every annotator of the seed."""

    @property
    def codebook(self) -> Codebook:
        return self.world.codebook


def draw(world: World, seed: int) -> Draw:
    generic = {
        c: random_reading(world.truth[c], world.visible[c], world.codebook, f"generic/{seed}")
        for c in world.visible
    }
    return Draw(world, seed, generic)


# --- annotators of planted behaviour ---------------------------------------------------------


def _noise(d: Draw, cid: str, name: str) -> GroundTruth:
    return random_reading(d.world.truth[cid], d.world.visible[cid], d.codebook, f"{name}/{d.seed}")


def randomly(d: Draw, cid: str, name: str) -> GroundTruth:
    """Answers every item uniformly at random, knowing nothing of the conversation."""
    return _noise(d, cid, name)


def copying(d: Draw, cid: str, name: str) -> GroundTruth:
    """Copies the participant's own labels (a leak, or a participant re-labelling)."""
    return d.world.truth[cid]


def shares(p_self: float, p_generic: float) -> Reader:
    """Gives the participant's label on a share `p_self` of items, else the generic reading's on
    a share `p_generic`, else a random answer."""
    tasks = (*LABEL_TASKS, "post")

    def read(d: Draw, cid: str, name: str) -> GroundTruth:
        return reading(
            d.world.truth[cid],
            d.generic[cid],
            _noise(d, cid, name),
            dict.fromkeys(tasks, p_self),
            dict.fromkeys(tasks, p_generic),
            crn=f"{name}/{d.seed}",
        )

    return read


_SOURCE_ORDER = ("human", "original", "alternate")


def _constant(
    truth: GroundTruth, codebook: Codebook, pick: Callable[[str, int], str]
) -> GroundTruth:
    """The same answer to every item of every conversation; `pick(key, turn)` a comparison's
    winner."""
    q3 = codebook.q3_options[len(codebook.q3_options) // 2]
    turns = [
        TurnTruth(
            turn_number=t.turn_number,
            mood_shift={},
            binary={q: BinaryTruth(observed="yes", preferred="yes") for q in t.binary},
            pairwise={k: pick(k, t.turn_number) for k in t.pairwise},
        )
        for t in truth.turns
    ]
    return truth.model_copy(
        update={
            "turns": turns,
            "post_panas": dict.fromkeys(truth.post_panas, 4),
            "four_branch": dict.fromkeys(truth.four_branch, 4),
            "q1_looking_for": [codebook.q1_options[0]],
            "q2_emotion_clarity": codebook.q2_options[0],
            "q3_model_fit": q3,
            "q3_follow_up": [codebook.follow_up_options[0]]
            if q3 in codebook.q3_follow_up_when
            else [],
        }
    )


def constant(d: Draw, cid: str, name: str) -> GroundTruth:
    """The same answer to every question: no shift, yes, 4, the first option, and in a pairwise
    comparison always the same source where it is shown (human, then original)."""

    def pick(key: str, turn: int) -> str:
        pair = comparison_pair(key)
        return next(s for s in _SOURCE_ORDER if s in pair)

    return _constant(d.world.truth[cid], d.codebook, pick)


def position_constant(d: Draw, cid: str, name: str) -> GroundTruth:
    """As `constant`, but in a pairwise comparison always the reply the page shows earlier."""
    truth = d.world.truth[cid]

    def pick(key: str, turn: int) -> str:
        shown = list(pairwise_labels(0, truth.conversation_id, turn).values())
        return min(comparison_pair(key), key=shown.index)

    return _constant(truth, d.codebook, pick)


# --- base-rate annotators: the population's labels, nothing of the person ----------------------


Match = Callable[[str, int], tuple[object, ...]]
"""(an item's key, its turn number) -> what a donor's item must share with it."""


def _donors(d: Draw, cid: str) -> list[tuple[int, TurnTruth]]:
    """Every turn of the other conversations, with its turn number."""
    others = (truth for c, truth in d.world.truth.items() if c != cid)
    return [(t.turn_number, t) for truth in others for t in truth.turns]


def base_rate(match: Match, name: str) -> Reader:
    """Copies every label from other conversations: each item's answer that of a random other
    conversation's item that `match`es it (the same question, the same pair, the same turn
    number...; the whole item's key where none does), the post-conversation answers those of
    one other conversation. Its answers follow the population's base rates and carry nothing
    of the person."""

    def read(d: Draw, cid: str, reader: str) -> GroundTruth:
        rng = random.Random(f"{name}/{reader}/{d.seed}/{cid}")
        truth, donors = d.world.truth[cid], _donors(d, cid)

        def pick(found: list[Any], fallback: list[Any], alone: Sequence[Any] = ()) -> Any:
            # `alone`: an item no other conversation has (a coin between its answers).
            return rng.choice(found or fallback or list(alone))

        turns = []
        for t in truth.turns:
            n = t.turn_number
            mood = pick(
                [u.mood_shift for m, u in donors if match("mood", m) == match("mood", n)],
                [u.mood_shift for _, u in donors],
            )
            binary = {}
            for q, b in t.binary.items():
                same = [u.binary[q] for m, u in donors if q in u.binary]
                x = pick(
                    [
                        u.binary[q]
                        for m, u in donors
                        if q in u.binary and match(q, m) == match(q, n)
                    ],
                    same,
                    [BinaryTruth(observed=x, preferred=x) for x in ("yes", "no")],
                )
                binary[q] = BinaryTruth(
                    observed="na" if b.observed == "na" else x.observed,
                    preferred="na" if b.preferred == "na" else x.preferred,
                )
            pairwise = {}
            for k in t.pairwise:
                pair = comparison_pair(k)
                found = [
                    w
                    for m, u in donors
                    for key, w in u.pairwise.items()
                    if comparison_pair(key) == pair and match(key, m) == match(k, n)
                ]
                same = [u.pairwise[k] for _, u in donors if k in u.pairwise]
                pairwise[k] = pick(found, same, pair)
            turns.append(
                TurnTruth(turn_number=n, mood_shift=mood, binary=binary, pairwise=pairwise)
            )  # type: ignore[arg-type]
        other = d.world.truth[rng.choice(sorted(c for c in d.world.truth if c != cid))]
        return other.model_copy(
            update={"conversation_id": cid, "turns": turns, "pre_panas": truth.pre_panas,
                    "om_model": truth.om_model}
        )  # fmt: skip

    return read


def _question(key: str) -> str:
    return key.split(":", 1)[0] if ":" in key else key


BASE_RATES: dict[str, Reader] = {
    "per question": base_rate(lambda key, turn: (_question(key),), "per question"),
    "per pair": base_rate(lambda key, turn: (), "per pair"),
    "per turn number": base_rate(lambda key, turn: (_question(key), turn), "per turn number"),
}
"""Base-rate annotators: a comparison's winner from the same question and pair (per question),
from any comparison of the same pair (per pair), or from the same question on the same turn
number (per turn number; every other label likewise)."""


def permuted_pairwise(d: Draw, cid: str, name: str) -> GroundTruth:
    """Gives the participant's label on 80% of items, but every pairwise winner from other
    conversations (the same question and pair): informative on every field but the winners."""
    faithful = shares(0.8, 0.0)(d, cid, name)
    copied = BASE_RATES["per question"](d, cid, name)
    turns = [
        t.model_copy(update={"pairwise": c.pairwise})
        for t, c in zip(faithful.turns, copied.turns, strict=True)
    ]
    return faithful.model_copy(update={"turns": turns})


# --- models of planted behaviour, scored against both label sets -----------------------------


@dataclass(frozen=True)
class Model:
    """Per label task, the share of items answered with the participant's label and with the
    generic reading's; the judge's rating of its drafts (judged response quality, 1-7)."""

    p_self: dict[str, float]
    p_generic: dict[str, float]
    rating: int
    tag: str
    """Seeds the model's own noise (kept when the model is renamed)."""


def independent_models() -> dict[str, Model]:
    """Six models whose three label tasks and judged quality rank them independently (every
    pair of rankings within |rho| 0.26), each tracking the generic reading to its own degree
    (tests/third_party_world.py's `planted_models`)."""
    return {
        f"m{i}": Model(
            {t: 0.1 + 0.12 * PERMUTATIONS[k][i] for k, t in enumerate(LABEL_TASKS)},
            dict.fromkeys(LABEL_TASKS, GENERIC_SHARES[PERMUTATIONS[4][i]]),
            1 + PERMUTATIONS[3][i],
            f"m{i}",
        )
        for i in range(6)
    }


def _task_values(d: Draw, model: GroundTruth, labels: GroundTruth, rating: int) -> list[float]:
    """A model's reading scored against one label set, per task of TASKS (preference
    prediction averages the binary HP accuracy and the pairwise accuracy, as TASKS does; judged
    response quality is the judge's planted rating, the same under both label sets)."""
    raw = {f.name: f.raw for f in fields(d.codebook)}
    preference = np.nanmean(
        [raw["binary_preferred"](model, labels), raw["pairwise"](model, labels)]
    )
    return [
        raw["mood_shift"](model, labels),
        raw["binary_observed"](model, labels),
        float(preference),
        (rating - 1) / 6,
    ]


def _model_reading(d: Draw, planted: Model, cid: str) -> GroundTruth:
    """What a planted model answers about one conversation (the models share their draws)."""
    return reading(
        d.world.truth[cid],
        d.generic[cid],
        _noise(d, cid, f"model-{planted.tag}"),
        planted.p_self,
        planted.p_generic,
        crn=f"models/{d.seed}",
    )


def task_scores(
    d: Draw,
    models: Mapping[str, Model],
    third: Mapping[str, GroundTruth],
    names: Mapping[str, str],
) -> TaskScores:
    """Every model's task values against the participants' labels and against `third` (the
    consensus of each conversation), on the conversations `third` labels, in the order of their
    `names` (the conversations as the report would name them)."""
    ids = sorted(third, key=names.__getitem__)
    own = np.zeros((len(models), len(TASKS), len(ids)))
    other = np.zeros_like(own)
    for i, planted in enumerate(models.values()):
        for k, cid in enumerate(ids):
            key = (repr(planted), cid)
            if key not in d.cache:
                said = _model_reading(d, planted, cid)
                d.cache[key] = (said, _task_values(d, said, d.world.truth[cid], planted.rating))
            said, values = d.cache[key]
            own[i, :, k] = values
            other[i, :, k] = _task_values(d, said, third[cid], planted.rating)
    return TaskScores(tuple(models), tuple(TASKS), tuple(names[c] for c in ids), own, other)


# --- a study: annotators, consensus, the information condition, the test ----------------------


@dataclass(frozen=True)
class Study:
    test: SeparabilityTest
    label_sets: list[LabelSet]


def study(
    d: Draw,
    readers: Mapping[str, Reader],
    models: Mapping[str, Model],
    conversations: Sequence[str] | None = None,
    names: Mapping[str, str] | None = None,
) -> Study:
    """The annotators' label sets of the conversations, their consensus, and the reviewer's
    test with its information condition, as the report reads them. `names`: what each
    conversation is called (the same by default), which orders the bootstrap's rows."""
    ids = sorted(conversations if conversations is not None else d.world.visible)
    called = dict(names) if names is not None else {c: c for c in ids}
    sets = [
        LabelSet(called[cid], name, read(d, cid, name), f"{name}.json", shuffle_seed=0)
        for name, read in readers.items()
        for cid in ids
    ]
    agreed = {
        cid: consensus([s for s in sets if s.conversation_id == called[cid]], d.codebook).labels
        for cid in ids
    }
    truths = {called[cid]: d.world.truth[cid] for cid in ids}
    information = task_information(
        truths, list(agreed.values()), d.codebook, resamples=RESAMPLES, seed=0
    )
    scores = task_scores(d, models, {c: s.truth for c, s in agreed.items()}, called)
    return Study(reviewers_test(scores, information, resamples=RESAMPLES, seed=0), sets)


# --- the audit's rows ----------------------------------------------------------------------------


def _world() -> World:
    from attunebench_inspect.data import load_codebook

    return World(load_codebook())


SEPARABILITY = f"{INSTRUMENT}: the reviewer's test"
INFORMATION = f"{INSTRUMENT}: the information condition"
KAPPA = f"{INSTRUMENT}: kappa within items"
PREFERENCE = f"{INSTRUMENT}: the information condition on preference prediction"
ABOVE, SOME, AT_CHANCE = "above chance on every task", "above chance on some tasks", "at chance"


def _informed(found: Study) -> str:
    if found.test.conversations < FEW_CONVERSATIONS:
        return cannot_decide(f"{found.test.conversations} conversations; the interval needs 10")
    informative = [i.informative for i in found.test.information.values()]
    return ABOVE if all(informative) else SOME if any(informative) else AT_CHANCE


def _kappas(d: Draw, found: Study) -> str:
    """Whether every field's kappa of the (single) annotator is exactly 0, or exactly 1."""
    rows = agreement(
        {c: d.world.truth[c] for c in d.world.visible}, found.label_sets, d.codebook,
        resamples=RESAMPLES,
    )  # fmt: skip
    kappas = {r.field: r.corrected.estimate for r in rows if r.coefficient is not None}
    for value, said in ((0.0, "kappa 0 on every field"), (1.0, "kappa 1 on every field")):
        if all(abs(k - value) < 1e-9 for k in kappas.values()):
            return said
    off = ", ".join(f"{f} {k:.3f}" for f, k in kappas.items() if abs(k) >= 1e-9)
    return f"kappa not 0 nor 1: {off}"


NO_FIELD_ABOVE = "no field's interval above 0"


def _above_zero(d: Draw, found: Study) -> str:
    """The fields whose kappa's 95% interval lies above 0 for the (single) annotator: none, for
    a rater who carries nothing of the person (each field at the one-sided 2.5% the information
    condition reads)."""
    rows = agreement(
        {c: d.world.truth[c] for c in d.world.visible}, found.label_sets, d.codebook,
        resamples=RESAMPLES,
    )  # fmt: skip
    above = sorted(r.field for r in rows if r.coefficient is not None and r.corrected.low > 0)
    return f"above 0 on {', '.join(above)}" if above else NO_FIELD_ABOVE


def _preference(found: Study) -> str:
    """The information condition on preference prediction alone."""
    task = found.test.information.get("preference_prediction")
    return "above chance" if task is not None and task.informative else "at chance"


@dataclass(frozen=True)
class Case:
    behaviour: str
    readers: dict[str, Reader]
    models: int = 6
    conversations: int | None = None


CASES: dict[str, Case] = {
    "random": Case("three annotators who answer at random", {f"r{j}": randomly for j in range(3)}),
    "constant": Case("one annotator who gives the same answer to everything", {"c": constant}),
    "position": Case(
        "one annotator who always picks the earlier-shown reply (else constant)",
        {"p": position_constant},
    ),
    "generic": Case(
        "three annotators who give a generic reading only (nothing of the person)",
        {f"g{j}": shares(0.0, 0.9) for j in range(3)},
    ),
    "faithful": Case(
        "three annotators who give the participant's label on 80% of items",
        {f"a{j}": shares(0.8, 0.0) for j in range(3)},
    ),
    "copying": Case("one annotator who copies the participant's labels", {"copy": copying}),
    "mixed": Case(
        "three annotators who read the person on 30% of items, else mostly a generic reading "
        "the models track",
        {f"x{j}": shares(0.3, 0.7) for j in range(3)},
    ),
    **{
        f"base rate {how}": Case(
            f"one annotator who copies every label from other conversations ({how}: "
            "the population's base rates)",
            {"b": reader},
        )
        for how, reader in BASE_RATES.items()
    },
    "permuted": Case(
        "three annotators who give the participant's label on 80% of items but every pairwise "
        "winner from other conversations (the same question and pair)",
        {f"w{j}": permuted_pairwise for j in range(3)},
    ),
    "two models": Case(
        "two models, faithful annotators", {f"a{j}": shares(0.8, 0.0) for j in range(3)}, models=2
    ),
    "five conversations": Case(
        "five conversations (under 10), faithful annotators",
        {f"a{j}": shares(0.8, 0.0) for j in range(3)},
        conversations=5,
    ),
}
"""Planted (reviewer's test, information condition): the right readings of each case."""
PLANTED: dict[str, tuple[Planted, list[str], Planted, list[str]]] = {
    "random": ("uninformative", [], "negative", [AT_CHANCE]),
    "constant": ("uninformative", [], "negative", [AT_CHANCE]),
    "position": ("uninformative", [], "negative", [AT_CHANCE]),
    "generic": ("uninformative", [], "negative", [AT_CHANCE]),
    "faithful": ("positive", [HOLDS], "positive", [ABOVE]),
    "copying": ("positive", [HOLDS], "positive", [ABOVE]),
    "mixed": ("positive", [DEPENDS], "positive", [ABOVE]),
    **{f"base rate {how}": ("uninformative", [], "negative", [AT_CHANCE]) for how in BASE_RATES},
    "permuted": ("uninformative", [], "negative", [SOME]),
    "two models": ("uninformative", [], "positive", [ABOVE]),
    "five conversations": ("uninformative", [], "uninformative", []),
}


def _run_case(world: World, case: Case, seeds: int) -> tuple[list[Study], list[Draw], float]:
    start = time.perf_counter()
    models = dict(list(independent_models().items())[: case.models])
    ids = sorted(world.visible)[: case.conversations] if case.conversations else None
    draws = [draw(world, seed) for seed in range(seeds)]
    studies = [study(d, case.readers, models, ids) for d in draws]
    return studies, draws, time.perf_counter() - start


def separability_rows(world: World, seeds: int) -> list[AuditRow]:
    rows = []
    for name, case in CASES.items():
        studies, draws, seconds = _run_case(world, case, seeds)
        planted, right, informed, informed_right = PLANTED[name]
        rows.append(
            tally(SEPARABILITY, case.behaviour, planted, [f.test.verdict for f in studies], right,
                  seconds)
        )  # fmt: skip
        rows.append(
            tally(INFORMATION, case.behaviour, informed, [_informed(f) for f in studies],
                  informed_right)
        )  # fmt: skip
        if name == "permuted":
            rows.append(
                tally(PREFERENCE, case.behaviour, "negative", [_preference(f) for f in studies],
                      ["at chance"])
            )  # fmt: skip
        if name.startswith("base rate"):
            said = [_above_zero(d, f) for d, f in zip(draws, studies, strict=True)]
            rows.append(tally(KAPPA, case.behaviour, "negative", said, [NO_FIELD_ABOVE]))
        if name in ("constant", "position", "copying"):
            said = [_kappas(d, f) for d, f in zip(draws, studies, strict=True)]
            right_kappa = (
                "kappa 1 on every field" if name == "copying" else "kappa 0 on every field"
            )
            rows.append(
                tally(KAPPA, case.behaviour, "positive" if name == "copying" else "negative",
                      said, [right_kappa])
            )  # fmt: skip
    return rows


def _word(verdict: str) -> str:
    """The verdict's word: an abstention's reason carries figures the draws move."""
    return CANNOT_DECIDE if is_abstention(verdict) else verdict


def _unmoved(world: World, case: Case, seeds: int) -> list[str]:
    """The test on the same labels with conversations and models renamed (another order of the
    bootstrap's rows) and the annotators' files in another order: the same verdict?"""
    said = []
    for seed in range(seeds):
        d = draw(world, seed)
        models = independent_models()
        found = study(d, case.readers, models)
        rng = random.Random(f"rename/{seed}")
        names = {c: f"z{rng.random():.12f}" for c in sorted(world.visible)}
        shuffled = dict(rng.sample(sorted(case.readers.items()), len(case.readers)))
        renamed = {f"model-{rng.random():.6f}": m for m in models.values()}
        again = study(d, shuffled, renamed, names=names)
        same = _word(again.test.verdict) == _word(found.test.verdict)
        said.append("unchanged" if same else "changed")
    return said


def audit(seeds: int, small: bool) -> list[AuditRow]:
    """Every planted case over `seeds` seeds (SMALL_SEEDS with `small`), and the metamorphic
    rows."""
    n = min(seeds, SMALL_SEEDS) if small else seeds
    world = _world()
    rows = separability_rows(world, n)
    # On inputs away from the rule's thresholds: near one, a verdict moves with the bootstrap's
    # draws, and renaming conversations reorders the rows they draw (docs/third-party.md).
    for name in ("faithful", "random"):
        start = time.perf_counter()
        said = _unmoved(world, CASES[name], n)
        rows.append(
            tally(SEPARABILITY, f"{CASES[name].behaviour}: renamed conversations and models, "
                  "files reordered", "negative", said, ["unchanged"], time.perf_counter() - start)
        )  # fmt: skip
    rows.append(_given_twice(world))
    return rows


def _given_twice(world: World) -> AuditRow:
    """The same answer file given twice, and a copy of it under another path: its annotator
    counts once."""
    import tempfile

    from tests.third_party_world import answer_file, oracle

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        ids = sorted(world.visible)
        answers = {c: oracle(world.visible[c], world.truth[c], world.codebook) for c in ids}
        first = answer_file(Path(folder) / "a.json", "ann", answers, world.codebook)
        copy = answer_file(Path(folder) / "b.json", "ann", answers, world.codebook)
        said = []
        for files in ([first, first], [first, copy]):
            third = world.read(files)
            counted = {len(sets) for sets in third.by_conversation().values()}
            said.append(
                "counted once" if counted == {1} and not third.problems else "counted twice"
            )
    return tally(f"{INSTRUMENT}: answer files", "one annotator's file given twice, and a copy",
                 "negative", said, ["counted once"], time.perf_counter() - start)  # fmt: skip
