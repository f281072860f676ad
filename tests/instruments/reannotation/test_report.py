"""Third-party labels through the real report path: logs written by offline runs of
models of known behaviour, answer files of annotators of known behaviour, then `attunebench report
--third-party`, read as a person reads it (terminal, JSON, HTML in Chromium)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig

from attunebench_inspect import TASK_VERSION, Report, build_report, default, third_party_df, to_html
from attunebench_inspect._suite.cli import main
from attunebench_inspect._suite.render import charts
from attunebench_inspect.data._codebook import Codebook
from attunebench_inspect.instruments.reannotation._labels import NOT_COVERED_METRICS
from attunebench_inspect.instruments.reannotation._separability import RULE
from attunebench_inspect.solve._predictions import Records
from attunebench_inspect.solve._schemas import call_of
from attunebench_inspect.solve._solver import pairwise_labels
from tests.figure_text import colorbar_labels, legend_texts, texts_outside
from tests.human_answers import oracle
from tests.instruments.reannotation.test_reannotation import HAND, _hand_answers, _hand_records
from tests.spy import Spy
from tests.third_party_world import (
    FAITHFUL,
    GENERIC,
    LABEL_TASKS,
    READERS,
    SHORTEST,
    PlantedRuns,
    World,
    answer_file,
)

MIXED = {
    f"x{j}": (
        dict.fromkeys((*LABEL_TASKS, "post"), 0.3),
        dict.fromkeys((*LABEL_TASKS, "post"), 0.7),
    )
    for j in range(3)
}
"""Three annotators who give the participant's own label on 30% of items, else the generic
reading on 70% of the rest: they read the person above chance, and share a generic reading."""
RESAMPLES = "2000"
_TURN = re.compile(r'<participant turn="(\d+)">')


@dataclass(frozen=True)
class Study:
    world: World
    data: Path
    logs: Path
    """Six planted models (with a judge)."""
    readers: Path
    """A model that reads the person and one that gives the generic reading."""
    faithful: list[Path]
    generic: list[Path]
    mixed: list[Path]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory, planted: PlantedRuns) -> Study:
    root = tmp_path_factory.mktemp("third_party")
    world = planted.world
    world.run_models(planted.data, READERS, root / "readers", judge=False)
    answers = root / "answers"
    answers.mkdir()
    return Study(
        world,
        planted.data,
        planted.logs,
        root / "readers",
        [world.annotator(answers, name, *p) for name, p in FAITHFUL.items()],
        [world.annotator(answers, name, *p) for name, p in GENERIC.items()],
        [world.annotator(answers, name, *p) for name, p in MIXED.items()],
    )


def _report(
    capsys: pytest.CaptureFixture[str], logs: Path, *args: str | Path
) -> tuple[int, dict[str, Any], str]:
    """`attunebench report LOGS --third-party ... --format json`: exit code, JSON, stderr."""
    code = main(
        ["report", str(logs), "--format", "json", "--resamples", RESAMPLES, *map(str, args)]
    )
    out = capsys.readouterr()
    return code, json.loads(out.out) if code == 0 else {}, out.err


def _mode(found: dict[str, Any]) -> dict[str, Any]:
    (mode,) = found["third_party"]["modes"]
    assert mode["mode"] == "default"
    return dict(mode)


# --- the proof on known behaviour ----------------------------------------------------------------


def test_a_separability_holds_when_outsiders_read_what_participants_read(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """The six models' task rankings differ under self labels; three annotators who give the
    participant's label on 80% of items keep them apart: the report reads "separability holds"."""
    code, found, _ = _report(capsys, study.logs, "--third-party", *study.faithful)
    assert code == 0
    mode = _mode(found)
    test = mode["test"]
    assert test["verdict"] == "separability holds", test["reading"]
    assert {p["status"] for p in test["pairs"]} == {"stays separable"}
    assert test["reading"] == (
        "separability holds: all 6 task pair(s) separable under self labels stay below rho 0.7 "
        f"under third-party labels; 6 models, {SHORTEST} conversations"
    )
    assert mode["conversations"] == SHORTEST == found["third_party"]["labelled"]
    assert found["third_party"]["rule"] == RULE


def test_b_separability_depends_on_self_annotation_when_outsiders_share_a_generic_reading(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same six logs, now against three annotators who read the person above chance (30% of
    items) but mostly give a generic reading the models track, each to its own degree: the label
    tasks' rankings converge under third-party labels, and the report reads that separability
    depends on self-annotation. The judge's ratings read no label: judged response quality keeps
    its ranking."""
    code, found, _ = _report(capsys, study.logs, "--third-party", *study.mixed)
    assert code == 0
    test = _mode(found)["test"]
    assert test["verdict"] == "separability depends on self-annotation", test["reading"]
    assert all(test["information"][t]["informative"] for t in LABEL_TASKS), test["information"]
    status = {tuple(p["tasks"]): p["status"] for p in test["pairs"]}
    converging = {p for p, s in status.items() if s == "converges"}
    assert converging and all(set(p) <= set(LABEL_TASKS) for p in converging)
    assert "converges" not in {s for p, s in status.items() if "judged_response_quality" in p}
    assert all(p["own"]["high"] < 0.7 for p in test["pairs"])
    assert test["reading"].startswith("separability depends on self-annotation: ")


def test_b_outsiders_who_read_nothing_of_the_person_cannot_decide(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """Annotators who give only a generic reading (the consensus's kappa with the participants at
    chance): however the rankings move under their labels, the test cannot decide, and says
    which tasks their labels carry no information about."""
    code, found, _ = _report(capsys, study.logs, "--third-party", *study.generic)
    assert code == 0
    test = _mode(found)["test"]
    assert test["verdict"].startswith(
        "cannot decide: the third-party labels carry no information about "
    ), test["reading"]
    assert not any(test["information"][t]["kappas"] == {} for t in LABEL_TASKS)
    assert {p["status"] for p in test["pairs"]} <= {
        "no information",
        "not separable under self labels",
        "stays separable",
        "undecided",
    }


def test_c_a_model_that_reads_the_person_has_a_positive_self_specific_gain(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model that gives the participant's own label on 90% of items, scored against outsiders
    who give a generic reading: a positive gain on every label task, its CI above 0; the model
    that gives the generic reading has a negative one. Two models: the reviewer's test says why
    it cannot decide."""
    code, found, _ = _report(capsys, study.readers, "--third-party", *study.generic)
    assert code == 0
    mode = _mode(found)
    gains = {(g["model"], g["task"]): g["gain"] for g in mode["gains"]}
    for task in LABEL_TASKS:
        assert gains[("mockllm/reader", task)]["low"] > 0, gains[("mockllm/reader", task)]
        assert gains[("mockllm/generic", task)]["high"] < 0
        assert gains[("mockllm/reader", task)]["n"] == SHORTEST
    assert "judged_response_quality" not in {task for _, task in gains}  # no judge ran
    assert (
        mode["test"]["verdict"]
        == mode["test"]["reading"]
        == (
            "cannot decide: 2 model(s); a rank correlation between task rankings needs at least 3 "
            "(with 2 every rho is +1 or -1)"
        )
    )


# --- the hand-worked example, through a log ------------------------------------------------------


def _hand_data(folder: Path, raw: dict[str, Any]) -> Path:
    """The hand example's conversation in the published format: two turns of a bundled one, with
    the questions and comparisons of `_hand_conversation`. The participant labels every item the
    annotator labels (so scoring on the items both label leaves the annotator's all in) and
    answered the follow-up."""
    raw["conversationId"] = HAND
    raw["turns"] = raw["turns"][:2]
    general = [("original", "alternate"), ("original", "human"), ("alternate", "human")]
    for turn, binary, tags in zip(
        raw["turns"],
        ([("B1", "yes", "yes"), ("B2", "yes", "no")], [("B1", "no", "yes")]),
        ([{"emotion": "Distressed", "intensity": 3}], []),
        strict=True,
    ):
        turn["moodShiftTags"] = tags
        turn["annotations"]["binaryJudgements"] = [
            {"questionId": q, "observedBehavior": o, "preferredBehavior": p} for q, o, p in binary
        ]
        turn["annotations"]["pairwiseComparisons"] = [
            {"questionId": "general", "responseA": a, "responseB": b, "winner": "A"}
            for a, b in general
        ]
        turn["annotations"]["selectedPairwiseQuestions"] = []
    raw["conversationWideQuestions"].update(
        q3_modelFit="Mixed, some good moments, some misses",
        q3_followUp_whatFeltOff=["Too generic or scripted"],
    )
    folder.mkdir()
    (folder / "hand.json").write_text(json.dumps(raw), encoding="utf-8")
    return folder


def _replaying(records: Records) -> Spy:
    """A scripted model that answers every call with the hand example's recorded answer."""

    def answer(messages: list[ChatMessage], config: GenerateConfig) -> str:
        schema = config.response_schema
        if schema is None:
            return "I hear you."
        call = call_of(schema.name)
        turn = None if call == "post" else max(map(int, _TURN.findall(messages[1].text)))
        prediction = records[(call, turn)].prediction
        return json.dumps(prediction)

    return Spy(answer=answer)


def test_rescored_metrics_of_a_log_equal_the_hand_worked_example(
    tmp_path: Path, codebook: Codebook, conversation_raw: dict[str, Any]
) -> None:
    """One log (a scripted model's run, with a judge) and one annotator's answer file, through
    `third_party_df`: the model scored against the annotator.

    Labels (the annotator): turn 1 mood {upset}, B1 observed yes / preferred no, B2 no / na,
    winners alternate>original, human>original, human>alternate; turn 2 no mood shift, B1 yes/yes,
    winners original>alternate, original>human, alternate>human. Post: PANAS all 3 but upset 5,
    Four-Branch all 4, Q1 {vent}, Q2 implied, Q3 Mixed (rank 1 of 0-3), follow-up {Too generic,
    "kept repeating itself"}.
    Model: turn 1 mood {distressed}, B1 yes/yes, B2 yes/no, winners alternate, original, human;
    turn 2 no shift, B1 no/yes, winners original, human, alternate. Post: PANAS all 3, Four-Branch
    all 5, Q1 {vent, understand}, Q2 implied, Q3 Good (rank 2), follow-up {Too generic}. The judge
    rated each draft 5 and answered B1 yes, B2 no (turn 1), B1 yes (turn 2).

    By hand:
    - emotion_f1: turn 1 {distressed} vs {upset} = 0; turn 2 both empty = 1; mean 0.5.
    - emotion_va: Distressed (V .143, A .771) vs Upset (V .071, A .680): 1 - sqrt(.072² + .091²)
      / sqrt 2 = 1 - .116039 / 1.414214 = .917948; turn 2 = 1; mean .958974.
    - emotion_pillar = (0.5 + .958974) / 2 = .729487; emotion_hit_rate: turn 1 0/1, turn 2 NaN.
    - binary_om_accuracy: turn 1 B1 yes=yes, B2 yes!=no: 1/2; turn 2 no!=yes: 0; mean 0.25.
    - binary_hp_accuracy: turn 1 B1 yes!=no, B2 na excluded: 0/1; turn 2 yes=yes: 1; mean 0.5.
      The HP-facing call gave the same answers: the same values.
    - pairwise_accuracy: turn 1 2 of 3 (c02 wrong), turn 2 2 of 3 (c02 wrong); mean 2/3.
      Kendall: the model's wins are 1-1-1 on both turns (all ties): undefined twice.
    - evaluation_pillar = (0.25 + 0.5 + 2/3) / 3 = .472222.
    - panas_item_normalized: item MAE 2/20 = 0.1 -> 1 - 0.1/6 = .983333; panas_normalized: NA
      totals 32 vs 30, PA 30 vs 30 -> MAE 1 -> 1 - 1/60 = .983333.
    - four_branch: |5 - 4| on each -> 1 - 1/6 = .833333. q1_goals 1/2; q2_clarity 1; q3_fit
      1 - |2 - 1|/3 = .666667; q3_exact 0; q3_follow_up: 1 matched, 1/(1 + 2 - 1) = 0.5.
    - draft_judge (5 - 1)/6 = .666667; draft_binary_alignment: turn 1 B1 yes vs no, B2 na
      excluded = 0, turn 2 yes = yes: 1; mean 0.5.
    - composite, holistic_pillar, panas_baseline_adjusted: not given (need the pre-PANAS).
    """
    assert pairwise_labels(0, HAND, 1) == {"1": "original", "2": "alternate", "3": "human"}
    assert pairwise_labels(0, HAND, 2) == {"1": "human", "2": "original", "3": "alternate"}
    data = _hand_data(tmp_path / "data", conversation_raw)
    model = _replaying(_hand_records(codebook))
    (log,) = eval(
        default(data=str(data)),
        model=model.model("hand"),
        model_roles={"judge": model.model("hand-judge")},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success"
    file = answer_file(tmp_path / "ann.json", "ann", {HAND: _hand_answers(codebook)}, codebook)
    frame = third_party_df(tmp_path / "logs", [file])
    assert list(frame["labels"]) == ["self", "third_party"]
    values = frame.set_index("labels").loc["third_party"]
    assert (values["model"], values["mode"], values["id"]) == ("mockllm/hand", "default", HAND)
    expected = {
        "emotion_f1": 0.5,
        "emotion_va": 0.958974,
        "emotion_pillar": 0.729487,
        "emotion_hit_rate": 0.0,
        "binary_om_accuracy": 0.25,
        "binary_hp_accuracy": 0.5,
        "binary_om_accuracy_hp_facing": 0.25,
        "binary_hp_accuracy_hp_facing": 0.5,
        "pairwise_accuracy": 2 / 3,
        "evaluation_pillar": 0.472222,
        "tau_defined": 0.0,
        "tau_undefined": 2.0,
        "panas_item_normalized": 0.983333,
        "panas_normalized": 0.983333,
        "four_branch": 0.833333,
        "q1_goals": 0.5,
        "q2_clarity": 1.0,
        "q3_fit": 0.666667,
        "q3_exact": 0.0,
        "q3_follow_up": 0.5,
        "draft_judge": 0.666667,
        "draft_binary_alignment": 0.5,
        "om_n": 3.0,
        "om_correct": 1.0,
    }
    for name, value in expected.items():
        assert values[name] == pytest.approx(value, abs=5e-6), name
    assert math.isnan(values["kendall_tau"]) and math.isnan(values["emotion_intensity_mae"])
    assert not set(NOT_COVERED_METRICS) & set(frame.columns)


# --- bad input: one located line each, under the command -----------------------------------------


def test_bad_third_party_input_gets_one_located_line_each(
    study: Study, tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two files claiming one annotator, a file from an older task version and one from another
    codebook stop the report, one line each; a conversation the logs do not hold is left out with
    one line, and the rest reported."""
    world = study.world
    cid = sorted(world.visible)[0]
    one = {cid: oracle(world.visible[cid], world.truth[cid], codebook)}
    again = answer_file(tmp_path / "again.json", "a0", one, codebook)
    older = answer_file(tmp_path / "older.json", "old", one, codebook, task_version="2-A")
    other = answer_file(tmp_path / "other.json", "other", one, codebook, codebook_sha256="0" * 64)
    code, _, err = _report(
        capsys, study.logs, "--third-party", study.faithful[0], again, older, other
    )
    assert code == 1
    number = TASK_VERSION.split("-")[0]
    assert err.splitlines() == [
        f"{again}: annotator: found a0, as in {study.faithful[0]}; expected one file per "
        "annotator (each is one annotator's label set)",
        f"{older}: task_version: found 2-A; expected {number}-* (the answers were given on the "
        f"page of another task version than this suite's {TASK_VERSION}: its questions or its "
        "replies' labels may differ)",
        f"{other}: codebook_sha256: found {'0' * 64}; expected {codebook.sha256} (the answers "
        f"were given to another codebook's questions than {codebook.path})",
        "attunebench report: no report: 3 problem(s) with the third-party labels",
    ]
    elsewhere = answer_file(
        tmp_path / "elsewhere.json", "elsewhere", {**one, "nope": {"turns": {}}}, codebook
    )
    code, found, err = _report(capsys, study.logs, "--third-party", elsewhere)
    assert code == 0 and err == ""
    assert found["third_party"]["notes"] == [
        f"{elsewhere}: conversations.nope: found a conversation no log holds; left out (only "
        "conversations both the logs and the answer files have are rescored)"
    ]
    assert found["third_party"]["labelled"] == 1 and _mode(found)["conversations"] == 1
    assert _mode(found)["test"]["reading"] == (
        "cannot decide: too little data: 1 shared conversation(s); the rule needs at least 10"
    )


def test_a_participant_rating_their_own_conversation_is_marked_not_fatal(
    study: Study, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The paper's "anno 3", named in an identities file: their label of the conversation they
    held is kept apart (its own agreement rows) and left out of the consensus, one line says so,
    and the report goes on."""
    own = sorted(study.world.visible)[0]
    participant = study.world.participants[own]
    identities = tmp_path / "identities.json"
    identities.write_text(json.dumps({"a0": participant}), encoding="utf-8")
    code, found, err = _report(
        capsys, study.logs, "--third-party", *study.faithful, "--identities", identities
    )
    assert code == 0 and err == ""
    third = found["third_party"]
    assert third["notes"] == [
        f"{study.faithful[0]}: conversations.{own}: annotator a0 is this conversation's "
        f"participant ({participant}): marked as a self-rating and left out of the third-party "
        "consensus"
    ]
    assert [(a["annotator"], a["self_ratings"]) for a in third["annotators"]] == [
        ("a0", 1),
        ("a1", 0),
        ("a2", 0),
    ]
    assert third["annotators_per_conversation"] == {"2": 1, "3": SHORTEST - 1}
    raters = {row["rater"] for row in third["agreement"]}
    assert {"a0", "a0 (self-rating)", "consensus"} <= raters


def test_where_selects_the_conversations_rescored(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--where` applies to the third-party section as to every other: only the conversations it
    selects are rescored, and the shared count says so."""
    categories = {
        json.loads(f.read_text(encoding="utf-8"))["metadata"]["category"]
        for f in study.data.glob("*.json")
    }
    category = sorted(categories)[0]
    selected = sum(
        json.loads(f.read_text(encoding="utf-8"))["metadata"]["category"] == category
        for f in study.data.glob("*.json")
    )
    code, found, _ = _report(
        capsys, study.logs, "--third-party", *study.faithful, "--where", f"category={category}"
    )
    assert code == 0
    assert found["third_party"]["logged"] == found["third_party"]["labelled"] == selected
    assert found["third_party"]["notes"] == []  # the others are selected away, not missing
    assert _mode(found)["conversations"] == selected < SHORTEST


def test_a_bad_identities_file_or_a_stray_option_is_one_line(
    study: Study, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    identities = tmp_path / "identities.json"
    identities.write_text('{"anno3": 7}', encoding="utf-8")
    code, _, err = _report(
        capsys, study.logs, "--third-party", *study.faithful, "--identities", identities
    )
    assert (code, err) == (
        1,
        f"attunebench report: {identities}: anno3: found 7; expected a participant ID (text)\n",
    )
    code, _, err = _report(capsys, study.logs, "--identities", identities)
    assert (code, err) == (
        2,
        "attunebench report: --identities and --codebook go with --third-party\n",
    )


# --- what a person sees: the figure, and the page in Chromium -------------------------------------


@pytest.fixture(scope="module")
def generic_report(study: Study) -> Report:
    return build_report([study.logs], third_party=study.mixed, resamples=int(RESAMPLES))


def test_the_third_party_figure_shows_both_matrices_and_every_models_scores(
    generic_report: Report,
) -> None:
    (chart,) = [c for c in charts(generic_report) if c.name == "third_party_default"]
    figure = chart.figure
    titles = [a.get_title(loc="left") for a in figure.axes if a.get_label() != "<colorbar>"]
    assert titles == [
        "under self labels",
        "under third-party labels",
        "Emotion recognition",
        "Behavioral classification",
        "Preference prediction",
        "Judged response quality",
    ]
    assert figure.subfigs[0].get_suptitle() == (
        "Reviewer's test: separability depends on self-annotation"
    )
    assert legend_texts(figure.subfigs[1]) == ["self labels", "third-party labels"]
    assert colorbar_labels(figure) == ["Spearman rho (\N{MINUS SIGN}1 to 1)"]
    assert texts_outside(figure) == []


def test_the_third_party_section_fits_1280_px_in_chromium(
    generic_report: Report, tmp_path: Path, chromium: Any
) -> None:
    """The page in headless Chromium at 1280 x 800: no horizontal scroll, the figure loaded and
    inside the window, and every table of the section whole in its box. Screenshots of the
    section are left in the test's folder."""
    page_file = tmp_path / "report.html"
    page_file.write_text(to_html(generic_report), encoding="utf-8")
    ours = ("Third-party", "Self vs third-party", "The reviewer's test")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(page_file.as_uri())
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        figure = page.evaluate(
            "(() => { const i = document.querySelector('#third_party_default img'); "
            "return [i.complete && i.naturalWidth > 0, i.getBoundingClientRect().right]; })()"
        )
        tables = page.evaluate(
            "Array.from(document.querySelectorAll('table')).map(t => "
            "[t.parentElement.previousElementSibling.textContent, "
            "t.getBoundingClientRect().right <= t.parentElement.getBoundingClientRect().right "
            "&& t.parentElement.getBoundingClientRect().right <= innerWidth])"
        )
        for n, heading in enumerate(page.query_selector_all("h2")):
            if heading.inner_text().startswith(ours):
                heading.scroll_into_view_if_needed()
                page.screenshot(path=str(tmp_path / f"section-{n:02d}.png"))
    assert scroll_width <= 1280
    assert figure[0] and figure[1] <= 1280
    section = [(title, whole) for title, whole in tables if title.startswith(ours)]
    # Seven tables, the consensus ties' (the mixed annotators split votes) and the information
    # condition's.
    assert len(section) == 9 and all(whole for _, whole in section), section
