"""Does the score hold still? The pure statistics of order, reruns and judges (issue 29).

Pure numpy, scipy and krippendorff: no Inspect. Every function takes what a run's sample
summaries hold (each pairwise call's display order and choices; the per-conversation Composite of
each epoch; each judge's answer per draft), so the report computes all of it from logs alone.
Intervals are percentile bootstrap intervals over conversations with the suite's seeded draws
(`bootstrap.py`), so a figure here and the Composite's CI resample alike.

Each verdict comes from a rule fixed before any data is seen (`rules.py`) and printed beside its
figure (`RULES`). Too little data to decide is a verdict of its own, never a default reading.
The modules: `position` (position bias and consistency), `retest` (test-retest ICC), `ranks`
(rank stability), `judges` (the panel, agreement, leniency and collapse). Whether a judge is the
evaluated model is the solver's to say, before the run (`solve/identity.py`).
"""

from ._agreement import (
    ANSWER_DOMAIN,
    RATING_DOMAIN,
    Agreement,
    JudgeProfile,
    PanelAnswer,
    judge_agreement,
    judge_profile,
    krippendorff_reading,
    panel_answer,
    panel_rating,
    panel_verdict,
)
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
from ._ranks import RankStability, rank_stability
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
    MIN_COLLAPSE_DRAFTS,
    MIN_COMPARISONS,
    MIN_SWAPS,
    MIN_TEST_RETEST,
    RANK_SETTLED,
    RULES,
)

__all__ = [
    "ANSWER_DOMAIN",
    "BIAS_ALPHA",
    "BIAS_MARGIN",
    "COLLAPSE_SHARE",
    "KOO_LI_BANDS",
    "MIN_COLLAPSE_DRAFTS",
    "MIN_COMPARISONS",
    "MIN_SWAPS",
    "MIN_TEST_RETEST",
    "RANK_SETTLED",
    "RATING_DOMAIN",
    "RULES",
    "UNIFORM_CHANCE",
    "Agreement",
    "ConsistencyVerdict",
    "Icc",
    "IccForm",
    "JudgeProfile",
    "MeanSquares",
    "PairChoice",
    "PanelAnswer",
    "PositionBias",
    "PositionConsistency",
    "PositionShare",
    "PositionVerdict",
    "RankStability",
    "RetestReliability",
    "icc",
    "judge_agreement",
    "judge_profile",
    "koo_li_band",
    "krippendorff_reading",
    "mean_squares",
    "pair_choices",
    "panel_answer",
    "panel_rating",
    "panel_verdict",
    "position_bias",
    "position_consistency",
    "rank_stability",
    "retest_reliability",
]
