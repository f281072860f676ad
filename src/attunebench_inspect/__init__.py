"""AttuneBench as an Inspect AI evaluation suite: the tasks, and what loads their data."""

from . import _moved
from . import attunebench as _tasks
from .attunebench import *  # noqa: F403 - the tasks, one home: attunebench.py's __all__
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

_moved.install()
