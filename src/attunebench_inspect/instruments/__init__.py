"""The validity instruments: the evidence that a score measures what it claims, each beside the
Composite and never inside it. One folder an instrument, holding everything of it: its eval-time
code, its report section, its price, its command and its doc (ARCHITECTURE.md, "Adding an
instrument").

Importing this package joins every instrument to the suite: the stability instrument adds its
scorer to the main task here (`score.add_to_main_task`), and the package imports it before any
task is made.
"""

from . import contamination, human, profile, reannotation, stability

INSTRUMENTS = (stability, contamination, profile, reannotation, human)
"""Every instrument of the suite, in the order the report shows them."""

__all__ = ["INSTRUMENTS", "contamination", "human", "profile", "reannotation", "stability"]
