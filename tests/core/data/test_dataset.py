"""The data layer: schema round trips, validation messages, loading formats, the split."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from pydantic import BaseModel

from attunebench_inspect import MODES, attunebench
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import (
    Codebook,
    Conversation,
    DataError,
    load_codebook,
    load_conversations,
    read_conversations,
)
from attunebench_inspect.data._codebook import GENERAL_PAIRWISE_TEXT, bundled_codebook_path
from attunebench_inspect.data._panas import POSITIVE_AFFECT
from attunebench_inspect.data._schema import Demographics
from attunebench_inspect.data._split import VisibleConversation, split
from attunebench_inspect.data._validate import validate_path
from attunebench_inspect.instruments.profile._vocabulary import Vocabulary, vocabulary_check
from tests.conftest import BUNDLED, FIXTURES

# Every field that carries a participant label, in the published and in our own naming.
LABEL_FIELDS = {
    "moodShiftTags",
    "mood_shift",
    "emotion",
    "intensity",
    "observedBehavior",
    "preferredBehavior",
    "observed",
    "preferred",
    "winner",
    "pairwise",
    "binary",
    "binaryJudgements",
    "postPanas",
    "post_panas",
    "conversationWideQuestions",
    "fourBranchScores",
    "four_branch",
    "q1_lookingFor",
    "q1_looking_for",
    "q2_emotionClarity",
    "q2_emotion_clarity",
    "q3_modelFit",
    "q3_model_fit",
    "q3_followUp_whatFeltOff",
    "q3_follow_up",
    "model",
    "om_model",
}


def test_bundled_set_is_large_and_varied(bundled_files: list[Path], codebook: Codebook) -> None:
    result = load_conversations(BUNDLED, codebook)
    convs = [c.conversation for c in result.conversations]
    assert len(convs) >= 24
    turns = [len(c.turns) for c in convs]
    assert sum(turns) / len(turns) >= 4 and min(turns) >= 3 and max(turns) <= 10
    assert len({c.metadata.category for c in convs}) >= 7
    diagnosed = [
        c for c in convs if c.participant_profile.demographics.diagnoses != ["None of the above"]
    ]
    assert 0 < len(diagnosed) < len(convs)
    every_turn = [t for c in convs for t in c.turns]
    assert any(not t.moodShiftTags for t in every_turn)
    assert any(
        j.preferredBehavior == "na" or j.observedBehavior == "na"
        for t in every_turn
        for j in t.annotations.binaryJudgements
    )
    assert all(len(t.annotations.pairwiseComparisons) == 12 for t in every_turn)
    for conv in convs:
        cw = conv.conversationWideQuestions
        negative = cw.q3_modelFit in codebook.q3_follow_up_when
        assert bool(cw.q3_followUp_whatFeltOff) == negative, conv.conversationId
    assert all(json.loads(f.read_text())["_synthetic"] for f in bundled_files)


def test_every_bundled_file_round_trips(bundled_files: list[Path]) -> None:
    for file in bundled_files:
        raw = json.loads(file.read_text())
        parsed = Conversation.model_validate(raw)
        assert parsed.model_dump(exclude_unset=True) == raw, file.name


def test_bundled_set_validates_clean(
    codebook: Codebook, vocabulary: Vocabulary, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = validate_path(BUNDLED, codebook, [vocabulary_check(vocabulary)])
    assert summary.problems == [] and summary.warnings == []
    assert main(["validate", str(BUNDLED)]) == 0
    out = capsys.readouterr().out
    assert f"conversations: {summary.conversations} ({summary.conversations} valid)" in out
    assert "problems: 0" in out


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(raw: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = raw
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        if value is _DELETE:
            del node[int(last) if last.isdigit() else last]
        else:
            node[int(last) if last.isdigit() else last] = value

    return mutate


_DELETE = object()
ID_RULE = (
    "an ID matching [A-Za-z0-9_-][A-Za-z0-9._-]{0,127} "
    "(1-128 ASCII letters, digits, '.', '_' or '-', not starting with '.')"
)

MALFORMATIONS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    (
        "missing user message",
        _set("turns.0.userMessage", _DELETE),
        "turn 1: userMessage: found nothing; expected this required field",
    ),
    (
        "intensity out of range",
        _set("turns.1.moodShiftTags", [{"emotion": "Upset", "intensity": 9}]),
        "turn 2: moodShiftTags[0].intensity: found 9 (int); expected less than or equal to 7",
    ),
    (
        "unknown emotion",
        _set("turns.0.moodShiftTags", [{"emotion": "Happy", "intensity": 3}]),
        "turn 1: moodShiftTags[0].emotion: found Happy; expected one of the 20 PANAS items",
    ),
    (
        "binary value",
        _set("turns.0.annotations.binaryJudgements.0.observedBehavior", "maybe"),
        "turn 1: annotations.binaryJudgements[0].observedBehavior: found maybe (str); "
        "expected 'yes', 'no' or 'na'",
    ),
    (
        "unknown binary question",
        _set("turns.0.annotations.binaryJudgements.0.questionId", "B999"),
        "turn 1: annotations.binaryJudgements[0].questionId: found B999; "
        "expected a binary question ID from the codebook",
    ),
    (
        "unknown pairwise question",
        _set("turns.0.annotations.pairwiseComparisons.0.questionId", "PW99"),
        "turn 1: annotations.pairwiseComparisons[0].questionId: found PW99",
    ),
    (
        "winner",
        _set("turns.0.annotations.pairwiseComparisons.0.winner", "C"),
        "turn 1: annotations.pairwiseComparisons[0].winner: found C (str); expected 'A' or 'B'",
    ),
    (
        "response source",
        _set("turns.0.annotations.pairwiseComparisons.0.responseA", "gpt"),
        "turn 1: annotations.pairwiseComparisons[0].responseA: found gpt (str)",
    ),
    (
        "string intensity",
        _set("turns.0.moodShiftTags", [{"emotion": "Upset", "intensity": "4"}]),
        "turn 1: moodShiftTags[0].intensity: found 4 (str); expected a valid integer",
    ),
    (
        "PANAS item out of range",
        _set("prePanas.responses.alert", 0),
        "conversation: prePanas.responses.alert: found 0 (int); "
        "expected greater than or equal to 1",
    ),
    (
        "unknown PANAS item",
        _set("prePanas.responses.happy", 3),
        "conversation: prePanas.responses: found",
    ),
    (
        "Four-Branch range",
        _set("conversationWideQuestions.fourBranchScores.managing", 8),
        "conversation: conversationWideQuestions.fourBranchScores.managing: found 8 (int)",
    ),
    (
        "Q2 option",
        _set("conversationWideQuestions.q2_emotionClarity", "Very clear"),
        "conversation: conversationWideQuestions.q2_emotionClarity: found Very clear; "
        "expected one of the codebook's q2_emotionClarity options",
    ),
    (
        "turn numbering",
        _set("turns.1.turnNumber", 5),
        "turn 5: turnNumber: found 5; expected 2 (turns numbered 1, 2, ... in order)",
    ),
    (
        "missing conversation id",
        _set("conversationId", _DELETE),
        "conversation: conversationId: found nothing; expected this required field",
    ),
    (
        "turns not a list",
        _set("turns", "none"),
        "conversation: turns: found none (str); expected a valid list",
    ),
    (
        "emotion with stray whitespace",
        _set("turns.0.moodShiftTags", [{"emotion": " Upset", "intensity": 3}]),
        "turn 1: moodShiftTags[0].emotion: found ' Upset'; expected one of the 20 PANAS items",
    ),
    (
        "NaN score",
        _set("participant_profile.computed_scores.who_5", float("nan")),
        "conversation: participant_profile.computed_scores.who_5: found nan (float); "
        "expected a finite number",
    ),
    (
        "infinite score",
        _set("participant_profile.computed_scores.promis_sleep_t", float("-inf")),
        "conversation: participant_profile.computed_scores.promis_sleep_t: found -inf (float); "
        "expected a finite number",
    ),
    *[
        (
            f"conversation id {name}",
            _set("conversationId", value),
            f"conversation: conversationId: found {found}; expected {ID_RULE}",
        )
        for name, value, found in (
            ("path", "../../x", "../../x"),
            ("newline", "abc\ndef", "'abc\\ndef'"),
            ("direction override", "\u202etxt.exe", "'\\u202etxt.exe'"),
            ("too long", "x" * 5000, "x" * 77 + "..."),
            ("blank", "", "''"),
            ("spaces", "  ", "'  '"),
            ("hidden", ".abc", ".abc"),
        )
    ],
    (
        "missing alternates",
        _set("turns.0.annotations.alternateResponses", _DELETE),
        "turn 1: annotations.alternateResponses: found nothing",
    ),
]


@pytest.mark.parametrize(
    ("name", "mutate", "expected"), MALFORMATIONS, ids=[m[0] for m in MALFORMATIONS]
)
def test_malformed_file_gives_one_located_line(
    tmp_path: Path,
    conversation_raw: dict[str, Any],
    codebook: Codebook,
    name: str,
    mutate: Callable[[dict[str, Any]], None],
    expected: str,
) -> None:
    mutate(conversation_raw)
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(conversation_raw))
    problems = read_conversations(file, codebook).problems
    assert len(problems) == 1, [str(p) for p in problems]
    assert str(problems[0]).startswith(f"{file}: {expected}")


def test_file_level_problems(tmp_path: Path, codebook: Codebook) -> None:
    (tmp_path / "broken.json").write_text('{"conversationId": ')
    (tmp_path / "latin1.json").write_bytes('{"x": "caf\xe9"}'.encode("latin-1"))
    messages = [str(p) for p in read_conversations(tmp_path, codebook).problems]
    assert any("broken.json: conversation: file: found invalid JSON" in m for m in messages)
    assert any(
        "latin1.json: conversation: file: found bytes that are not UTF-8" in m for m in messages
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "found no .json or .jsonl files" in str(read_conversations(empty, codebook).problems[0])


def test_duplicate_ids_and_formats(
    tmp_path: Path, conversation_raw: dict[str, Any], codebook: Codebook
) -> None:
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps([conversation_raw, conversation_raw]))
    problems = read_conversations(listing, codebook).problems
    assert [p.field for p in problems] == ["conversationId"]
    assert "a unique ID (also used by" in problems[0].expected

    second = dict(conversation_raw, conversationId="other")
    jsonl = tmp_path / "set.jsonl"
    jsonl.write_text(json.dumps(conversation_raw) + "\n\n" + json.dumps(second) + "\n")
    loaded = load_conversations(jsonl, codebook)
    assert [c.conversation.conversationId for c in loaded.conversations] == [
        conversation_raw["conversationId"],
        "other",
    ]
    assert loaded.conversations[1].source == f"{jsonl}:3"


def test_invalid_dataset_raises_unless_skipping(
    tmp_path: Path, conversation_raw: dict[str, Any], codebook: Codebook
) -> None:
    (tmp_path / "good.json").write_text(json.dumps(conversation_raw))
    bad = dict(conversation_raw, conversationId="bad", turns=[])
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(DataError, match=r"bad\.json: conversation: turns: found \[\] \(list\)"):
        load_conversations(tmp_path, codebook)
    kept = load_conversations(tmp_path, codebook, skip_invalid=True)
    assert [c.conversation.conversationId for c in kept.conversations] == [
        conversation_raw["conversationId"]
    ]
    assert kept.invalid_sources == [str(tmp_path / "bad.json")]


def test_validate_command_reports_and_fails(
    tmp_path: Path, conversation_raw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    conversation_raw["turns"][0]["moodShiftTags"] = [{"emotion": "Calm", "intensity": 2}]
    (tmp_path / "c.json").write_text(json.dumps(conversation_raw))
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(
        "turn 1: moodShiftTags[0].emotion: found Calm; "
        "expected one of the 20 PANAS items (case-insensitive)"
    )
    assert out[-1] == "problems: 1"


def _field_names(model: type[BaseModel], seen: set[type] | None = None) -> set[str]:
    seen = seen or set()
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(name)
        stack = [info.annotation]
        while stack:
            tp = stack.pop()
            if isinstance(tp, type) and issubclass(tp, BaseModel) and tp not in seen:
                seen.add(tp)
                names |= _field_names(tp, seen)
            stack.extend(typing.get_args(tp))
    return names


def test_visible_type_has_no_label_field() -> None:
    assert _field_names(VisibleConversation) & LABEL_FIELDS == set()


def test_split_keeps_labels_out_of_the_visible_part(conversation_raw: dict[str, Any]) -> None:
    conv = Conversation.model_validate(conversation_raw)
    visible, truth = split(conv)
    dumped = visible.model_dump_json()
    assert conv.metadata.model not in dumped
    assert truth.om_model == conv.metadata.model
    assert [t.turn_number for t in visible.turns] == [t.turnNumber for t in conv.turns]
    assert truth.turns[0].mood_shift == {t.item: t.intensity for t in conv.turns[0].moodShiftTags}


# --- warnings: odd but usable ---------------------------------------------------------------


def test_panas_totals_that_are_not_the_item_sums_are_warnings(
    tmp_path: Path, conversation_raw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    conversation_raw["postPanas"]["totalPositiveAffect"] = 71
    file = tmp_path / "c.json"
    file.write_text(json.dumps(conversation_raw))
    loaded = load_conversations(file, load_codebook())
    assert len(loaded.conversations) == 1 and loaded.problems == []
    positive = sum(conversation_raw["postPanas"]["responses"][i] for i in POSITIVE_AFFECT)
    line = (
        f"{file}: conversation: postPanas.totalPositiveAffect: found 71; expected {positive}, "
        "the sum of the 10 positive-affect items (the items are scored)"
    )
    assert [str(w) for w in loaded.warnings] == [line]
    assert main(["validate", str(file)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"warning: {line}"
    assert out[-2:] == ["warnings: 1", "problems: 0"]


def test_a_follow_up_after_a_positive_fit_is_a_warning(
    tmp_path: Path, conversation_raw: dict[str, Any], codebook: Codebook
) -> None:
    cw = conversation_raw["conversationWideQuestions"]
    cw["q3_modelFit"] = codebook.q3_options[-1]
    cw["q3_followUp_whatFeltOff"] = [codebook.follow_up_options[0]]
    file = tmp_path / "c.json"
    file.write_text(json.dumps(conversation_raw))
    result = read_conversations(file, codebook)
    assert result.problems == []
    assert [str(w) for w in result.warnings] == [
        f"{file}: conversation: conversationWideQuestions.q3_followUp_whatFeltOff: "
        f"found {[codebook.follow_up_options[0]]!r}; expected none after q3_modelFit "
        f"{codebook.q3_options[-1]!r}, which is not a negative answer "
        "(the follow-up is asked after one; this one is scored all the same)"
    ]


def test_validate_warns_on_follow_ups_that_match_no_option(
    tmp_path: Path, conversation_raw: dict[str, Any], codebook: Codebook, vocabulary: Vocabulary
) -> None:
    cw = conversation_raw["conversationWideQuestions"]
    cw["q3_modelFit"] = codebook.q3_follow_up_when[0]
    # Matched as Q3 Follow-up scoring matches: case and commas aside, similarity >= 0.8.
    near = codebook.follow_up_options[0].upper().replace(" OR ", ", ")
    cw["q3_followUp_whatFeltOff"] = [near, "It kept changing the subject"]
    file = tmp_path / "c.json"
    file.write_text(json.dumps(conversation_raw))
    summary = validate_path(file, codebook, [vocabulary_check(vocabulary)])
    assert summary.problems == []
    assert [str(w) for w in summary.warnings] == [
        f"{file}: conversation: conversationWideQuestions.q3_followUp_whatFeltOff[1]: "
        "found It kept changing the subject; expected close to a codebook follow-up option "
        "(similarity >= 0.8); it is scored, and only a prediction in similar words can match it"
    ]


# --- the codebook: what seed 003 documents, and nothing more --------------------------------

INVENTED = (
    ("name",),
    ("version",),
    ("provenance",),
    ("ratingScale",),
    ("moodShiftTags",),
    ("panas", "text"),
    ("panas", "scale"),
    ("conversationWide", "q1_lookingFor", "type"),
    ("conversationWide", "q2_emotionClarity", "type"),
    ("conversationWide", "q3_modelFit", "type"),
    ("conversationWide", "q3_modelFit", "followUpWhen"),
    ("conversationWide", "q3_followUp_whatFeltOff", "type"),
)


def _bundled_codebook() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(bundled_codebook_path().read_text())
    return data


def test_codebook_without_invented_fields_loads_and_derives_them(
    tmp_path: Path, codebook: Codebook
) -> None:
    raw = _bundled_codebook()
    for path in INVENTED:
        *parents, last = path
        node = raw
        for part in parents:
            node = node[part]
        del node[last]
    for branch in raw["fourBranch"]:
        del branch["definition"]
    raw["pairwiseQuestions"] = [q for q in raw["pairwiseQuestions"] if q["id"] != "general"]
    raw["panas"]["items"] = [i["id"].title() for i in raw["panas"]["items"]]
    raw["fromTheFuture"] = {"anything": [1, 2]}
    file = tmp_path / "codebook.json"
    file.write_text(json.dumps(raw))
    minimal = load_codebook(file)
    # The lower half of Q3's worst-to-best options: the bundled codebook's explicit list.
    assert minimal.q3_follow_up_when == codebook.q3_follow_up_when
    assert minimal.spec.conversationWide.q3_modelFit.followUpWhen == codebook.q3_follow_up_when
    assert minimal.pairwise["general"].text == GENERAL_PAIRWISE_TEXT
    assert [b.text for b in minimal.spec.fourBranch] == [b.text for b in codebook.spec.fourBranch]
    assert minimal.q1_options == codebook.q1_options


@pytest.mark.parametrize(
    ("options", "negative"),
    [(["bad", "good"], ["bad"]), (["bad", "meh", "good"], ["bad"]), (list("abcde"), ["a", "b"])],
)
def test_q3_negative_answers_are_those_below_the_middle(
    tmp_path: Path, options: list[str], negative: list[str]
) -> None:
    raw = _bundled_codebook()
    raw["conversationWide"]["q3_modelFit"] = {"text": "Fit?", "options": options}
    file = tmp_path / "codebook.json"
    file.write_text(json.dumps(raw))
    assert load_codebook(file).q3_follow_up_when == negative


CODEBOOK_PROBLEMS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    (
        "missing binary text",
        _set("binaryQuestions.0.text", _DELETE),
        "binaryQuestions[0].text: found nothing; expected this required field",
    ),
    (
        "one Q3 option",
        _set("conversationWide.q3_modelFit.options", ["Fine"]),
        "conversationWide.q3_modelFit.options: found ['Fine'] (list); "
        "expected List should have at least 2 items after validation, not 1",
    ),
    (
        "follow-up after a non-option",
        _set("conversationWide.q3_modelFit.followUpWhen", ["Awful"]),
        "conversationWide.q3_modelFit.followUpWhen: found ['Awful']; "
        "expected Q3 options only (not options: Awful)",
    ),
    (
        "repeated option",
        _set("conversationWide.q2_emotionClarity.options", ["Clear", "Clear"]),
        "conversationWide.q2_emotionClarity.options: found ['Clear', 'Clear']; "
        "expected each option once (repeated: Clear)",
    ),
    (
        "PANAS item of the wrong affect",
        _set("panas.items.0", {"id": "interested", "affect": "negative"}),
        "panas.items[0]: found {'id': 'interested', 'affect': 'negative'}; "
        "expected positive affect for interested, as in PANAS",
    ),
    (
        "a branch missing",
        _set("fourBranch.3", _DELETE),
        "fourBranch: found [{'id': 'perceiving', 'text': ",
    ),
    (
        "nested too deep",
        lambda raw: raw.update(deep=json.loads("[" * 100 + "]" * 100)),
        "codebook: found JSON nested deeper than 64 levels; expected a codebook object",
    ),
]


@pytest.mark.parametrize(
    ("name", "mutate", "expected"), CODEBOOK_PROBLEMS, ids=[m[0] for m in CODEBOOK_PROBLEMS]
)
def test_bad_codebook_gives_one_located_line(
    tmp_path: Path,
    name: str,
    mutate: Callable[[dict[str, Any]], None],
    expected: str,
) -> None:
    raw = _bundled_codebook()
    mutate(raw)
    file = tmp_path / "codebook.json"
    file.write_text(json.dumps(raw))
    with pytest.raises(DataError) as caught:
        load_codebook(file)
    problems = caught.value.problems
    assert len(problems) == 1 and str(problems[0]).startswith(f"{file}: conversation: {expected}")


def test_profile_in_context_has_documented_fields_only(conversation_raw: dict[str, Any]) -> None:
    profile = conversation_raw["participant_profile"]
    profile["secret_note"] = "CANARY-PROFILE"
    profile["demographics"]["household_income"] = "CANARY-DEMOGRAPHICS"
    profile["computed_scores"]["gad_7"] = 1234.5
    visible, _ = split(Conversation.model_validate(conversation_raw))
    shown = visible.background.model_dump_json()
    assert "CANARY" not in shown and "gad_7" not in shown and "1234.5" not in shown
    assert set(visible.background.profile) == {"demographics", "computed_scores"}
    assert visible.background.profile["demographics"] == {
        k: profile["demographics"].get(k) for k in Demographics.model_fields
    }


# --- a deposit-shaped set: the seed's fields only, and the oddities real data has ------------

DEPOSIT = FIXTURES / "deposit"


def test_deposit_shaped_set_validates_with_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "validate",
            str(DEPOSIT / "conversations"),
            "--codebook",
            str(DEPOSIT / "annotation_codebook.json"),
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    warnings = [line for line in out if line.startswith("warning: ")]
    assert len(warnings) == 6 and out[-2:] == ["warnings: 6", "problems: 0"]
    assert "conversations: 3 (3 valid)" in out
    assert any(
        "postPanas.totalNegativeAffect: found 35; expected 32, the sum of the 10 negative-affect "
        "items" in line
        for line in warnings
    )
    assert any(
        "q3_followUp_whatFeltOff[0]: found It assumed my friend was the bad guy; expected close "
        "to a codebook follow-up option" in line
        for line in warnings
    )
    for file in (DEPOSIT / "conversations").glob("*.json"):
        assert json.loads(file.read_text())["_synthetic"]


@pytest.fixture(scope="module")
def deposit_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """The random baseline on the deposit-shaped set in every mode, by mode."""
    tasks = [
        attunebench(
            mode=mode,
            data=str(DEPOSIT / "conversations"),
            codebook=str(DEPOSIT / "annotation_codebook.json"),
        )
        for mode in MODES
    ]
    logs = eval(
        tasks,
        model="attunebench/random",
        display="none",
        log_dir=str(tmp_path_factory.mktemp("deposit_runs")),
    )
    return {str(log.eval.task_args["mode"]): log for log in logs}


@pytest.mark.parametrize("mode", MODES)
def test_deposit_shaped_set_runs_in_every_mode(deposit_runs: dict[str, EvalLog], mode: str) -> None:
    log = deposit_runs[mode]
    assert log.status == "success" and log.results is not None
    assert log.results.completed_samples == 3
    assert log.eval.task == "attunebench_inspect/attunebench"
    assert log.eval.metadata is not None and len(log.eval.metadata["data_warnings"]) == 4
