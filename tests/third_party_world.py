"""Models and annotators of known behaviour for the third-party label tests (issue 30).

A *reading* of a conversation is a GroundTruth: what someone takes the participant to have felt,
seen and preferred. The participant's own labels are one reading; a *generic* reading is another,
drawn at random independently of the participant (an outsider's reading that agrees with the
person only as often as chance). A model or an annotator answers each item from the participant's
reading with probability `p_self` (per task), else from the generic reading with probability
`p_generic`, else at random. The draws that decide which reading an item comes from are shared by
every reader with the same `crn` seed (common random numbers), so that a reader with a higher
`p_self` answers the participant's label on a superset of items: rankings follow the planted
probabilities, not the luck of the draws.

A reading becomes the call records of a model (`records_for`, the real `CallRecord` type, as the
solver stores them) or an annotator's answer file (`answers_for`, in the page's published format):
the lead's log-level tests can reuse both.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attunebench_inspect.data.codebook import Codebook
from attunebench_inspect.data.panas import PANAS_ITEMS
from attunebench_inspect.data.split import (
    BinaryTruth,
    GroundTruth,
    TurnTruth,
    VisibleConversation,
)
from attunebench_inspect.providers.answers import FORMAT
from attunebench_inspect.solve.predictions import Records
from attunebench_inspect.solve.call_record import CallRecord
from attunebench_inspect.solve.schemas import BRANCHES, JUDGE_CRITERIA
from attunebench_inspect.solve.solver import pairwise_view

TASK_ITEMS = ("emotion_recognition", "behavioral_classification", "preference_prediction", "post")
"""What a reader's probabilities are given for: the three label tasks and the questionnaire."""


def _u(*parts: object) -> float:
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


def answers_for(
    truth: GroundTruth, visible: VisibleConversation, codebook: Codebook, shuffle_seed: int = 0
) -> dict[str, Any]:
    """One conversation of an answer file, in the page's format, that gives `truth` as its
    reading (both binary steps alike; a drafted reply on every turn)."""
    turns: dict[str, Any] = {}
    for t, vt in zip(truth.turns, visible.turns, strict=True):
        view = pairwise_view(shuffle_seed, visible.conversation_id, vt)
        label_of = {s: label for label, s in view.labels.items()}
        binary = {
            q: {"observed": b.observed, "preferred": b.preferred} for q, b in t.binary.items()
        }
        turns[str(t.turn_number)] = {
            "draft": "That sounds hard. What would help most right now?",
            "pairwise": {c.id: {"winner": label_of[t.pairwise[c.key]]} for c in view.comparisons},
            "emotion": {"mood_shift": dict(t.mood_shift), "binary": binary},
            "binary_hp": {"binary": binary},
        }
    return {"turns": turns, "post": post_answer(truth, codebook)}


def post_answer(truth: GroundTruth, codebook: Codebook) -> dict[str, Any]:
    """The post-conversation answer that gives `truth`'s questionnaire."""
    options = set(codebook.follow_up_options)
    own_words = [e for e in truth.q3_follow_up if e not in options]
    post: dict[str, Any] = {
        "post_panas": dict(truth.post_panas),
        "q1_looking_for": {o: o in truth.q1_looking_for for o in codebook.q1_options},
        "q2_emotion_clarity": truth.q2_emotion_clarity,
        "q3_model_fit": truth.q3_model_fit,
        "q3_follow_up": {o: o in truth.q3_follow_up for o in codebook.follow_up_options},
        "four_branch": dict(truth.four_branch),
    }
    if own_words:
        post["q3_follow_up_own_words"] = "; ".join(own_words)
    return post


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
        "mode": "default",
        "shuffle_seed": 0,
        "codebook_sha256": codebook.sha256,
        "source": "tests/third_party_world.py",
        "conversations": dict(conversations),
        **fields,
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def records_for(
    truth: GroundTruth,
    visible: VisibleConversation,
    codebook: Codebook,
    *,
    shuffle_seed: int = 0,
    judge_rating: int | None = None,
) -> Records:
    """The call records a model leaves when it answers `truth` as its reading, as the solver
    stores them; with `judge_rating`, a judge rated every draft so (every criterion) and answered
    the binary questions about the draft as the reading's preferred behaviour."""
    records: dict[tuple[Any, int | None], CallRecord] = {}
    for t, vt in zip(truth.turns, visible.turns, strict=True):
        n = t.turn_number
        view = pairwise_view(shuffle_seed, visible.conversation_id, vt)
        label_of = {s: label for label, s in view.labels.items()}
        binary = {
            q: {"observed": b.observed, "preferred": b.preferred} for q, b in t.binary.items()
        }
        records[("emotion", n)] = CallRecord(
            call="emotion",
            turn=n,
            status="ok",
            prediction={"mood_shift": dict(t.mood_shift), "binary": binary},
        )
        records[("binary_hp", n)] = CallRecord(
            call="binary_hp", turn=n, status="ok", prediction={"binary": binary}
        )
        records[("pairwise", n)] = CallRecord(
            call="pairwise",
            turn=n,
            status="ok",
            prediction={c.id: {"winner": label_of[t.pairwise[c.key]]} for c in view.comparisons},
            context={
                "labels": dict(view.labels),
                "comparisons": {c.id: c.key for c in view.comparisons},
            },
        )
        records[("draft", n)] = CallRecord(
            call="draft", turn=n, status="ok", prediction={"text": "I hear you."}
        )
        if judge_rating is not None:
            records[("judge", n)] = CallRecord(
                call="judge",
                turn=n,
                status="ok",
                prediction={
                    "reasoning": "planted",
                    "ratings": dict.fromkeys(JUDGE_CRITERIA, judge_rating),
                    "binary": {q: b.preferred for q, b in t.binary.items()},
                },
            )
    records[("post", None)] = CallRecord(
        call="post", turn=None, status="ok", prediction=post_answer(truth, codebook)
    )
    return records
