"""The files-layout probe's label cut (instruments/contamination/_labels.py): the cut stands in
the published files as shown; the parser reads what a continuation writes for its turn alone,
tolerantly; the score's values by hand; the sub-verdict's abstention rows; the planted file
reader is suspected by its labels, a random labeller is not, an empty answerer cannot decide;
the estimate bills the label calls."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai import eval
from inspect_ai.log import EvalLog

from attunebench_inspect import contamination
from attunebench_inspect.data import load_codebook, load_conversations, split
from attunebench_inspect.data._split import BinaryTruth, TurnTruth
from attunebench_inspect.instruments.contamination._estimate import layout_requests
from attunebench_inspect.instruments.contamination._labels import (
    label_match,
    label_result,
    written,
)
from attunebench_inspect.instruments.contamination._layout import LABEL_KEY, layout_instances
from attunebench_inspect.instruments.contamination._rules import (
    NOT_SUSPECTED,
    SUSPECTED,
    LabelResult,
    decide_labels,
)
from attunebench_inspect.instruments.contamination._verdict import ProbeVerdict, reading_of

from ...spy import Spy


def _labels_reading(metrics: dict[str, float]) -> str:
    found = ProbeVerdict.from_metrics(metrics)
    assert found is not None and found.labels is not None
    return found.labels.reading


TRUTH = TurnTruth(
    turn_number=2,
    mood_shift={"interested": 4, "proud": 2},
    binary={
        "B1": BinaryTruth(observed="yes", preferred="yes"),
        "B12": BinaryTruth(observed="no", preferred="na"),
    },
    pairwise={"general:alternate-original": "alternate"},
)
VALID = """
        {
          "emotion": "Interested",
          "intensity": 4
        },
        {
          "emotion": "Proud",
          "intensity": 2
        }
      ],
      "annotations": {
        "binaryJudgements": [
          {
            "questionId": "B1",
            "observedBehavior": "yes",
            "preferredBehavior": "yes"
          },
          {
            "questionId": "B12",
            "observedBehavior": "no",
            "preferredBehavior": "na"
          }
        ],
        "alternateResponses": {"llmImproved": "a [draft]", "humanEdited": "b"},
        "pairwiseComparisons": [
          {
            "questionId": "general",
            "responseA": "original",
            "responseB": "alternate",
            "winner": "B"
          }
        ]
      }
    },
    {
      "turnNumber": 3,
      "userMessage": "next",
      "moodShiftTags": [{"emotion": "Afraid", "intensity": 5}],
      "annotations": {"binaryJudgements": [
        {"questionId": "B1", "observedBehavior": "no", "preferredBehavior": "no"}]}
"""


def test_the_label_cut_stands_in_the_published_files_as_shown(
    bundled_files: list[Path],
) -> None:
    for file in bundled_files[:5]:
        visible = split(load_conversations(file, load_codebook()).conversations[0].conversation)[0]
        published = file.read_text(encoding="utf-8")
        for instance in layout_instances(visible, 0):
            for prefix in (instance.label_prefix, instance.label_control_prefix):
                assert prefix.endswith(LABEL_KEY) and prefix.count(LABEL_KEY) == 1
            # From the turn's start to the key, the file reads as the cut shows it.
            tail = instance.label_prefix[instance.label_prefix.rfind("{") :]
            assert tail in published


def test_the_parser_reads_the_turn_it_was_cut_at_and_no_other() -> None:
    w = written(VALID)
    assert w.emotions == {"interested", "proud"}
    # Turn 3's "Afraid" and its B1 "no" are not this turn's.
    assert w.binary == (
        ("b1", "observedBehavior", "yes"),
        ("b1", "preferredBehavior", "yes"),
        ("b12", "observedBehavior", "no"),
        ("b12", "preferredBehavior", "na"),
    )
    assert w.pairwise == (("general", "original", "alternate", "b"),)
    assert label_match(w, TRUTH) == 1.0


def test_the_parser_is_tolerant_of_a_cut_and_of_escapes() -> None:
    # Cut in the middle of the second binary entry: what stands is read.
    cut = VALID[: VALID.index('"preferredBehavior": "na"')]
    w = written(cut)
    assert w.binary[-1] == ("b12", "observedBehavior", "no") and not w.pairwise
    # Cut inside the tag array: the names written so far, the array still open.
    assert written('\n {"emotion": "Proud", "intensity": 2},\n {"emot').emotions == {"proud"}
    assert written(r' {"emotion": "Pr\u006fud", "intensity": 2}]').emotions == {"proud"}


def test_what_is_not_a_label_field_is_not_written() -> None:
    for text in ("", "I keep going back and forth [on it].", '"moodShiftTags": [', "{"):
        w = written(text)
        assert not w.any and w.digest() == "" and label_match(w, TRUTH) is None
    # A closed empty array is written: a neutral turn's tags.
    empty = written("],\n")
    assert empty.emotions == frozenset() and label_match(empty, TRUTH) == 0.0


def test_the_score_by_hand() -> None:
    text = (
        '{"emotion": "interested"}, {"emotion": "Upset"}], "annotations": {"binaryJudgements": '
        '[{"questionId": "B1", "observedBehavior": "yes", "preferredBehavior": "no"}, '
        '{"questionId": "B99", "observedBehavior": "yes"}]'
    )
    # Emotions: Jaccard {interested, upset} vs {interested, proud} = 1/3. Binary: B1 observed
    # right, preferred wrong, B99 not a question of the turn: 1/3. Mean of two fields: 1/3.
    assert label_match(written(text), TRUTH) == pytest.approx(1 / 3)
    pairwise = '], "pairwiseComparisons": [{"questionId": "general", "responseA": "alternate", '
    pairwise += '"responseB": "original", "winner": "B"}]'
    # Emotions written empty against two true: 0; the winner (original) is wrong: 0.
    assert label_match(written(pairwise), TRUTH) == 0.0
    neutral = TRUTH.model_copy(update={"mood_shift": {}})
    assert label_match(written("]"), neutral) == 1.0
    assert label_result("c", VALID, "", TRUTH) == LabelResult(
        "c", 1.0, None, written(VALID).digest(), ""
    )


def _results(n: int, conversations: int, match: float | None, control: float | None) -> list:
    return [
        LabelResult(f"c{i % conversations}", match, control, f"a{i}", f"b{i}") for i in range(n)
    ]


def test_the_sub_verdict_and_its_abstention_rows() -> None:
    assert decide_labels(_results(12, 3, 1.0, None)).reading == SUSPECTED
    assert decide_labels(_results(12, 3, 0.4, 0.4)).reading == NOT_SUSPECTED
    # One instance reproduced: the test alone does not suffice.
    one = [*_results(11, 3, 0.6, 0.0), LabelResult("c0", 1.0, 0.0, "x", "y")]
    assert decide_labels(one).reading == NOT_SUSPECTED
    rows = {
        "no text long enough to probe": [],
        "1 conversation(s) probed": _results(12, 1, 0.3, 0.3),
        "too few instances (9, at least 10)": _results(9, 3, 0.3, 0.3),
        "too few completions carry label fields: 0 of 12 instances have two (24 completion(s) "
        "without any": [LabelResult(f"c{i % 3}", None, None, "", "") for i in range(12)],
        "the model answered one same label fields to 24 of 24": [
            LabelResult(f"c{i % 3}", 0.5, 0.5, "same", "same") for i in range(12)
        ],
    }
    for reason, results in rows.items():
        reading = decide_labels(results).reading
        assert reading.startswith(f"cannot decide: {reason}"), reading
    # With no instance scored there is no mean to show.
    silent = decide_labels(rows[next(r for r in rows if r.startswith("too few completions"))])
    assert math.isnan(silent.match) and math.isnan(silent.control_match) and silent.scored == 0


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400), st.text(alphabet='{}[]":, emotionBquesIdyna1', max_size=400))
def test_the_score_stays_in_its_range_and_the_verdict_in_its_set(free: str, jsonish: str) -> None:
    results = []
    for text in (free, jsonish, VALID[: len(jsonish)]):
        match = label_match(written(text), TRUTH)
        assert match is None or 0.0 <= match <= 1.0
        results.append(label_result("c", text, free, TRUTH))
    reading = decide_labels(results * 5).reading
    assert reading in (SUSPECTED, NOT_SUSPECTED) or reading.startswith("cannot decide: ")


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.status == "success" and log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def _run(model: Any, tmp_path: Path, data: Path, **model_args: Any) -> dict[str, float]:
    return _metrics(
        eval(
            contamination(data=str(data), methods="layout"),
            model=model,
            model_args=model_args,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )[0]
    )


def test_the_planted_models_through_inspect(tmp_path: Path, small_dataset: Any) -> None:
    data = small_dataset(4)
    reader = _run("memorizer/files", tmp_path, data, share=1.0)
    assert _labels_reading(reader) == SUSPECTED and reader["layout_labels_suspected"] == 1
    assert reader["layout_labels_match"] == 1.0 and reader["layout_labels_control_match"] == 0
    assert reader["layout_labels_reproduced"] == reader["layout_labels_instances"] >= 10
    assert reading_of(reader) == SUSPECTED
    guesser = _run("memorizer/guess_labels", tmp_path, data)
    assert _labels_reading(guesser) == NOT_SUSPECTED, _labels_reading(guesser)
    assert guesser["layout_labels_with_text"] == guesser["layout_labels_instances"]
    assert reading_of(guesser) == NOT_SUSPECTED
    silent = _run(Spy(answer=lambda messages, config: "").model("silent"), tmp_path, data)
    reading = reading_of(silent)
    assert reading is not None and reading.startswith("cannot decide: layout: too few")
    assert _labels_reading(silent).startswith(
        "cannot decide: too few completions carry label fields"
    )


def test_the_estimate_bills_four_layout_calls_per_turn(bundled_files: list[Path]) -> None:
    conversations = layout_requests(str(bundled_files[0]), load_codebook())
    turns = len(json.loads(bundled_files[0].read_text(encoding="utf-8"))["turns"])
    calls = [r.call for r in conversations[0]]
    assert len(calls) == 4 * turns
    assert calls.count("layout_labels") == calls.count("layout_labels_control") == turns
    assert all(r.chat[-1].text.endswith(LABEL_KEY) for r in conversations[0] if "labels" in r.call)
