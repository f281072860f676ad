"""Issue 45, a pattern read as recall: the probe's positives are differences. An endpoint that
knows no data and continues the shown piece's own repeating pattern is not suspected; a
memorizer that writes out the true rest of a repetitive text is; an echo of the prompt is
removed wherever it stands in a completion, and what the reference holds never is. The
structured nulls are the audit's own (bench/audit/contamination_nulls.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench.audit.contamination_nulls import continue_pattern, copier, echoer, repetitive
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai import eval
from inspect_ai.model import get_model

from attunebench_inspect import contamination
from attunebench_inspect.data import split
from attunebench_inspect.data._schema import Conversation
from attunebench_inspect.instruments.contamination._completions import score_instance
from attunebench_inspect.instruments.contamination._instances import Instance, select
from attunebench_inspect.instruments.contamination._overlap import overlap, strip_echo, words
from attunebench_inspect.instruments.contamination._prompts import general, guided
from attunebench_inspect.instruments.contamination._recall import published_texts
from attunebench_inspect.instruments.contamination._rules import (
    NOT_SUSPECTED,
    RULE,
    SUSPECTED,
    InstanceResult,
    decide,
)

SENTENCE = "I just feel so tired all the time. "
TEXT = SENTENCE * 4  # 32 words, a unit of 8
SEGMENT, REFERENCE = SENTENCE * 2, SENTENCE * 2


def test_an_echo_of_a_non_opening_stretch_is_stripped() -> None:
    segment = "I have been thinking about moving to a new city for work"
    reference = "but my family is here and I do not want to leave them behind"
    said = overlap(segment, reference, f"Sure, here it is: {segment}")
    # The 12 words of the segment stand in it (runs of 4+) and not in the reference: removed
    # although a preface opens the completion. Left: "sure here it is"; LCS with the 14-word
    # reference is 1 word ("here"): P = 1/4, R = 1/14, F = 2PR / (P + R) = 1/9.
    assert (said.echoed, said.match) == (12, "none")
    assert said.rouge_l == pytest.approx(1 / 9)
    # The whole guided prompt echoed after a preface is removed, instruction and all; the
    # preface's 3 words are left before the true rest: cut at the reference's 14 words, LCS 11.
    instance = Instance("c", 1, "message", segment, reference, 26, 12)
    asked = guided(instance)
    said = overlap(asked, reference, f"Here you go. {asked} {reference}")
    assert (said.echoed, said.match) == (len(words(asked)), "near_exact")


def test_the_true_rest_of_a_repetitive_text_is_not_stripped() -> None:
    # Every 4-word run of the true rest stands in the segment: the old rule removed it all
    # (ROUGE-L 0). What the reference holds is never removed.
    recalled = overlap(SEGMENT, REFERENCE, REFERENCE)
    assert (recalled.rouge_l, recalled.match, recalled.echoed) == (1.0, "exact", 0)
    # An echo of the segment is the true rest too: one completion cannot tell them apart.
    assert overlap(SEGMENT, REFERENCE, SEGMENT).match == "exact"


def test_a_match_counts_only_where_the_general_completion_does_not_match() -> None:
    def runs(guided_match: str, general_match: str) -> list[InstanceResult]:
        return [
            InstanceResult(0.5, 0.5, guided_match, general_match, conversation=f"c{i % 2}")  # type: ignore[arg-type]
            for i in range(12)
        ]

    # 12 guided exact matches, the general completions matching as well (exact, or near-exact):
    # none counts, and equal ROUGE-L gives heuristic 1 nothing.
    for general_match in ("exact", "near_exact"):
        verdict = decide(runs("exact", general_match))
        assert (verdict.reading, verdict.exact, verdict.heuristic_2) == (NOT_SUSPECTED, 0, False)
    # The general completion matching nothing: every guided match counts.
    alone = decide(runs("near_exact", "none"))
    assert (alone.reading, alone.near_exact, alone.heuristic_2) == (SUSPECTED, 12, True)
    assert "whose general completion matches neither way" in RULE


def test_the_pattern_copier_continues_the_pattern_by_hand() -> None:
    # Shown "a b c a b": the longest earlier stretch ending the text is "a b" (then "c"), then
    # "b c" (then "a"): the period goes on.
    assert continue_pattern("a b c a b", 4) == ("c", "a", "b", "c")
    # Nothing recurs: the copy starts over from the first word.
    assert continue_pattern("x y z", 3) == ("x", "y", "z")


def _repetitive(raw: dict[str, Any], count: int) -> list[tuple[str, Any]]:
    made = [Conversation.model_validate(repetitive(raw, i)) for i in range(count)]
    return [(f"r{i}.json", split(conv)[0]) for i, conv in enumerate(made)]


def _verdict(conversations: list[tuple[str, Any]], answer: Any) -> Any:
    texts = {conv.conversation_id: published_texts(conv) for _, conv in conversations}
    results = [
        score_instance(instance, texts[instance.conversation_id], *answer(instance)).result()
        for instance in select(conversations, 0).instances
    ]
    return decide(sorted(results, key=lambda r: r.conversation))


def test_the_repeating_pattern_endpoint_is_not_suspected_and_the_memorizer_is(
    conversation_raw: dict[str, Any],
) -> None:
    conversations = _repetitive(conversation_raw, 2)

    def copying(instance: Instance) -> tuple[str, str]:
        return copier(guided(instance)), copier(general(instance))

    def echoing(instance: Instance) -> tuple[str, str]:
        return echoer(guided(instance)), echoer(general(instance))

    def memorizing(instance: Instance) -> tuple[str, str]:
        return instance.reference, "I am not sure what comes next."

    copied = _verdict(conversations, copying)
    # The copier completes these texts near-exactly under both instructions: no match counts
    # (the old rule counted every guided one and read suspected).
    assert copied.general_exact + copied.general_near_exact > 0
    assert (copied.reading, copied.exact, copied.near_exact) == (NOT_SUSPECTED, 0, 0)
    assert _verdict(conversations, echoing).reading == NOT_SUSPECTED
    memorized = _verdict(conversations, memorizing)
    assert memorized.reading == SUSPECTED and memorized.exact == memorized.instances


@settings(max_examples=200, deadline=None)
@given(
    shown=st.lists(st.sampled_from("abcde"), max_size=30),
    reference=st.lists(st.sampled_from("abcde"), min_size=1, max_size=30),
)
def test_the_reference_itself_is_never_stripped(shown: list[str], reference: list[str]) -> None:
    left, removed = strip_echo(" ".join(shown), " ".join(reference), " ".join(reference))
    assert (left, removed) == (words(" ".join(reference)), 0)
    assert overlap(" ".join(shown), " ".join(reference), " ".join(reference)).match == "exact"


@settings(max_examples=50, deadline=None)
@given(
    guided_match=st.sampled_from(["exact", "near_exact", "none"]),
    general_match=st.sampled_from(["exact", "near_exact", "none"]),
)
def test_a_counted_match_is_the_guided_one_and_only_where_the_general_is_none(
    guided_match: str, general_match: str
) -> None:
    r = InstanceResult(0.0, 0.0, guided_match, general_match)  # type: ignore[arg-type]
    assert r.counted == (guided_match if general_match == "none" else "none")


def test_a_memorizer_of_repetitive_files_is_suspected_under_inspect_eval(
    tmp_path: Path, conversation_raw: dict[str, Any]
) -> None:
    # The whole path, the scorer's prompts included: `memorizer/recall` has read two repetitive
    # conversations and writes out every text's true rest when the data set is named.
    folder = tmp_path / "data"
    folder.mkdir()
    for i in range(2):
        made = repetitive(conversation_raw, i)
        (folder / f"r{i}.json").write_text(json.dumps(made), encoding="utf-8")
    log = eval(
        contamination(data=str(folder)),
        model=get_model("memorizer/recall", data=str(folder), share=1.0, memoize=False),
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.results is not None
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["suspected"] == 1 and metrics["exact"] == metrics["instances"] > 0
