"""The one split of a conversation into what the evaluated model may see (`VisibleConversation`,
the only thing the solver is handed: no label field at all) and the ground truth (`GroundTruth`,
for scorers only)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._schema import Conversation, ResponseSource, Turn

BinaryValue = Literal["yes", "no", "na"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- what the evaluated model may see ---------------------------------------------------------


class Topic(_Frozen):
    category: str
    subtopic: str
    text: str


class Comparison(_Frozen):
    """One pairwise comparison the participant made (not its winner)."""

    question_id: str
    response_a: ResponseSource
    response_b: ResponseSource

    @property
    def key(self) -> str:
        return comparison_key(self.question_id, self.response_a, self.response_b)


class VisibleTurn(_Frozen):
    turn_number: int
    user_message: str
    om_response: str
    alternate_response: str
    human_response: str
    binary_question_ids: list[str]
    comparisons: list[Comparison]

    def response(self, source: ResponseSource) -> str:
        return {
            "original": self.om_response,
            "alternate": self.alternate_response,
            "human": self.human_response,
        }[source]


class Background(_Frozen):
    """What omniscient modes add to the context; default modes never render it."""

    profile: dict[str, object]
    pre_panas: dict[str, int]
    topic_attitude: str


class VisibleConversation(_Frozen):
    conversation_id: str
    topic: Topic
    turns: list[VisibleTurn]
    background: Background


# --- the ground truth ---------------------------------------------------------------------


class BinaryTruth(_Frozen):
    observed: BinaryValue
    preferred: BinaryValue


class TurnTruth(_Frozen):
    turn_number: int
    mood_shift: dict[str, int]
    """PANAS item (lower case) -> intensity 1-7; empty for a neutral turn."""
    binary: dict[str, BinaryTruth]
    pairwise: dict[str, ResponseSource]
    """comparison key -> the source the participant chose."""


class GroundTruth(_Frozen):
    conversation_id: str
    om_model: str
    turns: list[TurnTruth]
    pre_panas: dict[str, int]
    post_panas: dict[str, int]
    four_branch: dict[str, int]
    q1_looking_for: list[str]
    q2_emotion_clarity: str
    q3_model_fit: str
    q3_follow_up: list[str]


def comparison_key(question_id: str, a: ResponseSource, b: ResponseSource) -> str:
    """A stable key for one comparison: question and unordered pair (`comparison_pair` reads it)."""
    first, second = sorted((a, b))
    return f"{question_id}:{first}-{second}"


def comparison_pair(key: str) -> tuple[str, str]:
    """The two sources a `comparison_key` names, in its order; ValueError for what is not one."""
    _, colon, pair = key.rpartition(":")
    first, dash, second = pair.partition("-")
    if not (colon and first and dash and second):
        raise ValueError(f"comparison key {key!r}: expected 'question:source-source'")
    return first, second


def _documented(model: BaseModel) -> dict[str, object]:
    # The deposit may carry fields the seed does not show; only the documented ones are sent.
    return model.model_dump(include=set(type(model).model_fields))


def _visible_turn(turn: Turn) -> VisibleTurn:
    notes = turn.annotations
    return VisibleTurn(
        turn_number=turn.turnNumber,
        user_message=turn.userMessage,
        om_response=turn.llmResponse,
        alternate_response=notes.alternateResponses.llmImproved,
        human_response=notes.alternateResponses.humanEdited,
        binary_question_ids=[j.questionId for j in notes.binaryJudgements],
        comparisons=[
            Comparison(question_id=c.questionId, response_a=c.responseA, response_b=c.responseB)
            for c in notes.pairwiseComparisons
        ],
    )


def _turn_truth(turn: Turn) -> TurnTruth:
    notes = turn.annotations
    return TurnTruth(
        turn_number=turn.turnNumber,
        mood_shift={tag.item: tag.intensity for tag in turn.moodShiftTags},
        binary={
            j.questionId: BinaryTruth(observed=j.observedBehavior, preferred=j.preferredBehavior)
            for j in notes.binaryJudgements
        },
        pairwise={
            comparison_key(c.questionId, c.responseA, c.responseB): c.responseA
            if c.winner == "A"
            else c.responseB
            for c in notes.pairwiseComparisons
        },
    )


def split(conv: Conversation) -> tuple[VisibleConversation, GroundTruth]:
    cw = conv.conversationWideQuestions
    visible = VisibleConversation(
        conversation_id=conv.conversationId,
        topic=Topic(
            category=conv.metadata.category,
            subtopic=conv.metadata.subtopic,
            text=conv.metadata.text,
        ),
        turns=[_visible_turn(turn) for turn in conv.turns],
        background=Background(
            # The profile as omniscient modes show it: the documented demographics and computed
            # scores (no participant ID, and no field the seed does not document).
            profile={
                "demographics": _documented(conv.participant_profile.demographics),
                "computed_scores": _documented(conv.participant_profile.computed_scores),
            },
            pre_panas=dict(conv.prePanas.responses),
            topic_attitude=conv.participant_profile.conversation_topic_attitude,
        ),
    )
    truth = GroundTruth(
        conversation_id=conv.conversationId,
        om_model=conv.metadata.model,
        turns=[_turn_truth(turn) for turn in conv.turns],
        pre_panas=dict(conv.prePanas.responses),
        post_panas=dict(conv.postPanas.responses),
        four_branch=_documented(cw.fourBranchScores),
        q1_looking_for=list(cw.q1_lookingFor),
        q2_emotion_clarity=cw.q2_emotionClarity,
        q3_model_fit=cw.q3_modelFit,
        q3_follow_up=list(cw.q3_followUp_whatFeltOff),
    )
    return visible, truth
