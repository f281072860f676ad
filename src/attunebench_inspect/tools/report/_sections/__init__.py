"""The main task's sections of the report, one module a section: its tables and its figures.
The suite lists them with the instruments' (_suite/render.py)."""

from .._build import Beside
from .base import Section
from .capability import SECTION as CAPABILITY
from .distinguishability import SECTION as DISTINGUISHABILITY
from .leaderboard import SECTION as LEADERBOARD
from .mode_deltas import SECTION as MODE_DELTAS
from .operations import SECTION as OPERATIONS
from .perspective import SECTION as PERSPECTIVE
from .scope import SECTION as SCOPE
from .subgroups import SECTION as SUBGROUPS

__all__ = [
    "CAPABILITY",
    "DISTINGUISHABILITY",
    "LEADERBOARD",
    "MODE_DELTAS",
    "OPERATIONS",
    "PERSPECTIVE",
    "SCOPE",
    "SUBGROUPS",
    "Beside",
    "Section",
]
