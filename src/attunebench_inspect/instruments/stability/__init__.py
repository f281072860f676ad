"""Does the score hold still? Position bias and consistency, test-retest reliability, rank
stability, the judge panel's agreement, self-judging, and the plan of a run that separates two
models (docs/stability.md).

The statistics are pure (numpy, scipy, krippendorff: no Inspect) and read what a run's sample
summaries hold, so the report computes all of them from logs alone; each verdict comes from a rule
fixed before any data is seen (`_rules.py`, printed beside its figure as `RULES`). Eval time: a
scorer of the main task's samples (`_scorer.py`, in its record) records each sample-epoch's pairwise
order, choices and judge answers (`_record.py`) and writes the run's figures into the log header
(`_log_figures.py`). Report: `_report.py` (figures per run and mode), `_section.py` (tables),
`_charts.py`. The plan: `_power.py` (pure), `_plan.py` (a pilot's logs or stated variances, priced
by the estimate) and its command (`_cli.py`).
"""

from ...tools._instrument import Catalog, Instrument
from ._agreement import judge_agreement, judge_profile
from ._catalog import stability_markdown
from ._cli import add_plan
from ._position import PairChoice, pair_choices, position_bias, position_consistency
from ._power import (
    PlanRow,
    Variances,
    conversations_needed,
    pilot_abstention,
    plan,
    power,
    run_cost,
    variances_from_pilot,
)
from ._ranks import rank_stability
from ._report import run_stability, stability_part
from ._retest import icc, retest_reliability
from ._rules import READINGS, RULES
from ._scorer import stability_scorer
from ._section import SECTION

DOC = "docs/stability.md"
INSTRUMENT = Instrument(
    name="stability",
    doc=DOC,
    report=stability_part,
    of_run=run_stability,
    section=SECTION,
    after="perspective",
    main_task_scorers=(stability_scorer,),
    commands=(add_plan,),
    catalog=Catalog(stability_markdown),
)
"""What the instrument gives the suite (tools/_instrument.py)."""

__all__ = [
    "DOC",
    "INSTRUMENT",
    "READINGS",
    "RULES",
    "PairChoice",
    "PlanRow",
    "Variances",
    "conversations_needed",
    "icc",
    "judge_agreement",
    "judge_profile",
    "pair_choices",
    "pilot_abstention",
    "plan",
    "position_bias",
    "position_consistency",
    "power",
    "rank_stability",
    "retest_reliability",
    "run_cost",
    "stability_scorer",
    "variances_from_pilot",
]
