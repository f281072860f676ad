"""Output schemas of every structured call, built per call from the visible turn.

Each schema is a pydantic model (validation of what the model answers); from it come the JSON
schema sent as `response_schema` where answers are enforced by the server, and the answer's shape
as every prompt states it (`shape_of`). There are no arrays: Inspect's JSONSchema drops maxItems
and grammar-constrained local models fill unbounded arrays until max_tokens, so sets are objects
keyed by option and every scale is an enum (grammar converters ignore numeric min/max)."""

from __future__ import annotations

import json
import types
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, ClassVar, Literal, Union, get_args, get_origin

from inspect_ai.model import ResponseSchema
from inspect_ai.util import JSONSchema, json_schema
from pydantic import BaseModel, ConfigDict, create_model, field_validator, model_validator

from ..data._panas import PANAS_ITEMS
from ._call_record import CallType

SCHEMA_PREFIX = "attunebench_"

Rating = Literal[1, 2, 3, 4, 5, 6, 7]
YesNoNa = Literal["yes", "no", "na"]
JUDGE_CRITERIA = ("overall", "emotional_appropriateness", "helpfulness", "tone_match")
BRANCHES = ("perceiving", "facilitating", "understanding", "managing")


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BinaryAnswerBase(Answer):
    @field_validator("observed", "preferred", mode="before", check_fields=False)
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class MoodShiftBase(Answer):
    # Every item is optional: the shape names the set the keys come from instead of all twenty.
    key_hint: ClassVar[str] = "PANAS item"

    @model_validator(mode="before")
    @classmethod
    def _lower_names(cls, value: object) -> object:
        # Emotion names match the PANAS items case-insensitively ("Nervous" is "nervous").
        if isinstance(value, dict):
            return {k.lower() if isinstance(k, str) else k: v for k, v in value.items()}
        return value


@dataclass(frozen=True)
class CallSchema:
    """The validation model and the wire schema of one call."""

    call: CallType
    model: type[Answer]

    @property
    def shape(self) -> str:
        return shape_of(self.model)

    @cached_property
    def response_schema(self) -> ResponseSchema:
        return ResponseSchema(
            name=SCHEMA_PREFIX + self.call,
            json_schema=wire_schema(self.model),
            description=f"AttuneBench {self.call} answer",
        )


FREE_TEXT = '"..."'
"""How a shape shows a field the model writes in its own words."""


def _value_shape(annotation: Any) -> str:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return shape_of(annotation)
    if annotation is bool:
        return "true|false"
    if annotation is str:
        return FREE_TEXT
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        (value,) = (a for a in get_args(annotation) if a is not type(None))
        return _value_shape(value)
    if origin is Literal:
        values = get_args(annotation)
        if all(isinstance(v, int) for v in values) and list(values) == list(
            range(min(values), max(values) + 1)
        ):
            return f"<{min(values)}-{max(values)}>"
        return json.dumps("|".join(str(v) for v in values), ensure_ascii=False)
    raise TypeError(f"no shape for {annotation!r}")


@cache
def shape_of(model: type[BaseModel]) -> str:
    """The answer's shape as a prompt states it: the JSON object with each value's alternatives
    in its place ("yes|no|na", <1-7>, true|false, "..." for free text). An object whose fields
    are all optional and alike (a model with a `key_hint`) is shown as an open set of keys."""
    fields = model.model_fields
    hint = getattr(model, "key_hint", None)
    if hint is not None:
        (value,) = {_value_shape(f.annotation) for f in fields.values()}
        return "{" + json.dumps(f"<{hint}>") + f": {value}, ...}}"
    shown = ", ".join(
        f"{json.dumps(name, ensure_ascii=False)}: {_value_shape(f.annotation)}"
        for name, f in fields.items()
    )
    return "{" + shown + "}"


def answer_object(name: str, fields: dict[str, Any], base: type[Answer] = Answer) -> type[Answer]:
    model: type[Answer] = create_model(name, __base__=base, **fields)
    return model


def _strip_optional(schema: JSONSchema) -> JSONSchema:
    """Optional fields come out as anyOf[X, null] with a null default; send X alone."""
    if schema.anyOf is not None:
        rest = [s for s in schema.anyOf if s.type != "null"]
        if len(rest) == 1:
            schema = rest[0].model_copy(update={"description": schema.description})
    return schema.model_copy(update={"default": None})


@cache
def _leaf_schema(annotation: Any) -> JSONSchema:
    return _strip_optional(json_schema(annotation))


@cache
def wire_schema(model: type[BaseModel]) -> JSONSchema:
    """The JSON schema sent for `model`: every object closed (additionalProperties false),
    optional fields sent as their type alone.

    Assembled field by field with every nested model's schema built once: pydantic regenerates
    each nested model per call, and schemas of new question sets (one per turn on real data)
    were the largest share of our own CPU time."""
    properties: dict[str, JSONSchema] = {}
    for name, field in model.model_fields.items():
        nested: Any = field.annotation
        schema = (
            wire_schema(nested)
            if isinstance(nested, type) and issubclass(nested, BaseModel)
            else _leaf_schema(nested)
        )
        properties[name] = schema.model_copy(update={"description": field.description})
    required = [name for name, field in model.model_fields.items() if field.is_required()]
    return JSONSchema(
        type="object",
        properties=properties,
        additionalProperties=False,
        required=required or None,
    )


def _reasoning(verbose: bool) -> dict[str, Any]:
    # Reasoning comes first so the model reasons before it commits to an answer.
    return {"reasoning": (str, ...)} if verbose else {}


# Schemas depend only on the question set, the labels and the mode, which repeat across turns and
# conversations; building pydantic models and JSON schemas per call was most of our own CPU time.


@cache
def binary_answer(verbose: bool) -> type[Answer]:
    """One question's answer: the same for every question set."""
    return answer_object(
        "BinaryAnswer",
        {**_reasoning(verbose), "observed": (YesNoNa, ...), "preferred": (YesNoNa, ...)},
        BinaryAnswerBase,
    )


@cache
def binary_answers(question_ids: tuple[str, ...], verbose: bool) -> type[Answer]:
    return answer_object(
        "BinaryAnswers", {qid: (binary_answer(verbose), ...) for qid in question_ids}
    )


@cache
def mood_shift_model() -> type[Answer]:
    return answer_object(
        "MoodShift", {item: (Rating | None, None) for item in PANAS_ITEMS}, MoodShiftBase
    )


@cache
def emotion_schema(question_ids: tuple[str, ...], verbose: bool) -> CallSchema:
    fields: dict[str, Any] = {
        **_reasoning(verbose),
        "mood_shift": (mood_shift_model(), ...),
        "binary": (binary_answers(question_ids, verbose), ...),
    }
    return CallSchema("emotion", answer_object("EmotionAnswer", fields))


@cache
def binary_hp_schema(question_ids: tuple[str, ...], verbose: bool) -> CallSchema:
    return CallSchema(
        "binary_hp",
        answer_object("BinaryHpAnswer", {"binary": (binary_answers(question_ids, verbose), ...)}),
    )


@cache
def winner(first: str, second: str, verbose: bool) -> type[Answer]:
    """One comparison's answer: the same for every comparison of the same two labels."""
    return answer_object("Winner", {**_reasoning(verbose), "winner": (Literal[first, second], ...)})


@cache
def pairwise_schema(choices: tuple[tuple[str, str, str], ...], verbose: bool) -> CallSchema:
    """`choices`: (comparison id, first label, second label) per comparison."""
    fields: dict[str, Any] = {
        cid: (winner(first, second, verbose), ...) for cid, first, second in choices
    }
    return CallSchema("pairwise", answer_object("PairwiseAnswer", fields))


def choices_object(name: str, options: tuple[str, ...]) -> type[Answer]:
    return answer_object(name, {option: (bool, ...) for option in options})


@cache
def post_schema(
    q1: tuple[str, ...],
    q2: tuple[str, ...],
    q3: tuple[str, ...],
    follow_up: tuple[str, ...],
    verbose: bool,
) -> CallSchema:
    fields: dict[str, Any] = {
        **_reasoning(verbose),
        "post_panas": (
            answer_object("PostPanas", {item: (Rating, ...) for item in PANAS_ITEMS}),
            ...,
        ),
        "q1_looking_for": (choices_object("LookingFor", q1), ...),
        "q2_emotion_clarity": (Literal[tuple(q2)], ...),
        "q3_model_fit": (Literal[tuple(q3)], ...),
        "q3_follow_up": (choices_object("WhatFeltOff", follow_up), ...),
        # Participants answered the follow-up in their own words as well as with options.
        "q3_follow_up_own_words": (str | None, None),
        "four_branch": (answer_object("FourBranch", {b: (Rating, ...) for b in BRANCHES}), ...),
    }
    return CallSchema("post", answer_object("PostAnswer", fields))


@cache
def judge_schema(question_ids: tuple[str, ...]) -> CallSchema:
    fields: dict[str, Any] = {
        "reasoning": (str, ...),
        "ratings": (answer_object("DraftRatings", {c: (Rating, ...) for c in JUDGE_CRITERIA}), ...),
        "binary": (
            answer_object("DraftBinary", {qid: (YesNoNa, ...) for qid in question_ids}),
            ...,
        ),
    }
    return CallSchema("judge", answer_object("JudgeAnswer", fields))


def call_of(schema_name: str | None) -> CallType:
    """Which call a response schema belongs to (no schema: the free-text draft)."""
    if schema_name is None:
        return "draft"
    name = schema_name.removeprefix(SCHEMA_PREFIX)
    if name not in ("judge", "emotion", "binary_hp", "pairwise", "post"):
        raise ValueError(f"not an AttuneBench response schema: {schema_name}")
    return name  # type: ignore[return-value]
