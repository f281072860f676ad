"""JSON text to Python values, checked for what no schema sees: nesting deeper than a conversation
goes, integers past Python's limit on digits, lone surrogates, keys given twice and characters a
reader cannot see."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from .._util.files import MAX_CONFIG_BYTES, FileProblem, read_capped
from .._util.invisible import describe, hidden
from ._problems import DataError, DataProblem, expected_in, field_name, found_in

Model = TypeVar("Model", bound=BaseModel)

MAX_DEPTH = 64
TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels"

Location = tuple[int | str, ...]
"""Where in a document, as pydantic locates a value: keys and list indexes from the top."""

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


class TooDeepError(ValueError):
    """A JSON document nested deeper than MAX_DEPTH."""


@dataclass(frozen=True)
class Finding:
    """Something wrong at one place in a document: what was found there, what was expected."""

    loc: Location
    found: str
    expected: str


@dataclass(frozen=True)
class Document:
    value: Any
    problems: list[Finding] = field(default_factory=list)
    """What makes the document unusable: an integer too long to convert (it would raise wherever
    it is read) and a lone surrogate (it cannot be written as UTF-8, so not into a log)."""
    warnings: list[Finding] = field(default_factory=list)
    """Keys given twice in an object (the last value is used, as every JSON reader here does),
    and text with invisible characters writing does not explain (`invisible.hidden`)."""

    def item(self, index: int) -> Document:
        """The document's `index`th list item, with the findings located in it."""

        def inside(findings: list[Finding]) -> list[Finding]:
            return [
                Finding(f.loc[1:], f.found, f.expected) for f in findings if f.loc[:1] == (index,)
            ]

        return Document(self.value[index], inside(self.problems), inside(self.warnings))


@dataclass(frozen=True)
class _Overlong:
    """An integer literal past Python's limit on digits, left in place so that the walk can say
    where it is (the decoder would raise with no location)."""

    digits: int


def _integer(literal: str) -> int | _Overlong:
    try:
        return int(literal)
    except ValueError:
        return _Overlong(len(literal.lstrip("-")))


def _surrogate(text: str, loc: Location) -> list[Finding]:
    found = _LONE_SURROGATE.search(text)
    if found is None:
        return []
    return [
        Finding(
            loc,
            f"a lone surrogate \\u{ord(found.group()):04x} (character {found.start() + 1})",
            "valid Unicode text (a \\ud800-\\udfff escape only as half of a surrogate pair)",
        )
    ]


HIDDEN_EXPECTED = (
    "visible text (invisible characters reach a model as they are and hide what the text "
    "says from a person reading it; a delimiter tag disguised with them is defused in prompts)"
)


def _hidden(text: str, loc: Location) -> list[Finding]:
    found = hidden(text)
    if not found:
        return []
    index, char = found[0]
    what = (
        f"{len(found)} invisible character(s), the first {describe(char)} at character {index + 1}"
    )
    return [Finding(loc, what, HIDDEN_EXPECTED)]


def loads(text: str) -> Document:
    """Decode `text` and check every value of it: raises TooDeepError for a document nested
    deeper than MAX_DEPTH (the parser would exhaust Python's recursion near 1,000 levels, and
    nothing in a conversation or codebook nests deep) and JSONDecodeError for text that is not
    JSON; the rest is in the document's problems and warnings, each where it is."""
    # The decoder builds objects bottom-up and knows no location: note repeated keys by object,
    # and locate them on the walk down (every object noted is alive in the value).
    repeated: dict[int, list[str]] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items):
            repeated[id(obj)] = [k for k, n in Counter(k for k, _ in items).items() if n > 1]
        return obj

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_int=_integer)
    except RecursionError:
        raise TooDeepError(TOO_DEEP) from None
    return _walk(value, repeated)


def _walk(value: Any, repeated: dict[int, list[str]]) -> Document:
    # Iterative, so the walk itself cannot exhaust the stack the depth limit protects.
    document = Document(value)
    stack: list[tuple[Any, Location, int]] = [(value, (), 1)]
    while stack:
        node, loc, depth = stack.pop()
        if isinstance(node, str):
            document.problems.extend(_surrogate(node, loc))
            document.warnings.extend(_hidden(node, loc))
        elif isinstance(node, _Overlong):
            document.problems.append(
                Finding(
                    loc,
                    f"an integer of {node.digits:,} digits",
                    f"a number of at most {sys.get_int_max_str_digits():,} digits",
                )
            )
        elif isinstance(node, dict | list):
            if depth > MAX_DEPTH:
                raise TooDeepError(TOO_DEEP)
            children = list(node.items() if isinstance(node, dict) else enumerate(node))
            if isinstance(node, dict):
                for key in node:
                    # A key is text of the file too (and may name a field).
                    document.problems.extend(_surrogate(key, (*loc, key)))
                document.warnings.extend(
                    Finding(
                        (*loc, key),
                        "the key more than once in one object",
                        "each key once (the last value is used)",
                    )
                    for key in repeated.get(id(node), [])
                )
            # Reversed onto the stack, so that findings come out in the order of the file.
            stack.extend((child, (*loc, key), depth + 1) for key, child in reversed(children))
    return document


def _one_problem(file: Path, what: str, found: str, expected: str) -> DataError:
    return DataError([DataProblem(str(file), None, what, found, expected)])


def _read(file: Path, what: str) -> tuple[bytes, Document]:
    """The file's bytes (for its hash) and its JSON document."""
    try:
        raw = read_capped(file, MAX_CONFIG_BYTES)
        return raw, loads(raw.decode("utf-8-sig"))
    except FileProblem as ex:
        raise _one_problem(file, what, ex.found, ex.expected) from None
    except UnicodeDecodeError as ex:
        found = f"bytes that are not UTF-8 ({ex.reason})"
        raise _one_problem(file, what, found, "UTF-8 JSON") from None
    except json.JSONDecodeError as ex:
        raise _one_problem(file, what, f"invalid JSON ({ex.msg})", "JSON") from None
    except TooDeepError as ex:
        raise _one_problem(file, what, str(ex), f"a {what} object") from None


def located(file: Path, findings: list[Finding]) -> list[DataProblem]:
    return [DataProblem(str(file), None, field_name(f.loc), f.found, f.expected) for f in findings]


@dataclass(frozen=True)
class Loaded(Generic[Model]):
    value: Model
    sha256: str
    """Of the file's bytes: it identifies the file in logs."""
    warnings: tuple[DataProblem, ...]


def load_document(file: Path, what: str, model: type[Model]) -> Loaded[Model]:
    """A JSON file the suite is configured with (`what`: a codebook, a profile vocabulary) as
    `model`, with its warnings (keys given twice). Anything wrong with it is a DataError, one
    located line per problem."""
    raw, document = _read(file, what)
    if document.problems:
        raise DataError(located(file, document.problems))
    try:
        value = model.model_validate(document.value)
    except ValidationError as ex:
        findings = [Finding(tuple(e["loc"]), found_in(e), expected_in(e)) for e in ex.errors()]
        raise DataError(located(file, findings)) from None
    return Loaded(value, hashlib.sha256(raw).hexdigest(), tuple(located(file, document.warnings)))
