"""Experimental: predict the participant's profile (demographics, diagnoses, computed scores,
topic attitude) from the whole conversation, in one call (docs/profile.md; its modules:
ARCHITECTURE.md, 'instruments/profile/')."""

from ...tools._instrument import Catalog, Instrument
from ._analyses import profile_part
from ._catalog import profile_markdown
from ._cli import VALIDATION
from ._conformance import NAMES, compute
from ._scorer import profile_scorer
from ._section import SECTION
from .profile import profile

DOC = "docs/profile.md"
INSTRUMENT = Instrument(
    name="profile",
    doc=DOC,
    report=profile_part,
    section=SECTION,
    after="mode_deltas",
    catalog=Catalog(profile_markdown, NAMES, compute),
    validation=VALIDATION,
)
"""What the instrument gives the suite (tools/_instrument.py)."""

__all__ = ["DOC", "INSTRUMENT", "profile", "profile_scorer"]
