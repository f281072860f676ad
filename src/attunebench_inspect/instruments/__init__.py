"""The validity instruments: the evidence that a score measures what it claims, each beside the
Composite and never inside it. One folder an instrument, holding everything of it; each exports
one record of what it gives the suite (`INSTRUMENT`, tools/_instrument.py), and the suite loops
over this list of them (ARCHITECTURE.md, "Adding an instrument")."""

from . import contamination, human, profile, reannotation, stability

INSTRUMENTS = (
    stability.INSTRUMENT,
    profile.INSTRUMENT,
    contamination.INSTRUMENT,
    reannotation.INSTRUMENT,
    human.INSTRUMENT,
)
"""Every instrument of the suite. Their parts of the report's runs follow in this order; each
section stands where its record says (`Instrument.after`)."""

__all__ = ["INSTRUMENTS", "contamination", "human", "profile", "reannotation", "stability"]
