"""`attunebench estimate`: the requests it builds, how it counts them, and its bill."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ModelInfo, get_model, set_model_info
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import attunebench, contamination
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import Codebook, load_codebook, load_conversations, split
from attunebench_inspect.instruments.contamination._estimate import probe_requests
from attunebench_inspect.solve import _prompts as prompts
from attunebench_inspect.solve._modes import mode_spec
from attunebench_inspect.solve._schemas import call_of
from attunebench_inspect.tools._arguments import WIDTH
from attunebench_inspect.tools.estimate import _breakdown as breakdown
from attunebench_inspect.tools.estimate._bill import STRUCTURAL
from attunebench_inspect.tools.estimate._breakdown import call_breakdown
from attunebench_inspect.tools.estimate._cache.count import counter
from attunebench_inspect.tools.estimate._cache.rules import Tokens
from attunebench_inspect.tools.estimate._capture import capture
from attunebench_inspect.tools.estimate._tokens import prompt_of, start_ticks, through_cache
from tests.conftest import BUNDLED
from tests.spy import Spy


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
    openai-api provider: the same calls, message for message, and the same prompt tokens as the
    endpoint counts them (what the run logs)."""
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

    tokens = endpoint.tokens
    # openai-api sends the response schema (a local server compiles it into a grammar), and the
    # endpoint counts it as OpenAI would, ahead of the messages.
    prompts_ = [prompt_of(r, "openai", schema=True, breakpoints=False) for r in requests]
    assert log.stats.model_usage[str(model)].input_tokens == sum(
        sum(tokens(b.text) for b in p) for p in prompts_
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


def test_estimate_table_and_json(
    small_dataset: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(small_dataset(2))
    prices = ["--price-in", "2", "4", "--price-out", "8", "--price-cached-in", "1", "0.4"]
    models = ["openai/gpt-4o", "anthropic/claude-sonnet-4-6"]
    document = _estimate(
        ["--data", data, "--mode", "all", "--judge", "--model", *models, *prices], capsys
    )
    runs = document["runs"]
    assert [(r["model"], r["mode"]) for r in runs] == [
        (model, mode)
        for model in models
        for mode in ("default", "verbose", "omniscient", "verbose_omniscient", "total")
    ]
    for run, (price_in, price_cached, write) in zip(
        runs, [(2, 1, 1.0)] * 5 + [(4, 0.4, 1.25)] * 5, strict=True
    ):
        assert run["conversations"] == (8 if run["mode"] == "total" else 2)
        assert run["cache"] == run["model"].partition("/")[0]
        tokens_in, read, written = (
            run["input_tokens"],
            run["cache_read_tokens"],
            run["cache_written_tokens"],
        )
        assert run["cost_usd"] == pytest.approx(
            (tokens_in * price_in + run["output_tokens"] * 8) / 1e6
        )
        assert 0 < read < tokens_in
        assert run["cost_usd_cache"] == pytest.approx(
            run["cost_usd"]
            - (read * (price_in - price_cached) - written * (write - 1) * price_in) / 1e6
        )
        assert run["cost_usd_floor"] <= run["cost_usd_cache"] < run["cost_usd"]
        assert run["cost_usd_batch"] < run["cost_usd"]
    # OpenAI writes free; Anthropic writes at our breakpoints.
    assert {r["cache_written_tokens"] > 0 for r in runs} == {False, True}
    default, verbose = document["modes"][:2]
    assert sum(t["calls"] for t in default["per_conversation"]) == default["total"]["calls"]
    assert 0.5 < default["shared_share"] < 1
    # Verbose answers carry reasoning: more output, the same calls.
    assert verbose["total"]["output"] > default["total"]["output"]
    assert verbose["total"]["calls"] == default["total"]["calls"]

    assert main(["estimate", "--data", data, "--model", "a/b", *prices[:2], *prices[3:5]]) == 0
    table = capsys.readouterr().out
    assert (
        "Runs: calls and tokens (without a judge; schedule prefix_first, answer format auto)"
        in table
    )
    assert "output (est.)" in table
    assert "$" in table


def test_estimate_follows_the_schedule_and_the_answer_format(
    small_dataset: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Sending every call at once, or the schema in OpenAI's prompt (the layout before task
    version 3), is what the estimate shows costs more."""
    base = [
        "--data",
        str(small_dataset(2)),
        "--model",
        "openai/gpt-4o",
        "anthropic/claude-sonnet-4-6",
    ]
    prices = ["--price-in", "1", "--price-out", "1"]

    def cached(*extra: str) -> list[float]:
        return [r["cost_usd_cache"] for r in _estimate([*base, *prices, *extra], capsys)["runs"]]

    ordered = cached()
    assert all(a < b for a, b in zip(ordered, cached("--schedule", "all_at_once"), strict=True))
    assert all(a < b for a, b in zip(ordered, cached("--answer-format", "schema"), strict=True))


def test_calls_start_when_what_they_follow_is_done(
    small_dataset: Callable[[int], Path], codebook: Codebook
) -> None:
    conv = split(load_conversations(small_dataset(1), codebook).conversations[0].conversation)[0]
    [requests] = capture([conv], codebook, mode_spec("default"), True)
    turns = len(conv.turns)
    ticks = dict(zip([r.key for r in requests], start_ticks(requests, "prefix_first"), strict=True))
    for n in range(1, turns + 1):
        # The turn's prefix writer after the one before; its readers after it.
        assert ticks[("binary_hp", n)] == n - 1
        assert ticks[("emotion", n)] == ticks[("pairwise", n)] == n
        assert ticks[("draft", n)] == n - 1
        assert ticks[("judge", n)] == n
    assert ticks[("post", None)] == turns
    at_once = start_ticks(requests, "all_at_once")
    assert {t for r, t in zip(requests, at_once, strict=True) if r.call != "judge"} == {0}


def test_estimate_refuses_what_it_cannot_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["estimate", "--model", "a/a", "b/b", "--price-out", "1"]
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
    requests = [r for c in capture(conversations, codebook, mode_spec("default"), True) for r in c]
    totals = {}
    for name in ("o200k_base", "chars"):
        tokens = Tokens(counter(name))
        totals[name] = sum(
            tokens(b.text)
            for r in requests
            for b in prompt_of(r, "openai", schema=True, breakpoints=False)
        )
    assert totals["chars"] == pytest.approx(totals["o200k_base"], rel=0.03)
    assert counter("o200k_base")(["hello world"]) == [2]


def test_breakdown_attributes_what_no_earlier_call_shares(
    small_dataset: Callable[[int], Path], codebook: Codebook
) -> None:
    """A turn's emotion call, one token per character: what its prefix writer (the turn's
    HP-facing binary call) sent before it is shared up to the end of the conversation's blocks
    and the opening both calls' own texts have in common; the rest is its questions, shape and
    instructions."""
    conv = split(load_conversations(small_dataset(1), codebook).conversations[0].conversation)[0]
    [requests] = capture([conv], codebook, mode_spec("default"), False)
    tokens = Tokens(lambda texts: [len(t) for t in texts])
    [lookups] = through_cache([requests], STRUCTURAL, tokens)
    counted = {
        r.key: call_breakdown(r, lookup, tokens)
        for r, lookup in zip(requests, lookups, strict=True)
    }
    emotion = next(r for r in requests if r.key == ("emotion", 1))
    task = emotion.messages[2][1]
    writer = next(r for r in requests if r.key == ("binary_hp", 1)).messages[2][1]
    common = next(i for i, (a, b) in enumerate(zip(task, writer, strict=False)) if a != b)
    transcript = sum(len(t) for role, t in emotion.messages[:2]) + len("<|system|>\n<|user|>\n")
    questions = prompts.binary_lines(conv.turns[0], codebook, observer=True)
    shape = task[task.index(prompts.SHAPE_HEAD) + len(prompts.SHAPE_HEAD) :]
    assert counted[("emotion", 1)] == {
        breakdown.SHARED: transcript + len("<|user|>\n") + common,
        breakdown.OBSERVER: len(questions),
        breakdown.SHAPE: len(shape),
        breakdown.TASK: len(task) - common - len(questions) - len(shape),
    }
    # The first prefix writer shares nothing; the kinds of every call add up to its input, and
    # the shared rows to the estimate's structural share.
    first = counted[("binary_hp", 1)]
    assert first[breakdown.SHARED] == 0 and first[breakdown.FORMAT] > 0
    for request, lookup in zip(requests, lookups, strict=True):
        assert sum(counted[request.key].values()) == lookup.use.prompt
        assert counted[request.key][breakdown.SHARED] == lookup.use.read


def test_breakdown_of_the_bundled_set_adds_up(capsys: pytest.CaptureFixture[str]) -> None:
    prices = ["--price-in", "1", "--price-out", "1"]
    document = _estimate(["--model", "m/m", *prices, "--tokenizer", "chars", "--breakdown"], capsys)
    (estimate,) = document["modes"]
    (mode,) = document["breakdown"]
    kinds = mode["kinds"]
    per_conversation = estimate["total"]["input"] / estimate["conversations"]
    assert mode["input_tokens_per_conversation"] == pytest.approx(per_conversation)
    assert sum(k["tokens_per_conversation"] for k in kinds.values()) == pytest.approx(
        per_conversation
    )
    assert kinds[breakdown.SHARED]["share"] == pytest.approx(estimate["shared_share"])
    # Without a judge there is no judge material, and the schema is not in the prompt.
    assert [kind for kind, k in kinds.items() if not k["tokens_per_conversation"]] == [
        breakdown.SCHEMA,
        breakdown.JUDGE,
    ]
    # Without models, the breakdown alone; with them, the bill and then the breakdown.
    only = _estimate(["--tokenizer", "chars", "--breakdown"], capsys)
    assert "runs" not in only and only["breakdown"] == document["breakdown"]
    assert main(["estimate", "--tokenizer", "chars", "--breakdown", "--model", "m/m", *prices]) == 0
    text = capsys.readouterr().out
    assert text.index("Runs: calls and tokens (without a judge") < text.index("input by content")


def test_estimate_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate"]) == 2
    assert "--model is required (or --breakdown alone" in capsys.readouterr().err
    assert main(["estimate", "--model", "m", "--price-in", "1"]) == 2
    assert "--price-in and --price-out are required with --model" in capsys.readouterr().err
    assert main(["estimate", "--breakdown", "--price-in", "1"]) == 2
    assert "name the models to bill with --model" in capsys.readouterr().err


def test_estimate_prices_the_contamination_probe(
    small_dataset: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`--contamination` bills the probe beside the modes: the requests its solver sends (two
    per probed text, one user message each, no schema), through each provider's cache."""
    data = small_dataset(2)
    spy = Spy()
    log = eval(
        contamination(data=str(data)), model=spy.model("em"), display="none", log_dir=str(data)
    )[0]
    assert log.results is not None
    instances = int(log.results.scores[0].metrics["instances"].value)
    prices = ["--price-in", "2", "--price-out", "8"]
    document = _estimate(
        ["--data", str(data), "--model", "openai/gpt-4o", "--contamination", "--tokenizer",
         "chars", *prices],
        capsys,
    )  # fmt: skip
    runs = {r["mode"]: r for r in document["runs"]}
    assert set(runs) == {"default", "contamination", "total"}
    probe = runs["contamination"]
    assert probe["calls"] == len(spy.calls) == 2 * instances > 0
    assert probe["conversations"] == 2 and probe["cache_read_tokens"] == 0
    assert runs["total"]["calls"] == runs["default"]["calls"] + probe["calls"]
    assert probe["cost_usd"] == pytest.approx(
        (probe["input_tokens"] * 2 + probe["output_tokens"] * 8) / 1e6
    )
    assert any(line.startswith("contamination: the contamination probe") for line in
               document["assumptions"])  # fmt: skip
    # The same texts as the probe's own calls, counted as the estimate counts a mode's.
    requests = [r for c in probe_requests(str(data), load_codebook()) for r in c]
    assert sorted(m for r in requests for _, m in r.messages) == sorted(spy.texts())
    assert main(["estimate", "--contamination", "--breakdown"]) == 2
    assert "--contamination adds the probe to a bill" in capsys.readouterr().err


def test_estimate_of_a_data_set_the_probe_cannot_read_is_one_line(
    tmp_path: Path, conversation_raw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for turn in conversation_raw["turns"]:
        turn["userMessage"] = "too short to probe"
        turn["annotations"]["alternateResponses"]["humanEdited"] = "short too"
    (tmp_path / "c.json").write_text(json.dumps(conversation_raw), encoding="utf-8")
    argv = ["estimate", "--data", str(tmp_path), "--model", "m/m", "--price-in", "1"]
    assert main([*argv, "--price-out", "1", "--tokenizer", "chars", "--contamination"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{tmp_path}: no text long enough to probe: found at most 4 word(s) in a participant "
        "message or edited reply; expected at least one of 20 words or more"
    ]


def test_estimate_flags_calls_past_the_named_models_context_window(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_model_info("tiny/window-2k", ModelInfo(context_length=2_000))
    prices = ["--price-in", "1", "--price-out", "1"]
    assert main(["estimate", "--model", "tiny/window-2k", "openai/gpt-4o", *prices]) == 0
    out = capsys.readouterr().out
    windows = " ".join(out[out.index("Context windows") :].split())
    assert (
        "- tiny/window-2k: 25 conversation(s) have calls past its context window of 2,000"
        in windows
    )
    assert "- openai/gpt-4o: every call fits its context window of 128,000 tokens" in windows
    assert main(["estimate", "--model", "x/unknown", *prices, "--format", "json"]) == 0
    (check,) = json.loads(capsys.readouterr().out)["context_windows"]
    assert check["model"] == "x/unknown" and check["window"] is None and check["largest"] > 1000


def test_the_estimate_restates_its_inputs_in_120_columns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "estimate", "--mode", "all", "--judge", "--model", "openai/gpt-4o",
        "anthropic/claude-sonnet-4-6", "--price-in", "2.5", "3", "--price-out", "10", "15",
        "--breakdown",
    ]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(map(len, lines)) <= WIDTH
    assert lines[:2] == [
        "data: the bundled synthetic set (25 conversations written for this project: demo and "
        "test numbers, not AttuneBench",
        "results)",
    ]
    assert (
        "- openai/gpt-4o: input 2.5, output 10, cached input 1.25 (0.5x input, openai's "
        "documented price), batch 50% of every" in lines
    )
    assert "floor: the bill if every prefix a call shares with an earlier call were read" in out
    assert "Scaled to the deposit's 200 conversations (x8, as if each were like the 25 here;" in out
    scaled = next(line for line in lines if line.startswith("- openai/gpt-4o (total): "))
    assert "21,280 calls" in scaled
