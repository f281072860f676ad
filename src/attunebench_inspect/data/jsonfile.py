"""JSON text to Python values, with a nesting limit (a conversation is 6 levels deep)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .problems import DataError, DataProblem, expected_in, field_name, found_in

Document = TypeVar("Document", bound=BaseModel)

MAX_DEPTH = 64
TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels"


class TooDeepError(ValueError):
    """A JSON document nested deeper than MAX_DEPTH."""


def _deeper_than(value: object, limit: int) -> bool:
    # Iterative, so the check itself cannot exhaust the stack it protects.
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in node)
    return False


def loads(text: str) -> Any:
    """`json.loads`, refusing documents nested deeper than MAX_DEPTH: the parser would exhaust
    Python's recursion near 1,000 levels, and nothing in a conversation or codebook nests deep."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeepError(TOO_DEEP) from None
    if _deeper_than(value, MAX_DEPTH):
        raise TooDeepError(TOO_DEEP)
    return value


def _one_problem(file: Path, what: str, found: str, expected: str) -> DataError:
    return DataError([DataProblem(str(file), None, what, found, expected)])


def _read(file: Path, what: str) -> tuple[bytes, Any]:
    try:
        raw = file.read_bytes()
        return raw, loads(raw.decode("utf-8-sig"))
    except OSError as ex:
        raise _one_problem(file, what, type(ex).__name__, "a readable file") from None
    except UnicodeDecodeError as ex:
        found = f"bytes that are not UTF-8 ({ex.reason})"
        raise _one_problem(file, what, found, "UTF-8 JSON") from None
    except json.JSONDecodeError as ex:
        raise _one_problem(file, what, f"invalid JSON ({ex.msg})", "JSON") from None
    except TooDeepError as ex:
        raise _one_problem(file, what, str(ex), f"a {what} object") from None


def load_document(file: Path, what: str, model: type[Document]) -> tuple[Document, str]:
    """A JSON file the suite is configured with (`what`: a codebook, a profile vocabulary) as
    `model`, and the SHA-256 of its bytes (which identifies it in logs). Anything wrong with it is
    a DataError, one located line per problem."""
    raw, data = _read(file, what)
    try:
        document = model.model_validate(data)
    except ValidationError as ex:
        problems = [
            DataProblem(str(file), None, field_name(e["loc"]), found_in(e), expected_in(e))
            for e in ex.errors()
        ]
        raise DataError(problems) from None
    return document, hashlib.sha256(raw).hexdigest()
