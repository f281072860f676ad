"""Characters a reader cannot see: Unicode format characters (category Cf) and the few other code
points that render as nothing. Below `data/` and `solve/`, which both look for them: a prompt's
quoting must see through them, and `attunebench validate` points them out."""

from __future__ import annotations

import re
import unicodedata

_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
"""Where Unicode puts its format characters (category Cf, as of Unicode 15; a test checks that
this covers every one the running Python knows)."""
_BLANK = "\u034f\u115f\u1160\u3164\uffa0\ufe00-\ufe0f\U000e0100-\U000e01ef"
"""The other characters that render as nothing: grapheme joiner, Hangul fillers, selectors."""
INVISIBLE = re.compile(f"[{_FORMAT}{_BLANK}]")
"""Every invisible character, found at the regex engine's speed."""


def visible(text: str) -> str:
    """`text` without its invisible characters."""
    return INVISIBLE.sub("", text)


def _pictographic(char: str) -> bool:
    return unicodedata.category(char) in ("So", "Sk") or char in "0123456789#*\ufe0f"


def _script_letter(char: str) -> bool:
    return not char.isascii() and unicodedata.category(char)[0] in "LM"


def _in_writing(text: str, index: int) -> bool:
    """Whether the invisible character at `index` does what writing uses it for: a variation
    selector after an emoji or a keycap digit, a zero-width joiner inside an emoji sequence, a
    joiner or non-joiner between the letters of a script that shapes them (Arabic, Indic),
    tag characters in a flag's sequence."""
    char = text[index]
    before = text[index - 1] if index else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if char in "\ufe0e\ufe0f":
        return bool(before) and _pictographic(before)
    if char in "\u200c\u200d":
        emoji = char == "\u200d" and bool(before and after)
        if emoji and _pictographic(before) and _pictographic(after):
            return True
        return bool(before and after) and _script_letter(before) and _script_letter(after)
    if 0xE0020 <= ord(char) <= 0xE007F:
        return before == "\U0001f3f4" or 0xE0020 <= ord(before or " ") <= 0xE007F
    return False


def hidden(text: str) -> list[tuple[int, str]]:
    """The invisible characters of `text` that writing does not explain (`_in_writing`):
    what a person reading the text cannot see is there, with their indexes."""
    return [
        (m.start(), m.group()) for m in INVISIBLE.finditer(text) if not _in_writing(text, m.start())
    ]


def describe(char: str) -> str:
    """A character as a person can read it: its code point and name."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"
