"""Property tests: no model output, however broken, makes the parsers raise; what they accept is
exactly what the schema allows, and a rejected answer is scored as wrong."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.util import JSONSchema, json_schema
from pydantic import BaseModel, field_validator

from attunebench_inspect.data import load_codebook
from attunebench_inspect.providers._baselines import RandomFill
from attunebench_inspect.solve import _parse as parse
from attunebench_inspect.solve._parse import TOO_DEEP, extract_json, parse_answer, parse_draft
from attunebench_inspect.solve._schemas import (
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
# Past Python's recursion limit (1000) by far, and around it, where the outcome must not depend on
# how deep the caller's own stack is.
DEPTHS = st.integers(900, 20_000)
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
_LEVELS = {"object": ('{"a": ', "}"), "array": ("[", "]")}
_SHAPES = {"object": ["object"], "array": ["array"], "mixed": ["object", "array"]}


def _nested(inner: str, depth: int, shape: str, closed: bool = True) -> str:
    """`inner` as JSON text `depth` levels down in objects, arrays or both in turn."""
    kinds = _SHAPES[shape]
    levels = [_LEVELS[kinds[i % len(kinds)]] for i in range(depth)]
    closing = "".join(close for _, close in reversed(levels)) if closed else ""
    return "".join(open_ for open_, _ in levels) + inner + closing


def _with_field(value: dict[str, Any], key: str, text: str) -> str:
    """`value` as JSON with `key`'s value replaced by raw JSON `text` (too deep for json.dumps)."""
    return json.dumps({**value, key: "\x00field"}).replace('"\\u0000field"', text)


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
                "deep_junk",
                "deep_wrapped",
                "deep_field",
                "deep_after",
                "huge_number",
                "brace_run",
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
        fields = SCHEMAS[name].model.model_fields
        del value[draw(st.sampled_from(sorted(k for k in value if fields[k].is_required())))]
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
    shape = draw(st.sampled_from(sorted(_SHAPES)))
    if kind == "deep_junk":
        return _nested("1", draw(DEPTHS), shape, draw(st.booleans())), False
    if kind == "deep_wrapped":
        closed = draw(st.booleans())
        text = _nested(json.dumps(value), draw(DEPTHS), shape, closed)
        # Arrays are skipped on the way to the answer; an unclosed object may be decoded past
        # (to the answer) or fail as too deep, by how deep the stack already is.
        return text, True if shape == "array" else (False if closed else None)
    if kind == "deep_field":
        key = draw(st.sampled_from(sorted(value)))
        return _with_field(value, key, _nested("1", draw(DEPTHS), shape)), False
    if kind == "deep_after":
        return json.dumps(value) + _nested("1", draw(DEPTHS), shape, draw(st.booleans())), True
    if kind == "huge_number":
        key = draw(st.sampled_from(sorted(value)))
        return _with_field(value, key, "9" * draw(st.integers(4_000, 100_000))), False
    if kind == "brace_run":
        return "{" * draw(st.integers(1, 5_000)) + json.dumps(value), True
    value[draw(st.sampled_from(sorted(value)))] = {"deep": [draw(junk), {"x": draw(junk)}]}
    return json.dumps(value), False


def _check(name: str, case: tuple[str, bool | None]) -> None:
    text, should_parse = case
    parsed = parse_answer(text, SCHEMAS[name].model)
    assert parsed.ok == (parsed.error is None)
    assert parsed.error is None or "\n" not in parsed.error
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


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a":' * 5000 + "1" + "}" * 5000, TOO_DEEP),
        ('{"binary": ' + "[" * 5000, TOO_DEEP),
        ("```json\n" + _nested("1", 5000, "mixed") + "\n```", TOO_DEEP),
        ('{"binary": ' + "9" * 5000 + "}", "a number in the reply has too many digits"),
    ],
)
def test_unreadable_replies_fail_with_their_reason(text: str, reason: str) -> None:
    for schema in SCHEMAS.values():
        assert parse_answer(text, schema.model).error == reason


class _Exploding(BaseModel):
    x: int

    @field_validator("x")
    @classmethod
    def _explode(cls, value: int) -> int:
        raise KeyError(value)


def test_a_validator_that_raises_is_a_parse_failure() -> None:
    # Pydantic turns only ValueError and AssertionError into validation errors.
    assert parse_answer('{"x": 1}', _Exploding).error == "the reply could not be read (KeyError)"


# --- hostile replies: a parse failure whose work the search cap bounds ----------------------------


def _reference_extract(text: str) -> Any:
    """The extraction as first written (quadratic on hostile replies): the first JSON object,
    tried at every brace of every fence and then of the whole text."""
    fence = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
    for candidate in [m.group(1) for m in fence.finditer(text)] + [text]:
        start = candidate.find("{")
        while start != -1:
            try:
                return parse._DECODER.raw_decode(candidate, start)[0]
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
    raise ValueError("no JSON object found in the reply")


def _outcome(extract: Callable[[str], Any], text: str) -> tuple[str, Any]:
    try:
        return "value", extract(text)
    except ValueError as ex:
        return "error", str(ex)


_PIECES = st.sampled_from(
    [
        *("{", "}", "[", "]", '"', ":", ",", " ", "\n", "\\", "a", "1", "-", ".", "e"),
        *("true", "-Infinity", "NaN", '{"', '": ', "\\u00e9", "\\ud83d\\ude00", "```", "```json\n"),
    ]
)


@st.composite
def near_answers(draw: st.DrawFn) -> str:
    """Replies around an answer of every length: prose and JSON-like debris before it, the answer
    cut anywhere, fenced or not, and debris after it."""
    value = _valid(draw(st.sampled_from(sorted(SCHEMAS))), draw(st.integers(0, 10**9)))
    value["padding"] = draw(st.text(max_size=draw(st.sampled_from([10, 300, 1200]))))
    answer = json.dumps(value, ensure_ascii=draw(st.booleans()))
    answer = answer[: draw(st.integers(0, len(answer)))] if draw(st.booleans()) else answer
    debris = st.lists(_PIECES, max_size=40).map("".join)
    fenced = draw(st.booleans())
    return (
        draw(debris)
        + ("```json\n" if fenced else "")
        + answer
        + ("\n```" if fenced else "")
        + draw(debris)
    )


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_answers())
def test_the_capped_search_finds_what_the_first_one_found(text: str) -> None:
    # Replies far below the cap: the answer, or the reason there is none, is unchanged.
    assert _outcome(extract_json, text) == _outcome(_reference_extract, text)


class _ReadTooMuch(BaseException):
    """Not an Exception: the parser turns every Exception into a parse failure."""


HOSTILE = {
    "a run of braces": "{" * 300_000,
    "keys opened and never closed": '{"{"' * 75_000,
    "a fence of spaces": "```" + " " * 300_000,
    "a fence of newlines": "```json" + "\n" * 300_000,
    "nesting cut short, again and again": ('{"a": [' * 300 + "x") * 150,
    "an unterminated string": '{"' + "a" * 300_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_reply_is_a_parse_failure_within_the_cap(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = 0
    decoder = parse._DECODER

    class Counting:
        def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
            nonlocal read
            read += len(s) - idx
            if read > parse.MAX_SEARCH:
                raise _ReadTooMuch(read)
            return decoder.raw_decode(s, idx)

    monkeypatch.setattr(parse, "_DECODER", Counting())
    started = time.perf_counter()
    for schema in SCHEMAS.values():
        read = 0
        error = parse_answer(HOSTILE[name], schema.model).error
        assert error is not None and error.startswith("no JSON object found in the reply")
    # Milliseconds each; the first extraction took minutes on some of these.
    assert time.perf_counter() - started < 10


def test_an_answer_after_a_hostile_run_of_braces_is_found() -> None:
    value = _valid("emotion", 0)
    assert parse_answer("{" * 300_000 + json.dumps(value), SCHEMAS["emotion"].model).ok
