"""The contamination probe abstains where it cannot know and never crashes: the abstention table
row by row, any number of instances at any point of a run, data sets of the published format in
any shape, the figures recomputed from a saved log, and the probe through Inspect's openai
provider on data sets of other shapes (docs/contamination.md, "When it cannot decide")."""

from __future__ import annotations

import copy
import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import get_model
from inspect_ai.scorer import SampleScore

from attunebench_inspect import contamination
from attunebench_inspect.data import Conversation, split
from attunebench_inspect.instruments.contamination import contamination_verdict
from attunebench_inspect.instruments.contamination._completions import score_instance
from attunebench_inspect.instruments.contamination._instances import select
from attunebench_inspect.instruments.contamination._likelihood import ConversationLikelihood
from attunebench_inspect.instruments.contamination._memorizer import MemorizerAPI
from attunebench_inspect.instruments.contamination._recall import published_texts
from attunebench_inspect.instruments.contamination._rules import (
    METHODS,
    MIN_INSTANCES,
    NOT_SUSPECTED,
    SUSPECTED,
    InstanceResult,
    LabelResult,
    decide,
)
from attunebench_inspect.instruments.contamination._verdict import (
    ProbeVerdict,
    probe_verdict,
    reading_of,
)

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from loopback.endpoint import Endpoint, EndpointConfig  # noqa: E402

CANNOT = "cannot decide: "


def _instance(i: int, conversations: int = 2, difference: float = 0.0, **kw: Any) -> InstanceResult:
    """An instance of one of `conversations` conversations whose two completions carry their
    own text: the evidence a negative needs, unless `kw` takes it away."""
    base = InstanceResult(
        guided=max(difference, 0.0),
        general=max(-difference, 0.0),
        guided_match="none",
        general_match="none",
        conversation=f"c{i % conversations}",
        guided_answer=f"g{i}",
        general_answer=f"h{i}",
    )
    return replace(base, **kw)


def _run(count: int, **kw: Any) -> list[InstanceResult]:
    return [_instance(i, **kw) for i in range(count)]


# --- the abstention table, row by row -----------------------------------------------------------


def test_enough_evidence_reads_a_negative() -> None:
    assert decide(_run(12)).reading == NOT_SUSPECTED


def test_row_no_instance() -> None:
    assert decide([]).reading == "cannot decide: no text long enough to probe"


def test_row_one_conversation() -> None:
    assert decide(_run(40, conversations=1)).reading == (
        "cannot decide: 1 conversation(s) probed, at least 2 needed (one conversation's texts "
        "share an author and a topic)"
    )


def test_row_too_few_instances() -> None:
    assert decide(_run(MIN_INSTANCES - 1)).reading == (
        "cannot decide: too few instances (9, at least 10)"
    )


def test_row_empty_completions() -> None:
    # 20 instances, 11 of them with an empty guided completion: 9 with two texts, under 10.
    run = [replace(r, guided_answer="") if i < 11 else r for i, r in enumerate(_run(20))]
    assert decide(run).reading == (
        "cannot decide: too few completions carry text: 9 of 20 instances have two "
        "(11 completion(s) empty, 0 cut at the length limit)"
    )
    # Every completion empty: the same row, never a negative.
    silent = [replace(r, guided_answer="", general_answer="") for r in _run(30)]
    assert decide(silent).reading.startswith("cannot decide: too few completions carry text")


def test_row_completions_cut_at_the_length_limit() -> None:
    # 40 instances, 12 guided completions cut (a reasoning model's budget spent): 28 of 40 have
    # two, but half of the instances (20) is needed... 28 >= 20, so a negative; 21 cut: 19 < 20.
    some = [replace(r, guided_cut=i < 12) for i, r in enumerate(_run(40))]
    assert decide(some).reading == NOT_SUSPECTED
    many = [replace(r, guided_cut=i < 21) for i, r in enumerate(_run(40))]
    assert decide(many).reading == (
        "cannot decide: too few completions carry text: 19 of 40 instances have two "
        "(0 completion(s) empty, 21 cut at the length limit)"
    )


def test_row_one_same_answer() -> None:
    # 20 instances, 40 completions: 21 say the same text (over half): a degenerate model.
    run = [
        replace(r, guided_answer="same", general_answer="same" if i == 0 else r.general_answer)
        for i, r in enumerate(_run(20))
    ]
    assert decide(run).reading == (
        "cannot decide: the model answered one same text to 21 of 40 completions"
    )
    # 20 of 40 (exactly half) is not over half: a negative may be read.
    half = [replace(r, guided_answer="same") for r in _run(20)]
    assert decide(half).reading == NOT_SUSPECTED


def test_a_match_or_a_recall_decides_whatever_the_table_says() -> None:
    one_exact = [_instance(0, conversations=1, guided_match="exact")]
    assert decide(one_exact).reading == SUSPECTED
    recalled = [_instance(i, conversations=1, guided_recall=13, guided_answer="") for i in (0, 1)]
    assert decide(recalled).reading == SUSPECTED


def test_heuristic_1_never_fires_where_the_table_abstains() -> None:
    # 30 instances of +1 on one conversation: p at its floor (1/10,001 with 10,000 random sign
    # patterns), but one conversation cannot decide.
    one = decide(_run(30, conversations=1, difference=1.0))
    assert one.p_value < 1e-3 and not one.heuristic_1 and one.reading.startswith(CANNOT)


def test_the_reason_is_recomputed_from_the_log_metrics() -> None:
    for run in (_run(5), _run(30, conversations=1), [], _run(12)):
        scores = [SampleScore(score=_score(rs), sample_id=cid) for cid, rs in _by_conversation(run)]
        metrics = contamination_verdict()(scores)
        assert isinstance(metrics, dict) and reading_of(metrics) == decide(run).reading


# --- any number of instances, at any point of a run --------------------------------------------


def _score(results: list[InstanceResult]) -> Any:
    from dataclasses import asdict

    from inspect_ai.scorer import Score

    from attunebench_inspect.instruments.contamination._scorer import RESULTS_KEY

    return Score(
        value={"instances": len(results)},
        metadata={RESULTS_KEY: [{"key": f"k{i}", **asdict(r)} for i, r in enumerate(results)]},
    )


def _by_conversation(run: list[InstanceResult]) -> Iterator[tuple[str, list[InstanceResult]]]:
    ids = sorted({r.conversation for r in run})
    for cid in ids:
        yield cid, [r for r in run if r.conversation == cid]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.floats(0, 1),
            st.floats(0, 1),
            st.sampled_from(["none", "near_exact", "exact"]),
            st.integers(0, 20),
            st.sampled_from(["", "a", "b", None]),
            st.booleans(),
        ),
        max_size=40,
    )
)
def test_every_prefix_of_a_run_gives_a_declared_verdict(rows: list[tuple[Any, ...]]) -> None:
    """Inspect recomputes the metrics after each sample: every prefix, from no sample on."""
    results = [
        InstanceResult(
            guided=g,
            general=h,
            guided_match=m,
            general_match="none",
            guided_recall=run,
            conversation=f"c{c}",
            guided_answer=answer,
            general_answer=f"x{i}",
            guided_cut=cut,
        )
        for i, (c, g, h, m, run, answer, cut) in enumerate(rows)
    ]
    for end in range(len(results) + 1):
        reading = decide(results[:end]).reading
        assert reading in (SUSPECTED, NOT_SUSPECTED) or reading.startswith(CANNOT)
    scores = [SampleScore(score=_score(rs), sample_id=c) for c, rs in _by_conversation(results)]
    for end in range(len(scores) + 1):
        metrics = contamination_verdict()(scores[:end])
        assert isinstance(metrics, dict) and reading_of(metrics) is not None


def test_two_hundred_and_more_conversations() -> None:
    run = [_instance(i, conversations=220, difference=0.01 * (i % 3 - 1)) for i in range(2200)]
    verdict = decide(run)
    assert verdict.evidence.conversations == 220 and verdict.reading == NOT_SUSPECTED


# --- data sets of the published format, of any shape ----------------------------------------


def _shaped(raw: dict[str, Any], cid: int, lengths: list[tuple[int, int]]) -> Conversation:
    """The bundled conversation's layout, validated by the loader's own schema, with its first
    len(lengths) turns and texts of the given numbers of words."""
    conv = copy.deepcopy(raw)
    conv["conversationId"] = f"00000000-0000-4000-8000-{cid:012d}"
    conv["turns"] = conv["turns"][: len(lengths)]
    for n, (turn, (message, edited)) in enumerate(zip(conv["turns"], lengths, strict=True)):
        turn["userMessage"] = " ".join(f"m{n}w{i}" for i in range(message)) or "ok"
        edit = " ".join(f"e{n}w{i}" for i in range(edited)) or "ok"
        turn["annotations"]["alternateResponses"]["humanEdited"] = edit
    return Conversation.model_validate(conv)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    shapes=st.lists(
        st.lists(st.tuples(st.integers(0, 45), st.integers(0, 45)), min_size=1, max_size=4),
        min_size=1,
        max_size=5,
    ),
    answers=st.sampled_from(["empty", "echo", "rest", "constant"]),
    seed=st.integers(0, 5),
)
def test_any_published_shape_runs_through_the_pure_method(
    conversation_raw: dict[str, Any], shapes: list[list[tuple[int, int]]], answers: str, seed: int
) -> None:
    visible = [
        (f"c{i}.json", split(_shaped(conversation_raw, i, lengths))[0])
        for i, lengths in enumerate(shapes)
    ]
    selection = select(visible, seed)
    texts = {conv.conversation_id: published_texts(conv) for _, conv in visible}
    results = []
    for instance in selection.instances:
        completion = {
            "empty": "",
            "echo": instance.segment,
            "rest": instance.reference,
            "constant": "I am not sure.",
        }[answers]
        scored = score_instance(instance, texts[instance.conversation_id], completion, "")
        results.append(scored.result())
    verdict = decide(results)
    assert verdict.reading in (SUSPECTED, NOT_SUSPECTED) or verdict.reading.startswith(CANNOT)
    if answers in ("empty", "echo", "constant"):
        assert verdict.reading != SUSPECTED
    if answers == "rest" and results:
        assert verdict.reading == SUSPECTED


# --- every printed figure from the log alone -----------------------------------------------------


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.status == "success" and log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def test_p_and_ci_recomputed_from_a_saved_log_are_the_printed_ones(
    tmp_path: Path, bundled_files: list[Path]
) -> None:
    # File names in the opposite order of the conversation IDs: the run reads the files in one
    # order, the log keeps its samples in the other.
    folder = tmp_path / "data"
    folder.mkdir()
    ordered = sorted(bundled_files[:4], key=lambda f: json.loads(f.read_text())["conversationId"])
    for rank, file in enumerate(reversed(ordered)):
        (folder / f"{rank:02d}.json").write_text(file.read_text())
    log = eval(
        contamination(data=str(folder)),
        model="memorizer/recall",
        model_args={"share": 0.0, "seed": 3},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    stored = read_eval_log(str(log.location))
    assert stored.samples is not None
    ids = [str(s.id) for s in stored.samples]
    assert ids == sorted(ids) and stored.eval.dataset.sample_ids == sorted(ids, reverse=True)
    printed = _metrics(stored)
    scores = [
        SampleScore(score=s.scores["contamination_scorer"], sample_id=s.id)  # type: ignore[index]
        for s in stored.samples
    ]
    again = contamination_verdict()(scores)
    assert isinstance(again, dict)
    for name in ("p_value", "difference", "ci_low", "ci_high"):
        assert again[name] == printed[name], name
    assert 0 < printed["p_value"] < 1 and printed["ci_low"] < printed["ci_high"]


# --- through Inspect's openai provider, on data sets of other shapes --------------------------


class _Planted(Endpoint):
    """The loopback endpoint answering as a planted model (or with nothing at all)."""

    def __init__(self, model: MemorizerAPI | None) -> None:
        super().__init__(EndpointConfig(max_seconds=300))
        self.model = model

    def answer(self, dialect: Any, body: Mapping[str, Any], rng: Any) -> str:
        prompt = "\n".join(str(m.get("content")) for m in body.get("messages", []))
        return self.model.complete(prompt) if self.model else ""


def _through_openai(model: MemorizerAPI | None, data: Path, logs: Path) -> EvalLog:
    with _Planted(model) as endpoint:
        # A model of its own per endpoint: a memoized one would call the last, closed endpoint.
        openai = get_model(
            "openai/gpt-4o-mini", base_url=endpoint.base_url, api_key="loopback", memoize=False
        )
        return eval(contamination(data=str(data)), model=openai, display="none", log_dir=str(logs))[
            0
        ]


def _short(raw: dict[str, Any], folder: Path, count: int, turns: int) -> Path:
    """`count` conversations of `turns` turns each, in the bundled layout, texts of 24 words."""
    folder.mkdir()
    for i in range(count):
        conv = copy.deepcopy(raw)
        conv["conversationId"] = f"00000000-0000-4000-8000-{i + 1:012d}"
        conv["turns"] = conv["turns"][:turns]
        for n, turn in enumerate(conv["turns"]):
            turn["userMessage"] = " ".join(f"c{i}t{n}word{w}" for w in range(24))
            edited = " ".join(f"c{i}t{n}edit{w}" for w in range(24))
            turn["annotations"]["alternateResponses"]["humanEdited"] = edited
        (folder / f"c{i}.json").write_text(json.dumps(conv))
    return folder


def test_done_when_through_openai_on_short_and_single_conversations(
    tmp_path: Path, conversation_raw: dict[str, Any]
) -> None:
    short = _short(conversation_raw, tmp_path / "short", 4, 2)  # 16 instances
    single = _short(conversation_raw, tmp_path / "single", 1, 2)  # 4 instances
    readings = {}
    for name, data in (("short", short), ("single", single)):
        planted = {
            "memorizer": MemorizerAPI("recall", share=0.5, data=str(data)),
            "never saw": MemorizerAPI("recall", share=0.0, data=str(data)),
            "empty": None,
        }
        for label, model in planted.items():
            log = _through_openai(model, data, tmp_path / "logs" / name / label)
            assert log.status == "success", (name, label)
            readings[name, label] = reading_of(_metrics(log))
    assert readings["short", "memorizer"] == SUSPECTED
    assert readings["short", "never saw"] == NOT_SUSPECTED
    assert str(readings["short", "empty"]).startswith(
        "cannot decide: too few completions carry text: 0 of 16 instances have two"
    )
    assert readings["single", "memorizer"] == SUSPECTED
    assert readings["single", "never saw"] == (
        "cannot decide: 1 conversation(s) probed, at least 2 needed (one conversation's texts "
        "share an author and a topic)"
    )
    assert str(readings["single", "empty"]).startswith("cannot decide: 1 conversation(s)")


def test_a_reply_that_is_not_utf8_is_one_line_naming_the_call(
    tmp_path: Path, small_dataset: Any
) -> None:
    with Endpoint(EndpointConfig(faults={"not_utf8": 1.0}, max_seconds=120)) as endpoint:
        openai = get_model(
            "openai/gpt-4o-mini", base_url=endpoint.base_url, api_key="loopback", memoize=False
        )
        log = eval(
            contamination(data=str(small_dataset(1))),
            model=openai,
            display="none",
            log_dir=str(tmp_path / "logs"),
            max_retries=0,
        )[0]
    assert log.samples and log.samples[0].error is not None
    message = log.samples[0].error.message
    assert "UnicodeDecodeError" in message and "\n" not in message.strip()
    assert " call: the provider's reply could not be read (UnicodeDecodeError: 'utf-8' codec" in (
        message
    )
    assert ": turn " in message and "`inspect eval-retry LOG` runs it again" in message


# --- a verdict beside a Composite of other conversations ------------------------------------


def test_coverage_says_when_the_probe_and_the_composite_read_other_conversations() -> None:
    from attunebench_inspect.instruments.contamination._report import coverage

    assert coverage(frozenset({"a", "b"}), frozenset({"a", "b"})) is None
    assert coverage(frozenset({"a", "b"}), frozenset({"c", "d", "e"})) == (
        "the probe read 2 conversation(s), the Composite 3, 0 in both"
    )


def test_the_report_says_a_verdict_covers_other_conversations(
    tmp_path: Path, bundled_files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from attunebench_inspect import default
    from attunebench_inspect._suite.cli import main

    probed, scored = tmp_path / "probed", tmp_path / "scored"
    for folder, files in ((probed, bundled_files[:2]), (scored, bundled_files[2:5])):
        folder.mkdir()
        for file in files:
            (folder / file.name).write_text(file.read_text())
    logs = str(tmp_path / "logs")
    eval(contamination(data=str(probed)), model="attunebench/random", display="none", log_dir=logs)
    eval(default(data=str(scored)), model="attunebench/random", display="none", log_dir=logs)
    # Markdown: the terminal wraps the cell within 120 columns.
    assert main(["report", logs, "--format", "markdown"]) == 0
    shown = capsys.readouterr().out
    assert "(other conversations)" in shown
    assert "the probe read 2 conversation(s), the Composite 3, 0 in both" in shown


_RESULTS = st.lists(
    st.builds(
        InstanceResult,
        guided=st.floats(0, 1),
        general=st.floats(0, 1),
        guided_match=st.sampled_from(["none", "near_exact", "exact"]),
        general_match=st.sampled_from(["none", "near_exact", "exact"]),
        guided_recall=st.integers(0, 20),
        general_recall=st.integers(0, 20),
        conversation=st.sampled_from(["c0", "c1", "c2"]),
        guided_answer=st.sampled_from(["", "a", "b", None]),
        general_answer=st.sampled_from(["", "a", "c", None]),
        guided_cut=st.booleans(),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(
    st.sets(st.sampled_from(METHODS), min_size=1),
    _RESULTS,
    _RESULTS,
    st.lists(
        st.builds(
            LabelResult,
            conversation=st.sampled_from(["c0", "c1", "c2"]),
            match=st.none() | st.floats(0, 1),
            control_match=st.none() | st.floats(0, 1),
            answer=st.sampled_from(["", "a", "b"]),
            control_answer=st.sampled_from(["", "a", "c"]),
        ),
        max_size=30,
    ),
    st.lists(
        st.builds(
            ConversationLikelihood,
            conversation=st.sampled_from(
                [
                    "4723fdd3-f278-4748-8b63-77aa00ff14e0",
                    "904ed12a-f42d-41ac-bbda-689b32dc3dfa",
                    "c2",
                ]
            ),
            control=st.booleans(),
            score=st.sampled_from([math.nan, -0.5, -3.0, -8.0]),
            texts=st.integers(0, 5),
            skipped=st.integers(0, 2),
            missing=st.sampled_from([0, 0, 1]),
            decoys_above=st.none() | st.integers(0, 19),
            canary=st.sampled_from([-0.1, -9.0, math.nan]),
        ),
        max_size=30,
    ),
    st.booleans(),
)
def test_the_verdict_travels_whole_from_the_scorer_to_the_report(
    methods: set[str],
    guided: list[InstanceResult],
    layout: list[InstanceResult],
    labels: list[LabelResult],
    likelihood: list[ConversationLikelihood],
    control_test: bool,
) -> None:
    """What the metric writes into the log header is read back as the same record (NaN equal to
    NaN), so `inspect view` and the report cannot disagree; the likelihood method's reading is
    recomputed from its figures, with the run's model named where it cannot answer."""
    chosen = [m for m in METHODS if m in methods]
    found = probe_verdict(chosen, guided, layout, labels, likelihood, control_test, "m/x")
    back = ProbeVerdict.from_metrics(found.metrics(), "m/x")
    assert json.dumps(asdict(back), sort_keys=True) == json.dumps(asdict(found), sort_keys=True)
