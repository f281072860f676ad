"""The human baseline (docs/human-baseline.md): an offline page of the protocol's questions, the
answer files it saves, their replay as an ordinary Inspect model `human/<annotator>` and their
import as runs; in the report, each person beside each model (its modules: ARCHITECTURE.md,
'instruments/human/')."""

from ...tools._instrument import Instrument
from ._answers import (
    Answers,
    AnswersError,
    asked_otherwise,
    is_human,
    problems_with_data,
    read_answers,
)
from ._cli import add_human
from ._comparison import human_part
from ._replay import human_replay
from ._section import SECTION

DOC = "docs/human-baseline.md"
INSTRUMENT = Instrument(
    name="human",
    doc=DOC,
    report=human_part,
    section=SECTION,
    after="contamination",
    commands=(add_human,),
    is_person=is_human,
)
"""What the instrument gives the suite (tools/_instrument.py)."""

__all__ = [
    "DOC",
    "INSTRUMENT",
    "Answers",
    "AnswersError",
    "asked_otherwise",
    "human_replay",
    "is_human",
    "problems_with_data",
    "read_answers",
]
