"""Experimental: predict the participant's profile (demographics, diagnoses, computed scores,
topic attitude) from the whole conversation, in one call (docs/profile.md).

Its fields and their truth (`_fields.py`), the answer options (`_vocabulary.py`), the one call
(`_solver.py`), the metrics (`_metrics.py`, pure) and their declarations (`_catalog.py`, its own
`ProfileSpec`), the scorer and the task; in the report, its table of runs (`_table.py`), its
analyses (`_analyses.py`) and its section (`_section.py`).
"""

from ._scorer import profile_scorer
from .profile import profile

DOC = "docs/profile.md"

__all__ = ["DOC", "profile", "profile_scorer"]
