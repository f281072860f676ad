"""The contamination probe (issue 28): has the evaluated model seen these conversations?

Golchin & Surdeanu's "Time Travel in LLMs" (ICLR 2024) applied to the data set's own published
texts. Pure method modules (instances, prompts, overlap, verdict: no Inspect) and thin Inspect
wrappers (dataset, solver, scorer); the task, `attunebench_inspect/contamination`, is in
attunebench.py with the suite's other tasks. docs/contamination.md has the method, its
departures, the measured false-positive rate and power, and how to read a verdict.
"""

from ._scorer import contamination_scorer, contamination_verdict
from ._solver import contamination_solver

__all__ = ["contamination_scorer", "contamination_solver", "contamination_verdict"]
