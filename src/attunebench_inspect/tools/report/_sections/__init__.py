"""The main task's sections of the report, one module a section (the two comparisons on shared
conversations share paired.py): its tables and its figures. The suite places the instruments'
among them (_suite/render.py)."""

from .capability import SECTION as CAPABILITY
from .leaderboard import SECTION as LEADERBOARD
from .operations import SECTION as OPERATIONS
from .paired import DISTINGUISHABILITY, MODE_DELTAS
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
