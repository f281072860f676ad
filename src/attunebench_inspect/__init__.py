"""AttuneBench as an Inspect AI evaluation suite: its tasks, their data, and the report of their
logs.

The public API is what this module and each package's `__init__` export (`__all__`); every other
module is private by convention (a leading underscore, as in inspect_ai) and may move without
notice.
"""

# Every instrument joins the suite before any task is made (instruments/__init__.py).
from . import instruments
from ._suite.dataframes import metrics_df, third_party_df
from ._suite.report import Report, build_report
from .attunebench import (
    MODE_TASKS,
    PARAMETERS,
    TASK_VERSION,
    attunebench,
    default,
    omniscient,
    verbose,
    verbose_omniscient,
)
from .data import Codebook, DataError, DataProblem, load_codebook, load_conversations
from .instruments.contamination import contamination
from .instruments.profile import profile
from .solve import MODES, Mode

__all__ = [
    "MODES",
    "MODE_TASKS",
    "PARAMETERS",
    "TASK_VERSION",
    "Codebook",
    "DataError",
    "DataProblem",
    "Mode",
    "Report",
    "attunebench",
    "build_report",
    "contamination",
    "default",
    "instruments",
    "load_codebook",
    "load_conversations",
    "metrics_df",
    "omniscient",
    "profile",
    "third_party_df",
    "verbose",
    "verbose_omniscient",
]
