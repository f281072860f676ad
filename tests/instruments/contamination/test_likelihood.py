"""The likelihood method: Min-K% Prob, the control test and the decoy-ID test by hand-checked
values (`_likelihood.py`), every abstention with its message, ranges by hypothesis, the overall
rule's case of a method the provider cannot answer, the route through Inspect's
`openai-api-completions` provider, and the method in the task end to end against the loopback
endpoint's scripted model of known training data (conversations it knows only as the texts it is
told it read): a model that read them is suspected, one that did not is not; a chat route and a
server that ignores `echo` cannot decide, with the line that says why."""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, get_model
from loopback.completions import ScriptedModel, serve_completions, tokens
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import build_report, contamination, to_json
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import load_codebook, load_conversations, split
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.instruments.contamination._estimate import likelihood_requests
from attunebench_inspect.instruments.contamination._likelihood import (
    CANARY,
    ConversationLikelihood,
    canary_mean,
    conversation_likelihood,
    decide_likelihood,
    decoy_ids,
    decoy_prompts,
    decoy_window,
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
from attunebench_inspect.instruments.contamination._recall import published_texts
from attunebench_inspect.instruments.contamination._report import ContaminationPart
from attunebench_inspect.instruments.contamination._rules import (
    CANARY_FLOOR,
    DECOYS,
    MIN_TOKENS,
    NOT_SUSPECTED,
    SUSPECTED,
    overall,
)
from attunebench_inspect.instruments.contamination._verdict import ProbeVerdict
from tests.conftest import BUNDLED, REPO

ALIGNED = -0.1
"""A counting sequence's mean read in order (`canary_mean`)."""
SHIFTED = -9.0
"""The same scored against the next position's distribution."""
ID = "4723fdd3-f278-4748-8b63-77aa00ff14e0"


def conv(name: str, level: float, control: bool = False, **figures: Any) -> ConversationLikelihood:
    """A conversation whose 3 texts score `level`, its canary read in order unless told."""
    given: dict[str, Any] = {"texts": 3, "canary": ALIGNED, **figures}
    return ConversationLikelihood(name, control=control, score=level, **given)


def group(prefix: str, levels: list[float], control: bool = False) -> list[ConversationLikelihood]:
    return [conv(f"{prefix}{i:02d}", level, control) for i, level in enumerate(levels)]


# --- Min-K% Prob and a conversation's figures ---------------------------------------------------


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


def test_a_conversation_leaves_out_short_texts_and_counts_what_did_not_come_back() -> None:
    canary = [-6.0] * 10 + [-0.5] * 50
    found = conversation_likelihood(
        "c1", canary, [[-1.0] * 20, [-3.0] * 20, [-1.0] * (MIN_TOKENS - 1), None]
    )
    # Min-K% of a flat text is its level: the mean of -1 and -3.
    assert (found.score, found.texts, found.skipped, found.missing) == (-2.0, 2, 1, 1)
    assert found.canary == -0.5 == canary_mean(canary)
    assert math.isnan(canary_mean(None)) and math.isnan(canary_mean([-1.0] * 10))
    assert math.isnan(conversation_likelihood("c2", None).score)


def test_a_conversation_counts_the_decoys_at_least_as_likely_as_its_real_id() -> None:
    real = [("{", -1.0), ("4723", -2.0), ("\n", -1.0), ("hi", -1.0)]
    decoys = [[("{", -1.0), ("9a", -5.0), ("\n", v), ("hi", -1.0)] for v in (-3.0, -1.0, 0.0)]
    found = conversation_likelihood("c1", [-0.1] * 20, windows=[real, *decoys])
    # Suffix sums: real -2; decoys -4, -2 (a tie counts against the real ID), -1.
    assert found.decoys_above == 2
    missing = conversation_likelihood("c1", [-0.1] * 20, windows=[real, None])
    assert (missing.decoys_above, missing.missing) == (None, 1)


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
    found = group("p", [-0.5, -0.6]) + group("c", [-5.0 - 0.1 * i for i in range(21)], True)
    verdict = decide_likelihood(found, True, "llamacpp")
    assert verdict.reading == SUSPECTED
    assert verdict.p_value == pytest.approx(1 / 253)
    assert (verdict.conversations, verdict.controls, verdict.texts) == (2, 21, 69)
    assert verdict.published == pytest.approx(-0.55)
    assert "two-sample permutation test" in verdict.rule


def test_the_control_test_clears_published_texts_like_the_control() -> None:
    levels = [-5.0 - 0.1 * i for i in range(23)]
    found = group("p", levels[10:12]) + group("c", levels[:10] + levels[12:], True)
    verdict = decide_likelihood(found, True, "llamacpp")
    assert verdict.reading == NOT_SUSPECTED
    assert verdict.p_value > 0.01


NO_LOGPROBS = "cannot decide: openai/gpt-4o gives no log-probability of a given text"


@pytest.mark.parametrize(
    ("found", "reason"),
    [
        (
            [*group("p", [-1.0]), conv("p01", math.nan, missing=1), *group("c", [-1.0] * 21, True)],
            NO_LOGPROBS,
        ),
        ([ConversationLikelihood("p00"), ConversationLikelihood("p01")], NO_LOGPROBS),
        (
            [conv("p00", -1.0, canary=SHIFTED), *group("c", [-1.0] * 21, True)],
            "cannot decide: the log-probabilities returned are not the given text's: a counting "
            f"sequence scores -9.00 nats per token, at least {CANARY_FLOOR} expected",
        ),
        (
            group("p", [-1.0]) + group("c", [-1.0] * 21, True),
            f"cannot decide: 1 published conversation(s) scored, at least 2 needed (texts of at "
            f"least {MIN_TOKENS} tokens)",
        ),
        (
            group("p", [-1.0, -1.0]),
            "cannot decide: 0 never-published control conversation(s) scored, at least 2 needed",
        ),
        (
            group("p", [-1.0, -1.0]) + group("c", [-1.0] * 8, True),
            "cannot decide: 2 published and 8 control conversations cannot reach alpha 0.01 "
            "(smallest p-value 0.0222)",
        ),
    ],
)
def test_the_control_test_abstains_with_its_reason(
    found: list[ConversationLikelihood], reason: str
) -> None:
    verdict = decide_likelihood(found, True, "openai/gpt-4o")
    assert verdict.reading == reason
    assert math.isnan(verdict.p_value)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_control_test_p_value_is_a_probability(seed: int) -> None:
    rng = random.Random(seed)
    levels = [rng.uniform(-8, -1) for _ in range(25)]
    verdict = decide_likelihood(group("p", levels[:3]) + group("c", levels[3:], True), True, "x")
    assert smallest_p(3, 22) <= verdict.p_value <= 1
    assert verdict.reading in (SUSPECTED, NOT_SUSPECTED)


def test_the_route_check_reads_the_canary_from_its_eleventh_token() -> None:
    assert route_check(canary_mean((-6.0,) * 10 + (-0.1,) * 50)) is None
    assert route_check(canary_mean((-30.0,) * 10 + (-1.0,) * 5)) is None
    assert route_check(canary_mean((-9.0,) * 60)) is not None
    assert route_check(math.nan) is not None


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
    windows = [[("x", s)] for s in (-1.0, -2.0, -1.0, -0.5)]
    assert conversation_likelihood("c", None, windows=windows).decoys_above == 2
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


def _decoys(
    counts: list[int | None], ids: list[str], canary: float = ALIGNED
) -> list[ConversationLikelihood]:
    return [
        ConversationLikelihood(i, decoys_above=c, canary=canary, missing=int(c is None))
        for c, i in zip(counts, ids, strict=True)
    ]


def test_the_decoy_test_reads_real_ids_ranked_first() -> None:
    ids = [ID, decoy_ids(ID, seed=9)[0]]
    assert decide_likelihood(_decoys([0, 0], ids), False, "llamacpp").reading == SUSPECTED
    cleared = decide_likelihood(_decoys([10, 7], ids), False, "llamacpp")
    assert cleared.reading == NOT_SUSPECTED
    assert (cleared.published, cleared.control, cleared.controls) == (8.5, DECOYS / 2, DECOYS)
    assert cleared.p_value == pytest.approx(rank_sum_p([10, 7]))


def _copier(prompt: str) -> list[tuple[str, float]]:
    """A model that read no file and copies its context: a token (a word or a sign) it has seen
    is likely."""
    said = re.findall(r"\w+|\W", prompt)
    return [(t, math.log(0.9 if t in said[:i] else 0.01)) for i, t in enumerate(said)]


def test_the_decoy_test_clears_a_model_that_copies_a_window_naming_its_id_twice() -> None:
    """A null with structure: data whose document names its ID again below the top (the
    published files do not; the format allows it) and a model that merely copies what it saw."""
    found = []
    for n in range(10):
        real = decoy_ids(ID, seed=n)[0]
        window = f'{{\n  "conversationId": "{real}",\n  "note": "about {real}",\n  "text": "hi"\n'
        sums = shared_suffix([_copier(p) for p in decoy_prompts(window, real, decoy_ids(real, 0))])
        above = sum(d >= sums[0] for d in sums[1:])
        found.append(ConversationLikelihood(real, decoys_above=above, canary=ALIGNED))
    assert decide_likelihood(found, False, "llamacpp").reading == NOT_SUSPECTED


@pytest.mark.parametrize(
    ("counts", "ids", "canary", "reason"),
    [
        ([0, None], [ID, ID], ALIGNED, "cannot decide: llamacpp gives no log-probability"),
        ([0, 0], [ID, ID], SHIFTED, "cannot decide: the log-probabilities returned are not"),
        (
            [0, 0],
            [ID, "syn02"],
            ALIGNED,
            "cannot decide: 1 conversation ID(s) are not random UUIDs (version 4): a decoy "
            "cannot stand in for them",
        ),
        (
            [0],
            [ID],
            ALIGNED,
            "cannot decide: 1 conversation(s) cannot reach alpha 0.01 against 19 decoys each "
            "(smallest p-value 0.05)",
        ),
    ],
)
def test_the_decoy_test_abstains_with_its_reason(
    counts: list[int | None], ids: list[str], canary: float, reason: str
) -> None:
    found = decide_likelihood(_decoys(counts, ids, canary), False, "llamacpp")
    assert found.reading.startswith(reason)


# --- the overall rule: a method the provider cannot answer --------------------------------------


def test_a_method_the_provider_cannot_answer_is_left_out_of_the_verdict() -> None:
    assert overall([("guided", NOT_SUSPECTED), ("likelihood", NO_LOGPROBS)]) == NOT_SUSPECTED
    assert overall([("guided", SUSPECTED), ("likelihood", NO_LOGPROBS)]) == SUSPECTED
    few = "cannot decide: too few instances (3, at least 10)"
    # As if it had not run: the guided probe's own reading.
    assert overall([("guided", few), ("likelihood", NO_LOGPROBS)]) == few
    assert overall([("guided", NOT_SUSPECTED), ("layout", few), ("likelihood", NO_LOGPROBS)]) == (
        "cannot decide: layout: too few instances (3, at least 10)"
    )
    # A method the provider can answer still makes the verdict cannot decide.
    route = "cannot decide: the log-probabilities returned are not the given text's"
    assert overall([("guided", NOT_SUSPECTED), ("likelihood", route)]) == (
        "cannot decide: likelihood: the log-probabilities returned are not the given text's"
    )
    # Nothing the provider can answer: cannot decide, the first method's reason.
    assert overall([("guided", NO_LOGPROBS), ("likelihood", NO_LOGPROBS)]) == (
        "cannot decide: guided: openai/gpt-4o gives no log-probability of a given text"
    )
    assert overall([("likelihood", NO_LOGPROBS)]) == NO_LOGPROBS


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
    assert route_check(canary_mean([lp for _, lp in got[2]])) is None


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


def test_a_shifted_route_fails_the_route_check() -> None:
    shifted = ScriptedModel(read=[CANARY], shifted=True)
    got = _score("openai-api-completions/loopback/scripted", shifted, [CANARY])
    reason = route_check(canary_mean([lp for _, lp in got[0]]))
    assert reason is not None and "not the given text's" in reason


def test_decoy_prompts_differ_in_the_id_alone_and_hold_no_label() -> None:
    loaded = load_conversations(BUNDLED, load_codebook())
    conv = split(loaded.conversations[0].conversation)[0]
    real = conv.conversation_id
    prompts = decoy_prompts(decoy_window(conv), real, decoy_ids(real, seed=0))
    assert len(prompts) == 1 + DECOYS
    assert prompts[0].startswith(f'{{\n  "conversationId": "{real}"')
    assert prompts[0].endswith(json.dumps(conv.turns[0].user_message, ensure_ascii=False) + ",\n")
    for decoy, prompt in zip(decoy_ids(real, seed=0), prompts[1:], strict=True):
        assert prompt == prompts[0].replace(real, decoy)
    assert "moodShiftTags" not in prompts[0] and "binaryJudgements" not in prompts[0]


# --- the method in the task, end to end ---------------------------------------------------------

COMPLETIONS = "openai-api-completions/loopback/scripted"


def _halves(tmp_path: Path, published: int = 3, controls: int = 13) -> tuple[Path, Path]:
    """The bundled conversations split into a published data set (the first `published`) and a
    never-published control (the next `controls`): conversations the scripted model knows only
    as the texts it is told it read."""
    files = sorted(BUNDLED.glob("*.json"))
    data, control = tmp_path / "published", tmp_path / "control"
    chosen_control = files[published : published + controls]
    for folder, chosen in ((data, files[:published]), (control, chosen_control)):
        folder.mkdir()
        for file in chosen:
            shutil.copy(file, folder / file.name)
    return data, control


def _visible(folder: Path) -> list[Any]:
    return [
        split(c.conversation)[0] for c in load_conversations(folder, load_codebook()).conversations
    ]


def _texts(folder: Path) -> list[str]:
    return [t.text for v in _visible(folder) for t in published_texts(v) if t.text.strip()]


def _probe(tmp_path: Path, model: ScriptedModel, data: Path, **task: Any) -> EvalLog:
    with Endpoint(EndpointConfig()) as endpoint:
        serve_completions(endpoint, model)
        probed = get_model(COMPLETIONS, base_url=endpoint.base_url, api_key="local", memoize=False)
        log = eval(
            contamination(data=str(data), **task),
            model=probed,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )[0]
    assert log.status == "success", log.error
    return log


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    (score,) = [s for s in log.results.scores if s.name == "contamination_scorer"]
    return {k: m.value for k, m in score.metrics.items()}


def _sub_verdict(log: EvalLog) -> str:
    found = ProbeVerdict.from_metrics(_metrics(log), log.eval.model)
    assert found is not None and found.likelihood is not None
    return found.likelihood.reading


def test_the_control_test_suspects_a_model_that_read_the_published_conversations(
    tmp_path: Path,
) -> None:
    data, control = _halves(tmp_path)
    model = ScriptedModel(read=[*_texts(data), CANARY])
    log = _probe(tmp_path, model, data, methods="likelihood", likelihood_control=str(control))
    found = _metrics(log)
    assert found["suspected"] == found["likelihood_suspected"] == 1.0
    # The 3 published conversations are the likeliest of 16: 1 of C(16, 3) = 560 arrangements.
    assert found["likelihood_p_value"] == pytest.approx(1 / 560)
    assert (found["likelihood_conversations"], found["likelihood_controls"]) == (3, 13)
    assert found["likelihood_published"] == pytest.approx(-0.05)
    # A canary per conversation, then every text of both data sets, each once.
    assert sorted(model.heard) == sorted([CANARY] * 16 + _texts(data) + _texts(control))
    # The control conversations are samples of their own, not probed conversations.
    assert log.eval.metadata and log.eval.metadata["likelihood_control"] == str(control)
    report = build_report([tmp_path / "logs"], resamples=50)
    (row,) = report.part(ContaminationPart).contamination
    assert len(row.contamination.probed) == 3 and row.contamination.conversations == 3
    assert row.contamination.likelihood is not None
    assert (row.contamination.likelihood.verdict, row.contamination.likelihood.test) == (
        SUSPECTED,
        "control",
    )
    # The controls are not conversations of the run: a probe of the same data without them is
    # a run over the same set, ranked beside it, not set aside as a --limit run.
    eval(contamination(data=str(data)), model="attunebench/random", display="none",
         log_dir=str(tmp_path / "logs"))  # fmt: skip
    both = json.loads(to_json(build_report([tmp_path / "logs"], resamples=50)))["compared"]
    assert [(c["task"], c["conversations"], c["runs"], c["set_aside"]) for c in both] == [
        ("contamination", 3, 2, 0)
    ]
    unread = _probe(
        tmp_path,
        ScriptedModel(read=[CANARY]),
        data,
        methods="likelihood",
        likelihood_control=str(control),
    )
    assert _metrics(unread)["not_suspected"] == 1.0


def test_the_decoy_test_suspects_a_model_that_read_the_files(tmp_path: Path) -> None:
    data, _ = _halves(tmp_path)
    files = [decoy_window(v) for v in _visible(data)]
    found = _metrics(
        _probe(tmp_path, ScriptedModel(read=[*files, CANARY]), data, methods="likelihood")
    )
    assert found["likelihood_suspected"] == 1.0 and found["likelihood_control_test"] == 0.0
    # Each real ID the likeliest of its 20: counts 0, 0, 0, p = (1/20)**3.
    assert found["likelihood_published"] == 0.0
    assert found["likelihood_p_value"] == pytest.approx(1 / 8000)
    # A model that read the texts but not the files ties the real ID with every decoy.
    texts = ScriptedModel(read=[*_texts(data), CANARY])
    assert _metrics(_probe(tmp_path, texts, data, methods="likelihood"))["not_suspected"] == 1.0
    assert len(texts.heard) == 3 * (1 + 1 + DECOYS)


def _generated(folder: Path, count: int, seed: int) -> Path:
    """`count` conversations nobody here wrote: the bundled files' layout and labels (their first
    two turns), each text replaced by as many words made of random syllables (seeded), each ID a
    fresh random UUID."""
    rng = random.Random(f"generated/{seed}")
    files = sorted(BUNDLED.glob("*.json"))

    def words(text: str) -> str:
        return " ".join(
            "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))
            for _ in text.split()
        )

    folder.mkdir()
    for i in range(count):
        raw = json.loads(files[i % len(files)].read_text(encoding="utf-8"))
        raw["conversationId"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        # Two turns: texts enough to score, few calls.
        raw["turns"] = raw["turns"][:2]
        raw["metadata"]["text"] = words(raw["metadata"]["text"])
        for turn in raw["turns"]:
            turn["userMessage"], turn["llmResponse"] = (
                words(turn["userMessage"]),
                words(turn["llmResponse"]),
            )
            alternates = turn["annotations"]["alternateResponses"]
            for field in ("llmImproved", "humanEdited"):
                alternates[field] = words(alternates[field])
        (folder / f"g{i:02d}.json").write_text(json.dumps(raw), encoding="utf-8")
    return folder


def test_conversations_nobody_here_wrote_are_suspected_where_read_and_only_there(
    tmp_path: Path,
) -> None:
    """Checked from outside: generated conversations, 2 published and 13 never published (the
    least that reaches alpha: 1 of C(15, 2) = 105); a model that read the published ones is
    suspected by the control test, one that read nothing is not; a model that
    read the published files is suspected by the decoy test, one that read the texts alone is
    not."""
    data = _generated(tmp_path / "published", 2, seed=1)
    control = _generated(tmp_path / "control", 13, seed=2)
    task = {"methods": "likelihood", "likelihood_control": str(control)}
    verdicts = {
        name: _sub_verdict(_probe(tmp_path, ScriptedModel(read=[*read, CANARY]), data, **task))
        for name, read in (("published", _texts(data)), ("nothing", []))
    }
    assert verdicts == {"published": SUSPECTED, "nothing": NOT_SUSPECTED}
    files = ScriptedModel(read=[*(decoy_window(v) for v in _visible(data)), CANARY])
    decoys = _metrics(_probe(tmp_path, files, data, methods="likelihood"))
    # Both real IDs the likeliest of their 20: p = (1/20)**2.
    assert decoys["likelihood_suspected"] == 1.0
    assert decoys["likelihood_p_value"] == pytest.approx(1 / 400)
    texts = ScriptedModel(read=[*_texts(data), CANARY])
    assert _sub_verdict(_probe(tmp_path, texts, data, methods="likelihood")) == NOT_SUSPECTED


def test_the_control_set_is_checked_in_one_located_line(tmp_path: Path) -> None:
    data, control = _halves(tmp_path)
    with pytest.raises(InputError) as error:
        contamination(data=str(data), methods="guided", likelihood_control=str(control))
    assert str(error.value) == (
        "task parameter likelihood_control is the likelihood method's; methods are guided "
        "(add likelihood)"
    )
    first = sorted(data.glob("*.json"))[0]
    shutil.copy(first, control / first.name)
    with pytest.raises(InputError) as error:
        contamination(data=str(data), likelihood_control=str(control))
    conversation = json.loads(first.read_text(encoding="utf-8"))["conversationId"]
    assert str(error.value) == (
        f"{control / first.name}: task parameter likelihood_control: conversation "
        f"{conversation} is in data too (1 such); a control conversation must never have been "
        "published"
    )
    with pytest.raises(InputError) as error:
        contamination(data=str(data), likelihood_control=str(tmp_path / "absent"))
    # Read as `data` is: its one located line, the path named.
    assert f"{tmp_path / 'absent'}: conversation: path: found nothing" in str(error.value)
    with pytest.raises(InputError) as error:
        contamination(data=str(data), likelihood_control=3)
    assert str(error.value).startswith("task parameter likelihood_control must be a data set")


def test_a_chat_route_is_sent_no_call_and_cannot_decide_with_the_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data, control = _halves(tmp_path)
    with Endpoint(EndpointConfig()) as endpoint:
        chat = get_model(
            "openai-api/loopback/chat", base_url=endpoint.base_url, api_key="local", memoize=False
        )
        log = eval(
            contamination(data=str(data), methods="likelihood", likelihood_control=str(control)),
            model=chat,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )[0]
        # Not even the canary: a never-published conversation never reaches such a provider.
        assert endpoint.records == []
    reason = "cannot decide: openai-api/loopback/chat gives no log-probability of a given text"
    assert _metrics(log)["cannot_decide"] == 1.0
    assert _sub_verdict(log) == reason
    said = [r.getMessage() for r in caplog.records if "gives no log-probability" in r.getMessage()]
    assert len(said) == 1 and "openai-api-completions" in said[0]


def test_the_default_leaves_a_method_the_provider_cannot_answer_out_of_the_verdict(
    tmp_path: Path,
) -> None:
    log = eval(
        contamination(),
        model="attunebench/random",
        limit=3,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    found = _metrics(log)
    assert (found["not_suspected"], found["guided_suspected"]) == (1.0, 0.0)
    assert _sub_verdict(log) == (
        "cannot decide: attunebench/random gives no log-probability of a given text"
    )


def test_a_server_that_ignores_echo_or_shifts_it_cannot_decide(tmp_path: Path) -> None:
    data, _ = _halves(tmp_path)
    ignores = ScriptedModel(read=[CANARY], echo=False)
    assert _sub_verdict(_probe(tmp_path, ignores, data, methods="likelihood")) == (
        f"cannot decide: {COMPLETIONS} gives no log-probability of a given text"
    )
    # The canary alone was sent: nothing more where it came back without the text's numbers.
    assert ignores.heard == [CANARY] * 3
    shifted = ScriptedModel(read=[CANARY], shifted=True)
    found = _probe(tmp_path, shifted, data, methods="guided,likelihood")
    assert _sub_verdict(found).startswith(
        "cannot decide: the log-probabilities returned are not the given text's"
    )
    assert shifted.heard.count(CANARY) == 3


def test_the_estimate_prices_the_calls_the_method_sends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--contamination_likelihood` bills the decoy-ID test's calls (the default without a
    control set): the canary and 20 windows per conversation, the prompts the scripted model
    heard, prompt tokens only."""
    data, _ = _halves(tmp_path)
    heard = ScriptedModel(read=[CANARY])
    _probe(tmp_path, heard, data, methods="likelihood")
    requests = [r for c in likelihood_requests(str(data), load_codebook()) for r in c]
    assert sorted(m for r in requests for _, m in r.messages) == sorted(heard.heard)
    capsys.readouterr()
    argv = ["estimate", "--data", str(data), "--model", COMPLETIONS, "--tokenizer", "chars"]
    prices = ["--price-in", "2", "--price-out", "8", "--format", "json"]
    assert main([*argv, *prices, "--contamination_likelihood"]) == 0
    runs = {r["mode"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    billed = runs["contamination_likelihood"]
    assert billed["calls"] == len(heard.heard) == 3 * (1 + 1 + DECOYS)
    assert billed["output_tokens"] <= billed["calls"]
    # The chars tokenizer counts about 4 characters a token.
    assert billed["input_tokens"] == pytest.approx(sum(len(p) for p in heard.heard) / 4, rel=0.1)


def test_the_benchs_false_positive_count_over_every_split_is_at_most_alpha() -> None:
    """bench/contamination/likelihood.py counts the control test's rejections over every split of
    a model's unseen conversations: whatever the scores, at most alpha of them (2 of 300 for 25
    distinct scores at alpha 0.01, 3 of 300 being 0.01 itself)."""
    sys.path.insert(0, str(REPO / "bench" / "contamination"))
    from likelihood import every_split

    rng = random.Random(3)
    found = [conv(f"c{i:02d}", rng.uniform(-12, -4)) for i in range(25)]
    assert every_split(found) == (2, 300)
    # Tied scores reject fewer: no split's mean stands alone above the rest.
    assert every_split([conv(f"c{i:02d}", -5.0) for i in range(25)]) == (0, 300)
