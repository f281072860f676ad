"""Counting tokens: with OpenAI's o200k_base or cl100k_base encoding (toktok, whose vocabularies
are compiled in: no download, and counts identical to tiktoken's), or, without it, at a
calibrated number of characters per token."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable

TokenCount = Callable[[list[str]], list[int]]
"""Token counts of texts, in their order."""

ENCODINGS = ("o200k_base", "cl100k_base")
CHARS = "chars"
TOKENIZERS = (*ENCODINGS, CHARS)
CHARS_PER_TOKEN = 4.20
CHARS_PER_TOKEN_JSON = 2.84
"""Without a tokenizer: characters per o200k_base token of prose and of JSON (response schemas
and structured answers), measured on every request of the bundled set in all four modes with a
judge (docs/cost-and-scale.md has the error)."""


class TokenizerMissing(RuntimeError):
    pass


def _by_characters(texts: list[str]) -> list[int]:
    # The JSON texts (schemas, structured answers) are objects; a rare message that starts with
    # a brace is only counted at the JSON rate.
    return [
        round(len(text) / (CHARS_PER_TOKEN_JSON if text.startswith("{") else CHARS_PER_TOKEN))
        for text in texts
    ]


def counter(name: str) -> TokenCount:
    """Token counts of many texts at once, by encoding name or `chars`."""
    if name == CHARS:
        return _by_characters
    try:
        # Imported by name: toktok is an optional dependency and ships no type information.
        toktok = importlib.import_module("toktok")
    except ImportError:
        raise TokenizerMissing(
            f"counting with {name} needs toktok: pip install 'attunebench-inspect[estimate]', "
            f"or use --tokenizer {CHARS}"
        ) from None
    return lambda texts: [int(n) for n in toktok.batch_count(texts, name)]


def default_tokenizer() -> str:
    """o200k_base (OpenAI's current encoding) where toktok is installed, else characters."""
    return ENCODINGS[0] if importlib.util.find_spec("toktok") else CHARS
