"""The verdict audit of the third-party labels (docs/third-party.md): the reviewer's test, its
information condition and the chance-corrected agreement, on annotators and models of planted
behaviour, over seeds.

A world is the bundled conversations and their participants' own labels (tests/third_party_world.py).
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from attunebench_inspect._util.verdict import is_abstention
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
from bench.audit.rows import AuditRow, tally
from tests.third_party_world import (
    GENERIC_SHARES,
    LABEL_TASKS,
    PERMUTATIONS,
    World,
    random_reading,
    reading,
)

INSTRUMENT = "reannotation"
RESAMPLES = 2000
SMALL_SEEDS = 3
"""Seeds of the small audit (the CI's)."""
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
        shown = list(pairwise_labels(0, cid, turn).values())
        return min(comparison_pair(key), key=shown.index)

    return _constant(truth, d.codebook, pick)


# --- models of planted behaviour, scored against both label sets -----------------------------


@dataclass(frozen=True)
class Model:
    """Per label task, the share of items answered with the participant's label and with the
    generic reading's; the judge's rating of its drafts (judged response quality, 1-7)."""

    p_self: dict[str, float]
    p_generic: dict[str, float]
    rating: int


def independent_models() -> dict[str, Model]:
    """Six models whose three label tasks and judged quality rank them independently (every
    pair of rankings within |rho| 0.26), each tracking the generic reading to its own degree
    (tests/third_party_world.py's `planted_models`)."""
    return {
        f"m{i}": Model(
            {t: 0.1 + 0.12 * PERMUTATIONS[k][i] for k, t in enumerate(LABEL_TASKS)},
            dict.fromkeys(LABEL_TASKS, GENERIC_SHARES[PERMUTATIONS[4][i]]),
            1 + PERMUTATIONS[3][i],
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


def _model_reading(d: Draw, name: str, planted: Model, cid: str) -> GroundTruth:
    """What a planted model answers about one conversation (the models share their draws)."""
    return reading(
        d.world.truth[cid],
        d.generic[cid],
        _noise(d, cid, f"model-{name}"),
        planted.p_self,
        planted.p_generic,
        crn=f"models/{d.seed}",
    )


def task_scores(
    d: Draw, models: Mapping[str, Model], third: Mapping[str, GroundTruth]
) -> TaskScores:
    """Every model's task values against the participants' labels and against `third` (the
    consensus of each conversation), on the conversations `third` labels, in id order."""
    ids = tuple(sorted(third))
    own = np.zeros((len(models), len(TASKS), len(ids)))
    other = np.zeros_like(own)
    for i, (name, planted) in enumerate(models.items()):
        for k, cid in enumerate(ids):
            key = (name, repr(planted), cid)
            if key not in d.cache:
                said = _model_reading(d, name, planted, cid)
                d.cache[key] = (said, _task_values(d, said, d.world.truth[cid], planted.rating))
            said, values = d.cache[key]
            own[i, :, k] = values
            other[i, :, k] = _task_values(d, said, third[cid], planted.rating)
    return TaskScores(tuple(models), tuple(TASKS), ids, own, other)


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
) -> Study:
    """The annotators' label sets of the conversations, their consensus, and the reviewer's
    test with its information condition, as the report reads them."""
    ids = sorted(conversations if conversations is not None else d.world.visible)
    sets = [
        LabelSet(cid, name, read(d, cid, name), f"{name}.json", shuffle_seed=0)
        for name, read in readers.items()
        for cid in ids
    ]
    agreed = {
        cid: consensus([s for s in sets if s.conversation_id == cid], d.codebook).labels
        for cid in ids
    }
    truths = {cid: d.world.truth[cid] for cid in ids}
    information = task_information(
        truths, list(agreed.values()), d.codebook, resamples=RESAMPLES, seed=0
    )
    scores = task_scores(d, models, {c: s.truth for c, s in agreed.items()})
    return Study(reviewers_test(scores, information, resamples=RESAMPLES, seed=0), sets)
