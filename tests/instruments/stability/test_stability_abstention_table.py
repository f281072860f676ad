"""docs/stability.md's abstention tables, row by row: each input on which a verdict must read
"cannot decide: <reason>", each negative control that must never read the positive verdict, and
the cases the attack found (each judge failure in its own words, self-judging of fine-tunes,
epochs that walk the pairwise orders evenly)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from bench.audit.stability import (
    Chooser,
    coin,
    earlier,
    longer,
    middle,
    panel,
    per_question,
    reruns,
    shorter,
    solver_choices,
    two_models,
)
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig

from attunebench_inspect import attunebench, build_report
from attunebench_inspect._util.verdict import is_abstention
from attunebench_inspect.instruments import stability as s
from attunebench_inspect.instruments.stability._plan import stated
from attunebench_inspect.score._panel import RATING_DOMAIN
from attunebench_inspect.solve._judges import self_judge_line, self_judging
from attunebench_inspect.solve._solver import pairwise_labels
from tests.spy import Spy, valid_answer

FEW = 500
TESTED = 2000  # permutations where a verdict is read at the rule's level 0.01


# --- position bias ------------------------------------------------------------------------------


def test_position_bias_cannot_decide_under_30_choices() -> None:
    short = solver_choices(earlier, conversations=1, turns=1)
    assert len(short) < 30
    assert s.position_bias(short, resamples=FEW).verdict == (
        f"cannot decide: {len(short)} choice(s); the rule needs 30"
    )


def test_position_bias_cannot_decide_when_every_pairwise_answer_failed() -> None:
    assert s.position_bias([], resamples=FEW).verdict == (
        "cannot decide: 0 choice(s); the rule needs 30"
    )


@pytest.mark.parametrize(
    "chooser",
    [longer, shorter, per_question, coin],
    ids=["the longer reply", "the shorter reply", "a rule per question", "a coin"],
)
def test_position_bias_negative_controls(chooser: Chooser) -> None:
    """Choosers blind to the order, the content ones answering a call's twelve comparisons from
    one reading: no bias in any seed (their rates over 50 seeds: bench/audit/RESULTS.md)."""
    for seed in range(5):
        found = s.position_bias(solver_choices(chooser, seed=seed), resamples=TESTED)
        assert found.verdict == "no position bias found", (seed, found.permutation_p)


# --- position consistency ------------------------------------------------------------------------


def test_position_consistency_cannot_decide_with_one_epoch() -> None:
    one = solver_choices(longer, epochs=1)
    assert s.position_consistency(one, resamples=FEW).verdict == (
        "cannot decide: 1 epoch(s); swaps need 2 or more"
    )


def test_position_consistency_cannot_decide_under_30_swaps() -> None:
    few = solver_choices(longer, conversations=12, turns=1)[:40]
    found = s.position_consistency(few, resamples=FEW)
    assert found.swaps < 30 and found.verdict == (
        f"cannot decide: {found.swaps} swapped pair(s); the rule needs 30"
    )


def test_position_consistency_cannot_decide_under_10_conversations() -> None:
    """Forty swaps from five conversations: an interval over five conversations says nothing."""
    found = s.position_consistency(solver_choices(longer, conversations=5, turns=10), resamples=FEW)
    assert found.swaps >= 30
    assert found.verdict == "cannot decide: 5 conversation(s); the interval needs 10"


@pytest.mark.parametrize(
    "chooser", [coin, earlier, middle], ids=["a coin", "the earlier reply", "the middle reply"]
)
def test_position_consistency_negative_controls(chooser: Chooser) -> None:
    """Never the positive reading; the rate of any other error is the audit's
    (bench/audit/stability.py)."""
    for seed in range(5):
        found = s.position_consistency(solver_choices(chooser, seed=seed), resamples=FEW)
        assert found.verdict != "follows content", (seed, found.excess)


# --- test-retest --------------------------------------------------------------------------------


def test_test_retest_cannot_decide() -> None:
    assert s.retest_reliability(reruns(0, 10, 3, epochs=1)).reading == (
        "cannot decide: 1 epoch(s); test-retest needs 2 or more"
    )
    assert s.retest_reliability(reruns(0, 10, 3, conversations=4)).reading == (
        "cannot decide: 4 conversation(s) with a Composite in every epoch; the ICC needs 5"
    )
    assert s.retest_reliability(reruns(0, 0, 0)).reading == (
        "cannot decide: every Composite is the same: no variance to apportion"
    )


def test_a_deterministic_model_reruns_excellently() -> None:
    """Not an abstention: reruns that repeat every Composite are a score that holds still."""
    found = s.retest_reliability(reruns(0, 10, 0))
    assert found.icc is not None and found.icc.value == 1.0
    assert found.reading == "excellent (excellent to excellent)"


def test_test_retest_negative_control() -> None:
    """Reruns that differ more than conversations never read better than poor."""
    for seed in range(5):
        assert s.retest_reliability(reruns(seed, 3, 10)).reading.startswith("poor"), seed


# --- rank stability ------------------------------------------------------------------------------


def test_rank_stability_cannot_decide() -> None:
    one = s.rank_stability({"a": two_models(0, 3.0)["a"]}, resamples=FEW)
    assert one.reason == "cannot decide: 1 model(s); a ranking needs 2 or more"
    few = s.rank_stability(two_models(0, 3.0, conversations=5), resamples=FEW)
    assert few.verdict(0, 1) == (
        "cannot decide: 5 conversation(s) every model has; the interval needs 10"
    )
    assert few.holds[0, 1] > 0.9 and not few.settled().any()  # the share, never a settled order
    same = two_models(0, 0.0)["a"]
    tie = s.rank_stability({"a": same, "b": same}, resamples=FEW)
    assert tie.verdict(0, 1) == "cannot decide: the two Composites are equal: no order to hold"


def test_rank_stability_negative_control() -> None:
    settled = [
        s.rank_stability(two_models(seed, 0.0), resamples=FEW).verdict(0, 1) == "settled"
        for seed in range(20)
    ]
    assert sum(settled) <= 2  # the rule's 5%, two-sided 2.5% a tail


# --- the judge panel ----------------------------------------------------------------------------


def _clusters(drafts: int) -> list[str]:
    return [f"c{u // 5:03d}" for u in range(drafts)]


def test_judge_agreement_cannot_decide() -> None:
    def reading(data: list[list[int | None]]) -> str:
        drafts = len(data[0]) if data else 0
        return s.judge_agreement(
            data, "ordinal", RATING_DOMAIN, clusters=_clusters(drafts), resamples=FEW
        ).reading

    assert reading(panel(0, 0.95, judges=1)) == (
        "cannot decide: 1 judge(s); agreement needs a panel of 2 or more"
    )
    assert reading(panel(0, 0.95, drafts=10)) == (
        "cannot decide: 10 unit(s) answered by two judges or more; the rule needs 20"
    )
    assert reading(panel(0, 0.95, drafts=20)) == (
        "cannot decide: 4 conversation(s); the interval needs 10"
    )
    assert reading([[5] * 60, [5] * 60]) == (
        "cannot decide: one value throughout: nothing for the judges to agree on"
    )


def test_judge_agreement_negative_control() -> None:
    for seed in range(10):
        data = panel(seed, 0.0)
        found = s.judge_agreement(
            data, "ordinal", RATING_DOMAIN, clusters=_clusters(len(data[0])), resamples=FEW
        )
        assert found.reading == "unreliable", (seed, found.alpha)


def test_judge_collapse_cannot_decide() -> None:
    assert s.judge_profile([5] * 10).verdict == (
        "cannot decide: 10 rated draft(s); the rule needs 20"
    )
    # A model that writes one draft: one rating for it is the right answer, not a collapse.
    one_draft = s.judge_profile([5] * 40, ["abc"] * 40)
    assert one_draft.collapsed is None and one_draft.verdict == (
        "cannot decide: the drafts do not vary (1 distinct of 40)"
    )
    # Logs written before the drafts' digests were kept: the rule reads the ratings alone.
    assert s.judge_profile([5] * 40).verdict == "collapsed"
    assert s.judge_profile([5] * 40, [f"d{i}" for i in range(40)]).verdict == "collapsed"


def test_judge_collapse_negative_control() -> None:
    for seed in range(10):
        ratings = panel(seed, 0.0, judges=1)[0]
        assert s.judge_profile(ratings).verdict == "not collapsed", seed


def _empty_judge(messages: list[ChatMessage], config: GenerateConfig) -> str:
    schema = config.response_schema
    return "" if schema is not None and schema.name.endswith("judge") else "{}"


def test_each_judge_failure_says_its_own_reason(
    small_dataset: Callable[[int], Path], tmp_path: Path
) -> None:
    """A judge that answers nothing: the report says every judge call failed, not that the log
    is of an older task version."""
    data = small_dataset(1)
    judge = Spy(answer=_empty_judge).model("judge")
    [log] = eval(
        attunebench(data=str(data)),
        model=Spy(answer=valid_answer).model("writer"),
        model_roles={"judge": judge},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success"
    [run] = build_report([tmp_path / "logs"], resamples=FEW).stability
    assert run.judges == {"judge": "mockllm/judge"} and run.judge_leniency == []
    assert run.judge_note.startswith(
        "no judge answer could be used: every judge call failed to parse or came back empty"
    )
    assert "3-A" not in run.judge_note


# --- self-judging --------------------------------------------------------------------------------


def test_self_judging_knows_a_fine_tune_and_its_base() -> None:
    tuned = "openai/ft:gpt-4o-mini-2024-07-18:my-org::abc123"
    judges = {"judge": "openai/gpt-4o-mini", "judge_2": "anthropic/claude-opus-4-6"}
    related = self_judging(tuned, judges)
    assert related == {"judge": "same family"}
    assert self_judge_line(tuned, judges, related) == (
        f"self-judging: the judge panel has the evaluated model {tuned} or its family: judge "
        "openai/gpt-4o-mini (same family); its draft ratings may favour its own writing "
        "(-T allow_self_judge=true if meant)"
    )
    assert self_judging(tuned, {"judge": tuned}) == {"judge": "same model"}
    assert self_judging("mistral/mistral-large-latest", {"judge": "mistral/open-mistral-7b"}) == {
        "judge": "same family"
    }


def test_self_judging_negative_controls() -> None:
    for model, judge in [
        ("openai/gpt-4o", "openai/o3"),
        ("openai/ft:gpt-4o-mini-2024-07-18:org::x", "anthropic/claude-opus-4-6"),
        ("attunebench/random", "openai/gpt-4o"),
    ]:
        assert self_judging(model, {"judge": judge}) == {}, (model, judge)


# --- epochs walk the pairwise orders evenly ------------------------------------------------------


def test_six_epochs_show_each_order_once_and_every_two_reverse_every_pair() -> None:
    for conversation, turn in [("c1", 1), ("c1", 3), ("x", 7)]:
        orders = [
            tuple(pairwise_labels(0, conversation, turn, epoch).values()) for epoch in range(1, 13)
        ]
        assert Counter(orders[:6]) == Counter(set(orders[:6])) and len(set(orders[:6])) == 6
        assert orders[6:] == orders[:6]  # epoch k > 6 repeats epoch k - 6
        for k in (0, 2, 4):
            assert orders[k + 1] == orders[k][::-1]
        for first in range(3):
            assert {orders[k][first] for k in (0, 2, 4)} == {"original", "alternate", "human"}


def test_two_epochs_give_a_swap_from_every_comparison() -> None:
    choices = solver_choices(longer, conversations=10, turns=3)
    found = s.position_consistency(choices, resamples=FEW)
    assert found.swaps == len(choices) // 2


# --- the plan ------------------------------------------------------------------------------------


def test_the_plan_cannot_decide() -> None:
    a, b = two_models(0, 2.0).values()
    assert s.pilot_abstention({c: v[:1] for c, v in a.items()}, b) == (
        "cannot decide: a pilot of 1 epoch: the rerun variance needs 2 or more (run the pilot "
        "with --epochs 2, or state the variances)"
    )
    few = {c: a[c] for c in list(a)[:9]}
    assert s.pilot_abstention(few, b) == (
        "cannot decide: 9 conversation(s) with a Composite in every epoch of both models; a "
        "pilot needs 10"
    )
    one = (
        "cannot decide: the two runs have the same Composite in every conversation and epoch "
        "(one run given as both models, or one model that answers one thing run twice): a plan "
        "needs two models' runs"
    )
    assert s.pilot_abstention(a, a) == one
    same = {c: [50.0, 50.0] for c in a}
    assert s.pilot_abstention(same, same) == one
    # Two models that each answer one thing, a fixed difference apart.
    apart = {c: [52.0, 52.0] for c in a}
    assert s.pilot_abstention(same, apart) == (
        "cannot decide: no variance to plan on (a conversation's difference varies by an SD of "
        "0 points, under the report's precision of 0.01): any two conversations would seem to "
        "separate any difference"
    )
    # Near zero is none: an SD under the report's precision (issue 45: variances of 1e-12 read
    # "2 conversations at power 1.000").
    for tiny in (0.0, 1e-12, 3e-5):
        found = stated(s.Variances(tiny, tiny, tiny)).abstention
        assert found is not None and found.startswith("cannot decide: no variance to plan on"), tiny
    assert stated(s.Variances(1e-4, 0, 0)).abstention is None
    assert s.pilot_abstention(a, b) is None and stated(s.Variances(25, 9, 9)).abstention is None


def test_every_abstention_reads_cannot_decide() -> None:
    """Every reason above is said in the one vocabulary."""
    found = [
        s.position_bias([]).verdict,
        s.position_consistency([]).verdict,
        s.retest_reliability({}).reading,
        str(s.rank_stability({}).reason),
        s.judge_agreement([], "ordinal", RATING_DOMAIN).reading,
        s.judge_profile([]).verdict,
    ]
    assert all(is_abstention(v) for v in found), found
    assert math.isnan(s.judge_profile([]).mean) and np.isnan(s.position_bias([]).chi2)
