"""AttuneBench as an Inspect AI evaluation suite: the tasks, and what loads their data."""

from . import attunebench as _tasks

# The tasks, listed in __all__ through attunebench.py's own (their one home).
from .attunebench import (
    MODE_TASKS,
    PARAMETERS,
    TASK_VERSION,
    attunebench,
    contamination,
    default,
    omniscient,
    profile,
    verbose,
    verbose_omniscient,
)
from .data import Codebook, DataError, DataProblem, load_codebook, load_conversations
from .solve import MODES, Mode

__all__ = [
    "MODES",
    "Codebook",
    "DataError",
    "DataProblem",
    "Mode",
    "load_codebook",
    "load_conversations",
]
__all__ += _tasks.__all__

