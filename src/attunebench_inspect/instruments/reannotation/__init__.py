"""Re-annotation by third parties (docs/third-party.md): the human-baseline page's answer files,
filled in by people who did not hold the conversations, read as a second set of labels; every run
scored again against them; agreement, self-specific gain, and the reviewer's falsification test
of the paper's separability finding (seed 002: "re-annotating the same 200 conversations with
independent third-party judges").

`_labels` reads answer files as label sets, `_consensus` pools several annotators, `_rescore`
scores a stored walk against both label sets through the scorers' own `score_conversation`,
`_analysis` holds the statistics (agreement, self-specific gain, the rank-correlation test),
`_study` reads a report's logs and answer files into them (the report's "Third-party labels"
section, `_section.py`; `reannotation_df`), and `_power` is the simulation that sizes a study.
"""

from ...tools._instrument import Instrument
from ._report import OPTIONS, reannotation_part, third_party_df
from ._section import SECTION
from ._study import ThirdPartyError

DOC = "docs/third-party.md"
INSTRUMENT = Instrument(
    name="reannotation",
    doc=DOC,
    report=reannotation_part,
    section=SECTION,
    after="profile",
    options=OPTIONS,
)
"""What the instrument gives the suite (tools/_instrument.py)."""

__all__ = ["DOC", "INSTRUMENT", "ThirdPartyError", "third_party_df"]
