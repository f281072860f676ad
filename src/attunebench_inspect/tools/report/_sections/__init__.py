"""The main task's sections of the report, one module a section: its tables and its figures.
The suite places the instruments' among them (_suite/render.py)."""

from .capability import SECTION as CAPABILITY
from .distinguishability import SECTION as DISTINGUISHABILITY
from .leaderboard import SECTION as LEADERBOARD
from .mode_deltas import SECTION as MODE_DELTAS
from .operations import SECTION as OPERATIONS
from .perspective import SECTION as PERSPECTIVE
from .scope import SECTION as SCOPE
from .subgroups import SECTION as SUBGROUPS

MAIN_SECTIONS = (
    SCOPE,
    LEADERBOARD,
    DISTINGUISHABILITY,
    PERSPECTIVE,
    SUBGROUPS,
    CAPABILITY,
    MODE_DELTAS,
    OPERATIONS,
)
"""The main task's sections in the order they are shown."""

__all__ = ["MAIN_SECTIONS"]
