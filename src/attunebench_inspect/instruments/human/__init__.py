"""The human baseline (docs/human-baseline.md): an offline page of the protocol's questions
(`_export.py`, `page.html`), the answer files it saves (`_answers.py`, `answers.schema.json`),
their replay as an ordinary Inspect model `human/<annotator>` (`_replay.py`) and their import
as runs (`_imports.py`); in the report, each person beside each model (`_comparison.py`,
`_section.py`); the `attunebench human` command (`_cli.py`).
"""

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
