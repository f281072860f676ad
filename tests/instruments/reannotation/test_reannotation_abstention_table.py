"""docs/third-party.md's abstention table through the real report path: six planted models with
independent task rankings (offline runs), annotators of known behaviour (answer files), then
`attunebench report --third-party ... --format json`. An annotator who answers at random reads
"cannot decide" in every seed (never "separability holds"), a copying one agrees 1.0 on every
field, a constant and a position-constant one score kappa 0 on every field, and one annotator
counts once however its files are named."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench.audit.reannotation import (
    BASE_RATES,
    constant,
    draw,
    permuted_pairwise,
    position_constant,
)

from attunebench_inspect._suite.cli import main
from attunebench_inspect._util.bootstrap import Interval
from attunebench_inspect.instruments.reannotation._agreement import informed
from attunebench_inspect.instruments.reannotation._separability import LABELLED, reviewers_test
from attunebench_inspect.instruments.reannotation._tasks import TaskScores
from tests.third_party_world import SHORTEST, PlantedRuns, World, answer_file, oracle

RESAMPLES = "2000"


@dataclass(frozen=True)
class Study:
    world: World
    logs: Path
    answers: Path


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory, planted: PlantedRuns) -> Study:
    answers = tmp_path_factory.mktemp("abstention") / "answers"
    answers.mkdir()
    return Study(planted.world, planted.logs, answers)


def _report(capsys: pytest.CaptureFixture[str], study: Study, *files: Path) -> dict[str, Any]:
    args = ["report", str(study.logs), "--format", "json", "--resamples", RESAMPLES]
    code = main([*args, "--third-party", *map(str, files)])
    out = capsys.readouterr()
    assert code == 0, out.err
    found: dict[str, Any] = json.loads(out.out)["third_party"]
    return found


def _file(study: Study, name: str, readings: dict[str, Any]) -> Path:
    world = study.world
    answers = {c: oracle(world.visible[c], readings[c], world.codebook) for c in world.visible}
    return answer_file(study.answers / f"{name}.json", name, answers, world.codebook)


def test_an_annotator_answering_at_random_never_reads_separability(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seven annotator seeds (the attack's seven): each reads "cannot decide", naming the tasks
    the labels carry no information about."""
    for seed in range(7):
        file = study.world.annotator(study.answers, f"random{seed}", {}, {})
        (mode,) = _report(capsys, study, file)["modes"]
        test = mode["test"]
        assert test["verdict"].startswith(
            "cannot decide: the third-party labels carry no information about "
        ), (seed, test["reading"])
        assert not any(i["informative"] for i in test["information"].values()), seed


def _kappas(found: dict[str, Any], rater: str) -> dict[str, float]:
    return {
        a["field"]: a["corrected"]["estimate"]
        for a in found["agreement"]
        if a["rater"] == rater and a["coefficient"] is not None
    }


def test_a_copying_annotator_agrees_1_on_every_field(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _file(study, "copy", study.world.truth)
    found = _report(capsys, study, file)
    values = {
        a["field"]: a["value"]["estimate"] for a in found["agreement"] if a["rater"] == "copy"
    }
    assert set(values) == {
        "mood_shift", "binary_observed", "binary_preferred", "pairwise", "post_panas",
        "four_branch", "q1_looking_for", "q2_emotion_clarity", "q3_model_fit", "q3_follow_up",
    }  # fmt: skip
    assert all(v == pytest.approx(1.0) for v in values.values()), values
    kappas = _kappas(found, "copy")
    assert len(kappas) == 9 and all(k == pytest.approx(1.0) for k in kappas.values()), kappas
    (mode,) = found["modes"]
    assert mode["test"]["verdict"] == "separability holds", mode["test"]["reading"]


@pytest.mark.parametrize("reader", [constant, position_constant], ids=["constant", "position"])
def test_a_constant_or_position_constant_annotator_scores_kappa_0_on_every_field(
    study: Study, capsys: pytest.CaptureFixture[str], reader: Any
) -> None:
    """The same answer to every question (no shift, yes, 4, the first option, the same source),
    or the reply the page shows earlier: kappa exactly 0 on every field, and the test cannot
    decide."""
    seeded = draw(study.world, 0)
    readings = {c: reader(seeded, c, "constant") for c in study.world.visible}
    name = reader.__name__
    found = _report(capsys, study, _file(study, name, readings))
    kappas = _kappas(found, name)
    assert len(kappas) == 9 and all(k == 0.0 for k in kappas.values()), kappas
    (mode,) = found["modes"]
    assert mode["test"]["verdict"].startswith(
        "cannot decide: the third-party labels carry no information about "
    )


@pytest.mark.parametrize("how", list(BASE_RATES))
def test_an_annotator_who_copies_the_base_rates_reads_nothing_of_the_person(
    study: Study, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """Every label copied from other conversations (the same question and pair, any question
    of the pair, or the same question on the same turn number): no label field above 0, no
    task read above chance, and the test cannot decide. In strata of the pair alone the
    pairwise kappa of the first read 0.21, its interval above 0 in 20 of 20 seeds (issue 45);
    its rates over 50 seeds are the audit's (bench/audit/RESULTS.md)."""
    seeded = draw(study.world, 0)
    readings = {c: BASE_RATES[how](seeded, c, "base") for c in study.world.visible}
    found = _report(capsys, study, _file(study, "base", readings))
    rows = {a["field"]: a["corrected"] for a in found["agreement"] if a["rater"] == "base"}
    # Never above chance; below it on a few conversations (copies from the other 11 lack the
    # participant's own answer: a kappa near -1/(m - 1) over m conversations asking the item).
    for name in ("mood_shift", "binary_observed", "binary_preferred", "pairwise"):
        assert rows[name]["low"] <= 0 and rows[name]["estimate"] < 0.05, (name, rows[name])
    (mode,) = found["modes"]
    assert not any(i["informative"] for i in mode["test"]["information"].values())
    assert mode["test"]["verdict"].startswith(
        "cannot decide: the third-party labels carry no information about "
    )


def test_annotators_who_permute_the_winners_say_nothing_of_preferences(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three annotators who give the participant's label on 80% of items but every pairwise
    winner from other conversations: preference prediction is not read above chance (the
    winners carry nothing of the person), and the test does not read "separability holds" on
    it (it did in 20 of 20 seeds, issue 45)."""
    seeded = draw(study.world, 0)
    files = [
        _file(study, name, {c: permuted_pairwise(seeded, c, name) for c in study.world.visible})
        for name in ("w0", "w1", "w2")
    ]
    (mode,) = _report(capsys, study, *files)["modes"]
    information = mode["test"]["information"]
    assert not information["preference_prediction"]["informative"]
    assert information["emotion_recognition"]["informative"]
    assert information["behavioral_classification"]["informative"]
    assert mode["test"]["verdict"] != "separability holds", mode["test"]["reading"]


def test_one_annotator_counts_once_however_its_files_are_named(
    study: Study, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same file twice, and a copy of it under another path: one annotator, one vote, the
    same figures as the file once, and a note."""
    file = study.world.annotator(study.answers, "ann", {"emotion_recognition": 0.6}, {})
    copy = study.answers / "copy-of-ann.json"
    shutil.copy(file, copy)
    once = _report(capsys, study, file)
    for files in ([file, file], [file, copy]):
        found = _report(capsys, study, *files)
        assert [a["annotator"] for a in found["annotators"]] == ["ann"]
        assert found["annotators_per_conversation"] == {"1": SHORTEST}
        assert found["agreement"] == once["agreement"] and found["ties"] == once["ties"] == []
        assert found["notes"] == [f"{files[1]}: the same answers of ann "
                                  f"{'given more than once' if files[1] == file else f'as {file}'}"
                                  "; counted once"]  # fmt: skip


def test_the_same_answers_under_another_name_are_warned_of(
    study: Study, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A copy of ann's file renamed bob: two annotators by name, one reading. They still count
    as two (two people may not be told apart by their files alone), but the report warns in
    one line naming both files: the copy outvotes every other annotator, so the consensus is
    ann's and every tie between ann and cat is gone."""
    ann = study.world.annotator(study.answers, "ann", {"emotion_recognition": 0.6}, {})
    cat = study.world.annotator(study.answers, "cat", {}, {})
    document = json.loads(ann.read_text(encoding="utf-8"))
    bob = study.answers / "bob.json"
    bob.write_text(json.dumps({**document, "annotator": "bob"}), encoding="utf-8")
    pair = _report(capsys, study, ann, cat)
    args = ["report", str(study.logs), "--format", "json", "--resamples", RESAMPLES]
    caplog.clear()
    assert main([*args, "--third-party", str(ann), str(cat), str(bob)]) == 0
    found = json.loads(capsys.readouterr().out)["third_party"]
    line = (
        f"{bob}: the same answers as {ann} (annotator ann) under another annotator, bob: counted "
        "as two annotators; if they are one person's, give one of the files"
    )
    assert found["notes"] == [line] and pair["notes"] == []
    # A warning (on stderr under the command, where no logging is configured) and a note.
    warned = [r.getMessage() for r in caplog.records if r.name.endswith("reannotation._labels")]
    assert warned == [line]
    assert [a["annotator"] for a in found["annotators"]] == ["ann", "bob", "cat"]
    assert len(pair["ties"]) > 0 and found["ties"] == []


def test_the_rows_without_a_run() -> None:
    """The table's rows on task values alone: fewer than 3 models, fewer than 10 conversations,
    fewer than 2 tasks, no pair separable under self labels."""
    rng = np.random.default_rng(0)

    def scores(models: int, conversations: int, tasks: int, planted: bool = False) -> TaskScores:
        shape = (models, tasks, conversations)
        own = rng.normal(0, 1, shape) + (np.arange(models)[:, None, None] if planted else 0)
        names = LABELLED[:tasks]
        ids = tuple(f"c{i}" for i in range(conversations))
        return TaskScores(tuple(f"m{i}" for i in range(models)), names, ids, own, own.copy())

    every = {t: informed(t, {"f": Interval(0.5, 0.3, 0.7, 30)}) for t in LABELLED}
    assert reviewers_test(scores(2, 30, 3), every).verdict.startswith("cannot decide: 2 model(s)")
    assert reviewers_test(scores(6, 9, 3), every).verdict == (
        "cannot decide: too little data: 9 shared conversation(s); the rule needs at least 10"
    )
    assert reviewers_test(scores(6, 30, 1), every).verdict == (
        "cannot decide: 1 task(s) with values for these models"
    )
    assert reviewers_test(scores(6, 400, 3, planted=True), every).verdict.startswith(
        "cannot decide: no pair of tasks is separable under self labels"
    )
