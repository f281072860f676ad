"""The contamination probe: has the evaluated model seen these conversations?

Golchin & Surdeanu's "Time Travel in LLMs" (ICLR 2024) applied to the data set's own published
texts. Pure method modules (instances, prompts, overlap, verdict: no Inspect) and thin Inspect
wrappers (dataset, solver, scorer, the task `attunebench_inspect/contamination`); its planted
models `memorizer/*` (`_memorizer.py`); its report section (`_report.py`, `_section.py`) and its
price (`_estimate.py`). docs/contamination.md has the method, its
departures, the measured false-positive rate and power, and how to read a verdict.
"""

from ...tools._instrument import Instrument
from ._dataset import METHOD_KEY
from ._estimate import LAYOUT_PRICED, LIKELIHOOD_PRICED, PRICED
from ._memorizer import memorizer
from ._report import contamination_part
from ._scorer import contamination_scorer, contamination_verdict
from ._section import SECTION
from ._solver import contamination_solver
from .contamination import contamination

DOC = "docs/contamination.md"
INSTRUMENT = Instrument(
    name="contamination",
    doc=DOC,
    report=contamination_part,
    section=SECTION,
    after="leaderboard",
    priced=(PRICED, LAYOUT_PRICED, LIKELIHOOD_PRICED),
    verdict_runs=lambda metadata: METHOD_KEY in metadata,
)
"""What the instrument gives the suite (tools/_instrument.py)."""

__all__ = [
    "DOC",
    "INSTRUMENT",
    "LAYOUT_PRICED",
    "LIKELIHOOD_PRICED",
    "PRICED",
    "contamination",
    "contamination_scorer",
    "contamination_solver",
    "contamination_verdict",
    "memorizer",
]
