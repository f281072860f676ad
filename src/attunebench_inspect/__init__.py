"""AttuneBench as an Inspect AI evaluation suite: its tasks, their data, and the report of their
logs.

The public API is what this module and each package's `__init__` export (`__all__`); every other
module is private by convention (a leading underscore, as in inspect_ai) and may move without
notice.
"""

from . import attunebench as _tasks
from . import instruments
from ._suite.dataframes import metrics_df
from ._suite.render import charts, to_csv, to_html, to_json, to_markdown, to_terminal
from ._suite.report import build_report

# The tasks, listed in __all__ through attunebench.py's own (the modes' names have one home).
from .attunebench import (  # noqa: F401
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
from .instruments.reannotation import third_party_df
from .solve import MODES, Mode
from .tools.report._build import Report

__all__ = [
    "MODES",
    "Codebook",
    "DataError",
    "DataProblem",
    "Mode",
    "Report",
    "build_report",
    "charts",
    "contamination",
    "instruments",
    "load_codebook",
    "load_conversations",
    "metrics_df",
    "profile",
    "third_party_df",
    "to_csv",
    "to_html",
    "to_json",
    "to_markdown",
    "to_terminal",
]
__all__ += _tasks.__all__
