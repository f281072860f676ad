"""Property tests: no model output, however broken, makes the parsers raise; what they accept is
exactly what the schema allows, and a rejected answer is scored as wrong."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.util import JSONSchema, json_schema

from attunebench_inspect.baselines.providers import RandomFill
from attunebench_inspect.data import load_codebook
from attunebench_inspect.solve.parse import parse_answer, parse_draft
from attunebench_inspect.solve.schemas import (
    CallSchema,
    binary_hp_schema,
    emotion_schema,
    judge_schema,
    pairwise_schema,
    post_schema,
)

CODEBOOK = load_codebook()
QUESTIONS = ("B1", "B15", "B108", "B505")
SCHEMAS: dict[str, CallSchema] = {
    "emotion": emotion_schema(QUESTIONS, False),
    "emotion_verbose": emotion_schema(QUESTIONS, True),
    "binary_hp": binary_hp_schema(QUESTIONS, False),
    "pairwise": pairwise_schema((("c01", "1", "2"), ("c02", "1", "3"), ("c03", "2", "3")), True),
    "post": post_schema(
        tuple(CODEBOOK.q1_options),
        tuple(CODEBOOK.q2_options),
        tuple(CODEBOOK.q3_options),
        tuple(CODEBOOK.follow_up_options),
        False,
    ),
    "judge": judge_schema(QUESTIONS),
}
EXAMPLES = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _valid(name: str, seed: int) -> dict[str, Any]:
    value: dict[str, Any] = RandomFill(random.Random(seed))(
        SCHEMAS[name].response_schema.json_schema
    )
    return value


junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.lists(st.integers(), max_size=3),
    st.just("x" * 100_000),
    st.dictionaries(st.text(max_size=8), st.integers(), max_size=3),
)


@st.composite
def mutated(draw: st.DrawFn, name: str) -> tuple[str, bool | None]:
    """(model output text, whether it must parse: True, False, or None when either is fine)."""
    value = _valid(name, draw(st.integers(0, 10**9)))
    kind = draw(
        st.sampled_from(
            [
                "valid",
                "fenced",
                "prose",
                "drop_key",
                "retype",
                "unknown_key",
                "out_of_range",
                "unknown_emotion",
                "duplicate_key",
                "truncated",
                "junk_text",
                "huge_string",
                "nested_junk",
            ]
        )
    )
    if kind == "valid":
        return json.dumps(value), True
    if kind == "fenced":
        return f"Here you go:\n```json\n{json.dumps(value, indent=2)}\n```\nHope that helps!", True
    if kind == "prose":
        return f"My answer is {json.dumps(value)} and that is final.", True
    if kind == "drop_key":
        del value[draw(st.sampled_from(sorted(value)))]
        return json.dumps(value), False
    if kind == "retype":
        value[draw(st.sampled_from(sorted(value)))] = draw(junk)
        return json.dumps(value), None
    if kind == "unknown_key":
        value["B999"] = {"observed": "yes", "preferred": "no"}
        return json.dumps(value), False
    if kind == "out_of_range":
        if "mood_shift" in value:
            value["mood_shift"] = {"upset": draw(st.sampled_from([0, 8, -1, 100]))}
            return json.dumps(value), False
        return json.dumps(value), True
    if kind == "unknown_emotion":
        if "mood_shift" in value:
            value["mood_shift"] = {"happy": 3}
            return json.dumps(value), False
        return json.dumps(value), True
    if kind == "duplicate_key":
        text = json.dumps(value)
        key = draw(st.sampled_from(sorted(value)))
        return text[:-1] + f', "{key}": {json.dumps(value[key])}' + "}", False
    if kind == "truncated":
        text = json.dumps(value)
        return text[: draw(st.integers(0, max(0, len(text) - 2)))], False
    if kind == "junk_text":
        return draw(st.text(max_size=200)), None
    if kind == "huge_string":
        return json.dumps(value) + "\n" + "\ufffd\x00" * 50_000, True
    value[draw(st.sampled_from(sorted(value)))] = {"deep": [draw(junk), {"x": draw(junk)}]}
    return json.dumps(value), False


def _check(name: str, case: tuple[str, bool | None]) -> None:
    text, should_parse = case
    parsed = parse_answer(text, SCHEMAS[name].model)
    assert parsed.ok == (parsed.error is None)
    if should_parse is not None:
        assert parsed.ok == should_parse, (parsed.error, text[:300])
    if parsed.ok:
        # What is accepted is exactly what the schema allows: it validates again unchanged.
        assert SCHEMAS[name].model.model_validate(parsed.value) is not None


@EXAMPLES
@given(mutated("emotion"))
def test_emotion_outputs(case: tuple[str, bool | None]) -> None:
    _check("emotion", case)


@EXAMPLES
@given(mutated("emotion_verbose"))
def test_verbose_emotion_outputs(case: tuple[str, bool | None]) -> None:
    _check("emotion_verbose", case)


@EXAMPLES
@given(mutated("binary_hp"))
def test_binary_hp_outputs(case: tuple[str, bool | None]) -> None:
    _check("binary_hp", case)


@EXAMPLES
@given(mutated("pairwise"))
def test_pairwise_outputs(case: tuple[str, bool | None]) -> None:
    _check("pairwise", case)


@EXAMPLES
@given(mutated("post"))
def test_post_outputs(case: tuple[str, bool | None]) -> None:
    _check("post", case)


@EXAMPLES
@given(mutated("judge"))
def test_judge_outputs(case: tuple[str, bool | None]) -> None:
    _check("judge", case)


@EXAMPLES
@given(st.text(max_size=500))
def test_drafts_never_raise(text: str) -> None:
    parsed = parse_draft(text)
    assert parsed.ok == bool(text.strip())


def _reference_wire(schema: JSONSchema) -> JSONSchema:
    """The wire schema derived from pydantic's schema of the whole model in one go."""
    if schema.anyOf is not None:
        rest = [s for s in schema.anyOf if s.type != "null"]
        if len(rest) == 1:
            schema = rest[0].model_copy(update={"description": schema.description})
    updates: dict[str, Any] = {"default": None}
    if schema.properties:
        updates["properties"] = {k: _reference_wire(v) for k, v in schema.properties.items()}
        updates["additionalProperties"] = False
    return schema.model_copy(update=updates)


@pytest.mark.parametrize("verbose", [False, True])
def test_wire_schemas_assembled_by_parts_equal_pydantics(verbose: bool) -> None:
    schemas = [
        emotion_schema(QUESTIONS, verbose),
        binary_hp_schema(QUESTIONS, verbose),
        pairwise_schema((("c01", "1", "2"), ("c02", "2", "3")), verbose),
        post_schema(
            tuple(CODEBOOK.q1_options),
            tuple(CODEBOOK.q2_options),
            tuple(CODEBOOK.q3_options),
            tuple(CODEBOOK.follow_up_options),
            verbose,
        ),
        judge_schema(QUESTIONS),
    ]
    for schema in schemas:
        assembled = schema.response_schema.json_schema.model_dump(exclude_none=True)
        reference = _reference_wire(json_schema(schema.model)).model_dump(exclude_none=True)
        assert assembled == reference, schema.call
