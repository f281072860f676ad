"""Does the score hold still? Position bias and consistency, test-retest reliability, rank
stability, the judge panel's agreement, self-judging, and the plan of a run that separates two
models (docs/stability.md).

The statistics are pure (numpy, scipy, krippendorff: no Inspect) and read what a run's sample
summaries hold, so the report computes all of them from logs alone; each verdict comes from a rule
fixed before any data is seen (`_rules.py`, printed beside its figure as `RULES`). Eval time: a
scorer joined to the main task (`_scorer.py`) records each sample-epoch's pairwise order, choices
and judge answers (`_record.py`) and writes the run's figures into the log header
(`_log_figures.py`). Report: `_report.py` (figures per run and mode), `_section.py` (tables),
`_charts.py`. The plan: `_power.py` (pure), `_plan.py` (a pilot's logs or stated variances,
priced by the estimate) and its command (`_cli.py`).
"""

from ...tools._instrument import Catalog, Instrument
from ._agreement import (
    Agreement,
    JudgeProfile,
    judge_agreement,
    judge_profile,
    krippendorff_reading,
)
from ._catalog import stability_markdown
from ._cli import add_plan
from ._plan import Pilot, PricedRow, pilot_from_logs, plan_document, plan_lines, plan_rows, priced
from ._position import (
    UNIFORM_CHANCE,
    ConsistencyVerdict,
    PairChoice,
    PositionBias,
    PositionConsistency,
    PositionShare,
    PositionVerdict,
    pair_choices,
    position_bias,
    position_consistency,
)
from ._power import (
    MAX_CONVERSATIONS,
    PlanRow,
    Variances,
    conversations_needed,
    pilot_abstention,
    plan,
    power,
    run_cost,
    variances_from_pilot,
)
from ._ranks import RankStability, rank_stability
from ._report import run_stability, stability_part
from ._retest import (
    KOO_LI_BANDS,
    Icc,
    IccForm,
    MeanSquares,
    RetestReliability,
    icc,
    koo_li_band,
    mean_squares,
    retest_reliability,
)
from ._rules import (
    BIAS_ALPHA,
    BIAS_MARGIN,
    COLLAPSE_SHARE,
    MIN_AGREEMENT_UNITS,
    MIN_CLUSTERS,
    MIN_COLLAPSE_DRAFTS,
    MIN_COMPARISONS,
    MIN_PILOT_CONVERSATIONS,
    MIN_SWAPS,
    MIN_TEST_RETEST,
    RANK_SETTLED,
    READINGS,
    RULES,
)
from ._scorer import stability_figures, stability_scorer
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
    "BIAS_ALPHA",
    "BIAS_MARGIN",
    "COLLAPSE_SHARE",
    "DOC",
    "INSTRUMENT",
    "KOO_LI_BANDS",
    "MAX_CONVERSATIONS",
    "MIN_AGREEMENT_UNITS",
    "MIN_CLUSTERS",
    "MIN_COLLAPSE_DRAFTS",
    "MIN_COMPARISONS",
    "MIN_PILOT_CONVERSATIONS",
    "MIN_SWAPS",
    "MIN_TEST_RETEST",
    "RANK_SETTLED",
    "READINGS",
    "RULES",
    "UNIFORM_CHANCE",
    "Agreement",
    "ConsistencyVerdict",
    "Icc",
    "IccForm",
    "JudgeProfile",
    "MeanSquares",
    "PairChoice",
    "Pilot",
    "PlanRow",
    "PositionBias",
    "PositionConsistency",
    "PositionShare",
    "PositionVerdict",
    "PricedRow",
    "RankStability",
    "RetestReliability",
    "Variances",
    "conversations_needed",
    "icc",
    "judge_agreement",
    "judge_profile",
    "koo_li_band",
    "krippendorff_reading",
    "mean_squares",
    "pair_choices",
    "pilot_abstention",
    "pilot_from_logs",
    "plan",
    "plan_document",
    "plan_lines",
    "plan_rows",
    "position_bias",
    "position_consistency",
    "power",
    "priced",
    "rank_stability",
    "retest_reliability",
    "run_cost",
    "stability_figures",
    "stability_scorer",
    "variances_from_pilot",
]
