"""The per-turn AttuneBench protocol: prompts, output schemas, parsing and the solver."""

from .modes import MODES, PRIMARY, SPECS, Mode, ModeSpec, mode_spec
from .predictions import Walk
from .solver import JUDGE_ROLE, attunebench_solver, judge_bound, judge_draft
from .store import WalkStore, read_walk

__all__ = [
    "JUDGE_ROLE",
    "MODES",
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
