"""Answer files: one annotator's answers to the protocol's calls, per conversation and turn, each
in the shape of its call's response schema. A file is checked against `answers.schema.json`, then
against the data it is imported with; every problem is one line. Nothing below `conversations` is
required: a missing answer is a parse failure of its call, as an unusable model reply is."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]

from ..._parameters import TASK_VERSION
from ..._util.files import MAX_ANSWERS_BYTES, FileProblem, read_capped
from ...data import _jsonfile as jsonfile
from ...data._codebook import Codebook
from ...data._problems import InputError, shorten
from ...data._split import VisibleConversation
from ...solve._call_record import CallType
from ...solve._modes import MODES, PRIMARY

HUMAN_PROVIDER = "human"
"""The provider of replayed answer files: a run's model is `human/<annotator>`."""


def is_human(model: str) -> bool:
    """Whether a run's model is a replayed answer file (a person, or another harness)."""
    return model.startswith(HUMAN_PROVIDER + "/")


FORMAT = "attunebench-answers/1"
SCHEMA_FILE = Path(__file__).with_name("answers.schema.json")
_MAX_LINES = 50


class AnswersError(InputError):
    """Answer files that cannot be imported, one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        lines = problems[:_MAX_LINES]
        if len(problems) > _MAX_LINES:
            lines.append(f"... and {len(problems) - _MAX_LINES} more problem(s)")
        super().__init__(f"{len(problems)} answer-file problem(s):\n" + "\n".join(lines))


@cache
def answers_schema() -> dict[str, Any]:
    """The published JSON Schema of answer files, its modes filled in from their declaration."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    schema["properties"]["mode"].update(enum=list(MODES), default=PRIMARY)
    return schema


@dataclass(frozen=True)
class Answers:
    """A checked answer file."""

    path: str
    annotator: str
    mode: str
    shuffle_seed: int
    codebook_sha256: str | None
    conversations: dict[str, dict[str, Any]]
    task_version: str
    """The task version of the page that asked (required: `asked_otherwise`)."""
    page: dict[str, Any] | None = None
    """The exported page that saved the file: its `id` and the `conversations` it exported
    (None: another harness's file, which `human import` refuses)."""
    warnings: tuple[str, ...] = ()
    """Keys given twice in one object (the last value is used), one located line each."""

    @property
    def model(self) -> str:
        return f"{HUMAN_PROVIDER}/{self.annotator}"

    @property
    def ids(self) -> list[str]:
        return sorted(self.conversations)

    def answer(self, conversation_id: str, call: CallType, turn: int | None) -> Any:
        """The file's answer to one call, None where it gives none."""
        answers = self.conversations.get(conversation_id, {})
        if turn is None:
            return answers.get("post")
        return answers.get("turns", {}).get(str(turn), {}).get(call)


def _where(path: Any) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _expected(error: ValidationError) -> str:
    schema = error.schema
    if error.validator == "enum":
        return "one of " + ", ".join(map(str, schema["enum"]))
    if error.validator == "const":
        return str(schema["const"])
    if error.validator == "type":
        return f"a {schema['type']}"
    if error.validator == "pattern":
        return f"text matching {schema['pattern']}"
    return str(error.message)


def _line(source: str, error: ValidationError) -> str:
    where = _where(error.absolute_path)
    if error.validator == "required":
        missing = next(iter(set(error.validator_value) - set(error.instance)), "")
        return f"{source}: {where}: missing the required field {missing}"
    if error.validator == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known))
        return (
            f"{source}: {where}: found the field(s) {', '.join(map(shorten, unknown))}; "
            f"expected only {', '.join(known)}"
        )
    if "propertyNames" in error.relative_schema_path:
        # The key itself is wrong: jsonschema reports it at its object, with the key as instance.
        key = shorten(error.instance)
        return f"{source}: {where}: found the key {key}; expected {_expected(error)}"
    return f"{source}: {where}: found {shorten(error.instance)}; expected {_expected(error)}"


def _finding(source: str, finding: jsonfile.Finding) -> str:
    return f"{source}: {_where(finding.loc)}: found {finding.found}; expected {finding.expected}"


def read_answers(path: str | Path) -> Answers:
    """Read one answer file, checked against its schema; `AnswersError` lists every problem."""
    source = str(path)
    try:
        document = jsonfile.loads(read_capped(path, MAX_ANSWERS_BYTES).decode("utf-8-sig"))
    except FileProblem as ex:
        raise AnswersError([str(ex)]) from None
    except UnicodeDecodeError as ex:
        raise AnswersError([f"{source}: bytes that are not UTF-8 ({ex.reason})"]) from None
    except json.JSONDecodeError as ex:
        raise AnswersError(
            [f"{source}: invalid JSON ({ex.msg} at line {ex.lineno} column {ex.colno})"]
        ) from None
    except jsonfile.TooDeepError as ex:
        raise AnswersError([f"{source}: {ex}"]) from None
    if document.problems:
        raise AnswersError([_finding(source, f) for f in document.problems])
    data = document.value
    validator = Draft202012Validator(answers_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        raise AnswersError([_line(source, e) for e in errors])
    return Answers(
        path=source,
        annotator=data["annotator"],
        mode=data.get("mode", PRIMARY),
        shuffle_seed=data.get("shuffle_seed", 0),
        codebook_sha256=data.get("codebook_sha256"),
        conversations=data["conversations"],
        task_version=data["task_version"],
        page=data.get("page"),
        warnings=tuple(_finding(source, f) for f in document.warnings),
    )


def version_number(version: str) -> str:
    return version.split("-", 1)[0]


def asked_otherwise(answers: Answers, codebook: Codebook) -> list[str]:
    """Whether the file answers other questions than this suite and codebook ask: another
    codebook, or a page of another task version number (docs/third-party.md, 'The task
    version')."""
    source = answers.path
    problems = []
    if answers.codebook_sha256 not in (None, codebook.sha256):
        problems.append(
            f"{source}: codebook_sha256: found {answers.codebook_sha256}; expected "
            f"{codebook.sha256} (the answers were given to another codebook's questions than "
            f"{codebook.path})"
        )
    version = answers.task_version
    if version_number(version) != version_number(TASK_VERSION):
        problems.append(
            f"{source}: task_version: found {version}; expected "
            f"{version_number(TASK_VERSION)}-* (the answers were given on the page of another "
            f"task version than this suite's {TASK_VERSION}: its questions or its replies' labels "
            "may differ)"
        )
    return problems


def problems_with_data(
    answers: Answers, conversations: Mapping[str, VisibleConversation], codebook: Codebook
) -> list[str]:
    """Why a well-formed file is unusable here: absent turns or conversations, another codebook."""
    source = answers.path
    problems = asked_otherwise(answers, codebook)
    if not answers.conversations:
        problems.append(f"{source}: conversations: found none; expected at least one")
    for cid, given in sorted(answers.conversations.items()):
        conv = conversations.get(cid)
        if conv is None:
            problems.append(
                f"{source}: conversations.{cid}: found a conversation the data does not have"
            )
            continue
        turns = len(conv.turns)
        for number in sorted(given.get("turns", {}), key=int):
            if not 1 <= int(number) <= turns:
                problems.append(
                    f"{source}: conversations.{cid}.turns.{number}: found turn {number}; "
                    f"expected 1 to {turns}"
                )
    return problems
