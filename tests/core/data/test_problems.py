"""Hundreds of mutated dataset files: never a traceback, always a file/turn/field message."""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import list_eval_logs, read_eval_log

from attunebench_inspect import attunebench
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import Codebook, read_conversations
from attunebench_inspect.data._checks import MAX_CONVERSATION_CHARS, MAX_MESSAGE_CHARS
from attunebench_inspect.data._problems import InputError
from tests.commands import inspect_eval
from tests.conftest import BUNDLED

LINE = re.compile(
    r"^(?P<source>.+?): (turn \d+|conversation): (?P<field>\S+): found .*; expected .+$"
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON document."""
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        doc = doc[part]
    return doc


REQUIRED_LEAVES = (
    "userMessage",
    "llmResponse",
    "questionId",
    "winner",
    "intensity",
    "emotion",
    "responseA",
    "observedBehavior",
    "conversationId",
    "totalPositiveAffect",
)


def mutate(raw: dict[str, Any], kind: str, rng: random.Random) -> str | bytes:
    """One broken version of a conversation file (text or raw bytes)."""
    doc = json.loads(json.dumps(raw))
    paths = _paths(doc)
    if kind == "remove":
        path = rng.choice([p for p in paths if p[-1] in REQUIRED_LEAVES])
        del _parent(doc, path)[path[-1]]
    elif kind == "retype":
        path = rng.choice([p for p in paths if not isinstance(_parent(doc, p)[p[-1]], dict | list)])
        value = _parent(doc, path)[path[-1]]
        _parent(doc, path)[path[-1]] = [value] if isinstance(value, str) else str(value) + "x"
    elif kind == "out_of_range":
        path = rng.choice(
            [p for p in paths if p[-1] in ("intensity", "managing", "alert", "upset")]
        )
        _parent(doc, path)[path[-1]] = rng.choice([0, 8, -3, 99])
    elif kind == "bad_enum":
        path = rng.choice(
            [
                p
                for p in paths
                if p[-1]
                in ("observedBehavior", "winner", "responseB", "q2_emotionClarity", "emotion")
            ]
        )
        _parent(doc, path)[path[-1]] = "definitely-not-valid"
    elif kind == "truncated":
        text = json.dumps(doc)
        return text[: rng.randint(1, len(text) - 2)]
    elif kind == "encoding":
        return json.dumps(doc, ensure_ascii=False).encode("utf-16")
    elif kind == "not_object":
        return json.dumps(rng.choice([42, "conversation", None, [1, 2]]))
    elif kind == "empty_turns":
        doc["turns"] = []
    return json.dumps(doc)


KINDS = (
    "remove",
    "retype",
    "out_of_range",
    "bad_enum",
    "truncated",
    "encoding",
    "not_object",
    "empty_turns",
)


def test_two_hundred_mutations_give_located_messages(tmp_path: Path, codebook: Codebook) -> None:
    rng = random.Random(2026)
    files = sorted(BUNDLED.glob("*.json"))
    count = 0
    for file in files:
        raw = json.loads(file.read_text(encoding="utf-8"))
        for kind in KINDS:
            broken = mutate(raw, kind, rng)
            target = tmp_path / f"{file.stem}-{kind}.json"
            if isinstance(broken, bytes):
                target.write_bytes(broken)
            else:
                target.write_text(broken, encoding="utf-8")
            result = read_conversations(target, codebook)
            count += 1
            assert result.problems, (kind, file.name)
            for problem in result.problems:
                match = LINE.match(str(problem))
                assert match, str(problem)
                assert match["source"].startswith(str(target))
    assert count >= 200


def test_validate_command_on_a_folder_of_broken_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(7)
    for i, file in enumerate(sorted(BUNDLED.glob("*.json"))[:8]):
        broken = mutate(json.loads(file.read_text(encoding="utf-8")), KINDS[i], rng)
        mode = "wb" if isinstance(broken, bytes) else "w"
        with open(tmp_path / file.name, mode) as handle:
            handle.write(broken)
    (tmp_path / "dup-a.json").write_text(
        (BUNDLED / sorted(p.name for p in BUNDLED.glob("*.json"))[9]).read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    (tmp_path / "dup-b.json").write_text(
        (tmp_path / "dup-a.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    assert main(["validate", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    problems = [
        line
        for line in lines
        if not re.match(
            r"^(data|conversations|turns|annotations|warnings|problems): |warning: ", line
        )
    ]
    assert problems and all(LINE.match(line) for line in problems)
    assert any("a unique ID (also used by" in line for line in problems)
    assert lines[-1] == f"problems: {len(problems)}"


def test_skip_invalid_runs_the_rest_and_records_why(small_dataset: Callable[[int], Path]) -> None:
    data = small_dataset(3)
    first = sorted(data.glob("*.json"))[0]
    raw = json.loads(first.read_text(encoding="utf-8"))
    raw["turns"][0]["moodShiftTags"] = [{"emotion": "Serene", "intensity": 3}]
    first.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(ValueError, match="Serene"):
        attunebench(data=str(data))
    log = eval(
        attunebench(data=str(data), skip_invalid=True),
        model="attunebench/majority",
        display="none",
        log_dir=str(data.parent / "logs"),
    )[0]
    assert log.status == "success" and log.samples is not None and len(log.samples) == 2
    assert log.eval.metadata is not None
    skipped = log.eval.metadata["skipped_conversations"]
    assert list(skipped) == [str(first)]
    assert "found Serene" in skipped[str(first)][0]


# --- input that once got a traceback, or nothing: one located line each --------------------


@pytest.mark.parametrize("display", ["full", "none"])
def test_inspect_eval_shows_data_problems_without_a_traceback(
    tmp_path: Path, conversation_raw: dict[str, Any], display: str
) -> None:
    del conversation_raw["turns"][0]["userMessage"]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "c.json").write_text(json.dumps(conversation_raw), encoding="utf-8")
    code, output = inspect_eval(
        "default", "-T", f"data={tmp_path / 'data'}", "--display", display, log_dir=tmp_path
    )
    assert code == 1
    assert "Traceback" not in output and "ExceptionGroup" not in output
    line = "turn 1: userMessage: found nothing; expected this required field"
    assert f"{tmp_path / 'data' / 'c.json'}: {line}" in output.splitlines()


def test_deeply_nested_json_is_one_problem_and_skippable(
    tmp_path: Path, conversation_raw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.json").write_text(json.dumps(conversation_raw), encoding="utf-8")
    (tmp_path / "deep.json").write_text("[" * 10_000 + "]" * 10_000, encoding="utf-8")
    (tmp_path / "deep.jsonl").write_text('{"a": ' * 100 + "1" + "}" * 100, encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        f"{tmp_path / 'deep.json'}: conversation: file: found JSON nested deeper than 64 levels; "
        "expected a conversation object",
        f"{tmp_path / 'deep.jsonl'}:1: conversation: line: found JSON nested deeper than 64 "
        "levels; expected a conversation object",
    ]
    task = attunebench(data=str(tmp_path), skip_invalid=True)
    assert len(task.dataset) == 1
    assert task.metadata is not None
    assert sorted(task.metadata["skipped_conversations"]) == [
        str(tmp_path / "deep.json"),
        f"{tmp_path / 'deep.jsonl'}:1",
    ]


def test_links_that_lead_nowhere_are_problems_and_extensions_any_case(
    tmp_path: Path, conversation_raw: dict[str, Any], codebook: Codebook
) -> None:
    (tmp_path / "A.JSON").write_text(json.dumps(conversation_raw), encoding="utf-8")
    other = dict(conversation_raw, conversationId="other-id")
    (tmp_path / "b.Jsonl").write_text(json.dumps(other) + "\n", encoding="utf-8")
    (tmp_path / "dangling.json").symlink_to("missing.json")
    (tmp_path / "loop.json").symlink_to("loop.json")
    (tmp_path / "notes.txt").write_text("not a conversation", encoding="utf-8")
    result = read_conversations(tmp_path, codebook)
    assert [c.conversation.conversationId for c in result.conversations] == [
        conversation_raw["conversationId"],
        "other-id",
    ]
    assert [str(p) for p in result.problems] == [
        f"{tmp_path / 'dangling.json'}: conversation: file: found a dangling symbolic link "
        "(to missing.json); expected a conversation file",
        f"{tmp_path / 'loop.json'}: conversation: file: found a symbolic link loop; "
        "expected a conversation file",
    ]
    assert [str(p) for p in read_conversations(tmp_path / "dangling.json", codebook).problems] == [
        f"{tmp_path / 'dangling.json'}: conversation: path: found a dangling symbolic link "
        "(to missing.json); expected a conversation folder, JSON file or JSONL file"
    ]


# --- hostile input: one located line each, and the rest runs --------------------------------------

DIGITS = "9" * 5_000
OVERLONG = (
    f"found an integer of 5,000 digits; expected a number of at most "
    f"{sys.get_int_max_str_digits():,} digits"
)
SURROGATE = (
    "found a lone surrogate \\u{code} (character {at}); expected valid Unicode text "
    "(a \\ud800-\\udfff escape only as half of a surrogate pair)"
)
REPEATED = (
    "found the key more than once in one object; expected each key once (the last value is used)"
)
NO_CONVERSATION = "found no conversation; expected at least one conversation object"


def _with_raw(raw: dict[str, Any], old: str, new: str) -> str:
    """`raw` as JSON text with the first `old` replaced by raw JSON text `new` (which json.dumps
    cannot write: an overlong number, a lone surrogate escape, a key twice)."""
    text = json.dumps(raw)
    assert old in text
    return text.replace(old, new, 1)


def _hostile_folder(folder: Path, raw: dict[str, Any]) -> list[str]:
    """A good conversation beside one with an overlong integer and one with a lone surrogate;
    the lines `validate` must print for them."""
    folder.mkdir()
    (folder / "good.json").write_text(json.dumps(raw), encoding="utf-8")
    digits = dict(raw, conversationId="digits", notes={"attackCount": 0})
    (folder / "digits.json").write_text(
        _with_raw(digits, '"attackCount": 0', f'"attackCount": {DIGITS}'), encoding="utf-8"
    )
    raw["turns"][0]["userMessage"] = "MARK" + raw["turns"][0]["userMessage"]
    surrogate = dict(raw, conversationId="surrogate", extra={"MARK": 1})
    (folder / "surrogate.jsonl").write_text(
        _with_raw(surrogate, "MARK", "\\ud800").replace('"MARK"', '"k\\udfff"') + "\n",
        encoding="utf-8",
    )
    return [
        f"{folder / 'digits.json'}: conversation: notes.attackCount: {OVERLONG}",
        f"{folder / 'surrogate.jsonl'}:1: turn 1: userMessage: "
        + SURROGATE.format(code="d800", at=1),
        f"{folder / 'surrogate.jsonl'}:1: conversation: 'extra.k\\udfff': "
        + SURROGATE.format(code="dfff", at=2),
    ]


def test_overlong_integers_and_lone_surrogates_are_located_problems(
    tmp_path: Path, conversation_raw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    expected = _hostile_folder(data, conversation_raw)
    assert main(["validate", str(data)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[: len(expected)] == expected
    assert lines[-1] == f"problems: {len(expected)}"
    with pytest.raises(InputError) as caught:
        attunebench(data=str(data))
    assert str(caught.value).splitlines()[1:-1] == expected
    task = attunebench(data=str(data), skip_invalid=True)
    assert [s.id for s in task.dataset] == [conversation_raw["conversationId"]]
    assert task.metadata is not None
    assert sorted(task.metadata["skipped_conversations"]) == [
        str(data / "digits.json"),
        f"{data / 'surrogate.jsonl'}:1",
    ]


def test_a_codebook_with_an_overlong_integer_is_a_located_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "codebook.json"
    raw = json.loads((BUNDLED.parent / "annotation_codebook.json").read_text(encoding="utf-8"))
    book.write_text(
        _with_raw(dict(raw, attackVersion=1), '"attackVersion": 1', f'"attackVersion": {DIGITS}')
    )
    assert main(["validate", str(BUNDLED), "--codebook", str(book)]) == 1
    assert (
        capsys.readouterr().err.splitlines()[1]
        == f"{book}: conversation: attackVersion: {OVERLONG}"
    )


@pytest.mark.parametrize("shape", ["empty list", "empty JSONL", "folder of empty files"])
def test_a_dataset_without_a_conversation_is_a_problem(
    tmp_path: Path, shape: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if shape == "empty list":
        path = tmp_path / "set.json"
        path.write_text("[]\n", encoding="utf-8")
    elif shape == "empty JSONL":
        path = tmp_path / "set.jsonl"
        path.write_text("\n\n", encoding="utf-8")
    else:
        path = tmp_path / "set"
        path.mkdir()
        (path / "a.jsonl").write_text("", encoding="utf-8")
        (path / "b.json").write_text("[]", encoding="utf-8")
    line = f"{path}: conversation: {'folder' if path.is_dir() else 'file'}: {NO_CONVERSATION}"
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == line
    for skip_invalid in (False, True):
        with pytest.raises(InputError) as caught:
            attunebench(data=str(path), skip_invalid=skip_invalid)
        assert str(caught.value).splitlines()[1] == line


def test_keys_given_twice_are_located_warnings(
    tmp_path: Path, conversation_raw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "c.json"
    conversation_raw["turns"][1]["userMessage"] = "first"
    text = _with_raw(
        conversation_raw, '"userMessage": "first"', '"userMessage": "a", "userMessage": "b"'
    )
    data.write_text(
        text.replace('"conversationId": ', '"conversationId": "x", "conversationId": ', 1)
    )
    book = tmp_path / "book.json"  # before c.json: validate sorts warnings by file
    raw_book = (BUNDLED.parent / "annotation_codebook.json").read_text(encoding="utf-8")
    book.write_text(raw_book.replace("{", '{"binaryQuestions": [], ', 1), encoding="utf-8")
    warnings = [
        f"warning: {book}: conversation: binaryQuestions: {REPEATED}",
        f"warning: {data}: conversation: conversationId: {REPEATED}",
        f"warning: {data}: turn 2: userMessage: {REPEATED}",
    ]
    assert main(["validate", str(data), "--codebook", str(book)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if line.startswith("warning: ")] == warnings
    task = attunebench(data=str(data), codebook=str(book))
    assert task.metadata is not None
    assert task.metadata["data_warnings"] == [w.removeprefix("warning: ") for w in warnings]
    assert next(iter(task.dataset)).id == conversation_raw["conversationId"]


def test_inspect_eval_says_what_is_wrong_in_a_line_and_runs_the_rest(
    tmp_path: Path, conversation_raw: dict[str, Any]
) -> None:
    data = tmp_path / "data"
    expected = _hostile_folder(data, conversation_raw)
    code, output = inspect_eval("default", "-T", f"data={data}", log_dir=tmp_path / "a")
    assert code == 1 and "Traceback" not in output
    lines = output.splitlines()
    assert all(line in lines for line in expected)
    code, output = inspect_eval(
        "default", "-T", f"data={data}", "-T", "skip_invalid=true", log_dir=tmp_path / "b"
    )
    assert code == 0, output
    log = read_eval_log(list_eval_logs(str(tmp_path / "b"))[0].name)
    assert log.status == "success" and log.samples is not None
    assert [s.id for s in log.samples] == [conversation_raw["conversationId"]]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code, output = inspect_eval("default", "-T", f"data={empty}", log_dir=tmp_path / "c")
    assert code == 1 and "Traceback" not in output
    assert f"{empty}: conversation: file: {NO_CONVERSATION}" in output.splitlines()


def test_the_bundled_set_has_no_hidden_characters(capsys: pytest.CaptureFixture[str]) -> None:
    """Emoji sequences (a variation selector, joiners) are writing, not hiding."""
    assert main(["validate"]) == 0
    assert "invisible" not in capsys.readouterr().out


def test_validate_warns_of_oversized_messages_and_conversations(
    tmp_path: Path, conversation_raw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    raw = json.loads(json.dumps(conversation_raw))
    raw["turns"][1]["userMessage"] = "x" * (MAX_MESSAGE_CHARS + 1)
    for turn in raw["turns"]:
        turn["llmResponse"] = "y" * (MAX_CONVERSATION_CHARS // len(raw["turns"]))
    (tmp_path / "c.json").write_text(json.dumps(raw), encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (
        f"{tmp_path / 'c.json'}: turn 2: userMessage: found {MAX_MESSAGE_CHARS + 1:,} "
        f"characters; expected at most {MAX_MESSAGE_CHARS:,}"
    ) in out
    assert f"{tmp_path / 'c.json'}: conversation: turns: found " in out
    assert f"expected at most {MAX_CONVERSATION_CHARS:,} (about 100,000 tokens" in out
