"""Models and annotators of known behaviour for the third-party label tests.

A *reading* of a conversation is a GroundTruth: what someone takes the participant to have felt,
seen and preferred. The participant's own labels are one reading; a *generic* reading is another,
drawn at random independently of the participant (an outsider's reading that agrees with the
person only as often as chance). A model or an annotator answers each item from the participant's
reading with probability `p_self` (per task), else from the generic reading with probability
`p_generic`, else at random. The draws that decide which reading an item comes from are shared by
every reader with the same `crn` seed (common random numbers), so that a reader with a higher
`p_self` answers the participant's label on a superset of items: rankings follow the planted
probabilities, not the luck of the draws.

A reading becomes the answers of a model in a real offline run (`World.run_models`: a scripted
model answers it from the prompts) or an annotator's answer file (`human_answers.oracle`, in the
page's published format).
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from inspect_ai import eval

from attunebench_inspect import TASK_VERSION, default
from attunebench_inspect.data._codebook import Codebook, load_codebook
from attunebench_inspect.data._load import load_conversations
from attunebench_inspect.data._panas import PANAS_ITEMS
from attunebench_inspect.data._split import (
    BinaryTruth,
    GroundTruth,
    TurnTruth,
    VisibleConversation,
    split,
)
from attunebench_inspect.instruments.human._answers import FORMAT
from attunebench_inspect.instruments.reannotation._labels import ThirdParty, load_third_party
from attunebench_inspect.solve._schemas import BRANCHES
from tests.conftest import BUNDLED
from tests.human_answers import oracle
from tests.truth_model import TruthModel


@cache
def _u(*parts: object) -> float:
    """One uniform draw per key. Cached: every reader with the same `crn` draws the same keys
    (the common random numbers), and seeding a generator costs more than the rest of a reading."""
    return random.Random("/".join(map(str, parts))).random()


def random_reading(
    truth: GroundTruth, visible: VisibleConversation, cb: Codebook, seed: object
) -> GroundTruth:
    """A reading drawn uniformly at random, independently of `truth` (which only gives its
    shape: the turns, which questions apply, and which are `na`)."""
    rng = random.Random(f"random/{seed}/{truth.conversation_id}")
    turns = []
    for t in truth.turns:
        mood = {e: rng.randint(1, 7) for e in rng.sample(PANAS_ITEMS, rng.choice((0, 1, 2)))}
        binary = {
            q: BinaryTruth(
                observed="na" if b.observed == "na" else rng.choice(("yes", "no")),
                preferred="na" if b.preferred == "na" else rng.choice(("yes", "no")),
            )
            for q, b in t.binary.items()
        }
        pairwise = {k: rng.choice(k.split(":", 1)[1].split("-")) for k in t.pairwise}
        turns.append(
            TurnTruth(turn_number=t.turn_number, mood_shift=mood, binary=binary, pairwise=pairwise)
        )  # type: ignore[arg-type]
    q3 = rng.choice(cb.q3_options)
    asked = q3 in cb.q3_follow_up_when
    return GroundTruth(
        conversation_id=truth.conversation_id,
        om_model=truth.om_model,
        turns=turns,
        pre_panas=truth.pre_panas,
        post_panas={i: rng.randint(1, 7) for i in PANAS_ITEMS},
        four_branch={b: rng.randint(1, 7) for b in BRANCHES},
        q1_looking_for=[o for o in cb.q1_options if rng.random() < 0.3],
        q2_emotion_clarity=rng.choice(cb.q2_options),
        q3_model_fit=q3,
        q3_follow_up=[o for o in cb.follow_up_options if rng.random() < 0.3]
        or [cb.follow_up_options[0]]
        if asked
        else [],
    )


def reading(
    own: GroundTruth,
    generic: GroundTruth,
    noise: GroundTruth,
    p_self: Mapping[str, float],
    p_generic: Mapping[str, float] | None = None,
    crn: object = 0,
) -> GroundTruth:
    """Per item: the participant's label if u1 < p_self[task], else the generic one if
    u2 < p_generic[task], else the one of `noise` (the reader's own random reading)."""
    p_generic = p_generic or {}
    cid = own.conversation_id

    def pick(task: str, item: str, a: Any, b: Any, c: Any) -> Any:
        if _u(crn, "self", cid, item) < p_self.get(task, 0.0):
            return a
        if _u(crn, "generic", cid, item) < p_generic.get(task, 0.0):
            return b
        return c

    turns = []
    for t, g, z in zip(own.turns, generic.turns, noise.turns, strict=True):
        n = t.turn_number
        binary = {
            q: BinaryTruth(
                observed=pick(
                    "behavioral_classification",
                    f"{n}/{q}/o",
                    t.binary[q].observed,
                    g.binary[q].observed,
                    z.binary[q].observed,
                ),
                preferred=pick(
                    "preference_prediction",
                    f"{n}/{q}/p",
                    t.binary[q].preferred,
                    g.binary[q].preferred,
                    z.binary[q].preferred,
                ),
            )
            for q in t.binary
        }
        turns.append(
            TurnTruth(
                turn_number=n,
                mood_shift=pick(
                    "emotion_recognition", f"{n}/mood", t.mood_shift, g.mood_shift, z.mood_shift
                ),
                binary=binary,
                pairwise={
                    k: pick(
                        "preference_prediction",
                        f"{n}/{k}",
                        t.pairwise[k],
                        g.pairwise[k],
                        z.pairwise[k],
                    )
                    for k in t.pairwise
                },
            )
        )
    source = pick("post", "post", own, generic, noise)
    return source.model_copy(
        update={"turns": turns, "pre_panas": own.pre_panas, "om_model": own.om_model}
    )


def answer_file(
    path: Path,
    annotator: str,
    conversations: Mapping[str, dict[str, Any]],
    codebook: Codebook,
    **fields: Any,
) -> Path:
    document = {
        "format": FORMAT,
        "annotator": annotator,
        "task_version": TASK_VERSION,
        "mode": "default",
        "shuffle_seed": 0,
        "codebook_sha256": codebook.sha256,
        "source": "tests/third_party_world.py",
        "conversations": dict(conversations),
        **fields,
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


LABEL_TASKS = ("emotion_recognition", "behavioral_classification", "preference_prediction")
Planted = tuple[dict[str, float], dict[str, float], int]
"""A planted model: per task, the share of items answered with the participant's label, and
with the generic reading's; the judge's rating of its drafts (1-7)."""
PERMUTATIONS = (
    (0, 1, 2, 3, 4, 5),
    (3, 1, 0, 5, 4, 2),
    (0, 4, 3, 5, 2, 1),
    (2, 0, 4, 5, 1, 3),
    (3, 1, 5, 2, 4, 0),
)
"""Rankings of six models with every pairwise Spearman rho in [-0.26, 0.26] (found by search):
the first four are the four tasks' planted rankings, the fifth the generic-reading ranking."""


# --- a world: the bundled conversations, their participants, a generic reading -----------------


class World:
    def __init__(self, codebook: Codebook, data: Path = BUNDLED) -> None:
        self.codebook = codebook
        self.visible: dict[str, VisibleConversation] = {}
        self.truth: dict[str, GroundTruth] = {}
        self.participants: dict[str, str] = {}
        for loaded in load_conversations(data, codebook).conversations:
            visible, truth = split(loaded.conversation)
            self.visible[visible.conversation_id] = visible
            self.truth[visible.conversation_id] = truth
            self.participants[visible.conversation_id] = (
                loaded.conversation.participant_profile.participant_id
            )
        self.generic = {c: self._random(c, "generic") for c in self.visible}
        self.noise = {c: self._random(c, "model-noise") for c in self.visible}

    def _random(self, cid: str, seed: str) -> GroundTruth:
        return random_reading(self.truth[cid], self.visible[cid], self.codebook, seed)

    def annotator(
        self, folder: Path, name: str, p_self: dict[str, float], p_generic: dict[str, float]
    ) -> Path:
        """An answer file whose reading of every conversation follows the probabilities."""
        conversations = {
            cid: oracle(
                self.visible[cid],
                reading(
                    self.truth[cid],
                    self.generic[cid],
                    self._random(cid, name),
                    p_self,
                    p_generic,
                    crn=name,
                ),
                self.codebook,
            )
            for cid in self.visible
        }
        return answer_file(folder / f"{name}.json", name, conversations, self.codebook)

    def read(self, files: list[Path], **options: Any) -> ThirdParty:
        return load_third_party(files, self.visible, self.participants, self.codebook, **options)

    def model_reading(
        self, cid: str, p_self: Mapping[str, float], p_generic: Mapping[str, float]
    ) -> GroundTruth:
        """What a planted model answers about one conversation (the models share their draws:
        `crn`)."""
        return reading(
            self.truth[cid], self.generic[cid], self.noise[cid], p_self, p_generic, crn="models"
        )

    def run_models(
        self, data: Path, models: Mapping[str, Planted], log_dir: Path, *, judge: bool = True
    ) -> None:
        """Real offline runs of the planted models on `data` (this world's conversations): each
        a scripted model (`TruthModel`) answering its reading from the prompts, as a model
        would, with a judge that rates every draft with the model's planted rating."""
        tasks = []
        for name, (p_self, p_generic, rating) in models.items():
            readings = {c: self.model_reading(c, p_self, p_generic) for c in self.visible}
            scripted = TruthModel(data, self.codebook, 0.0, readings=readings, judge_rating=rating)
            task = default(data=str(data))
            task.model = scripted.model(name)
            if judge:
                task.model_roles = {"judge": scripted.model(f"{name}-judge")}
            tasks.append(task)
        logs = eval(tasks, display="none", log_dir=str(log_dir))
        assert [log.status for log in logs] == ["success"] * len(tasks)


GENERIC_SHARES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)


def planted_models() -> dict[str, Planted]:
    """Six models whose four task rankings differ (self-reading shares 0.1-0.7 ranked by four
    permutations with |rho| <= 0.26; the fourth ranks the judge's ratings), each also tracking a
    generic reading to its own degree (0.1-0.6, the fifth permutation, one ranking for every
    task). Against faithful annotators they stay apart (`FAITHFUL`), against generic ones the
    label tasks converge (`GENERIC`): the verdict turns on the annotators alone."""
    return {
        f"m{i}": (
            {t: 0.1 + 0.12 * PERMUTATIONS[k][i] for k, t in enumerate(LABEL_TASKS)},
            dict.fromkeys(LABEL_TASKS, GENERIC_SHARES[PERMUTATIONS[4][i]]),
            1 + PERMUTATIONS[3][i],
        )
        for i in range(6)
    }


FAITHFUL = {f"a{j}": (dict.fromkeys((*LABEL_TASKS, "post"), 0.8), {}) for j in range(3)}
"""Three annotators who give the participant's own label on 80% of items."""
GENERIC = {f"g{j}": ({}, dict.fromkeys((*LABEL_TASKS, "post"), 0.9)) for j in range(3)}
"""Three annotators who give the generic reading on 90% of items."""
READERS: dict[str, Planted] = {
    "reader": (dict.fromkeys(LABEL_TASKS, 0.9), {}, 4),
    "generic": ({}, dict.fromkeys(LABEL_TASKS, 0.9), 4),
}
"""A model that reads the person (the participant's label on 90% of items) and one that gives
the generic reading as often."""


SHORTEST = 12
"""The shortest bundled conversations: enough for every verdict of the third-party proof (checked
with the pure functions at 10, 12, 15 and 25), and quick to run."""


@dataclass(frozen=True)
class PlantedRuns:
    world: World
    data: Path
    """The SHORTEST bundled conversations."""
    logs: Path
    """The six planted models' runs of them, with a judge."""


def _turns(file: Path) -> int:
    return len(json.loads(file.read_text(encoding="utf-8"))["turns"])


def planted_runs(root: Path) -> PlantedRuns:
    data = root / "data"
    data.mkdir()
    for file in sorted(BUNDLED.glob("*.json"), key=lambda f: (_turns(f), f.name))[:SHORTEST]:
        shutil.copy(file, data / file.name)
    world = World(load_codebook(), data)
    world.run_models(data, planted_models(), root / "logs")
    return PlantedRuns(world, data, root / "logs")
