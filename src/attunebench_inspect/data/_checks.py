"""Checks of a parsed conversation that need the codebook or span several fields: problems
(`check_conversation`: it cannot be scored as labelled) and warnings (`conversation_warnings`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ._codebook import GENERAL_PAIRWISE, Codebook
from ._panas import affect_totals
from ._problems import DataProblem, shorten
from ._schema import Conversation, ConversationWideQuestions, Turn

MAX_MESSAGE_CHARS = 32_000
"""A message or reply longer than this (about 8,000 tokens) is warned of: the real data's are a
few hundred characters, and one this long is more likely a paste or an error than a turn."""
MAX_CONVERSATION_CHARS = 400_000
"""A conversation whose prompt text (messages, replies and the alternate replies the pairwise
call shows) passes this (about 100,000 tokens) is warned of: with the protocol's own text its
last calls pass a 128,000-token context window (gpt-4o's); `attunebench estimate` says which
calls pass the named model's window."""


def conversation_warnings(conv: Conversation, codebook: Codebook, source: str) -> list[DataProblem]:
    """A warning per message over MAX_MESSAGE_CHARS, one for a conversation over
    MAX_CONVERSATION_CHARS, then the PANAS totals and the follow-up's."""
    warnings: list[DataProblem] = []

    def warn(turn: int | None, field: str, found: str, expected: str) -> None:
        warnings.append(DataProblem(source, turn, field, found, expected, conv.conversationId))

    size = 0
    for turn in conv.turns:
        alternates = turn.annotations.alternateResponses
        for field, text in (
            ("userMessage", turn.userMessage),
            ("llmResponse", turn.llmResponse),
            ("annotations.alternateResponses.llmImproved", alternates.llmImproved),
            ("annotations.alternateResponses.humanEdited", alternates.humanEdited),
        ):
            size += len(text)
            if len(text) > MAX_MESSAGE_CHARS:
                warn(
                    turn.turnNumber,
                    field,
                    f"{len(text):,} characters",
                    f"at most {MAX_MESSAGE_CHARS:,} (about 8,000 tokens; it is sent as it is)",
                )
    if size > MAX_CONVERSATION_CHARS:
        warn(
            None,
            "turns",
            f"{size:,} characters of messages and replies",
            f"at most {MAX_CONVERSATION_CHARS:,} (about 100,000 tokens: its last calls pass a "
            "128,000-token context window; `attunebench estimate --model M` names the calls "
            "past M's)",
        )

    # The seed's scorer derives PANAS aggregates from the items, and so does this one.
    for name, panas in (("prePanas", conv.prePanas), ("postPanas", conv.postPanas)):
        positive, negative = affect_totals(panas.responses)
        for field, given, total, affect in (
            ("totalPositiveAffect", panas.totalPositiveAffect, positive, "positive"),
            ("totalNegativeAffect", panas.totalNegativeAffect, negative, "negative"),
        ):
            if given != total:
                warn(
                    None,
                    f"{name}.{field}",
                    shorten(given),
                    f"{total}, the sum of the 10 {affect}-affect items (the items are scored)",
                )

    cw = conv.conversationWideQuestions
    if cw.q3_followUp_whatFeltOff and cw.q3_modelFit not in codebook.q3_follow_up_when:
        warn(
            None,
            "conversationWideQuestions.q3_followUp_whatFeltOff",
            shorten(cw.q3_followUp_whatFeltOff),
            f"none after q3_modelFit {cw.q3_modelFit!r}, which is not a negative answer "
            "(the follow-up is asked after one; this one is scored all the same)",
        )
    return warnings


def check_conversation(conv: Conversation, codebook: Codebook, source: str) -> list[DataProblem]:
    problems: list[DataProblem] = []

    def problem(turn: int | None, field: str, found: object, expected: str) -> None:
        problems.append(
            DataProblem(source, turn, field, shorten(found), expected, conv.conversationId)
        )

    _conversation_wide(conv.conversationWideQuestions, codebook, problem)
    for index, turn in enumerate(conv.turns):
        number = turn.turnNumber
        if number != index + 1:
            problem(
                number, "turnNumber", number, f"{index + 1} (turns numbered 1, 2, ... in order)"
            )
        emotions = Counter(tag.item for tag in turn.moodShiftTags)
        for emotion, count in emotions.items():
            if count > 1:
                problem(number, "moodShiftTags", emotion, "each emotion tagged at most once")
        _binary(turn, codebook, problem)
        _pairwise(turn, codebook, problem)
    return problems


Problem = Callable[[int | None, str, object, str], None]
"""Records one problem: (turn, field, found, expected)."""


def _conversation_wide(cw: ConversationWideQuestions, codebook: Codebook, problem: Problem) -> None:
    for field, values, options in (
        ("q1_lookingFor", cw.q1_lookingFor, codebook.q1_options),
        ("q2_emotionClarity", [cw.q2_emotionClarity], codebook.q2_options),
        ("q3_modelFit", [cw.q3_modelFit], codebook.q3_options),
    ):
        for value in values:
            if value not in options:
                problem(
                    None,
                    f"conversationWideQuestions.{field}",
                    value,
                    f"one of the codebook's {field} options",
                )
    if len(set(cw.q1_lookingFor)) != len(cw.q1_lookingFor):
        problem(
            None,
            "conversationWideQuestions.q1_lookingFor",
            cw.q1_lookingFor,
            "each option at most once",
        )


def _binary(turn: Turn, codebook: Codebook, problem: Problem) -> None:
    seen: set[str] = set()
    for j, judgement in enumerate(turn.annotations.binaryJudgements):
        qid = judgement.questionId
        field = f"annotations.binaryJudgements[{j}].questionId"
        if qid not in codebook.binary:
            problem(turn.turnNumber, field, qid, "a binary question ID from the codebook")
        if qid in seen:
            problem(turn.turnNumber, field, qid, "each question judged at most once per turn")
        seen.add(qid)


def _pairwise(turn: Turn, codebook: Codebook, problem: Problem) -> None:
    number, annotations = turn.turnNumber, turn.annotations
    for j, qid in enumerate(annotations.selectedPairwiseQuestions):
        if qid not in codebook.pairwise or qid == GENERAL_PAIRWISE:
            problem(
                number,
                f"annotations.selectedPairwiseQuestions[{j}]",
                qid,
                "a PW question ID from the codebook",
            )
    seen: set[tuple[str, frozenset[str]]] = set()
    for j, comparison in enumerate(annotations.pairwiseComparisons):
        field = f"annotations.pairwiseComparisons[{j}]"
        if comparison.questionId not in codebook.pairwise:
            problem(
                number,
                f"{field}.questionId",
                comparison.questionId,
                "'general' or a PW question ID from the codebook",
            )
        if comparison.responseA == comparison.responseB:
            problem(
                number,
                f"{field}.responseB",
                comparison.responseB,
                f"a response other than responseA ({comparison.responseA})",
            )
            continue
        key = (comparison.questionId, frozenset((comparison.responseA, comparison.responseB)))
        if key in seen:
            problem(
                number,
                field,
                f"{comparison.questionId} {comparison.responseA}/{comparison.responseB}",
                "each pair compared at most once per question",
            )
        seen.add(key)
