"""Data problems: one located, one-line message per thing wrong with a dataset file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Inspect's CLI prints a PrerequisiteError as its message alone; it has no public export.
from inspect_ai._util.error import (  # inspect-evals-lint: ignore[private_api_imports] -- see above
    PrerequisiteError,
)
from pydantic_core import ErrorDetails
from rich.markup import escape

_MAX_FOUND = 80


def _plain(text: str) -> bool:
    """Whether a string printed bare reads back as itself (no edge, repeated or odd whitespace,
    no invisible characters, not empty)."""
    return text != "" and text.isprintable() and " ".join(text.split()) == text


def shorten(value: object) -> str:
    """A found value for a message, on one line: a string bare where that is unambiguous, else
    (and any other value) its repr, so ' Upset' or 'a\\nb' show what is really there."""
    text = value if isinstance(value, str) and _plain(value) else repr(value)
    return text if len(text) <= _MAX_FOUND else text[: _MAX_FOUND - 3] + "..."


def _printable(text: str) -> str:
    # A file name or key with a newline or a direction override would break or scramble the line.
    return text if text.isprintable() else repr(text)


@dataclass(frozen=True)
class DataProblem:
    """Where (file, turn, field) a dataset is wrong, what was found and what was expected.

    Also the shape of a warning: something odd that does not stop a conversation being used."""

    source: str
    turn: int | None
    field: str
    found: str
    expected: str
    conversation_id: str | None = None

    def __str__(self) -> str:
        turn = f"turn {self.turn}" if self.turn is not None else "conversation"
        return (
            f"{_printable(self.source)}: {turn}: {_printable(self.field)}: "
            f"found {self.found}; expected {self.expected}"
        )


def field_name(loc: Sequence[int | str]) -> str:
    """A pydantic error location as a dotted path: `turns[0].moodShiftTags[1].emotion`."""
    name = ""
    for part in loc:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "(root)"


def found_in(error: ErrorDetails) -> str:
    if error["type"] == "missing":
        return "nothing"
    if error["type"].startswith("value_error"):
        return shorten(error["input"])
    return f"{shorten(error['input'])} ({type(error['input']).__name__})"


def expected_in(error: ErrorDetails) -> str:
    if error["type"] == "missing":
        return "this required field"
    message = error["msg"]
    for prefix in ("Input should be ", "Value error, "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


class InputError(PrerequisiteError, ValueError):
    """Input the suite cannot use (a dataset, a codebook, a task parameter), in lines a user can
    act on. A PrerequisiteError because Inspect's CLI prints those as their message alone, with no
    traceback; a ValueError because that is what it is to a Python caller."""

    def __init__(self, text: str) -> None:
        # Inspect prints the message through rich, which would read "[old]" in a path as markup.
        super().__init__(escape(text))
        self.args = (text,)


class Problems(InputError):
    """Several problems that stop one input's use (`concern`), one located line each."""

    def __init__(self, problems: Sequence[str], concern: str) -> None:
        self.problems = list(problems)
        self.concern = concern
        super().__init__(f"{len(self.problems)} problem(s) with {concern}:\n" + "\n".join(problems))


class DataError(InputError):
    """A dataset or codebook that cannot be used; carries every problem found, and a hint that
    names only what the command being run can do about them."""

    def __init__(self, problems: Sequence[DataProblem], hint: str | None = None) -> None:
        self.problems = list(problems)
        lines = [str(p) for p in self.problems[:20]]
        if len(self.problems) > 20:
            lines.append(f"... and {len(self.problems) - 20} more problem(s)")
        if hint:
            lines.append(f"({hint})")
        super().__init__(f"{len(self.problems)} data problem(s):\n" + "\n".join(lines))
