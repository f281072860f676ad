"""How requests are shaped for a provider (solve/_provider_rules.py, solve/_schedule.py):
answers constrained per provider, cache hints, and the order a conversation's calls are sent in."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.model._generate_config import set_active_generate_config
from loopback.endpoint import Endpoint, EndpointConfig, RequestRecord
from loopback.shape_fill import fill_shape, stated_shape

from attunebench_inspect import attunebench
from attunebench_inspect.solve._call_record import CallType
from attunebench_inspect.solve._provider_rules import request_policy
from attunebench_inspect.solve._schedule import after, resolve_schedule
from attunebench_inspect.solve._schemas import (
    SCHEMA_PREFIX,
    binary_hp_schema,
    emotion_schema,
    judge_schema,
    pairwise_schema,
    post_schema,
)


@pytest.mark.parametrize(
    ("model", "schema"),
    [
        # OpenAI's and Anthropic's caches key on the schema: the shape is stated instead.
        ("openai/gpt-4o", False),
        ("anthropic/claude-sonnet-4-6", False),
        # Local servers compile the schema into a grammar, outside the prompt.
        ("openai-api/llamacpp/smollm2", True),
        ("attunebench/random", True),
    ],
)
def test_answer_format_auto_follows_the_provider(model: str, schema: bool) -> None:
    client = get_model(model, api_key="x", base_url="http://127.0.0.1:9/v1", memoize=False)
    assert request_policy(client, "auto", "c1").schema is schema
    assert request_policy(client, "schema", "c1").schema is True
    assert request_policy(client, "prompt", "c1").schema is False


def test_openai_calls_carry_a_cache_key_per_conversation_unless_the_user_set_one() -> None:
    openai = get_model("openai/gpt-4o", api_key="x", memoize=False)
    assert request_policy(openai, "auto", "c1").extra_body == {"prompt_cache_key": "attunebench-c1"}
    keyed = get_model("openai/gpt-4o", api_key="x", memoize=False, prompt_cache_key="mine")
    assert request_policy(keyed, "auto", "c1").extra_body is None
    other = get_model(
        "openai/gpt-4o",
        api_key="x",
        memoize=False,
        config=GenerateConfig(extra_body={"prompt_cache_key": "theirs", "user": "u"}),
    )
    assert request_policy(other, "auto", "c1").extra_body is None
    anthropic = get_model("anthropic/claude-sonnet-4-6", api_key="x", memoize=False)
    assert request_policy(anthropic, "auto", "c1").extra_body is None


def test_schedule_auto_is_all_at_once_under_a_batch_api() -> None:
    # Pins the private accessor `solve/_provider_rules.py` reads the eval's generate config through.
    model = get_model("attunebench/random", memoize=False)
    assert resolve_schedule("auto", model) == "prefix_first"
    batched = get_model("attunebench/random", memoize=False, config=GenerateConfig(batch=True))
    assert resolve_schedule("auto", batched) == "all_at_once"
    assert resolve_schedule("prefix_first", batched) == "prefix_first"
    # The eval's own config (where `--batch` lands) counts for the model under test only.
    set_active_generate_config(GenerateConfig(batch=True))
    try:
        assert resolve_schedule("auto", model) == "prefix_first"
    finally:
        set_active_generate_config(GenerateConfig())


@pytest.mark.parametrize("verbose", [False, True])
def test_every_stated_shape_is_filled_validly(verbose: bool) -> None:
    """The shape every prompt states is what an endpoint without a schema answers from; a
    random fill of it is a valid answer of the call's schema."""
    ids = ("B1", "B4", "B7")
    schemas = [
        emotion_schema(ids, verbose),
        binary_hp_schema(ids, verbose),
        pairwise_schema((("c01", "1", "3"), ("c02", "2", "3")), verbose),
        post_schema(("a b", "c"), ("x", "y z"), ("w1", "w2", "w3"), ("f1", "f2"), verbose),
        judge_schema(ids),
    ]
    for schema in schemas:
        for seed in range(20):
            answer = fill_shape(schema.shape, random.Random(seed))
            schema.model.model_validate(answer)
    assert stated_shape(["no shape here", "Reply with JSON of this shape:\n{}"]) == "{}"
    assert stated_shape(["no shape"]) is None


def _key(record: RequestRecord) -> tuple[CallType, int | None]:
    """A request's call and turn, off the layout (solve/_prompts.py)."""
    name = record.schema
    call: Any = name.removeprefix(SCHEMA_PREFIX) if name else "draft"
    if call == "draft":
        return call, sum(m["role"] == "user" for m in record.messages)
    if call == "post":
        return call, None
    return call, len(record.messages[1]["content"]) // 2


@pytest.mark.parametrize("schedule", ["prefix_first", "all_at_once"])
def test_a_call_starts_after_the_calls_it_follows(
    schedule: str, small_dataset: Callable[[int], Path]
) -> None:
    data = small_dataset(1)
    # Long enough for Inspect to start every call of a turn before the first one returns.
    with Endpoint(EndpointConfig(latency=0.4, max_seconds=120)) as endpoint:
        model = get_model(
            "openai-api/local/endpoint", base_url=endpoint.base_url, api_key="x", memoize=False
        )
        log = eval(
            attunebench(data=str(data), schedule=schedule),
            model=model,
            model_roles={"judge": model},
            max_connections=64,
            display="none",
            log_dir=str(data.parent / "logs"),
        )[0]
    assert log.status == "success"
    records = {_key(r): r for r in endpoint.records}
    turns = max(t or 0 for _, t in records)
    waited = 0
    for (call, turn), record in records.items():
        for before in after(call, turn, turns, schedule):  # type: ignore[arg-type]
            assert record.start >= records[before].end
            waited += 1
    first_turn = [r for (c, t), r in records.items() if t == 1 and c != "judge"]
    later = [r for (c, t), r in records.items() if t and t > 1 and c != "judge"]
    if schedule == "prefix_first":
        assert waited >= 4 * turns
        assert min(r.start for r in later) >= min(r.end for r in first_turn)
    else:
        # Every call of every turn at once; only the judge waits, for its draft.
        assert waited == turns
        assert min(r.start for r in later) < records[("binary_hp", 1)].end
    assert json.dumps(log.eval.task_args.get("schedule")) == json.dumps(schedule)
