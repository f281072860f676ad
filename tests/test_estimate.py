"""`attunebench estimate`: the requests it builds, how it counts them, and its bill."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from attunebench_inspect import attunebench
from attunebench_inspect.baselines.endpoint import Endpoint, EndpointConfig
from attunebench_inspect.cli import main
from attunebench_inspect.data import Codebook, load_conversations, split
from attunebench_inspect.estimate import breakdown
from attunebench_inspect.estimate.breakdown import call_breakdown
from attunebench_inspect.estimate.capture import Request, capture
from attunebench_inspect.estimate.tokens import (
    MESSAGE_TOKENS,
    REPLY_TOKENS,
    TextCounts,
    conversation_tokens,
    counter,
    longest_earlier_prefix,
    segments,
    shared_prefix,
)
from attunebench_inspect.solve import prompts
from attunebench_inspect.solve.modes import mode_spec
from attunebench_inspect.solve.schemas import call_of

from .conftest import BUNDLED


def _by_character(texts: list[str]) -> list[int]:
    return [len(text) for text in texts]


def _estimate(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["estimate", *argv, "--format", "json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with Endpoint(EndpointConfig(max_seconds=120)) as serving:
        yield serving


def _text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def test_requests_are_what_a_provider_receives(
    endpoint: Endpoint, small_dataset: Callable[[int], Path], codebook: Codebook
) -> None:
    """The estimate's offline requests against those a real run sends through Inspect's
    openai-api provider: the same calls, message for message. The endpoint's usage (what the run
    logs) is characters / 4 per message, so it checks the calls, not a tokenizer."""
    data = small_dataset(2)
    model = get_model(
        "openai-api/local/endpoint", base_url=endpoint.base_url, api_key="local", memoize=False
    )
    log = eval(
        attunebench(data=str(data)), model=model, display="none", log_dir=str(data.parent / "logs")
    )[0]
    assert log.status == "success"
    sent = sorted(
        (call_of(r.schema), tuple((m["role"], _text(m["content"])) for m in r.messages))
        for r in endpoint.records
    )
    conversations = [
        split(c.conversation)[0] for c in load_conversations(data, codebook).conversations
    ]
    requests = [r for c in capture(conversations, codebook, mode_spec("default"), False) for r in c]
    assert sorted((r.call, r.messages) for r in requests) == sent

    assert log.stats.model_usage[str(model)].input_tokens == sum(
        max(1, len(text) // 4) for r in requests for _, text in r.messages
    )


def test_judge_reads_a_draft_as_long_as_the_original_reply(
    small_dataset: Callable[[int], Path], codebook: Codebook
) -> None:
    conv = split(load_conversations(small_dataset(1), codebook).conversations[0].conversation)[0]
    [requests] = capture([conv], codebook, mode_spec("default"), True)
    turns = len(conv.turns)
    assert len(requests) == 5 * turns + 1
    drafts = [r for r in requests if r.call == "draft"]
    assert [r.answer for r in drafts] == [t.om_response for t in conv.turns]
    judged = [r for r in requests if r.call == "judge"]
    assert len(judged) == turns
    assert all(d.answer in j.messages[-1][1] for d, j in zip(drafts, judged, strict=True))
    # The verbose modes' reasoning fields, and the judge's own, are counted as free text.
    assert {r.free_text for r in judged} == {1}
    assert {r.free_text for r in requests if r.call == "emotion"} == {0}


def _request(call: Any, schema: str | None, *messages: tuple[str, str]) -> Request:
    return Request(call, messages, schema, answer="{}", free_text=0)


def test_input_and_cacheable_prefixes_are_counted_per_segment() -> None:
    system = ("system", "S" * 10)
    first = _request("emotion", "{E}", system, ("user", "abcdef"))
    other_schema = _request("binary_hp", "{B}", system, ("user", "abcXYZ"))
    same_schema = _request("emotion", "{E}", system, ("user", "abcdeQ"))
    draft = _request("draft", None, ("system", "D" * 10), ("user", "abcdef"))
    tokens = conversation_tokens([first, other_schema, same_schema, draft], _by_character)

    message = MESSAGE_TOKENS
    assert [t.input for t in tokens] == [3 + 2 * message + 16 + REPLY_TOKENS] * 3 + [
        2 * message + 16 + REPLY_TOKENS
    ]
    assert [t.schema for t in tokens] == [3, 3, 3, 0]
    # The schema comes first: a call shares a prefix only with calls of the same schema.
    assert [t.cacheable for t in tokens] == [0, 0, 3 + message + 10 + message + 5, 0]
    # Without the schema, the system text and the start of the transcript are shared.
    assert [t.cacheable_messages for t in tokens] == [
        0,
        message + 10 + message + 3,
        message + 10 + message + 5,
        message,  # a system message of other text: only its role is shared
    ]
    assert [t.output for t in tokens] == [2] * 4


def test_shared_prefix() -> None:
    a = (("system", "x"), ("user", "hello"))
    assert shared_prefix(a, a) == (2, -1)
    assert shared_prefix(a, (("system", "x"), ("user", "help"))) == (1, 3)
    assert shared_prefix(a, (("system", "x"), ("assistant", "hello"))) == (1, -1)
    assert shared_prefix(a, (("system", "y"),)) == (0, 0)
    schema = (("schema", "{a}"), *a)
    assert shared_prefix(schema, (("schema", "{b}"), *a)) == (0, -1)


def test_estimate_table_and_json(
    small_dataset: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(small_dataset(2))
    prices = ["--price-in", "2", "4", "--price-out", "8", "--price-cached-in", "1", "0.4"]
    document = _estimate(
        ["--data", data, "--mode", "all", "--judge", "--model", "a", "b", *prices], capsys
    )
    runs = document["runs"]
    assert [(r["model"], r["mode"]) for r in runs] == [
        (model, mode)
        for model in ("a", "b")
        for mode in ("default", "verbose", "omniscient", "verbose_omniscient", "total")
    ]
    for run, (price_in, price_cached) in zip(runs, [(2, 1)] * 5 + [(4, 0.4)] * 5, strict=True):
        assert run["conversations"] == (8 if run["mode"] == "total" else 2)
        assert run["cost_usd"] == pytest.approx(
            (run["input_tokens"] * price_in + run["output_tokens"] * 8) / 1e6
        )
        assert 0 < run["cacheable_share"] < run["cacheable_share_messages_only"] < 1
        cached = run["input_tokens"] * run["cacheable_share"]
        assert run["cost_usd_cache_hits"] == pytest.approx(
            run["cost_usd"] - cached * (price_in - price_cached) / 1e6
        )
    default, verbose = document["modes"][:2]
    assert default["by_call"]["judge"]["calls"] == default["by_call"]["draft"]["calls"]
    assert sum(t["calls"] for t in default["per_conversation"]) == default["total"]["calls"]
    # Verbose answers carry reasoning: more output, the same calls.
    assert verbose["total"]["output"] > default["total"]["output"]
    assert verbose["total"]["calls"] == default["total"]["calls"]

    assert main(["estimate", "--data", data, "--model", "a", *prices[:2], *prices[3:5]]) == 0
    table = capsys.readouterr().out
    assert "Runs (without a judge)" in table
    assert "output tokens (est.)" in table
    assert "$" in table


def test_estimate_refuses_what_it_cannot_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["estimate", "--model", "a", "b", "--price-out", "1"]
    assert main([*base, "--price-in", "1", "2", "3"]) == 2
    assert "--price-in takes one price or one per model (2); got 3" in capsys.readouterr().err
    assert main([*base, "--price-in", "1", "--data", str(tmp_path / "none")]) == 1
    assert "nothing at this path" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "toktok", None)
    assert main([*base, "--price-in", "1", "--tokenizer", "o200k_base"]) == 2
    assert "needs toktok" in capsys.readouterr().err


def test_character_estimate_is_calibrated(codebook: Codebook) -> None:
    """Without a tokenizer, the characters-per-token rates keep the bundled set's total input
    within 3% of o200k_base (docs/cost-and-scale.md has the per-call error)."""
    pytest.importorskip("toktok", reason="the o200k_base reference needs toktok")
    conversations = [
        split(c.conversation)[0] for c in load_conversations(BUNDLED, codebook).conversations
    ]
    requests = capture(conversations, codebook, mode_spec("default"), True)
    totals = {
        name: sum(t.input for c in requests for t in conversation_tokens(c, counter(name)))
        for name in ("o200k_base", "chars")
    }
    assert totals["chars"] == pytest.approx(totals["o200k_base"], rel=0.03)
    assert counter("o200k_base")(["hello world"]) == [2]


def test_breakdown_attributes_what_no_earlier_call_shares() -> None:
    """Two emotion calls of one turn and a draft, counted one token per character: the second
    emotion call shares everything up to its question list's differing letter."""
    system, transcript = ("system", "S" * 10), ("user", "T" * 10)
    first_task = prompts.EMOTION_TASK.format(response="R1", questions="- q1: a", shape="{}")
    second_task = prompts.EMOTION_TASK.format(response="R1", questions="- q1: b", shape="{}")
    requests = [
        _request("emotion", "{E}", system, transcript, ("user", first_task)),
        _request("emotion", "{E}", system, transcript, ("user", second_task)),
        _request("draft", None, ("system", "D" * 4), ("user", "hi")),
    ]
    counts = TextCounts(_by_character, set())
    prefixes = longest_earlier_prefix([segments(r, schema=False) for r in requests])
    first, second, draft = (
        call_breakdown(r, best, counts) for r, best in zip(requests, prefixes, strict=True)
    )
    message, task_text = MESSAGE_TOKENS, len(first_task) - len("R1- q1: a{}")
    assert first == {
        breakdown.SHARED: 0,
        breakdown.SCHEMA: 3,
        breakdown.FORMAT: REPLY_TOKENS + 3 * message,
        breakdown.ANALYSIS_SYSTEM: 10,
        breakdown.TRANSCRIPT: 10,
        breakdown.OM_REPLY: 2,
        breakdown.OBSERVER: 7,
        breakdown.SHAPE: 2,
        breakdown.TASK: task_text,
    }
    shared = 2 * message + 20 + message + second_task.index("- q1: b") + len("- q1: ")
    tail = len("\n\nReply with JSON of this shape:\n")
    assert second == {
        breakdown.SHARED: shared,
        breakdown.SCHEMA: 3,
        breakdown.FORMAT: REPLY_TOKENS,
        breakdown.OBSERVER: 1,  # the "b"
        breakdown.TASK: tail,
        breakdown.SHAPE: 2,
    }
    # A system message of other text: only its role is shared.
    assert draft == {
        breakdown.SHARED: message,
        breakdown.SCHEMA: 0,
        breakdown.FORMAT: REPLY_TOKENS + message,
        breakdown.DRAFT_SYSTEM: 4,
        breakdown.TRANSCRIPT: 2,
    }
    # The kinds add up to the input, and the shared prefix is the estimate's messages-only one.
    tokens = conversation_tokens(requests, _by_character)
    assert [sum(b.values()) for b in (first, second, draft)] == [t.input for t in tokens]
    assert [b[breakdown.SHARED] for b in (first, second, draft)] == [
        t.cacheable_messages for t in tokens
    ]


def test_breakdown_of_the_bundled_set_adds_up(capsys: pytest.CaptureFixture[str]) -> None:
    prices = ["--price-in", "1", "--price-out", "1"]
    document = _estimate(["--model", "m", *prices, "--tokenizer", "chars", "--breakdown"], capsys)
    (estimate,) = document["modes"]
    (mode,) = document["breakdown"]
    kinds = mode["kinds"]
    per_conversation = estimate["total"]["input"] / estimate["conversations"]
    assert mode["input_tokens_per_conversation"] == pytest.approx(per_conversation)
    assert sum(k["tokens_per_conversation"] for k in kinds.values()) == pytest.approx(
        per_conversation
    )
    assert kinds[breakdown.SHARED]["tokens_per_conversation"] == pytest.approx(
        estimate["total"]["cacheable_messages"] / estimate["conversations"]
    )
    # Without a judge there is no judge material; every other kind is there.
    assert [kind for kind, k in kinds.items() if not k["tokens_per_conversation"]] == [
        breakdown.JUDGE
    ]
    # Without models, the breakdown alone; with them, the bill and then the breakdown.
    only = _estimate(["--tokenizer", "chars", "--breakdown"], capsys)
    assert "runs" not in only and only["breakdown"] == document["breakdown"]
    assert main(["estimate", "--tokenizer", "chars", "--breakdown", "--model", "m", *prices]) == 0
    text = capsys.readouterr().out
    assert text.index("Runs (without a judge)") < text.index("input by content")


def test_estimate_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate"]) == 2
    assert "--model is required (or --breakdown alone" in capsys.readouterr().err
    assert main(["estimate", "--model", "m", "--price-in", "1"]) == 2
    assert "--price-in and --price-out are required with --model" in capsys.readouterr().err
    assert main(["estimate", "--breakdown", "--price-in", "1"]) == 2
    assert "name the models to bill with --model" in capsys.readouterr().err
