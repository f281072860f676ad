"""The likelihood method (`_likelihood.py`): Min-K% Prob, the control test and the decoy-ID test
by hand-checked values, every abstention with its message, ranges by hypothesis, and the route
end to end through Inspect's `openai-api-completions` provider against the loopback endpoint's
scripted model of known training data."""

from __future__ import annotations

import asyncio
import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.model import GenerateConfig, get_model
from loopback.completions import ScriptedModel, serve_completions, tokens
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect.data import load_codebook, load_conversations, split
from attunebench_inspect.instruments.contamination._likelihood import (
    CANARY,
    CANARY_FLOOR,
    DECOYS,
    MIN_TOKENS,
    TextLogprobs,
    conversation_scores,
    decide_against_control,
    decide_decoys,
    decoy_count,
    decoy_ids,
    decoy_prompts,
    is_random_uuid,
    min_k_prob,
    published_above_control,
    rank_sum_p,
    route_check,
    shared_suffix,
    smallest_p,
)
from attunebench_inspect.instruments.contamination._likelihood_route import (
    SCORE_CONFIG,
    text_logprobs,
)
from attunebench_inspect.instruments.contamination._rules import NOT_SUSPECTED, SUSPECTED
from tests.conftest import BUNDLED

ALIGNED = (-6.0,) * 10 + (-0.1,) * 50
"""A counting sequence read in order: unsure at first, then near certain."""
SHIFTED = (-9.0,) * 60
"""The same scored against the next position's distribution."""
ID = "4723fdd3-f278-4748-8b63-77aa00ff14e0"


def texts(conversation: str, level: float, count: int = 3, tokens: int = 20) -> list[TextLogprobs]:
    return [
        TextLogprobs(conversation, f"t{i:02d} userMessage", (level,) * tokens)
        for i in range(1, count + 1)
    ]


def group(prefix: str, levels: list[float]) -> list[TextLogprobs]:
    return [t for i, level in enumerate(levels) for t in texts(f"{prefix}{i:02d}", level)]


# --- Min-K% Prob --------------------------------------------------------------------------------


def test_min_k_prob_means_the_lowest_fifth() -> None:
    # 10 tokens: int(10 * 0.2) = 2 lowest, -10 and -9.
    assert min_k_prob([-float(n) for n in range(1, 11)]) == -9.5
    # 4 tokens: int(0.8) = 0, at least 1: the lowest alone.
    assert min_k_prob([-1.0, -4.0, -2.0, -3.0]) == -4.0
    assert math.isnan(min_k_prob([]))


@given(st.lists(st.floats(-50, 0), min_size=1, max_size=200))
def test_min_k_prob_lies_between_the_least_and_the_mean(logprobs: list[float]) -> None:
    score = min_k_prob(logprobs)
    assert min(logprobs) - 1e-9 <= score <= sum(logprobs) / len(logprobs) + 1e-9


def test_conversation_scores_leave_out_short_texts() -> None:
    short = TextLogprobs("c1", "t01 topic", (-1.0,) * (MIN_TOKENS - 1))
    scores = conversation_scores([*texts("c2", -2.0), short, *texts("c1", -1.0, count=1)])
    assert scores == {"c1": -1.0, "c2": -2.0}
    assert conversation_scores([short]) == {}


# --- the control test ---------------------------------------------------------------------------


def test_published_above_control_counts_every_arrangement() -> None:
    # C(5, 2) = 10 arrangements; the observed one has the largest difference: p = 1/10.
    assert published_above_control([3.0, 4.0], [0.0, 1.0, 2.0]) == pytest.approx(0.1)
    # The lowest two: every arrangement is at least as large.
    assert published_above_control([0.0, 1.0], [2.0, 3.0, 4.0]) == pytest.approx(1.0)
    assert smallest_p(2, 3) == pytest.approx(0.1)
    assert smallest_p(2, 21) == pytest.approx(1 / 253)
    assert smallest_p(20, 20) == pytest.approx(1 / 10_001)


def test_the_control_test_reads_a_model_that_finds_the_published_texts_likelier() -> None:
    published = group("p", [-0.5, -0.6])
    control = group("c", [-5.0 - 0.1 * i for i in range(21)])
    verdict = decide_against_control(published, control, ALIGNED, "llamacpp")
    assert verdict.reading == SUSPECTED
    assert verdict.p_value == pytest.approx(1 / 253)
    assert (verdict.conversations, verdict.controls, verdict.texts) == (2, 21, 69)
    assert verdict.published == pytest.approx(-0.55)
    assert "two-sample permutation test" in verdict.rule


def test_the_control_test_clears_published_texts_like_the_control() -> None:
    levels = [-5.0 - 0.1 * i for i in range(23)]
    verdict = decide_against_control(
        group("p", levels[10:12]), group("c", levels[:10] + levels[12:]), ALIGNED, "llamacpp"
    )
    assert verdict.reading == NOT_SUSPECTED
    assert verdict.p_value > 0.01


@pytest.mark.parametrize(
    ("published", "control", "canary", "reason"),
    [
        (
            [TextLogprobs("p1", "t01 userMessage", None)],
            group("c", [-1.0] * 21),
            ALIGNED,
            "cannot decide: openai/gpt-4o gives no log-probability of a given text",
        ),
        (
            group("p", [-1.0, -1.0]),
            group("c", [-1.0] * 21),
            None,
            "cannot decide: openai/gpt-4o gives no log-probability of a given text",
        ),
        (
            group("p", [-1.0, -1.0]),
            group("c", [-1.0] * 21),
            SHIFTED,
            "cannot decide: the log-probabilities returned are not the given text's: a counting "
            f"sequence scores -9.00 nats per token, at least {CANARY_FLOOR} expected",
        ),
        (
            group("p", [-1.0]),
            group("c", [-1.0] * 21),
            ALIGNED,
            f"cannot decide: 1 published conversation(s) scored, at least 2 needed (texts of at "
            f"least {MIN_TOKENS} tokens)",
        ),
        (
            group("p", [-1.0, -1.0]),
            [],
            ALIGNED,
            "cannot decide: 0 never-published control conversation(s) scored, at least 2 needed",
        ),
        (
            group("p", [-1.0, -1.0]),
            group("c", [-1.0] * 8),
            ALIGNED,
            "cannot decide: 2 published and 8 control conversations cannot reach alpha 0.01 "
            "(smallest p-value 0.0222)",
        ),
    ],
)
def test_the_control_test_abstains_with_its_reason(
    published: list[TextLogprobs],
    control: list[TextLogprobs],
    canary: tuple[float, ...] | None,
    reason: str,
) -> None:
    verdict = decide_against_control(published, control, canary, "openai/gpt-4o")
    assert verdict.reading == reason
    assert math.isnan(verdict.p_value)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_control_test_p_value_is_a_probability(seed: int) -> None:
    rng = random.Random(seed)
    levels = [rng.uniform(-8, -1) for _ in range(25)]
    verdict = decide_against_control(
        group("p", levels[:3]), group("c", levels[3:]), ALIGNED, "llamacpp"
    )
    assert smallest_p(3, 22) <= verdict.p_value <= 1
    assert verdict.reading in (SUSPECTED, NOT_SUSPECTED)


def test_the_route_check_reads_the_canary_from_its_eleventh_token() -> None:
    assert route_check(ALIGNED) is None
    assert route_check((-30.0,) * 10 + (-1.0,) * 5) is None
    assert route_check(SHIFTED) is not None
    assert route_check(()) is not None


# --- the decoy-ID test --------------------------------------------------------------------------


def test_decoy_ids_are_seeded_random_uuids() -> None:
    decoys = decoy_ids(ID, seed=0)
    assert len(decoys) == DECOYS == len(set(decoys))
    assert all(is_random_uuid(d) for d in decoys)
    assert decoys == decoy_ids(ID, seed=0) != decoy_ids(ID, seed=1)
    assert ID not in decoys
    assert is_random_uuid(ID) and is_random_uuid(ID.upper())
    assert not is_random_uuid("syn01") and not is_random_uuid(
        "00000000-0000-1000-8000-000000000000"
    )


def test_shared_suffix_sums_the_tokens_every_call_holds() -> None:
    real = [("{", -1.0), ("4723", -2.0), ("\n", -3.0), ("metadata", -4.0)]
    decoy = [("{", -1.0), ("9a", -5.0), ("\n", -6.0), ("metadata", -7.0)]
    assert shared_suffix([real, decoy]) == [-7.0, -13.0]
    assert shared_suffix([real, [("x", -1.0)]]) == [0.0, 0.0]
    assert shared_suffix([]) == []


def test_rank_sum_p_is_exact() -> None:
    assert decoy_count(-1.0, [-2.0, -1.0, -0.5]) == 2
    assert rank_sum_p([0]) == pytest.approx(1 / 20)
    assert rank_sum_p([1]) == pytest.approx(2 / 20)
    assert rank_sum_p([0, 0]) == pytest.approx(1 / 400)
    # P(U1 + U2 <= 1) = 3 of 400 outcomes.
    assert rank_sum_p([0, 1]) == pytest.approx(3 / 400)
    assert rank_sum_p([19, 19]) == pytest.approx(1.0)
    assert math.isnan(rank_sum_p([]))


@given(st.lists(st.integers(0, DECOYS), min_size=1, max_size=8), st.integers(0, 7))
def test_rank_sum_p_grows_with_the_counts(counts: list[int], at: int) -> None:
    p = rank_sum_p(counts)
    assert 0 < p <= 1
    raised = list(counts)
    raised[at % len(raised)] = min(DECOYS, raised[at % len(raised)] + 1)
    assert rank_sum_p(raised) >= p


def test_the_decoy_test_reads_real_ids_ranked_first() -> None:
    ids = [ID, decoy_ids(ID, seed=9)[0]]
    assert decide_decoys([0, 0], ids, ALIGNED, "llamacpp").reading == SUSPECTED
    cleared = decide_decoys([10, 7], ids, ALIGNED, "llamacpp")
    assert cleared.reading == NOT_SUSPECTED
    assert (cleared.published, cleared.control) == (8.5, DECOYS / 2)


@pytest.mark.parametrize(
    ("counts", "ids", "canary", "reason"),
    [
        ([0, None], [ID, ID], ALIGNED, "cannot decide: llamacpp gives no log-probability"),
        ([0, 0], [ID, ID], SHIFTED, "cannot decide: the log-probabilities returned are not"),
        ([0, 0], [ID, "syn02"], ALIGNED, "cannot decide: 1 conversation ID(s) are not random"),
        ([0], [ID], ALIGNED, "cannot decide: 1 conversation(s) cannot reach alpha 0.01 against"),
    ],
)
def test_the_decoy_test_abstains_with_its_reason(
    counts: list[int | None], ids: list[str], canary: tuple[float, ...], reason: str
) -> None:
    assert decide_decoys(counts, ids, canary, "llamacpp").reading.startswith(reason)


# --- the route, end to end: Inspect's providers against the loopback's scripted model -----------

READ = "my sister and I have not spoken since the wedding and every holiday it gets worse"
UNREAD = "the garden centre opens at nine and the tomatoes need staking before the wind"


def _score(model_name: str, model: ScriptedModel, prompts: list[str], **config: Any) -> list[Any]:
    with Endpoint(EndpointConfig()) as endpoint:
        serve_completions(endpoint, model)
        scorer = get_model(model_name, base_url=endpoint.base_url, api_key="local", memoize=False)
        settings_ = SCORE_CONFIG.merge(GenerateConfig(**config))

        async def all_of() -> list[Any]:
            return [text_logprobs(await scorer.generate(p, config=settings_), p) for p in prompts]

        return asyncio.run(all_of())


def test_the_completions_provider_returns_each_prompt_token_but_the_first() -> None:
    read = ScriptedModel(read=[READ, CANARY])
    got = _score("openai-api-completions/loopback/scripted", read, [READ, UNREAD, CANARY])
    assert [t for t, _ in got[0]] == tokens(READ)[1:]
    assert {lp for _, lp in got[0]} == {-0.05}
    assert all(-9 <= lp <= -2 for _, lp in got[1])
    assert route_check([lp for _, lp in got[2]]) is None


def test_prompt_logprobs_give_the_same_tokens() -> None:
    read = ScriptedModel(read=[READ])
    got = _score(
        "openai-api-completions/loopback/scripted",
        read,
        [READ],
        prompt_logprobs=1,
        extra_body={},
        logprobs=False,
    )
    assert [t for t, _ in got[0]] == tokens(READ)[1:]


def test_a_chat_route_gives_no_log_probability_of_a_given_text() -> None:
    got = _score("openai-api/loopback/chat", ScriptedModel(read=[READ]), [READ])
    assert got == [None]
    verdict = decide_against_control(
        [TextLogprobs("p1", "t01 userMessage", None)], [], None, "openai-api/loopback/chat"
    )
    assert verdict.reading == (
        "cannot decide: openai-api/loopback/chat gives no log-probability of a given text"
    )


def test_a_shifted_route_fails_the_route_check() -> None:
    shifted = ScriptedModel(read=[CANARY], shifted=True)
    got = _score("openai-api-completions/loopback/scripted", shifted, [CANARY])
    reason = route_check([lp for _, lp in got[0]])
    assert reason is not None and "not the given text's" in reason


def _verdict_of(
    model: ScriptedModel, published: dict[str, list[str]], control: dict[str, list[str]]
) -> str:
    groups = (published, control)
    prompts = [t for group_ in groups for texts_ in group_.values() for t in texts_]
    got = iter(_score("openai-api-completions/loopback/scripted", model, [*prompts, CANARY]))
    scored = [
        [
            TextLogprobs(c, f"t{i:02d}", tuple(lp for _, lp in next(got)))
            for c, texts_ in group_.items()
            for i in range(len(texts_))
        ]
        for group_ in groups
    ]
    canary = [lp for _, lp in next(got)]
    return decide_against_control(scored[0], scored[1], canary, "scripted").reading


def test_a_model_that_read_the_published_texts_is_suspected_end_to_end() -> None:
    """Conversations nobody here wrote (words drawn by seed): the scripted model that read the
    published ones is suspected, the one that read none is not."""
    rng = random.Random(46)
    words = "apple river stone cloud paper seven quiet orange lamp window music field".split()  # noqa: SIM905

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(30))

    published = {f"p{i:02d}": [text(), text()] for i in range(3)}
    control = {f"c{i:02d}": [text(), text()] for i in range(20)}
    read = [t for texts_ in published.values() for t in texts_]
    assert _verdict_of(ScriptedModel(read=[*read, CANARY]), published, control) == SUSPECTED
    assert _verdict_of(ScriptedModel(read=[CANARY]), published, control) == NOT_SUSPECTED


def test_decoy_prompts_differ_in_the_id_alone_and_hold_no_label() -> None:
    loaded = load_conversations(BUNDLED, load_codebook())
    conv = split(loaded.conversations[0].conversation)[0]
    prompts = decoy_prompts(conv, seed=0)
    assert len(prompts) == 1 + DECOYS
    real = conv.conversation_id
    assert prompts[0].startswith(f'{{\n  "conversationId": "{real}"')
    assert prompts[0].endswith(json.dumps(conv.turns[0].user_message, ensure_ascii=False) + ",\n")
    for decoy, prompt in zip(decoy_ids(real, seed=0), prompts[1:], strict=True):
        assert prompt == prompts[0].replace(real, decoy)
    assert "moodShiftTags" not in prompts[0] and "binaryJudgements" not in prompts[0]
