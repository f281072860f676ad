"""Property test: every metric of the catalog stays in its catalogued range, whatever the answers
and labels (within what the response schemas and the data format allow: the inputs a metric can
really meet), repeated entries and unplaceable labels included. NaN (not applicable) is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attunebench_inspect.data import load_codebook
from attunebench_inspect.data._panas import PANAS_ITEMS
from attunebench_inspect.data._split import GroundTruth, comparison_key
from attunebench_inspect.instruments.profile._catalog import PROFILE_METRICS
from attunebench_inspect.instruments.profile._fields import PROFILE_FIELDS
from attunebench_inspect.instruments.profile._metrics import ProfileInputs
from attunebench_inspect.instruments.profile._vocabulary import load_vocabulary
from attunebench_inspect.instruments.stability import pair_choices
from attunebench_inspect.instruments.stability._catalog import STABILITY_METRICS
from attunebench_inspect.instruments.stability._log_figures import log_metrics
from attunebench_inspect.instruments.stability._record import StabilityRecord
from attunebench_inspect.score import _metrics as m
from attunebench_inspect.score._catalog import (
    BY_NAME,
    CATALOG,
    COMPOSITE_INPUTS,
    POOLED_STATS,
    pillars,
    pooled_name,
)
from attunebench_inspect.score._inputs import BINARY_VIEWS, BinaryView, PostInputs, TurnInputs
from attunebench_inspect.score._metric_spec import MetricSpec
from attunebench_inspect.score._similarity import cosine
from attunebench_inspect.solve._predictions import JudgeVerdict, PostPredictions
from attunebench_inspect.solve._schemas import BRANCHES, JUDGE_CRITERIA

CODEBOOK = load_codebook()
VOCABULARY = load_vocabulary()
QUESTIONS = ("B1", "B2", "B3")
SOURCES = ("original", "alternate", "human")
PAIRS = [(a, b) for i, a in enumerate(SOURCES) for b in SOURCES[i + 1 :]]
KEYS = [comparison_key(q, a, b) for q in ("general", "PW3") for a, b in PAIRS]  # type: ignore[arg-type]
EXAMPLES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ratings = st.integers(1, 7)
answers = st.sampled_from(("yes", "no", "na"))
panas = st.fixed_dictionaries({item: ratings for item in PANAS_ITEMS})
moods = st.dictionaries(st.sampled_from(PANAS_ITEMS), ratings, max_size=5)
binary = st.dictionaries(st.sampled_from(QUESTIONS), answers)


def _chosen(options: list[str]) -> st.SearchStrategy[dict[str, bool]]:
    return st.fixed_dictionaries({o: st.booleans() for o in options})


# Short answers as people and models write them: options, options in other case and
# punctuation, and free text, repeated at will.
FOLLOW_UPS = CODEBOOK.follow_up_options


def _variant(text: str) -> str:
    return text.upper().replace(" or ", ", ")


words = (
    st.sampled_from(FOLLOW_UPS) | st.sampled_from(FOLLOW_UPS).map(_variant) | st.text(max_size=12)
)


@st.composite
def turns(draw: st.DrawFn) -> TurnInputs:
    questions = draw(st.lists(st.sampled_from(QUESTIONS), unique=True))
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True))
    gold_winners = {k: draw(st.sampled_from(k.split(":")[1].split("-"))) for k in keys}
    winners = {k: draw(st.sampled_from(SOURCES)) for k in keys}
    views: dict[BinaryView, dict[str, str] | None] = {
        v: draw(st.none() | st.fixed_dictionaries({q: answers for q in questions}))
        for v in BINARY_VIEWS
    }
    judge = JudgeVerdict(
        ratings={c: draw(ratings) for c in JUDGE_CRITERIA},
        binary={q: draw(answers) for q in questions},
    )
    return TurnInputs(
        mood=draw(st.none() | moods),
        gold_mood=draw(moods),
        binary=views,
        gold_observed={q: draw(answers) for q in questions},
        gold_preferred={q: draw(answers) for q in questions},
        winners=draw(st.none() | st.just(winners)),
        gold_winners=gold_winners,
        judged=draw(st.booleans()),
        judge=draw(st.none() | st.just(judge)),
        draft_ok=draw(st.booleans()),
    )


@st.composite
def posts(draw: st.DrawFn) -> PostInputs:
    # Prediction and labels drawn from one small pool, so that entries repeat within and
    # across the two sides as often as they differ.
    pool = draw(st.lists(words, min_size=1, max_size=3))
    entries = st.sampled_from(pool) | st.sampled_from(pool).map(_variant) | words
    chosen = draw(st.lists(entries, max_size=2))
    answer = {
        "post_panas": draw(panas),
        "q1_looking_for": draw(_chosen(CODEBOOK.q1_options)),
        "q2_emotion_clarity": draw(st.sampled_from(CODEBOOK.q2_options)),
        "q3_model_fit": draw(st.sampled_from(CODEBOOK.q3_options)),
        "q3_follow_up": {o: o in chosen for o in FOLLOW_UPS},
        "q3_follow_up_own_words": "; ".join(draw(st.lists(entries, max_size=4))),
        "four_branch": {b: draw(ratings) for b in BRANCHES},
    }
    return PostInputs(
        post=draw(st.none() | st.just(PostPredictions.from_answer(answer))),
        truth=GroundTruth(
            conversation_id="c",
            om_model="m",
            turns=[],
            pre_panas=draw(panas),
            post_panas=draw(panas),
            q1_looking_for=draw(st.lists(st.sampled_from(CODEBOOK.q1_options), unique=True)),
            q2_emotion_clarity=draw(st.sampled_from(CODEBOOK.q2_options)),
            q3_model_fit=draw(st.sampled_from(CODEBOOK.q3_options)),
            q3_follow_up=draw(st.lists(entries, max_size=4)),
            four_branch={b: draw(ratings) for b in BRANCHES},
        ),
        q3_options=CODEBOOK.q3_options,
    )


@st.composite
def profiles(draw: st.DrawFn) -> ProfileInputs:
    prediction: dict[str, Any] = {}
    truth: dict[str, Any] = {}
    for f in PROFILE_FIELDS:
        if f.kind == "score":
            prediction[f.name] = draw(st.integers(f.low, f.high))
            truth[f.name] = draw(st.none() | st.floats(f.low, f.high))
        elif f.kind == "text":
            prediction[f.name] = "; ".join(draw(st.lists(st.text(max_size=10), max_size=3)))
            truth[f.name] = draw(st.lists(st.text(max_size=10), max_size=3))
        else:
            vocabulary = VOCABULARY.fields[f.name]
            # Participants' labels: options, aliases, near-misses and labels of no option.
            labels = st.sampled_from([*vocabulary.options, *vocabulary.aliases]) | st.text(
                max_size=12
            )
            if f.kind == "multi":
                prediction[f.name] = draw(_chosen(vocabulary.options))
                truth[f.name] = draw(st.lists(labels, max_size=3))
            else:
                prediction[f.name] = draw(st.sampled_from(vocabulary.options))
                truth[f.name] = draw(st.none() | labels)
    return ProfileInputs.of(draw(st.none() | st.just(prediction)), truth, VOCABULARY)


def _in_range(spec: MetricSpec, value: float) -> bool:
    return math.isnan(value) or spec.low - 1e-9 <= value <= spec.high + 1e-9


def _of(kind: Callable[[MetricSpec], object]) -> list[MetricSpec]:
    return [s for s in CATALOG if kind(s) is not None]


TURN = _of(lambda s: s.turn)
CONVERSATION = _of(lambda s: s.conversation)
POOLED = {pooled_name(v, s): (v, s) for v in BINARY_VIEWS for s in POOLED_STATS}
COMPOSITE = [s for s in CATALOG if s.family == "composite"]


@EXAMPLES
@given(st.lists(turns(), min_size=1, max_size=4), posts())
def test_every_conversation_metric_stays_in_its_range(
    conversation: list[TurnInputs], post: PostInputs
) -> None:
    values: dict[str, float] = {}
    for spec in TURN:
        assert spec.turn is not None
        per_turn = [spec.turn(t) for t in conversation]
        assert all(_in_range(spec, v) for v in per_turn), (spec.name, per_turn)
        values[spec.name] = m.nanmean(per_turn)
    for spec in CONVERSATION:
        assert spec.conversation is not None
        values[spec.name] = spec.conversation(post)
    for name, (view, stat) in POOLED.items():
        counts = sum((t.counts(view) for t in conversation), m.BinaryCounts())
        values[name] = m.pooled_binary(counts.tp, counts.fp, counts.fn, counts.tn)[stat]
    parts = pillars({k: values[k] for k in COMPOSITE_INPUTS})
    values.update(parts, composite=m.composite(*parts.values()))
    for spec in CATALOG:
        if spec.name in values:
            assert _in_range(spec, values[spec.name]), (spec.name, values[spec.name])


@EXAMPLES
@given(profiles())
def test_every_profile_metric_stays_in_its_range(inputs: ProfileInputs) -> None:
    for spec in PROFILE_METRICS:
        assert spec.value is not None
        value = spec.value(inputs)
        assert math.isnan(value) or spec.low - 1e-9 <= value <= spec.high + 1e-9, (spec.name, value)


@EXAMPLES
@given(
    st.lists(st.sampled_from(("ok", "repaired", "failed"))),
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=8).flatmap(
        lambda a: st.tuples(
            st.just(a), st.lists(st.floats(-1e3, 1e3), min_size=len(a), max_size=len(a))
        )
    ),
)
def test_the_counted_and_embedded_metrics_stay_in_their_ranges(
    statuses: list[str], vectors: tuple[list[float], list[float]]
) -> None:
    by_name = {s.name: s for s in CATALOG}
    assert _in_range(by_name["parse_failure_rate"], m.parse_failure_rate(statuses))
    assert _in_range(by_name["response_similarity"], cosine(*vectors))


# Few distinct entries, so that draws repeat them (exactly, in other case, with commas).
repeats = st.lists(st.sampled_from(FOLLOW_UPS[:3]) | st.sampled_from(FOLLOW_UPS[:3]).map(_variant))


@EXAMPLES
@given(repeats, repeats, st.integers(1, 3))
def test_the_follow_up_overlap_is_a_set_overlap(
    pred: list[str], gold: list[str], copies: int
) -> None:
    value = m.fuzzy_overlap(pred, gold)
    if not gold:
        assert math.isnan(value)
        return
    assert 0 <= value <= 1
    # Sets: repeating every entry changes nothing, on either side.
    assert m.fuzzy_overlap(pred * copies, gold * copies) == value
    if pred:
        assert m.fuzzy_overlap(gold, pred) == value
        assert m.fuzzy_overlap(pred, pred) == 1.0


STABILITY = list(STABILITY_METRICS)
_STABILITY = {s.name: s for s in STABILITY}
judge_verdicts = st.builds(
    lambda ratings, answers: JudgeVerdict(dict(zip(JUDGE_CRITERIA, ratings, strict=True)), answers),
    st.lists(ratings, min_size=len(JUDGE_CRITERIA), max_size=len(JUDGE_CRITERIA)),
    binary,
)


@st.composite
def stability_records(draw: st.DrawFn) -> list[StabilityRecord]:
    """A run's records: any number of conversations and epochs, any display orders and
    choices, any Composites in its range, a panel of up to three judges answering anything."""
    roles = ["judge", "judge_2", "judge_3"][: draw(st.integers(0, 3))]
    records = []
    for c in range(draw(st.integers(1, 6))):
        for epoch in range(1, draw(st.integers(1, 3)) + 1):
            shown = draw(st.permutations(SOURCES))
            chosen = {k: draw(st.sampled_from(k.split(":")[1].split("-"))) for k in KEYS}
            record = StabilityRecord(
                f"c{c}",
                epoch,
                draw(st.floats(BY_NAME["composite"].low, 100)),
                {r: "m" for r in roles},
                pair_choices(f"c{c}", epoch, 1, shown, draw(st.sampled_from([{}, chosen]))),
                {1: {r: draw(judge_verdicts) for r in roles}},
            )
            records.append(record)
    return records


@EXAMPLES
@given(stability_records())
def test_stability_figures_stay_in_range(records: list[StabilityRecord]) -> None:
    values = log_metrics(records)
    assert set(values) <= {s.name for s in STABILITY}
    for name, value in values.items():
        assert _in_range(_STABILITY[name], value), (name, value)


def test_the_property_tests_cover_every_metric() -> None:
    covered = {
        *(s.name for s in TURN + CONVERSATION + COMPOSITE + STABILITY),
        *(s.name for s in PROFILE_METRICS),
        *POOLED,
        "response_similarity",
    }
    assert covered == {s.name for s in (*CATALOG, *STABILITY_METRICS, *PROFILE_METRICS)}
