"""The per-turn AttuneBench protocol: prompts, output schemas, parsing and the solver."""

from ._judges import PANEL_PATTERN, judge_bound, judge_draft
from ._modes import MODES, PRIMARY, SPECS, Mode, ModeSpec, mode_spec
from ._predictions import Walk
from ._solver import attunebench_solver
from ._store import JUDGE_ROLE, WalkStore, read_walk

__all__ = [
    "JUDGE_ROLE",
    "MODES",
    "PANEL_PATTERN",
    "PRIMARY",
    "SPECS",
    "Mode",
    "ModeSpec",
    "Walk",
    "WalkStore",
    "attunebench_solver",
    "judge_bound",
    "judge_draft",
    "mode_spec",
    "read_walk",
]
