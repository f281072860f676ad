"""Turning a model's text into a validated answer, or a one-line reason why not: never raises,
whatever the reply (ARCHITECTURE.md, 'The rules that make it a benchmark')."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

# No pattern for the space after the opening fence: a run of it would be tried again at each of
# its lengths, quadratic on a fence of spaces. The search for a brace skips it anyway.
_FENCE = re.compile(r"```(?:json|JSON)?(.*?)```", re.DOTALL)
# Where an object can begin: a brace, JSON whitespace, then a key or the closing brace. The
# decoder fails at once on any other brace, so those are not tried (a run of braces is one scan).
_OBJECT_START = re.compile(r'\{[ \t\n\r]*["}]')
MAX_SEARCH = 1_000_000
"""Characters the decoder may be given in all, over every place an answer may begin: far more
than any answer of ours needs, and the bound on the work a hostile reply can make."""
_FIRST_WINDOW = 256
_CUT = 16
"""How far before the end of a window a failure may be the window's doing: a literal cut short
(`-Infinity` is the longest) fails where it begins."""
_NOT_FOUND = "no JSON object found in the reply"
_MAX_ERRORS = 5
_MAX_KEY = 80
"""Longer than any key of ours (option labels run to about 50 characters)."""
TOO_DEEP = "the reply is nested too deeply"


@dataclass(frozen=True)
class Parsed:
    value: dict[str, Any] | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.value is not None


def _shown(key: int | str) -> str:
    """A key from the reply as it may appear in a one-line reason: on one line, and cut short."""
    text = str(key)
    if text.isprintable() and 0 < len(text) <= _MAX_KEY:
        return text
    return repr(text[:_MAX_KEY]) + ("..." if len(text) > _MAX_KEY else "")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {_shown(key)}")
        result[key] = value
    return result


def _integer(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        # Past Python's limit on digits; its own message tells the model to change a Python setting.
        raise ValueError("a number in the reply has too many digits") from None


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_int=_integer)


class _Search:
    """Decoding attempts, each on a window of the text that doubles while the window may be what
    cut it short: an attempt costs what it reads, not where it starts (the decoder's error counts
    the lines before its position), and all of them together read at most MAX_SEARCH."""

    def __init__(self) -> None:
        self.left = MAX_SEARCH

    def object_at(self, text: str, start: int) -> tuple[bool, Any]:
        """(True, the value) where an object begins at `start`, (False, None) where none does."""
        window = _FIRST_WINDOW
        while True:
            piece = text[start : start + window]
            if len(piece) > self.left:
                raise ValueError(f"{_NOT_FOUND} (the search stops after {MAX_SEARCH:,} characters)")
            self.left -= len(piece)
            try:
                return True, _DECODER.raw_decode(piece)[0]
            except json.JSONDecodeError as ex:
                whole = start + window >= len(text)
                cut = ex.pos >= window - _CUT or ex.msg.startswith("Unterminated string")
                if whole or not cut:
                    return False, None
            window *= 2


def extract_json(text: str) -> Any:
    """The first JSON object in `text`: bare, in a code fence, or after leading prose.

    Raises ValueError when there is none (or none within the search's reach), or at the first
    object that is there but unreadable (a duplicate key, an overlong number); RecursionError
    when it is nested too deeply."""
    search = _Search()
    for candidate in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        for start in _OBJECT_START.finditer(candidate):
            found, value = search.object_at(candidate, start.start())
            if found:
                return value
    raise ValueError(_NOT_FOUND)


def _describe(error: ValidationError) -> str:
    parts = []
    for detail in error.errors()[:_MAX_ERRORS]:
        where = ".".join(_shown(p) for p in detail["loc"]) or "(top level)"
        parts.append(f"{where}: {detail['msg']}")
    more = len(error.errors()) - _MAX_ERRORS
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def parse_answer(text: str, model: type[BaseModel]) -> Parsed:
    try:
        answer = model.model_validate(extract_json(text))
        return Parsed(answer.model_dump(mode="json", exclude_none=True), None)
    except ValidationError as ex:
        return Parsed(None, _describe(ex))
    except ValueError as ex:
        return Parsed(None, str(ex))
    except RecursionError:
        # Deeper than the interpreter's stack allows (json and pydantic recurse per level); no
        # answer of ours nests past a few levels, and each inner brace would hit the same limit.
        return Parsed(None, TOO_DEEP)
    except Exception as ex:
        # Any other way a reply defeats the decoder or a validator is still a bad reply; the
        # exception's type keeps the cause visible in the record.
        return Parsed(None, f"the reply could not be read ({type(ex).__name__})")


def parse_draft(text: str) -> Parsed:
    reply = text.strip()
    return Parsed({"text": reply}, None) if reply else Parsed(None, "the reply is empty")
