"""A random valid answer read off the shape a prompt states (`schemas.shape_of`), for endpoints
that, like a provider asked without a response schema, have only the prompt to go by.

The notation: an object with its keys; "a|b|c" one of the strings; <1-7> an integer in range;
true|false; "..." free text; {"<hint>": V, ...} an open set of keys (answered with none).
"""

from __future__ import annotations

import json
import random
from typing import Any

from attunebench_inspect.solve._prompts import SHAPE_HEAD

_WORDS = ("the", "reply", "felt", "warm", "but", "rushed", "and", "they", "wanted", "support")
_STRING = json.JSONDecoder()


class ShapeError(ValueError):
    pass


class _Reader:
    def __init__(self, text: str, rng: random.Random) -> None:
        self.text = text
        self.at = 0
        self.rng = rng

    def _skip(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def _take(self, literal: str) -> bool:
        self._skip()
        if self.text.startswith(literal, self.at):
            self.at += len(literal)
            return True
        return False

    def _string(self) -> str:
        self._skip()
        try:
            value, self.at = _STRING.raw_decode(self.text, self.at)
        except json.JSONDecodeError as ex:
            raise ShapeError(f"expected a string at {self.at}") from ex
        if not isinstance(value, str):
            raise ShapeError(f"expected a string at {self.at}")
        return value

    def value(self) -> Any:
        self._skip()
        if self._take("{"):
            return self._object()
        if self._take("true|false"):
            return self.rng.random() < 0.5
        if self._take("<"):
            end = self.text.index(">", self.at)
            low, high = (int(n) for n in self.text[self.at : end].split("-"))
            self.at = end + 1
            return self.rng.randint(low, high)
        text = self._string()
        if text == "...":
            return " ".join(self.rng.choice(_WORDS) for _ in range(6))
        return self.rng.choice(text.split("|"))

    def _object(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        open_set = False
        while not self._take("}"):
            if self._take("..."):
                open_set = True
            else:
                key = self._string()
                if not self._take(":"):
                    raise ShapeError(f"expected ':' at {self.at}")
                value = self.value()
                if not (key.startswith("<") and key.endswith(">")):
                    result[key] = value
            self._take(",")
        return {} if open_set else result


def fill_shape(shape: str, rng: random.Random) -> Any:
    """A random answer of the stated shape."""
    return _Reader(shape, rng).value()


def stated_shape(texts: list[str]) -> str | None:
    """The shape the last of `texts` to state one states (a repair round restates nothing)."""
    for text in reversed(texts):
        at = text.rfind(SHAPE_HEAD)
        if at >= 0:
            return text[at + len(SHAPE_HEAD) :].strip()
    return None
