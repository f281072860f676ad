"""The contamination probe's heuristic 3 (`_recall.py`): a completion that
writes out another published text of its conversation. Hand-checked runs, what never counts
(the prompt's words, the instance's own text), the threshold's edge, a property, and the
planted models end to end."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.model import get_model

from attunebench_inspect.data import load_codebook, load_conversations, split
from attunebench_inspect.instruments.contamination._completions import score_instance
from attunebench_inspect.instruments.contamination._instances import Instance
from attunebench_inspect.instruments.contamination._overlap import shown_words, words
from attunebench_inspect.instruments.contamination._prompts import general, guided
from attunebench_inspect.instruments.contamination._recall import (
    NO_RECALL,
    PublishedText,
    Recall,
    published_texts,
    recall,
    text_key,
)
from attunebench_inspect.instruments.contamination._rules import (
    RECALL_NEEDED,
    RECALL_RUN_WORDS,
    RULE,
    InstanceResult,
    decide,
)
from attunebench_inspect.instruments.contamination._scorer import RESULTS_KEY
from attunebench_inspect.instruments.contamination._solver import TEXTS_KEY, texts_of
from tests.conftest import BUNDLED

from .test_contamination import _metrics, _run, written_data  # noqa: F401 (a fixture)

MESSAGE = PublishedText("t01 userMessage", "my sister and I have not spoken since the wedding")
RESPONSE = PublishedText(
    "t01 llmResponse",
    "It sounds like the silence since the wedding has been heavy for you both.",
)
TEXTS = [MESSAGE, RESPONSE]


def test_a_run_by_hand_with_the_prompt_words_left_out() -> None:
    prompt = "FIRST PIECE:\nmy sister and I have not spoken"
    completion = "My sister and I have not spoken... the silence since the wedding has been heavy"
    # Normalised: my sister and i have not spoken | the silence since the wedding has been heavy.
    # The first 7 words stand in the prompt (a run of 4+): shown, so they count for nothing.
    # The other 8 stand in order in the response: "the silence since the wedding has been
    # heavy" (8 words). The message (the instance's own text) is not compared.
    found = recall(completion, prompt, TEXTS, own="t01 userMessage")
    assert found == Recall(8, "t01 llmResponse", "the silence since the wedding has been heavy")


def test_the_own_text_never_counts() -> None:
    # The completion writes out the rest of the message itself: heuristic 2's business. Against
    # the response alone it shares "since the wedding" (3 words).
    completion = "since the wedding"
    assert recall(completion, "shown: my sister", TEXTS, own="t01 userMessage").run == 3
    assert recall(completion, "shown: my sister", [MESSAGE], own="t01 userMessage") == NO_RECALL
    # Compared with the message when it is not the instance's own text: the same 3 words.
    assert recall(completion, "shown: my sister", [MESSAGE], own="t02 userMessage").run == 3


def test_an_echo_anywhere_breaks_a_run() -> None:
    prompt = "the silence since the wedding"  # 5 words, shown
    # silence since the wedding (4 words, all in the prompt: shown) + has been heavy: only the
    # last 3 words are unshown, and they stand in the response: a run of 3, not 7.
    completion = "silence since the wedding has been heavy"
    assert recall(completion, prompt, TEXTS, own="").run == 3
    # A 3-word overlap with the prompt is below SHOWN_RUN_WORDS = 4: not shown, it counts.
    assert shown_words(words("since the wedding has"), words("the wedding ended")) == [False] * 4
    assert recall("since the wedding has been heavy", "the wedding ended", TEXTS, own="").run == 6


def test_the_threshold_and_the_count_at_their_edge() -> None:
    def result(guided_run: int, general_run: int) -> InstanceResult:
        return InstanceResult(0.0, 0.0, "none", "none", guided_run, general_run)

    assert (RECALL_RUN_WORDS, RECALL_NEEDED) == (13, 2)
    # Two completions (the guided one of one instance, the general one of another) at exactly
    # 13 words: heuristic 3 holds, at any number of instances (2 here, below the minimum 10).
    v = decide([result(13, 0), result(0, 13)])
    assert (v.reading, v.recalled, v.longest_recall, v.heuristic_3) == ("suspected", 2, 13, True)
    # One at 13 and one at 12: one recalled, fewer than 2; 2 instances are too few to decide.
    v = decide([result(13, 0), result(0, 12)])
    assert (v.reading, v.recalled, v.heuristic_3) == (
        "cannot decide: 1 conversation(s) probed, at least 2 needed (one conversation's texts "
        "share an author and a topic)",
        1,
        False,
    )
    # The same with 10 instances of two conversations and no ROUGE-L difference: not suspected.
    v = decide(
        [result(13, 12)]
        + [replace(result(0, 0), conversation=f"c{i % 2}", guided_answer=str(i)) for i in range(9)]
    )
    assert (v.reading, v.recalled, v.longest_recall) == ("not suspected", 1, 13)
    assert "13+ words of another published text" in RULE


def test_empty_and_unreadable_inputs() -> None:
    # No completion, no text, or a metadata without texts (a log written before heuristic 3):
    # no recall, never an error.
    assert recall("", "a prompt", TEXTS, own="") == NO_RECALL
    assert recall("the silence since the wedding", "a prompt", [], own="") == NO_RECALL
    assert texts_of({}) == []
    # A prompt shorter than SHOWN_RUN_WORDS shows no run: nothing is left out.
    assert shown_words(["a", "b", "c"], ["a", "b", "c"]) == [False] * 3
    # Texts written by the probe's dataset come back as they were written.
    assert texts_of({TEXTS_KEY: '[{"key": "topic", "text": "moving"}]'}) == [
        PublishedText("topic", "moving")
    ]


words_strategy = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=30).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(completion=words_strategy, prompt=words_strategy, text=words_strategy)
def test_a_run_is_unshown_and_stands_in_both_texts(completion: str, prompt: str, text: str) -> None:
    found = recall(completion, prompt, [PublishedText("t", text)], own="")
    said, target = words(completion), words(text)
    assert 0 <= found.run <= min(len(said), len(target))
    if found.run:
        run = found.words.split()
        assert len(run) == found.run and found.text == "t"
        assert any(target[i : i + found.run] == run for i in range(len(target)))
        # It stands in the completion on words that the prompt did not show.
        shown = shown_words(said, words(prompt))
        assert any(
            said[i : i + found.run] == run and not any(shown[i : i + found.run])
            for i in range(len(said))
        )
    # Echoing the prompt itself never recalls it.
    assert recall(prompt, prompt, [PublishedText("t", prompt)], own="").run <= 3


def test_published_texts_are_every_field_of_every_turn() -> None:
    conv = load_conversations(BUNDLED, load_codebook(None)).conversations[0].conversation
    visible = split(conv)[0]
    texts = published_texts(visible)
    turn = visible.turns[0]
    assert texts[0] == PublishedText("topic", visible.topic.text)
    assert texts[1:5] == [
        PublishedText("t01 userMessage", turn.user_message),
        PublishedText("t01 llmResponse", turn.om_response),
        PublishedText("t01 llmImproved", turn.alternate_response),
        PublishedText("t01 humanEdited", turn.human_response),
    ]
    assert len(texts) == 1 + 4 * len(visible.turns)
    assert text_key(3, "annotations.alternateResponses.humanEdited") == "t03 humanEdited"


def test_score_instance_compares_both_prompts() -> None:
    instance = Instance("c", 1, "message", "my sister and I have", "not spoken since", 8, 5)
    scored = score_instance(instance, TEXTS, "has been heavy for you both", "")
    # guided: "has been heavy for you both" stands in the response (6 words) and in neither
    # prompt; general: empty.
    assert scored.guided_recall == Recall(6, "t01 llmResponse", "has been heavy for you both")
    assert scored.general_recall == NO_RECALL
    assert "AttuneBench" in guided(instance) and "AttuneBench" not in general(instance)


def test_a_model_that_writes_out_other_texts_is_flagged_by_heuristic_3_only(
    tmp_path: Path,
    written_data: Path,  # noqa: F811 (the fixture)
) -> None:
    """The planted positive memorizer/recall_other (the fine-tuned SmolLM2's behaviour) is
    suspected by heuristic 3 alone; the offline negatives are not, and recall nothing."""
    other = get_model("memorizer/recall_other", data=str(written_data), share=0.5, memoize=False)
    log = _run(other, tmp_path, data=str(written_data))
    positive = _metrics(log)
    assert positive["suspected"] == 1.0 and positive["recalled"] >= RECALL_NEEDED
    # Never the text's own rest: no exact or near-exact match, no guided-general difference.
    assert positive["exact"] == positive["near_exact"] == 0 and positive["p_value"] >= 0.01
    assert log.samples is not None
    records: list[dict[str, Any]] = [
        r for s in log.samples for r in s.scores["contamination_scorer"].metadata[RESULTS_KEY]
    ]
    hits = [r for r in records if r["guided_recall"] >= RECALL_RUN_WORDS]
    assert hits and all(r["guided_recall_text"].endswith("llmResponse") for r in hits)
    explanation = "\n".join(str(s.scores["contamination_scorer"].explanation) for s in log.samples)
    # One line per instance, and the likelihood method's line (run by default) per sample.
    lines = [x for x in explanation.splitlines() if not x.startswith("- likelihood")]
    assert len(lines) == len(records) and all("longest run of another text: " in x for x in lines)
    first = next(r for r in records if r["guided_recall"] >= RECALL_RUN_WORDS)
    assert f'guided {first["guided_recall"]} ({first["guided_recall_text"]}: "' in explanation
    for model in (
        "attunebench/random",
        "attunebench/majority",
        "memorizer/echo",
        "memorizer/paraphrase",
        "memorizer/recall",  # share 0.2 of the bundled set: the written texts are not among them
    ):
        negative = _metrics(_run(model, tmp_path, data=str(written_data)))
        # The majority baseline answers one same draft: it carries no evidence either way.
        indicator = "cannot_decide" if model == "attunebench/majority" else "not_suspected"
        assert negative[indicator] == 1.0, model
        assert negative["recalled"] == 0 and negative["longest_recall"] < RECALL_RUN_WORDS, model
