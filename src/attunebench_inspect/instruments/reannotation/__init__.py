"""Re-annotation by third parties (docs/third-party.md): the human-baseline page's answer files,
filled in by people who did not hold the conversations, read as a second set of labels; every run
scored again against them; agreement, self-specific gain, and the reviewer's falsification test
of the paper's separability finding. Its modules: ARCHITECTURE.md, 'instruments/reannotation/'."""

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
