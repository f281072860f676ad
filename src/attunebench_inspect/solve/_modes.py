"""The four evaluation modes: their names and what each switches on, declared once in `SPECS`,
from which everything else derives (ARCHITECTURE.md, 'Adding a mode')."""

from __future__ import annotations

from dataclasses import dataclass

Mode = str
"""A mode's name, one of `MODES` (checked by `mode_spec`)."""


@dataclass(frozen=True)
class ModeSpec:
    mode: Mode
    verbose: bool
    """Every structured answer carries its reasoning."""
    omniscient: bool
    """The participant's profile, pre-conversation PANAS and topic attitude, from turn 1."""
    gives: str
    """What the evaluated model gets, as the README's task table says it."""


SPECS: tuple[ModeSpec, ...] = (
    ModeSpec(
        "default",
        verbose=False,
        omniscient=False,
        gives="the conversation, turn by turn: the primary benchmark",
    ),
    ModeSpec(
        "verbose",
        verbose=True,
        omniscient=False,
        gives="the same; every structured answer carries its reasoning",
    ),
    ModeSpec(
        "omniscient",
        verbose=False,
        omniscient=True,
        gives="the same, plus the participant's profile (documented demographics and computed "
        "scores), pre-conversation PANAS and topic attitude from turn 1",
    ),
    ModeSpec("verbose_omniscient", verbose=True, omniscient=True, gives="both"),
)
MODES: tuple[Mode, ...] = tuple(s.mode for s in SPECS)
PRIMARY: Mode = MODES[0]
"""Seed 003: "Default Mode is the primary benchmark; other modes should not be presented as
primary without qualification"; the default of every `mode` parameter."""
_BY_MODE = {s.mode: s for s in SPECS}


def mode_spec(mode: object) -> ModeSpec:
    """A mode's declaration; a value that names none (`-T mode=[1,2]` too) is a ValueError."""
    found = _BY_MODE.get(mode) if isinstance(mode, str) else None
    if found is None:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    return found
