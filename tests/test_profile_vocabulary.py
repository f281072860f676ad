"""The profile task's vocabulary: fixed answer options, how a participant's label is placed in
them, and one located line for every way a vocabulary file can be wrong."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import Codebook, load_codebook, load_conversations
from attunebench_inspect.data._problems import DataError
from attunebench_inspect.data._schema import NO_DIAGNOSIS
from attunebench_inspect.data._validate import validate_path
from attunebench_inspect.instruments.profile._fields import (
    VOCABULARY_FIELDS,
    split_profile,
)
from attunebench_inspect.instruments.profile._vocabulary import (
    Vocabulary,
    bundled_vocabulary_path,
    labels,
    load_vocabulary,
    vocabulary_check,
)
from attunebench_inspect.solve._prompts import quote
from tests.conftest import BUNDLED

DEPOSIT = Path(__file__).parent / "fixtures" / "deposit"


def _raw() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(bundled_vocabulary_path().read_text(encoding="utf-8"))
    return raw


def test_every_label_of_the_bundled_and_deposit_shaped_sets_is_an_option_or_alias(
    vocabulary: Vocabulary,
) -> None:
    for folder, book in ((BUNDLED, load_codebook()), (DEPOSIT / "conversations", None)):
        codebook = book or load_codebook(DEPOSIT / "annotation_codebook.json")
        for loaded in load_conversations(folder, codebook).conversations:
            truth = split_profile(loaded.conversation)[1].values()
            for f in VOCABULARY_FIELDS:
                for _, label in labels(f, truth[f.name]):
                    assert vocabulary.fields[f.name].listed(label) is not None, (f.name, label)


def test_options_reach_the_prompt_as_they_are(vocabulary: Vocabulary) -> None:
    # The schema's enum and the prompt's list must read the same.
    for options in vocabulary.options().values():
        assert all(quote(o) == o for o in options)


def test_ordinal_fields_list_their_options_lowest_first(vocabulary: Vocabulary) -> None:
    assert vocabulary.options()["age_range"] == ["18-24", "25-34", "35-44", "45-54", "55-64", "65+"]
    assert vocabulary.options()["education"] == [
        "Less than high school",
        "High school",
        "Some college or vocational training",
        "Bachelor's degree",
        "Master's degree",
        "Doctorate",
    ]


@pytest.mark.parametrize(
    ("field", "label", "option"),
    [
        ("country", "United States", "United States"),
        ("country", "united states", "United States"),  # case and spacing aside
        ("country", "USA", "United States"),  # an alias
        ("country", "Untied Kingdom", "United Kingdom"),  # close to exactly one option
        ("country", "Narnia", None),  # close to none
        ("country", "Congo", None),  # two countries: no alias, close to neither
        ("age_range", "25-44", None),  # 0.8 from both 25-34 and 35-44: ambiguous
        ("age_range", "25\u201334", "25-34"),  # an en dash
        ("education", "Vocational training", "Some college or vocational training"),
        ("education", "master\u2019s DEGREE", "Master's degree"),
        ("education", "Apprenticeship", None),
        ("diagnoses", "Anxiety", "Anxiety disorder"),
        ("diagnoses", "Anxiety disorders", "Anxiety disorder"),
        ("diagnoses", "Tourette syndrome", None),
    ],
)
def test_a_label_is_placed_as_its_option_an_alias_or_the_one_near_option(
    vocabulary: Vocabulary, field: str, label: str, option: str | None
) -> None:
    assert vocabulary.fields[field].place(label) == option


def test_a_profile_is_placed_and_what_cannot_be_is_counted(vocabulary: Vocabulary) -> None:
    truth = dict.fromkeys(f.name for f in VOCABULARY_FIELDS)
    truth.update(
        country="USA",
        gender="Agender",
        diagnoses=["Anxiety", "Tourette syndrome"],
        conversation_topic_attitude="Mixed",
        work_edu_background=["Retail"],
    )
    placed = vocabulary.placed(truth)
    assert placed.values["country"] == "United States"
    assert placed.values["gender"] is None and placed.values["education"] is None
    # One unplaceable diagnosis leaves the whole field unscored: the reported set is unknown.
    assert placed.values["diagnoses"] is None
    assert placed.values["work_edu_background"] == ["Retail"]  # no vocabulary: as given
    assert placed.unplaced == {"gender": ["Agender"], "diagnoses": ["Tourette syndrome"]}
    none = vocabulary.placed({**truth, "diagnoses": [NO_DIAGNOSIS], "gender": "Female"})
    assert none.values["diagnoses"] == [] and none.unplaced == {}


def test_validate_names_every_label_the_vocabulary_cannot_read(
    tmp_path: Path,
    conversation_raw: dict[str, Any],
    codebook: Codebook,
    vocabulary: Vocabulary,
    capsys: pytest.CaptureFixture[str],
) -> None:
    demographics = conversation_raw["participant_profile"]["demographics"]
    demographics.update(country="Narnia", diagnoses=["Anxiety disorders", "Tourette syndrome"])
    file = tmp_path / "c.json"
    file.write_text(json.dumps(conversation_raw))
    where = f"{file}: conversation: participant_profile.demographics"
    unscored = (
        "expected an option or alias of the profile vocabulary, or a label close to exactly one "
        "option (docs/profile.md); the field is not scored for this conversation"
    )
    assert [
        str(w) for w in validate_path(file, codebook, [vocabulary_check(vocabulary)]).warnings
    ] == [
        f"{where}.country: found Narnia; {unscored}",
        f"{where}.diagnoses[0]: found Anxiety disorders; expected an option or alias of the "
        "profile vocabulary; scored as Anxiety disorder, the one option it is close to "
        "(similarity >= 0.8)",
        f"{where}.diagnoses[1]: found Tourette syndrome; {unscored}",
    ]
    # A vocabulary of the user's own, where Narnia is a country.
    raw = _raw()
    raw["country"]["options"].append("Narnia")
    own = tmp_path / "vocabulary.json"
    own.write_text(json.dumps(raw))
    assert main(["validate", str(file), "--vocabulary", str(own)]) == 0
    out = capsys.readouterr().out
    assert "Narnia" not in out and "warnings: 2" in out


def _set(field: str, key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda raw: raw[field].update({key: value})


VOCABULARY_PROBLEMS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("a field missing", lambda raw: raw.pop("country"), "country: found nothing; expected this "
     "required field"),
    ("one option", _set("gender", "options", ["Female"]), "gender.options: found ['Female'] "
     "(list); expected List should have at least 2 items"),
    ("options not a list", _set("gender", "options", "Female"), "gender.options: found Female "
     "(str); expected a valid list"),
    ("a repeated option", _set("gender", "options", ["Female", "female", "Male"]),
     "gender.options: found ['Female', 'female', 'Male']; expected options that differ beyond "
     "case, commas and spacing (repeated: Female, female)"),
    ("an alias of no option", _set("gender", "aliases", {"Woman": "Lady"}), "gender.aliases: "
     "found {'Woman': 'Lady'}; expected aliases of options (not options: Lady)"),
    ("an alias that is an option", _set("gender", "aliases", {"MALE": "Female"}),
     "gender.aliases: found {'MALE': 'Female'}; expected aliases that read as no option or other "
     "alias (taken: Male, MALE)"),
    ("the empty set as an option", _set("diagnoses", "options", [NO_DIAGNOSIS, "ADHD"]),
     "diagnoses.options[0]: found None of the above; expected a label other than 'None of the "
     "above' (the format's empty set)"),
    ("markup in a label", _set("gender", "options", ["Female", "<b>Male"]),
     "gender.options[1]: found <b>Male; expected a label of 1-100 printable characters that "
     "begins with a letter or digit, without < or >"),
    ("an edge space", _set("gender", "options", ["Female", " Male"]), "gender.options[1]: found "
     "' Male'; expected a label of 1-100 printable characters"),
    ("a line break", _set("gender", "options", ["Female", "Ma\nle"]), "gender.options[1]: found "
     "'Ma\\nle'; expected a label of 1-100 printable characters"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "mutate", "expected"), VOCABULARY_PROBLEMS, ids=[p[0] for p in VOCABULARY_PROBLEMS]
)
def test_a_bad_vocabulary_is_one_located_line(
    tmp_path: Path, name: str, mutate: Callable[[dict[str, Any]], None], expected: str
) -> None:
    raw = copy.deepcopy(_raw())
    mutate(raw)
    file = tmp_path / "vocabulary.json"
    file.write_text(json.dumps(raw))
    with pytest.raises(DataError) as caught:
        load_vocabulary(file)
    problems = caught.value.problems
    assert len(problems) == 1 and str(problems[0]).startswith(f"{file}: conversation: {expected}")


def test_an_unreadable_vocabulary_is_one_located_line(tmp_path: Path) -> None:
    file = tmp_path / "vocabulary.json"
    file.write_text('{"country": ')
    with pytest.raises(DataError) as caught:
        load_vocabulary(file)
    [problem] = caught.value.problems
    assert str(problem).startswith(f"{file}: conversation: vocabulary: found invalid JSON")
    with pytest.raises(DataError, match="vocabulary: found nothing at this path"):
        load_vocabulary(tmp_path / "missing.json")


def test_a_vocabulary_survives_its_dump(vocabulary: Vocabulary) -> None:
    # The scorer is handed the dump (JSON in the log) and reads it back.
    again = Vocabulary.of(json.loads(json.dumps(vocabulary.dump())))
    assert again.fields == vocabulary.fields


def test_a_huge_label_is_placed_in_milliseconds(vocabulary: Vocabulary) -> None:
    # The ratio of every pair took 13 s for 100,000 characters against the country list; the
    # bounds on it rule a pair of very different lengths out at once.
    started = time.perf_counter()
    assert vocabulary.fields["country"].place("Canada " * 100_000) is None
    assert time.perf_counter() - started < 1.0
