"""The experimental profile task: the participant's profile predicted from the conversation."""

from __future__ import annotations

import json
import math
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, headline_metric
from inspect_ai.model import ChatMessage, GenerateConfig, Model
from inspect_ai.util import JSONSchema, Store

from attunebench_inspect import (
    TASK_VERSION,
    build_report,
    default,
    metrics_df,
    profile,
    to_json,
    to_markdown,
    to_terminal,
)
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import load_codebook, load_conversations
from attunebench_inspect.instruments.profile._catalog import PROFILE_METRICS, UNPLACED_LABELS
from attunebench_inspect.instruments.profile._fields import (
    PROFILE_FIELDS,
    PROFILE_OPTIONS_KEY,
    ProfileConversation,
    ProfileTruth,
    split_profile,
)
from attunebench_inspect.instruments.profile._metrics import ProfileInputs
from attunebench_inspect.instruments.profile._scorer import profile_scorer, score_profile
from attunebench_inspect.instruments.profile._solver import PROFILE_SYSTEM, profile_solver
from attunebench_inspect.instruments.profile._vocabulary import (
    Vocabulary,
    bundled_vocabulary_path,
    load_vocabulary,
)
from attunebench_inspect.providers._baselines import RandomFill
from attunebench_inspect.score._chance_levels import measured, measured_names
from attunebench_inspect.solve import read_walk
from attunebench_inspect.solve._prompts import quote
from tests.conftest import BUNDLED, FIXTURES
from tests.spy import Spy
from tests.truth_model import TruthModel

DEPOSIT = FIXTURES / "deposit"
VOCABULARY = load_vocabulary()


def _run(model: Any, log_dir: Path, **task_args: Any) -> EvalLog:
    log = eval(profile(**task_args), model=model, display="none", log_dir=str(log_dir))[0]
    assert log.status == "success", log.error
    return log


# --- the task runs offline, on the bundled set and on a deposit-shaped folder ------------------


@pytest.fixture(scope="module")
def profile_baselines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    logs = eval(
        [profile()],
        model=["attunebench/random", "attunebench/majority"],
        display="none",
        log_dir=str(tmp_path_factory.mktemp("profile-baselines")),
    )
    return {str(log.eval.model): log for log in logs}


def test_bundled_set_runs_with_one_call_per_conversation(
    profile_baselines: dict[str, EvalLog],
) -> None:
    log = profile_baselines["attunebench/random"]
    assert log.status == "success" and log.results is not None and log.samples is not None
    assert log.eval.task == "attunebench_inspect/profile"
    assert log.results.completed_samples == 25
    resolved = headline_metric(log)
    assert resolved is not None and resolved.score.name == "profile_composite"
    for sample in log.samples:
        records = read_walk(Store(sample.store)).records
        assert list(records) == [("profile", None)]
        assert records[("profile", None)].status == "ok"
        value = sample.scores["profile_scorer"].value
        assert isinstance(value, dict) and 0 <= value["profile_composite"] <= 100
    assert log.eval.metadata is not None
    assert log.eval.metadata[PROFILE_OPTIONS_KEY] == VOCABULARY.options()
    assert log.eval.metadata["profile_vocabulary"] == str(bundled_vocabulary_path())
    assert log.eval.metadata["profile_vocabulary_sha256"] == VOCABULARY.sha256
    assert log.eval.metadata["data_warnings"] == []


def test_measured_chance_levels_are_what_the_baselines_score(
    profile_baselines: dict[str, EvalLog],
) -> None:
    frame = metrics_df([log.location for log in profile_baselines.values()])
    means = frame.groupby("model").mean(numeric_only=True)
    profile_names = {s.name for s in PROFILE_METRICS}
    assert profile_names <= measured_names()
    for name in sorted(profile_names):
        for model, claimed in zip(
            ("attunebench/random", "attunebench/majority"), measured(name), strict=True
        ):
            value = float(means.loc[model, name])
            digits = 2 if abs(value) >= 10 else 3
            assert claimed is not None and round(value, digits) == pytest.approx(claimed), (
                name,
                model,
                value,
            )


def test_deposit_shaped_folder_runs_with_the_bundled_vocabulary(tmp_path: Path) -> None:
    log = _run(
        "attunebench/random",
        tmp_path,
        data=str(DEPOSIT / "conversations"),
        codebook=str(DEPOSIT / "annotation_codebook.json"),
    )
    assert log.results is not None and log.results.completed_samples == 3
    assert log.eval.metadata is not None and log.samples is not None
    # The options are the vocabulary's, not the three participants' values.
    assert log.eval.metadata[PROFILE_OPTIONS_KEY] == VOCABULARY.options()
    assert not any("participant_profile" in w for w in log.eval.metadata["data_warnings"])
    # Their "Anxiety" is the vocabulary's "Anxiety disorder", and every label is scored.
    reported = {
        sample.id: (sample.scores["profile_scorer"].metadata or {})["reported_diagnoses"]
        for sample in log.samples
    }
    assert sorted(map(sorted, reported.values())) == [
        [],
        ["Anxiety disorder"],
        ["Anxiety disorder", "Depression"],
    ]
    for sample in log.samples:
        value = sample.scores["profile_scorer"].value
        assert isinstance(value, dict) and value[UNPLACED_LABELS] == 0


def test_parameters_are_the_main_tasks_checks(small_dataset: Callable[[int], Path]) -> None:
    with pytest.raises(ValueError, match=r"unknown task parameter.*shuffle_seed; the parameters"):
        profile(shuffle_seed=2)
    with pytest.raises(ValueError, match=r"unknown task parameter.*mode"):
        profile(mode="omniscient")
    with pytest.raises(ValueError, match="skip_invalid must be true or false"):
        profile(skip_invalid="yes please")
    with pytest.raises(ValueError, match="nothing at this path"):
        profile(data="/nonexistent/folder")
    with pytest.raises(ValueError, match="task parameter vocabulary must be a path; got 3"):
        profile(vocabulary=3)
    with pytest.raises(ValueError, match="vocabulary: found nothing at this path"):
        profile(vocabulary="/nonexistent/vocabulary.json")
    with pytest.raises(ValueError, match="the parameters are data, codebook, vocabulary, skip"):
        profile(seed=1)
    # The main tasks keep their parameters.
    assert default(data=str(small_dataset(1)), shuffle_seed=3).metadata is not None


def test_a_score_outside_its_range_is_a_data_error_or_skipped(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    files = sorted(BUNDLED.glob("*.json"))[:2]
    for file in files:
        shutil.copy(file, data / file.name)
    doc = json.loads((data / files[0].name).read_text(encoding="utf-8"))
    doc["participant_profile"]["computed_scores"]["asrs_6"] = 14  # a 0-24 item sum
    (data / files[0].name).write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match=r"asrs_6: found 14.0; expected 0-6, the ASRS-6"):
        profile(data=str(data))
    task = profile(data=str(data), skip_invalid=True)
    assert len(task.dataset) == 1
    assert task.metadata is not None
    [skipped] = task.metadata["skipped_conversations"].values()
    assert "asrs_6" in skipped[0]


# --- the split, the options and the scales ------------------------------------------------------


def test_the_solver_is_handed_no_profile_field() -> None:
    assert set(ProfileConversation.model_fields) == {"conversation_id", "topic", "turns"}
    assert set(ProfileTruth.model_fields) == {"conversation_id", *(f.name for f in PROFILE_FIELDS)}


def _truths(folder: Path) -> list[ProfileTruth]:
    loaded = load_conversations(folder, load_codebook()).conversations
    return [split_profile(c.conversation)[1] for c in loaded]


def _truthful(truth: ProfileTruth, vocabulary: Vocabulary = VOCABULARY) -> dict[str, Any]:
    """The answer that gives the participant's own profile, in the vocabulary's terms."""
    placed = vocabulary.placed(truth.values()).values
    answer: dict[str, Any] = {}
    for field in PROFILE_FIELDS:
        value = placed[field.name]
        if field.kind == "multi":
            answer[field.name] = {o: o in (value or []) for o in vocabulary.options()[field.name]}
        elif field.kind == "text":
            answer[field.name] = "; ".join(value)
        elif value is not None:
            answer[field.name] = int(value) if field.kind == "score" else value
    return answer


def test_the_participants_own_answers_score_full_marks() -> None:
    for truth in _truths(BUNDLED):
        values = score_profile(ProfileInputs.of(_truthful(truth), truth.values(), VOCABULARY))
        assert values.pop("profile_composite") == 100.0
        assert values.pop("profile_parse_failure_rate") == 0.0
        assert values.pop(UNPLACED_LABELS) == 0.0
        assert all(v == 1.0 or math.isnan(v) for v in values.values()), values


# --- the call: prompt, schema, parse failures ---------------------------------------------------


def test_profile_solver_asks_once_with_the_whole_transcript(
    small_dataset: Callable[[int], Path],
) -> None:
    data = small_dataset(3)
    spy = Spy()
    log = _run(spy.model("em"), data.parent / "logs", data=str(data))
    assert log.plan.steps[0].solver.endswith(profile_solver.__name__)
    assert len(spy.calls) == 3
    assert log.eval.metadata is not None
    options = log.eval.metadata[PROFILE_OPTIONS_KEY]
    raw = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(data.glob("*.json"))]
    for call, config in zip(spy.calls, spy.configs, strict=True):
        assert config.response_schema is not None
        assert config.response_schema.name == "attunebench_profile"
        system, transcript, question = (m.text for m in call)
        assert system == PROFILE_SYSTEM
        [conversation] = [c for c in raw if quote(c["turns"][0]["userMessage"]) in transcript]
        turns = conversation["turns"]
        assert transcript.count("<participant turn=") == len(turns)
        # The last reply is shown: the model reads the conversation as it ended.
        assert quote(turns[-1]["llmResponse"]) in transcript
        assert '"who_5": WHO-5 Well-Being Index, 0-25' in question
        properties = config.response_schema.json_schema.properties or {}
        assert properties["asrs_6"].enum == list(range(7))
        assert list(properties["diagnoses"].properties or {}) == options["diagnoses"]
        assert properties["gender"].enum == options["gender"]
        # No vocabulary for work or study: the model names it in its own words.
        assert properties["work_edu_background"].type == "string"


def _requests(spy: Spy) -> dict[str, tuple[list[str], str]]:
    """Every call's messages and response schema, byte for byte, by its conversation's
    transcript (unique to a conversation)."""
    requests = {}
    for call, config in zip(spy.calls, spy.configs, strict=True):
        assert config.response_schema is not None
        requests[call[1].text] = ([m.text for m in call], config.response_schema.model_dump_json())
    return requests


def test_a_conversation_gets_the_same_prompt_alone_as_among_all(tmp_path: Path) -> None:
    files = sorted(BUNDLED.glob("*.json"))
    among = Spy()
    _run(among.model(), tmp_path / "all")
    assert len(among.calls) == len(files) == 25
    alone = Spy()
    # One task a conversation, each on a dataset of that conversation alone.
    logs = eval(
        [profile(data=str(file)) for file in files],
        model=alone.model(),
        display="none",
        log_dir=str(tmp_path / "alone"),
        max_tasks=4,
    )
    assert [log.status for log in logs] == ["success"] * len(files)
    assert len(alone.calls) == len(files)
    assert _requests(alone) == _requests(among)


def test_a_vocabulary_of_ones_own_is_what_is_offered_and_scored(
    tmp_path: Path, small_dataset: Callable[[int], Path]
) -> None:
    raw = json.loads(bundled_vocabulary_path().read_text(encoding="utf-8"))
    raw["gender"] = {"options": ["Woman", "Man", "Another gender"]}
    own = tmp_path / "vocabulary.json"
    own.write_text(json.dumps(raw), encoding="utf-8")
    spy, data = Spy(), small_dataset(2)
    log = _run(spy.model(), tmp_path / "logs", data=str(data), vocabulary=str(own))
    assert log.eval.metadata is not None and log.samples is not None
    assert log.eval.metadata["profile_vocabulary"] == str(own)
    assert log.eval.metadata[PROFILE_OPTIONS_KEY]["gender"] == ["Woman", "Man", "Another gender"]
    for call, config in zip(spy.calls, spy.configs, strict=True):
        assert 'one of ["Woman", "Man", "Another gender"]' in call[2].text
        assert config.response_schema is not None
        properties = config.response_schema.json_schema.properties or {}
        assert properties["gender"].enum == ["Woman", "Man", "Another gender"]
    # The participants' "Female" and "Male" are no option or alias of this vocabulary, nor
    # close to one: the field is not scored, and the labels are counted and named.
    for sample in log.samples:
        value = sample.scores["profile_scorer"].value
        assert isinstance(value, dict)
        assert value[UNPLACED_LABELS] == 1.0 and math.isnan(value["profile_gender"])
    assert sorted(
        w.split(": found ")[1].split(";")[0] for w in log.eval.metadata["data_warnings"]
    ) == [
        "Female",
        "Male",
    ]


def test_garbage_is_a_counted_parse_failure_scored_zero(
    small_dataset: Callable[[int], Path],
) -> None:
    spy = Spy(answer=lambda messages, config: "I would rather not guess about a real person.")
    data = small_dataset(2)
    log = _run(spy.model(), data.parent / "logs", data=str(data))
    assert log.samples is not None and len(spy.calls) == 4  # each asked twice: answer, repair
    for sample in log.samples:
        value = sample.scores["profile_scorer"].value
        assert isinstance(value, dict)
        assert value["profile_composite"] == 0.0 and value["profile_parse_failure_rate"] == 1.0
        assert sample.scores["profile_scorer"].metadata is not None
        assert sample.scores["profile_scorer"].metadata["predicted_diagnoses"] is None


def test_scorer_is_registered_with_the_runs_vocabulary(
    profile_baselines: dict[str, EvalLog],
) -> None:
    log = profile_baselines["attunebench/majority"]
    # Logged with the vocabulary it scored against, so `inspect score` can rebuild it.
    [scorer] = log.eval.scorers or []
    assert scorer.name == profile_scorer.__name__
    assert log.eval.metadata is not None
    assert scorer.options == {"vocabulary": VOCABULARY.dump()}


# --- the report ---------------------------------------------------------------------------------


class ProfileOracle:
    """Answers every profile field from the participant's profile, except a share `noise` of
    fields answered at random; finds the conversation from the transcript, as a model would."""

    def __init__(self, data: Path, noise: float) -> None:
        loaded = load_conversations(data, load_codebook()).conversations
        self.profiles = [split_profile(c.conversation) for c in loaded]
        self.noise = noise

    def answer(self, messages: list[ChatMessage], config: GenerateConfig) -> str:
        assert config.response_schema is not None
        schema: JSONSchema = config.response_schema.json_schema
        text = "\n".join(m.text for m in messages)
        visible, truth = next(
            (v, t)
            for v, t in self.profiles
            if f'<participant turn="1">\n{quote(v.turns[0].user_message)}\n' in text
        )
        rng = random.Random(visible.conversation_id)
        truthful = _truthful(truth)
        return json.dumps(
            {
                name: truthful[name] if rng.random() >= self.noise and name in truthful
                else RandomFill(rng)(prop)
                for name, prop in (schema.properties or {}).items()
            }
        )  # fmt: skip

    def model(self, name: str) -> Model:
        return Spy(answer=self.answer).model(name)


@pytest.fixture(scope="module")
def report_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three models of known skill in both tasks, and chance in the profile task."""
    root = tmp_path_factory.mktemp("profile-report")
    data = root / "data"
    data.mkdir()
    for file in sorted(BUNDLED.glob("*.json"))[:6]:
        shutil.copy(file, data / file.name)
    logs = root / "logs"
    codebook = load_codebook()
    for noise in (0.1, 0.5, 0.9):
        name = f"truth-{noise}"
        eval(
            default(data=str(data)),
            model=TruthModel(data, codebook, noise).model(name),
            display="none",
            log_dir=str(logs),
        )
        _run(ProfileOracle(data, noise).model(name), logs, data=str(data))
    _run("attunebench/random", logs, data=str(data))
    return logs


def test_report_has_the_profile_section(report_logs: Path) -> None:
    report = build_report([report_logs], resamples=500)
    assert {(r.model, r.mode) for r in report.runs if r.mode == "profile"} == {
        ("mockllm/truth-0.1", "profile"),
        ("mockllm/truth-0.5", "profile"),
        ("mockllm/truth-0.9", "profile"),
        ("chance", "profile"),
    }
    # Profile runs stay out of the main task's analyses.
    assert all(r.mode == "default" for r in report.leaderboard)
    order = [r.model for r in report.profile]
    assert order[0] == "mockllm/truth-0.1" and order.index("mockllm/truth-0.5") < order.index(
        "mockllm/truth-0.9"
    )
    best = report.profile[0]
    assert best.conversations == 6 and best.errored == 0
    interval = best.metrics["profile_composite"]
    assert interval.low <= interval.estimate <= interval.high and interval.n == 6
    assert {"profile_who_5", "profile_age_range_ordinal"} <= set(best.metrics)

    [split] = report.profile_capability
    assert split.mode == "default" and len(split.models) == 3 and "chance" not in split.models
    assert split.spearman["profile_composite"]["composite"] == pytest.approx(1.0)

    rows = {(d.model, d.diagnosis): d for d in report.diagnosis_inference}
    # The same participants under every model: the base rates agree.
    for (_, diagnosis), row in rows.items():
        assert row.answers == 6
        assert row.base_rate == rows[("chance", diagnosis)].base_rate
        assert row.base_rate == pytest.approx(row.participants / 6)
    # Nearly the truth names a diagnosis exactly for those who have one.
    nearly = rows[("mockllm/truth-0.1", "any diagnosis")]
    assert (nearly.precision, nearly.recall) == (1.0, 1.0)
    assert nearly.named_rate == nearly.base_rate < rows[("chance", "any diagnosis")].named_rate

    text = to_terminal(report)
    for title in (
        f"Profile prediction (experimental, task version {TASK_VERSION}): composite and parts",
        "Profile prediction: every field",
        "Profile prediction: diagnoses named vs reported",
        "Spearman rank correlation across models: profile task vs main-task metrics (default)",
    ):
        assert title in text and title in to_markdown(report)
    assert json.loads(to_json(report))["profile"][0]["model"] == "mockllm/truth-0.1"


def test_composite_command_leaves_profile_runs_out(
    report_logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["composite", str(report_logs), "--resamples", "200"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert len(rows) == 3 and all("_profile_" not in row for row in rows)


def test_where_filters_profile_runs_too(report_logs: Path) -> None:
    report = build_report([report_logs], resamples=200, where="diagnoses=none")
    assert report.profile and all(0 < r.conversations < 6 for r in report.profile)


def test_a_report_of_profile_runs_only_is_the_profile_section(
    profile_baselines: dict[str, EvalLog],
) -> None:
    report = build_report([log.location for log in profile_baselines.values()], resamples=200)
    assert report.leaderboard == [] and len(report.profile) == 2
    # After the report's first table, what it compares, the profile section comes first.
    blocks = to_terminal(report).lstrip().split("\n\n")
    assert blocks[0].startswith("Synthetic: not AttuneBench results. What this report compares")
    assert blocks[1].startswith(f"Profile prediction (experimental, task version {TASK_VERSION})")
    chance = next(r for r in report.profile if r.model == "chance")
    assert round(chance.composite.estimate, 2) == measured("profile_composite")[0]
