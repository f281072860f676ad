"""Does the score hold still? Position bias and consistency, test-retest reliability, rank
stability, the judge panel's agreement, self-judging, and the plan of a run that separates two
models (docs/stability.md; its modules: ARCHITECTURE.md, 'instruments/stability/'). The
statistics are pure (no Inspect) and read only what a run's sample summaries hold, so the report
computes all of them from logs alone."""

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
