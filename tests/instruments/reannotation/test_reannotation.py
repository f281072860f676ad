"""Third-party labels and the reviewer's falsification test: answer files read as
labels, the consensus, rescoring through `score_conversation`, and the analyses, proven on models
and annotators of known behaviour (tests/third_party_world.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from attunebench_inspect import TASK_VERSION
from attunebench_inspect._util.bootstrap import EMPTY
from attunebench_inspect.data._codebook import Codebook
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.data._split import (
    Background,
    BinaryTruth,
    Comparison,
    GroundTruth,
    Topic,
    TurnTruth,
    VisibleConversation,
    VisibleTurn,
)
from attunebench_inspect.instruments.reannotation._agreement import POOLED, agreement
from attunebench_inspect.instruments.reannotation._consensus import (
    CONSENSUS,
    consensus,
    consensus_all,
    ties_of,
)
from attunebench_inspect.instruments.reannotation._kappa import stratified_kappa
from attunebench_inspect.instruments.reannotation._labels import (
    LabelSet,
    load_third_party,
    read_identities,
)
from attunebench_inspect.instruments.reannotation._power import consensus_reliability, rates
from attunebench_inspect.instruments.reannotation._rescore import rescore_pair
from attunebench_inspect.instruments.reannotation._separability import (
    reviewers_test,
    spearman_rows,
)
from attunebench_inspect.instruments.reannotation._tasks import TaskScores, excluded_from_ranking
from attunebench_inspect.solve._call_record import CallRecord
from attunebench_inspect.solve._predictions import Records, Walk
from attunebench_inspect.solve._solver import pairwise_labels
from tests.human_answers import oracle
from tests.third_party_world import (
    PERMUTATIONS,
    World,
    answer_file,
)


@pytest.fixture(scope="module")
def world(codebook: Codebook) -> World:
    return World(codebook)


# --- labels ---------------------------------------------------------------------------------------


def test_an_annotator_giving_the_participants_labels_gives_them_back(
    world: World, tmp_path: Path
) -> None:
    """Read back through the page's format (neutral pairwise labels, option objects, own words),
    the labels are the participant's, field for field; the fields the page cannot give are the
    stated placeholders (pre-PANAS = the annotator's post-PANAS, no original-model name)."""
    conversations = {
        cid: oracle(world.visible[cid], world.truth[cid], world.codebook) for cid in world.visible
    }
    file = answer_file(tmp_path / "self.json", "mirror", conversations, world.codebook)
    third = world.read([file])
    assert third.problems == () and third.notes == ()
    assert len(third.labels) == len(world.visible)
    for labels in third.labels:
        own = world.truth[labels.conversation_id]
        got = labels.truth
        assert got.turns == own.turns
        assert got.post_panas == own.post_panas and got.four_branch == own.four_branch
        assert (got.q2_emotion_clarity, got.q3_model_fit) == (
            own.q2_emotion_clarity,
            own.q3_model_fit,
        )
        assert sorted(got.q1_looking_for) == sorted(own.q1_looking_for)
        assert sorted(got.q3_follow_up) == sorted(own.q3_follow_up)
        assert got.pre_panas == got.post_panas and got.om_model == ""


def test_the_hp_facing_phrasing_reads_the_second_binary_step(world: World, tmp_path: Path) -> None:
    cid = next(iter(world.visible))
    answers = oracle(world.visible[cid], world.truth[cid], world.codebook)
    first = answers["turns"]["1"]
    flipped = {q: {"observed": "na", "preferred": "na"} for q in first["binary_hp"]["binary"]}
    first["binary_hp"]["binary"] = flipped
    file = answer_file(tmp_path / "a.json", "a", {cid: answers}, world.codebook)
    observer = world.read([file]).labels[0].truth.turns[0].binary
    facing = world.read([file], phrasing="hp_facing").labels[0].truth.turns[0].binary
    assert observer == world.truth[cid].turns[0].binary
    assert set(facing.values()) == {BinaryTruth(observed="na", preferred="na")}


# --- the hand-worked example ----------------------------------------------------------------------

HAND = "hand-1"
_GENERAL = [
    Comparison(question_id="general", response_a=a, response_b=b)
    for a, b in (("original", "alternate"), ("original", "human"), ("alternate", "human"))
]


def _hand_conversation() -> VisibleConversation:
    return VisibleConversation(
        conversation_id=HAND,
        topic=Topic(category="c", subtopic="s", text="A hard week"),
        turns=[
            VisibleTurn(
                turn_number=n,
                user_message=f"message {n}",
                om_response=f"reply {n}",
                alternate_response=f"alternate {n}",
                human_response=f"edited {n}",
                binary_question_ids=ids,
                comparisons=_GENERAL,
            )
            for n, ids in ((1, ["B1", "B2"]), (2, ["B1"]))
        ],
        background=Background(profile={}, pre_panas={}, topic_attitude=""),
    )


def _panas(**items: int) -> dict[str, int]:
    from attunebench_inspect.data._panas import PANAS_ITEMS

    return {i: items.get(i, 3) for i in PANAS_ITEMS}


def _hand_answers(codebook: Codebook) -> dict[str, Any]:
    # Neutral labels under shuffle_seed 0 (the solver's order, checked below): turn 1
    # 1=original 2=alternate 3=human; turn 2 1=human 2=original 3=alternate.
    def yes_no(observed: str, preferred: str) -> dict[str, str]:
        return {"observed": observed, "preferred": preferred}

    return {
        "turns": {
            "1": {
                "pairwise": {
                    "c01": {"winner": "2"},
                    "c02": {"winner": "3"},
                    "c03": {"winner": "3"},
                },
                "emotion": {
                    "mood_shift": {"upset": 4},
                    "binary": {"B1": yes_no("yes", "no"), "B2": yes_no("no", "na")},
                },
            },
            "2": {
                "pairwise": {
                    "c01": {"winner": "2"},
                    "c02": {"winner": "2"},
                    "c03": {"winner": "3"},
                },
                "emotion": {"mood_shift": {}, "binary": {"B1": yes_no("yes", "yes")}},
            },
        },
        "post": {
            "post_panas": _panas(upset=5),
            "q1_looking_for": {o: o == "To vent or feel heard" for o in codebook.q1_options},
            "q2_emotion_clarity": "Implied or indirect",
            "q3_model_fit": "Mixed, some good moments, some misses",
            "q3_follow_up": {o: o == "Too generic or scripted" for o in codebook.follow_up_options},
            "q3_follow_up_own_words": "kept repeating itself",
            "four_branch": dict.fromkeys(
                ("perceiving", "facilitating", "understanding", "managing"), 4
            ),
        },
    }


def _hand_records(codebook: Codebook) -> Records:
    comparisons = {
        "c01": "general:alternate-original",
        "c02": "general:human-original",
        "c03": "general:alternate-human",
    }

    def pairwise(n: int, winners: tuple[str, str, str]) -> CallRecord:
        return CallRecord(
            call="pairwise",
            turn=n,
            status="ok",
            prediction={c: {"winner": w} for c, w in zip(comparisons, winners, strict=True)},
            context={"labels": pairwise_labels(0, HAND, n), "comparisons": comparisons},
        )

    def binary(n: int, answers: dict[str, tuple[str, str]]) -> dict[str, Any]:
        return {q: {"observed": o, "preferred": p} for q, (o, p) in answers.items()}

    turn1 = binary(1, {"B1": ("yes", "yes"), "B2": ("yes", "no")})
    turn2 = binary(2, {"B1": ("no", "yes")})
    records: dict[Any, CallRecord] = {
        ("emotion", 1): CallRecord(
            call="emotion",
            turn=1,
            status="ok",
            prediction={"mood_shift": {"distressed": 3}, "binary": turn1},
        ),
        ("binary_hp", 1): CallRecord(
            call="binary_hp", turn=1, status="ok", prediction={"binary": turn1}
        ),
        ("pairwise", 1): pairwise(1, ("2", "1", "3")),
        ("emotion", 2): CallRecord(
            call="emotion", turn=2, status="ok", prediction={"mood_shift": {}, "binary": turn2}
        ),
        ("binary_hp", 2): CallRecord(
            call="binary_hp", turn=2, status="ok", prediction={"binary": turn2}
        ),
        ("pairwise", 2): pairwise(2, ("2", "1", "3")),
        ("post", None): CallRecord(
            call="post",
            turn=None,
            status="ok",
            prediction={
                "post_panas": _panas(),
                "q1_looking_for": {
                    o: o
                    in ("To vent or feel heard", "To help me understand or sort out my feelings")
                    for o in codebook.q1_options
                },
                "q2_emotion_clarity": "Implied or indirect",
                "q3_model_fit": "Good, it mostly fit what I needed",
                "q3_follow_up": {
                    o: o == "Too generic or scripted" for o in codebook.follow_up_options
                },
                "four_branch": dict.fromkeys(
                    ("perceiving", "facilitating", "understanding", "managing"), 5
                ),
            },
        ),
    }
    for n, answers in ((1, {"B1": "yes", "B2": "no"}), (2, {"B1": "yes"})):
        records[("draft", n)] = CallRecord(
            call="draft", turn=n, status="ok", prediction={"text": "I hear you."}
        )
        records[("judge", n)] = CallRecord(
            call="judge",
            turn=n,
            status="ok",
            prediction={
                "reasoning": "r",
                "binary": answers,
                "ratings": dict.fromkeys(
                    ("overall", "emotional_appropriateness", "helpfulness", "tone_match"), 5
                ),
            },
        )
    return records


def test_self_and_third_party_scores_are_on_the_items_both_label(
    codebook: Codebook, tmp_path: Path
) -> None:
    """The participant's B1 preference in turn 1 is `na` (the annotator's is `no`) and a
    consensus tie left turn 2's c02 out: both scorings leave both out. The participant gave no
    follow-up (Q3 positive): the follow-up is scored on neither side."""
    file = answer_file(tmp_path / "ann.json", "ann", {HAND: _hand_answers(codebook)}, codebook)
    (labels,) = load_third_party([file], {HAND: _hand_conversation()}, {HAND: "P"}, codebook).labels
    turns = list(labels.truth.turns)
    turns[1] = turns[1].model_copy(
        update={"pairwise": {k: v for k, v in turns[1].pairwise.items() if "human-orig" not in k}}
    )
    tied = LabelSet(HAND, CONSENSUS, labels.truth.model_copy(update={"turns": turns}), "x")
    own_turns = [
        TurnTruth(
            turn_number=1,
            mood_shift={"distressed": 2},
            binary={
                "B1": BinaryTruth(observed="yes", preferred="na"),
                "B2": BinaryTruth(observed="yes", preferred="no"),
            },
            pairwise=dict(labels.truth.turns[0].pairwise),
        ),
        TurnTruth(
            turn_number=2,
            mood_shift={},
            binary={"B1": BinaryTruth(observed="no", preferred="yes")},
            pairwise=dict(labels.truth.turns[1].pairwise),
        ),
    ]
    own = labels.truth.model_copy(
        update={"turns": own_turns, "q3_model_fit": codebook.q3_options[-1], "q3_follow_up": []}
    )
    mine, theirs = rescore_pair(
        own, tied, Walk({}, _hand_records(codebook)), q3_options=codebook.q3_options
    )
    assert set(mine) == set(theirs)
    # Preferred: turn 1 leaves B1 (na on our side) and B2 (na on theirs) out: NaN; turn 2
    # scores B1 on both: the model's yes is right for both. Observed is untouched: the model
    # is right on all three of the participant's (yes, yes; no) and one in three of theirs.
    assert mine["binary_hp_accuracy"] == theirs["binary_hp_accuracy"] == 1.0
    assert (mine["binary_om_accuracy"], theirs["binary_om_accuracy"]) == (1.0, 0.25)
    # Turn 2 keeps c01 and c03 on both sides; the model has both right.
    assert (
        mine["pairwise_accuracy"] == theirs["pairwise_accuracy"] == pytest.approx((2 / 3 + 1) / 2)
    )
    assert math.isnan(mine["q3_follow_up"]) and math.isnan(theirs["q3_follow_up"])
    # The model's {distressed} is the participant's turn-1 tag, not the annotator's {upset}.
    assert (mine["emotion_f1"], theirs["emotion_f1"]) == (1.0, 0.5)


# --- the consensus --------------------------------------------------------------------------------


def _set(annotator: str, truth: GroundTruth) -> LabelSet:
    return LabelSet(truth.conversation_id, annotator, truth, f"{annotator}.json")


def _truth(
    mood: dict[str, int],
    observed: str,
    winner: str,
    q2: str,
    q3: str,
    rating: int,
    q1: list[str],
    follow_up: list[str],
) -> GroundTruth:
    return GroundTruth(
        conversation_id="c",
        om_model="",
        pre_panas=_panas(),
        post_panas=_panas(upset=rating),
        turns=[
            TurnTruth(
                turn_number=1,
                mood_shift=mood,
                binary={"B1": BinaryTruth(observed=observed, preferred="yes")},  # type: ignore[arg-type]
                pairwise={"general:alternate-original": winner},
            )
        ],  # type: ignore[dict-item]
        four_branch=dict.fromkeys(
            ("perceiving", "facilitating", "understanding", "managing"), rating
        ),
        q1_looking_for=q1,
        q2_emotion_clarity=q2,
        q3_model_fit=q3,
        q3_follow_up=follow_up,
    )


def test_consensus_of_three_follows_the_documented_rules(codebook: Codebook) -> None:
    q2, q3 = codebook.q2_options, codebook.q3_options
    votes = [
        _truth(
            {"upset": 2, "nervous": 5},
            "yes",
            "original",
            q2[0],
            q3[0],
            2,
            ["a", "b"],
            ["Too generic or scripted"],
        ),
        _truth(
            {"upset": 6},
            "no",
            "alternate",
            q2[0],
            q3[1],
            5,
            ["a"],
            ["too generic, scripted", "it lectured me"],
        ),
        _truth({"nervous": 3}, "yes", "alternate", q2[1], q3[3], 6, [], ["It lectured me!"]),
    ]
    found = consensus([_set(f"a{i}", t) for i, t in enumerate(votes)], codebook)
    turn = found.labels.truth.turns[0]
    # Multi-select: upset and nervous each tagged by 2 of 3 (in), at their median intensity
    # (2, 6 -> 4; 5, 3 -> 4).
    assert turn.mood_shift == {"upset": 4, "nervous": 4}
    assert turn.binary["B1"] == BinaryTruth(observed="yes", preferred="yes")  # plurality 2:1
    assert turn.pairwise == {"general:alternate-original": "alternate"}
    truth = found.labels.truth
    assert truth.q2_emotion_clarity == q2[0]
    assert truth.q3_model_fit == q3[1]  # ranks 0, 1, 3 -> median 1
    assert truth.post_panas["upset"] == 5 and set(truth.four_branch.values()) == {5}
    assert truth.q1_looking_for == []  # "a" by 2 of 3 is no codebook option: options only
    # Follow-up entries match across wordings ("Too generic or scripted" ~ "too generic,
    # scripted"; "it lectured me" ~ "It lectured me!"): both are given by 2 of 3.
    assert truth.q3_follow_up == ["Too generic or scripted", "it lectured me"]
    assert found.ties == () and found.annotators == ("a0", "a1", "a2")
    assert found.labels.annotator == CONSENSUS and found.labels.unlabelled == frozenset()


def test_consensus_of_two_states_every_tie_and_how_it_was_broken(codebook: Codebook) -> None:
    q2, q3 = codebook.q2_options, codebook.q3_options
    option = codebook.q1_options[0]
    votes = [
        _truth({"upset": 3}, "yes", "original", q2[0], q3[1], 3, [option], []),
        _truth({"upset": 4, "afraid": 2}, "no", "alternate", q2[1], q3[2], 6, [], []),
    ]
    found = consensus([_set("a", votes[0]), _set("b", votes[1])], codebook)
    truth = found.labels.truth
    turn = truth.turns[0]
    # upset by both (in, median 3.5 -> tie 3/4 -> 4, the nearer to the middle 4); afraid by
    # one of two: a tie, left out.
    assert turn.mood_shift == {"upset": 4}
    assert turn.binary["B1"].observed == "na"  # yes vs no: no label
    assert turn.pairwise == {}  # original vs alternate: left out
    assert truth.q2_emotion_clarity == "" and found.labels.unlabelled == {"q2_clarity"}
    assert truth.q3_model_fit == q3[1]  # ranks 1, 2 -> 1.5: equally near the middle 1.5, lower
    assert truth.post_panas["upset"] == 4  # 3, 6 -> 4.5 -> 4 (nearer to 4 than 5)
    assert truth.q1_looking_for == []  # one of two: a tie, left out
    lines = ties_of({"c": found})
    strict = "left out (a strict majority is needed)"
    middle = "the nearer to the middle of the scale"
    assert set(lines) >= {
        f"c: turns.1.mood_shift.upset: tie between 3, 4; 4, {middle}",
        f"c: turns.1.mood_shift.afraid: tie between given, not given; {strict}",
        "c: turns.1.binary.B1.observed: tie between no, yes; no label (na, excluded from scoring)",
        "c: turns.1.pairwise.general:alternate-original: tie between alternate, original; "
        "left out (no label)",
        "c: q2_emotion_clarity: tie between Explicit and direct, Implied or indirect; "
        "no label (not scored)",
        f"c: q3_model_fit: tie between 1, 2; 1, {middle}",
        f"c: q1_looking_for.{option}: tie between given, not given; {strict}",
    }
    # The seven above, PANAS upset (3, 6 -> 4.5 -> 4) and the four branches (the same): 12.
    assert len(lines) == len(found.ties) == 12


def test_consensus_of_one_annotator_is_that_annotator(world: World) -> None:
    for cid in list(world.visible)[:5]:
        one = _set("solo", world.truth[cid])
        found = consensus([one], world.codebook)
        assert found.ties == ()
        assert found.labels.truth.turns == one.truth.turns
        assert found.labels.truth.model_dump(
            exclude={"turns", "pre_panas", "om_model", "q1_looking_for", "q3_follow_up"}
        ) == one.truth.model_dump(
            exclude={"turns", "pre_panas", "om_model", "q1_looking_for", "q3_follow_up"}
        )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(st.sampled_from(["upset", "nervous", "proud"]), st.integers(1, 7)),
            st.sampled_from(["yes", "no", "na"]),
            st.sampled_from(["original", "alternate"]),
            st.integers(1, 7),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_consensus_values_stay_on_their_scales(votes: list[tuple[Any, ...]]) -> None:
    from attunebench_inspect.data._codebook import load_codebook

    codebook = load_codebook()
    q2, q3 = codebook.q2_options, codebook.q3_options
    sets = [
        _set(f"a{i}", _truth(mood, obs, win, q2[r % 4], q3[r], rating, [], []))
        for i, (mood, obs, win, rating, r) in enumerate(votes)
    ]
    found = consensus(sets, codebook)
    truth = found.labels.truth
    assert all(1 <= v <= 7 for v in truth.turns[0].mood_shift.values())
    assert all(1 <= v <= 7 for v in [*truth.post_panas.values(), *truth.four_branch.values()])
    assert truth.q3_model_fit in q3
    ratings = sorted(v[3] for v in votes)
    assert ratings[0] <= truth.post_panas["upset"] <= ratings[-1]
    # A split vote is never a label: a tie on the binary value leaves `na`.
    observed = [v[1] for v in votes]
    top = max(observed.count(x) for x in set(observed))
    if sum(observed.count(x) == top for x in set(observed)) > 1:
        assert truth.turns[0].binary["B1"].observed == "na"


# --- bad input: one located line each ------------------------------------------------------------


def _one_conversation(world: World, cid: str) -> dict[str, Any]:
    return oracle(world.visible[cid], world.truth[cid], world.codebook)


def test_an_answer_file_for_conversations_not_in_the_logs(world: World, tmp_path: Path) -> None:
    """The reader is handed the conversations the logs hold: a file's other conversations are
    left out with one located line each, and its others are read."""
    cid = sorted(world.visible)[0]
    conversations = {cid: _one_conversation(world, cid), "nope": {"turns": {}}}
    file = answer_file(tmp_path / "a.json", "a", conversations, world.codebook)
    third = world.read([file])
    assert third.problems == ()
    assert [s.conversation_id for s in third.labels] == [cid]
    assert third.notes == (
        f"{file}: conversations.nope: found a conversation no log holds; left out (only "
        "conversations both the logs and the answer files have are rescored)",
    )


def test_a_file_from_another_codebook_format_task_version_or_mode(
    world: World, tmp_path: Path
) -> None:
    """Each one located line; a file of this task version, or of none (written before the field
    existed), is read."""
    cid = sorted(world.visible)[0]
    answers = {cid: _one_conversation(world, cid)}
    other = answer_file(tmp_path / "o.json", "o", answers, world.codebook, codebook_sha256="0" * 64)
    old = answer_file(
        tmp_path / "v.json", "v", answers, world.codebook, format="attunebench-answers/0"
    )
    older = answer_file(tmp_path / "t.json", "t", answers, world.codebook, task_version="2-A")
    seen = answer_file(tmp_path / "m.json", "m", answers, world.codebook, mode="omniscient")
    third = world.read([other, old, older, seen])
    number = TASK_VERSION.split("-")[0]
    assert third.problems == (
        f"{other}: codebook_sha256: found {'0' * 64}; expected {world.codebook.sha256} (the "
        f"answers were given to another codebook's questions than {world.codebook.path})",
        f"{old}: format: found attunebench-answers/0; expected attunebench-answers/1",
        f"{older}: task_version: found 2-A; expected {number}-* (the answers were given on the "
        f"page of another task version than this suite's {TASK_VERSION}: its questions or its "
        "replies' labels may differ)",
        f"{seen}: mode: found omniscient; expected default or verbose (third-party labels are "
        "given without the participant's profile and pre-conversation PANAS, which the "
        "omniscient modes show)",
    )
    current = answer_file(
        tmp_path / "c.json", "c", answers, world.codebook, task_version=f"{number}-Z"
    )
    unversioned = answer_file(tmp_path / "u.json", "u", answers, world.codebook)
    read = world.read([current, unversioned])
    assert read.problems == () and len(read.labels) == 2


def test_a_winner_outside_the_comparisons_labels_points_at_another_task_version(
    world: World, tmp_path: Path
) -> None:
    """Which two labels a comparison offers follows the solver's label order: a winner that is
    neither can only come from a page that labelled the replies otherwise."""
    cid = sorted(world.visible)[0]
    turn = world.visible[cid].turns[0]
    answers = _one_conversation(world, cid)
    labels = {s: label for label, s in pairwise_labels(0, cid, 1).items()}
    c = turn.comparisons[0]
    outside = next(x for x in "123" if x not in (labels[c.response_a], labels[c.response_b]))
    answers["turns"]["1"]["pairwise"]["c01"]["winner"] = outside
    file = answer_file(tmp_path / "a.json", "a", {cid: answers}, world.codebook)
    first, second = sorted((labels[c.response_a], labels[c.response_b]))
    assert world.read([file]).problems == (
        f"{file}: conversations.{cid}.turns.1.pairwise.c01.winner: found {outside}; expected "
        f"{first} or {second}, the labels of this comparison under shuffle_seed 0 (the file may "
        "come from another task version's page)",
    )


def test_two_files_claiming_the_same_annotator(world: World, tmp_path: Path) -> None:
    first_id, second_id = sorted(world.visible)[:2]
    answers = {first_id: _one_conversation(world, first_id)}
    first = answer_file(tmp_path / "one.json", "alice", answers, world.codebook)
    # Other answers under the same name (the same answers count once: the duplicates' tests).
    other = {second_id: _one_conversation(world, second_id)}
    second = answer_file(tmp_path / "two.json", "alice", other, world.codebook)
    third = world.read([first, second])
    assert third.problems == (
        f"{second}: annotator: found alice, as in {first}; expected one file per annotator "
        "(each is one annotator's label set)",
    )
    assert len(third.labels) == 1


def test_a_participant_rating_their_own_conversation_is_marked_not_fatal(
    world: World, tmp_path: Path
) -> None:
    """The paper's "anno 3": an annotator who held one of the conversations (identities file:
    annotator -> participant ID). Their label set is kept, marked, and left out of the
    consensus; their other conversations are third-party labels as any."""
    own, other = sorted(world.visible)[:2]
    identities = tmp_path / "identities.json"
    identities.write_text(json.dumps({"anno3": world.participants[own]}), encoding="utf-8")
    answers = {c: _one_conversation(world, c) for c in (own, other)}
    file = answer_file(tmp_path / "anno3.json", "anno3", answers, world.codebook)
    third = world.read([file], identities=read_identities(identities))
    assert third.problems == ()
    assert third.notes == (
        f"{file}: conversations.{own}: annotator anno3 is this conversation's participant "
        f"({world.participants[own]}): marked as a self-rating and left out of the third-party "
        "consensus",
    )
    assert {(s.conversation_id, s.self_rating) for s in third.labels} == {
        (own, True),
        (other, False),
    }
    assert set(consensus_all(third, world.codebook)) == {other}


def test_an_unfinished_conversation_is_left_out_and_listed(world: World, tmp_path: Path) -> None:
    done, half = sorted(world.visible)[:2]
    partial = _one_conversation(world, half)
    last = str(len(world.visible[half].turns))
    del partial["turns"][last]["emotion"]
    del partial["post"]["four_branch"]
    file = answer_file(
        tmp_path / "a.json",
        "a",
        {done: _one_conversation(world, done), half: partial},
        world.codebook,
    )
    third = world.read([file])
    assert third.problems == ()
    assert [s.conversation_id for s in third.labels] == [done]
    assert third.notes == (
        f"{file}: conversations.{half}: incomplete (turn {last} mood shift, binary (emotion); "
        "post (four_branch)); left out",
    )


def test_a_bad_identities_file_is_one_located_line(tmp_path: Path) -> None:
    path = tmp_path / "identities.json"
    path.write_text('{"anno3": 7}', encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_identities(path)
    assert str(raised.value) == f"{path}: anno3: found 7; expected a participant ID (text)"


# --- the statistics, pinned to their libraries ----------------------------------------------------


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=40),
    st.sampled_from(["nominal", "quadratic"]),
)
def test_kappa_is_sklearns(pairs: list[tuple[int, int]], weights: str) -> None:
    table = np.zeros((4, 4))
    for a, b in pairs:
        table[a, b] += 1
    # One stratum: Cohen's kappa.
    mine = float(stratified_kappa(table[None], weights))  # type: ignore[arg-type]
    a, b = zip(*pairs, strict=True)
    with np.errstate(all="ignore"):
        theirs = cohen_kappa_score(
            a, b, labels=[0, 1, 2, 3], weights=None if weights == "nominal" else "quadratic"
        )
    if math.isnan(mine):
        assert math.isnan(theirs) or len(set(a) | set(b)) == 1
    else:
        assert mine == pytest.approx(theirs, abs=1e-9)


@pytest.mark.filterwarnings("ignore:An input array is constant")
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=3, max_size=9))
def test_spearman_rows_is_scipys_with_ties(values: list[tuple[int, int]]) -> None:
    means = np.array(values, dtype=float)
    mine = float(spearman_rows(means, 0, 1))
    with np.errstate(all="ignore"):
        theirs = float(spearmanr(means[:, 0], means[:, 1]).statistic)
    assert (math.isnan(mine) and math.isnan(theirs)) or mine == pytest.approx(theirs, abs=1e-9)


# --- agreement of third parties with the participants -------------------------------------------


def test_agreement_is_perfect_for_the_participant_and_chance_for_a_random_reader(
    world: World, tmp_path: Path
) -> None:
    mirror = {c: oracle(world.visible[c], world.truth[c], world.codebook) for c in world.visible}
    files = [
        answer_file(tmp_path / "mirror.json", "mirror", mirror, world.codebook),
        world.annotator(tmp_path, "random", {}, {}),
    ]
    third = world.read(files)
    rows = {
        (r.rater, r.field): r
        for r in agreement(world.truth, third.labels, world.codebook, resamples=2000)
    }
    for field in (
        "mood_shift",
        "binary_observed",
        "binary_preferred",
        "pairwise",
        "post_panas",
        "four_branch",
        "q3_model_fit",
    ):
        perfect, chance = rows[("mirror", field)], rows[("random", field)]
        assert perfect.value.estimate == 1.0 and perfect.corrected.estimate == pytest.approx(1.0)
        # With one Q3 answer per conversation a random reader's kappa spreads widely (SD 0.21
        # over 200 seeds at 25 items): only the fields with many items are checked for it. How
        # often its interval leaves 0 over seeds: bench/audit/reannotation.py.
        if chance.items >= 500:
            assert abs(chance.corrected.estimate) < 0.1, field
        assert chance.value.estimate < 0.8 and chance.items > 0
    assert rows[("random", "q3_follow_up")].coefficient is None
    assert rows[("random", "q3_follow_up")].corrected == EMPTY
    assert rows[("mirror", "post_panas")].coefficient == "quadratic-weighted kappa"
    assert rows[("mirror", "binary_observed")].coefficient == "Cohen's kappa"
    assert rows[(POOLED, "pairwise")].value.n == len(world.visible)


# --- the rule's other readings (its proof on known behaviour: test_report.py) --


def _scores(models: int, conversations: int, seed: int = 0) -> TaskScores:
    rng = np.random.default_rng(seed)
    own = rng.normal(0, 1, (models, 4, conversations)) + np.arange(models)[:, None, None]
    return TaskScores(
        tuple(f"m{i}" for i in range(models)),
        ("a", "b", "c", "d"),
        tuple(f"c{i}" for i in range(conversations)),
        own,
        own.copy(),
    )


def test_no_verdict_with_too_few_models_or_conversations_or_nothing_separable() -> None:
    two = reviewers_test(_scores(2, 50), {})
    assert (
        two.verdict
        == two.reading
        == (
            "cannot decide: 2 model(s); a rank correlation between task rankings needs at least 3 "
            "(with 2 every rho is +1 or -1)"
        )
    )
    few = reviewers_test(_scores(5, 9), {})
    assert few.reading == (
        "cannot decide: too little data: 9 shared conversation(s); the rule needs at least 10"
    )
    # Every task ranks the models in the same (planted) order: nothing separable to test.
    same = reviewers_test(_scores(6, 400), {})
    assert same.verdict.startswith("cannot decide: no pair of tasks is separable under self labels")
    assert all(p.status == "not separable under self labels" for p in same.pairs)


def test_noisy_third_party_labels_are_undecided_not_a_default_verdict() -> None:
    """Rankings separable under self labels whose third-party values are pure noise: rho under
    third-party labels has a wide interval, and the reading says the data cannot decide."""
    rng = np.random.default_rng(1)
    models, conversations = 6, 12
    own = np.array(PERMUTATIONS[:4]).T[:, :, None] * 0.5 + rng.normal(
        0, 0.05, (models, 4, conversations)
    )
    third = rng.normal(0, 1, (models, 4, conversations))
    scores = TaskScores(
        tuple(f"m{i}" for i in range(models)),
        ("a", "b", "c", "d"),
        tuple(map(str, range(conversations))),
        own,
        third,
    )
    test = reviewers_test(scores, {})
    assert test.verdict.startswith("cannot decide: too little data: ")


def test_baselines_and_human_runs_are_not_ranked() -> None:
    assert excluded_from_ranking("attunebench/random") == "an offline baseline"
    assert excluded_from_ranking("human/alice") == "a replayed human run"
    assert excluded_from_ranking("openai/gpt-4o") is None


# --- the power simulation ------------------------------------------------------------------------


def test_consensus_reliability_by_hand() -> None:
    """p = 0.75. One annotator: 2p - 1 = 0.5. Two: both right p² = .5625, a tie 2p(1-p) = .375
    counts half: 2(.5625 + .1875) - 1 = 0.5. Three: p³ + 3p²(1-p) = .421875 + .421875 =
    .84375: 2 x .84375 - 1 = .6875."""
    assert [consensus_reliability(a) for a in (1, 2, 3)] == pytest.approx([0.5, 0.5, 0.6875])


def test_the_simulation_gives_rates_that_sum_to_one() -> None:
    found = rates("generic", 5, 20, 3, replications=4, resamples=200)
    assert found.holds + found.depends + found.cannot_decide == pytest.approx(1)
