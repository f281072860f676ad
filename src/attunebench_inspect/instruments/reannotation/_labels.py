"""Third-party labels: an answer file's answers to one conversation, read as the labels a
participant gives, in the type the scorers read (`GroundTruth`), one label set per annotator.

What each label is read from, and what the page's answers cannot give, is docs/third-party.md's
"What the labels cover"; the metrics those gaps remove are `NOT_COVERED_METRICS`. This module
never sees the participant's own labels: it is handed each conversation's visible part and, to
find self-ratings, its participant ID. Only a conversation answered whole enters."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..._util.text_match import entries
from ...data import _jsonfile as jsonfile
from ...data._codebook import Codebook
from ...data._panas import PANAS_ITEMS
from ...data._problems import InputError, shorten
from ...data._split import BinaryTruth, GroundTruth, TurnTruth, VisibleConversation, VisibleTurn
from ...solve._modes import SPECS
from ...solve._schemas import BRANCHES
from ...solve._solver import pairwise_view
from ..human import Answers, AnswersError, asked_otherwise, problems_with_data, read_answers

logger = logging.getLogger(__name__)

Phrasing = Literal["observer", "hp_facing"]
"""Which of the page's two binary steps gives the binary labels: the observer phrasing ("the
participant's message", step 3) or the participant-facing one ("your message", step 4)."""
LABEL_MODES = tuple(s.mode for s in SPECS if not s.omniscient)
"""Answer-file modes whose annotators saw no part of the participant's own reports: the
omniscient modes show the profile and the pre-conversation PANAS, which are self-reports."""

NOT_COVERED_METRICS: dict[str, str] = {
    "panas_baseline_adjusted": "its baseline is the participant's pre-conversation PANAS",
    "holistic_pillar": "averages panas_baseline_adjusted",
    "composite": "weights the holistic pillar",
}
"""Metrics of `score_conversation` that third-party labels cannot give: removed, never shown."""


@dataclass(frozen=True)
class LabelSet:
    """One annotator's (or the consensus's) labels of one conversation."""

    conversation_id: str
    annotator: str
    truth: GroundTruth
    source: str
    """The answer file (for the consensus: its annotators' files, comma-separated)."""
    self_rating: bool = False
    """The annotator is the conversation's own participant (marked; not a third party)."""
    unlabelled: frozenset[str] = frozenset()
    """Metrics without a label in this conversation (a consensus tie on Q2)."""
    shuffle_seed: int | None = None
    """The page's shuffle seed, which fixed the order its replies were shown in (None: a
    consensus of annotators who saw different orders)."""


@dataclass(frozen=True)
class ThirdParty:
    """Every answer file read: the complete label sets, the problems that stop their use (one
    line each; nothing should be reported while there is one), and notes that stop nothing
    (self-ratings marked, conversations left out and why)."""

    labels: tuple[LabelSet, ...] = ()
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def by_conversation(self) -> dict[str, list[LabelSet]]:
        """The third parties' label sets of each conversation (self-ratings left out)."""
        found: dict[str, list[LabelSet]] = {}
        for labels in self.labels:
            if not labels.self_rating:
                found.setdefault(labels.conversation_id, []).append(labels)
        return found


def read_identities(path: str | Path) -> dict[str, str]:
    """An identities file: a JSON object, annotator -> the participant ID they had in the data
    collection (only annotators who were also participants need be listed). `InputError` names
    the first problem in one located line."""
    source = str(path)
    try:
        document = jsonfile.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError) as ex:
        raise InputError(f"{source}: cannot be read as JSON ({type(ex).__name__})") from None
    found = document.value
    if not isinstance(found, dict):
        raise InputError(
            f"{source}: found {shorten(found)}; expected an object, annotator -> participant ID"
        )
    for annotator, participant in found.items():
        if not isinstance(participant, str):
            raise InputError(
                f"{source}: {annotator}: found {shorten(participant)}; expected a participant ID "
                "(text)"
            )
    if document.problems:
        first = document.problems[0]
        where = ".".join(map(str, first.loc))
        raise InputError(f"{source}: {where}: found {first.found}; expected {first.expected}")
    return found


@dataclass
class _Reading:
    """One conversation of one file being read: what is missing and what is wrong."""

    where: str
    missing: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def bad(self, at: str, found: object, expected: str) -> None:
        self.wrong.append(f"{self.where}.{at}: found {shorten(found)}; expected {expected}")


def _binary(
    answer: Mapping[str, Any], turn: VisibleTurn, reading: _Reading, at: str
) -> dict[str, BinaryTruth] | None:
    given: Mapping[str, Any] = answer.get("binary") or {}
    for qid in sorted(set(given) - set(turn.binary_question_ids)):
        asked = ", ".join(turn.binary_question_ids) or "none"
        reading.bad(f"{at}.binary.{qid}", qid, f"one of the turn's questions ({asked})")
    complete = all(
        {"observed", "preferred"} <= set(given.get(q, {})) for q in turn.binary_question_ids
    )
    if not complete:
        return None
    return {
        q: BinaryTruth(observed=given[q]["observed"], preferred=given[q]["preferred"])
        for q in turn.binary_question_ids
    }


def _turn_truth(
    answers: Answers, conv: VisibleConversation, turn: VisibleTurn, phrasing: Phrasing, r: _Reading
) -> TurnTruth | None:
    n = turn.turn_number
    given: Mapping[str, Any] = (
        answers.conversations[conv.conversation_id].get("turns", {}).get(str(n), {})
    )
    emotion: Mapping[str, Any] = given.get("emotion") or {}
    binary_call = "emotion" if phrasing == "observer" else "binary_hp"
    binary = _binary(given.get(binary_call) or {}, turn, r, f"turns.{n}.{binary_call}")
    view = pairwise_view(answers.shuffle_seed, conv.conversation_id, turn)
    chosen: Mapping[str, Any] = given.get("pairwise") or {}
    known = {c.id for c in view.comparisons}
    for cid in sorted(set(chosen) - known):
        r.bad(f"turns.{n}.pairwise.{cid}", cid, f"one of the turn's {len(known)} comparisons")
    pairwise: dict[str, str] = {}
    for c in view.comparisons:
        winner = chosen.get(c.id, {}).get("winner")
        if winner is None:
            continue
        if winner not in (c.first, c.second):
            # The solver's label order is part of the task: a label outside the comparison's
            # pair means the page labelled the replies otherwise (another task version).
            r.bad(
                f"turns.{n}.pairwise.{c.id}.winner",
                winner,
                f"{c.first} or {c.second}, the labels of this comparison under shuffle_seed "
                f"{answers.shuffle_seed} (the file may come from another task version's page)",
            )
            continue
        pairwise[c.key] = view.labels[winner]
    missing = [
        name
        for name, absent in (
            ("pairwise", len(pairwise) < len(view.comparisons)),
            ("mood shift", "mood_shift" not in emotion),
            (f"binary ({binary_call})", binary is None),
        )
        if absent
    ]
    if missing or binary is None:
        r.missing.append(f"turn {n} {', '.join(missing)}")
        return None
    return TurnTruth(
        turn_number=n, mood_shift=dict(emotion["mood_shift"]), binary=binary, pairwise=pairwise
    )


def _choices(given: Mapping[str, bool], options: Sequence[str], r: _Reading, at: str) -> list[str]:
    for option in sorted(set(given) - set(options)):
        r.bad(at, option, "one of the codebook's options")
    return [o for o in options if given.get(o)]


def _post(post: Mapping[str, Any], codebook: Codebook, r: _Reading) -> dict[str, Any] | None:
    for name, options in (
        ("q2_emotion_clarity", codebook.q2_options),
        ("q3_model_fit", codebook.q3_options),
    ):
        if name in post and post[name] not in options:
            r.bad(f"post.{name}", post[name], "one of the codebook's options")
    q1 = _choices(post.get("q1_looking_for", {}), codebook.q1_options, r, "post.q1_looking_for")
    follow = _choices(
        post.get("q3_follow_up", {}), codebook.follow_up_options, r, "post.q3_follow_up"
    )
    absent = [
        name
        for name, ok in (
            ("post_panas", set(post.get("post_panas", {})) == set(PANAS_ITEMS)),
            ("four_branch", set(post.get("four_branch", {})) == set(BRANCHES)),
            ("q1_looking_for", set(post.get("q1_looking_for", {})) >= set(codebook.q1_options)),
            ("q2_emotion_clarity", "q2_emotion_clarity" in post),
            ("q3_model_fit", "q3_model_fit" in post),
        )
        if not ok
    ]
    if absent:
        r.missing.append(f"post ({', '.join(absent)})")
        return None
    return {
        "post_panas": dict(post["post_panas"]),
        "four_branch": dict(post["four_branch"]),
        "q1_looking_for": q1,
        "q2_emotion_clarity": post["q2_emotion_clarity"],
        "q3_model_fit": post["q3_model_fit"],
        "q3_follow_up": follow + entries(post.get("q3_follow_up_own_words") or ""),
    }


def conversation_labels(
    answers: Answers,
    conv: VisibleConversation,
    codebook: Codebook,
    phrasing: Phrasing = "observer",
) -> tuple[GroundTruth | None, list[str], list[str]]:
    """One conversation's answers in `answers` as a GroundTruth: (labels, or None where the
    answers are incomplete; what is missing, one line; what is wrong, one located line each)."""
    cid = conv.conversation_id
    r = _Reading(f"{answers.path}: conversations.{cid}")
    turns = [_turn_truth(answers, conv, t, phrasing, r) for t in conv.turns]
    post = _post(answers.conversations[cid].get("post") or {}, codebook, r)
    missing = [f"{r.where}: incomplete ({'; '.join(r.missing)}); left out"] if r.missing else []
    if r.wrong or r.missing or post is None:
        return None, missing, r.wrong
    truth = GroundTruth(
        conversation_id=cid,
        # The page hides the original model and cannot ask for the PANAS before the conversation:
        # no metric reads the name; the post-PANAS stands in so that the scorers run, and every
        # metric that reads the pre-PANAS is removed (NOT_COVERED_METRICS).
        om_model="",
        turns=[t for t in turns if t is not None],
        pre_panas=post["post_panas"],
        **post,
    )
    return truth, missing, r.wrong


def _digest(said: object) -> str:
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()


@dataclass
class _Files:
    """The answer files read so far: one vote per annotator, whatever its files are named."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    first_of: dict[str, tuple[str, str]] = field(default_factory=dict)
    """annotator -> (its first file, what the file says: its annotator and answers)."""
    named: dict[str, tuple[str, str]] = field(default_factory=dict)
    """What a file answers, whoever it names -> (the first file, its annotator)."""

    def admit(self, answers: Answers) -> Literal["new", "again", "conflict"]:
        """ "new": the file's labels enter; "again": the same annotator's same answers given
        again count once, with a note; "conflict": another file of the same annotator. Another's
        answers under a new name enter with a warning (why each: docs/third-party.md, 'One file
        per annotator, one vote')."""
        said = _digest({"annotator": answers.annotator, "conversations": answers.conversations})
        first = self.first_of.setdefault(answers.annotator, (answers.path, said))
        if first == (answers.path, said) and answers.path not in self._read:
            self._read.add(answers.path)
            self._alike(answers)
            return "new"
        if first[1] == said:
            how = "given more than once" if first[0] == answers.path else f"as {first[0]}"
            self.notes.append(
                f"{answers.path}: the same answers of {answers.annotator} {how}; counted once"
            )
            return "again"
        self.problems.append(
            f"{answers.path}: annotator: found {answers.annotator}, as in {first[0]}; "
            "expected one file per annotator (each is one annotator's label set)"
        )
        return "conflict"

    def _alike(self, answers: Answers) -> None:
        path, annotator = self.named.setdefault(
            _digest(answers.conversations), (answers.path, answers.annotator)
        )
        if annotator != answers.annotator:
            line = (
                f"{answers.path}: the same answers as {path} (annotator {annotator}) under "
                f"another annotator, {answers.annotator}: counted as two annotators; if they are "
                "one person's, give one of the files"
            )
            self.notes.append(line)
            logger.warning(line)

    _read: set[str] = field(default_factory=set)


def _checked(
    answers: Answers, visible: Mapping[str, VisibleConversation], codebook: Codebook
) -> list[str]:
    """What stops a file's use: its answers against the conversations, and its mode."""
    held = {c: a for c, a in answers.conversations.items() if c in visible}
    problems = (
        problems_with_data(replace(answers, conversations=held), visible, codebook)
        if held
        else asked_otherwise(answers, codebook)
    )
    if answers.mode not in LABEL_MODES:
        problems.append(
            f"{answers.path}: mode: found {answers.mode}; expected {' or '.join(LABEL_MODES)} "
            "(third-party labels are given without the participant's profile and "
            "pre-conversation PANAS, which the omniscient modes show)"
        )
    return problems


def _label_sets(
    answers: Answers,
    visible: Mapping[str, VisibleConversation],
    participants: Mapping[str, str],
    codebook: Codebook,
    identities: Mapping[str, str],
    phrasing: Phrasing,
    files: _Files,
) -> list[LabelSet]:
    """A file's complete conversations as label sets; incomplete ones and self-ratings noted."""
    labels = []
    for cid in sorted(c for c in answers.conversations if c in visible):
        truth, missing, wrong = conversation_labels(answers, visible[cid], codebook, phrasing)
        files.notes.extend(missing)
        files.problems.extend(wrong)
        if truth is None:
            continue
        mine = identities.get(answers.annotator)
        own = mine is not None and mine == participants.get(cid)
        if own:
            files.notes.append(
                f"{answers.path}: conversations.{cid}: annotator {answers.annotator} is this "
                f"conversation's participant ({mine}): marked as a self-rating and left out "
                "of the third-party consensus"
            )
        labels.append(
            LabelSet(
                cid,
                answers.annotator,
                truth,
                answers.path,
                self_rating=own,
                shuffle_seed=answers.shuffle_seed,
            )
        )
    return labels


def load_third_party(
    paths: Sequence[str | Path],
    visible: Mapping[str, VisibleConversation],
    participants: Mapping[str, str],
    codebook: Codebook,
    *,
    identities: Mapping[str, str] | None = None,
    phrasing: Phrasing = "observer",
    unselected: Collection[str] = (),
) -> ThirdParty:
    """Every answer file's complete conversations as label sets.

    `visible`: conversation ID -> its visible part, for the conversations the labels can be used
    for (a file's other conversations are left out, each with a note); `participants`:
    conversation ID -> its participant ID; `identities`: annotator -> the participant ID they
    had (`read_identities`); `unselected`: conversations a filter left out (without a note)."""
    labels: list[LabelSet] = []
    files = _Files()
    for path in paths:
        try:
            answers = read_answers(path)
        except AnswersError as ex:
            files.problems.extend(ex.problems)
            continue
        admitted = files.admit(answers)
        if admitted == "again":
            continue
        files.notes.extend(
            f"{answers.path}: conversations.{cid}: found a conversation no log holds; left out "
            "(only conversations both the logs and the answer files have are rescored)"
            for cid in sorted(set(answers.conversations) - set(visible) - set(unselected))
        )
        files.problems.extend(_checked(answers, visible, codebook))
        if admitted == "new":
            labels += _label_sets(
                answers, visible, participants, codebook, identities or {}, phrasing, files
            )
    return ThirdParty(tuple(labels), tuple(files.problems), tuple(files.notes))
