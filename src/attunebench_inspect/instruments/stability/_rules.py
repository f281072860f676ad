"""The rules of every stability verdict, fixed here before any data is seen, and the sentences
that state them beside their figures (`RULES`). Too little data to decide is a verdict of its
own, never a default reading."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

NAN = float("nan")
Matrix = NDArray[np.float64]

MIN_COMPARISONS = 30
"""Fewer pairwise choices than this: position bias is "too little data"."""
BIAS_ALPHA = 0.01
"""The chi-square test's level for "position-biased" (stricter than 0.05: comparisons of one call
share one shuffle, which the test's independence assumption ignores)."""
BIAS_MARGIN = 0.05
"""The smallest deviation from the uniform expectation called a bias (5 points of share)."""
MIN_SWAPS = 30
"""Fewer swapped comparison pairs than this: position consistency is "too little data"."""
MIN_TEST_RETEST = 5
"""Fewer complete conversations than this: no ICC (its F-based interval needs a few rows)."""
COLLAPSE_SHARE = 0.9
"""A judge whose one most frequent rating covers at least this share of the drafts it rated is
"collapsed" on that criterion."""
MIN_COLLAPSE_DRAFTS = 20
"""Fewer rated drafts than this: collapse is not decided (None)."""
RANK_SETTLED = 0.975
"""A pair's order is "settled" when it holds in at least this share of replicates: the same as
the 95% percentile interval of the paired difference excluding 0 (one tail of 2.5%)."""

RULES: dict[str, str] = {
    "position_bias": (
        f"position-biased when Pearson's chi-square over the displayed pairs rejects the "
        f"content-blind uniform chooser at p < {BIAS_ALPHA} and some share (the earlier-displayed "
        f"one's, or a position's) is {BIAS_MARGIN:.2f} or more from its expectation; fewer than "
        f"{MIN_COMPARISONS} choices: too little data"
    ),
    "position_consistency": (
        "the same reply (by content) chosen in two epochs that showed the pair in opposite order; "
        "follows content when the 95% CI of consistency minus its content-blind chance (from the "
        "model's own position shares) lies above 0, only by chance when it covers 0, against "
        f"content when below; fewer than {MIN_SWAPS} swapped pairs: too little data"
    ),
    "test_retest": (
        "ICC(A,1) (two-way random effects, absolute agreement, single epoch; McGraw & Wong 1996) "
        "of the per-conversation Composite across epochs, read on Koo & Li's (2016) bands: "
        "< 0.5 poor, 0.5-0.75 moderate, 0.75-0.9 good, > 0.9 excellent"
    ),
    "rank_stability": (
        "per pair of models, the share of bootstrap replicates (conversations, then epochs "
        "within each) in which their order holds; the order is settled when the share is >= "
        f"{RANK_SETTLED} (the paired difference's 95% percentile interval excludes 0)"
    ),
    "judge_agreement": (
        "Krippendorff's alpha (ordinal for ratings, nominal for yes/no/na) with a 95% bootstrap "
        "CI over conversations (each one's drafts drawn together); Krippendorff (2004): >= 0.8 "
        "reliable, 0.667-0.8 tentative, < 0.667 unreliable"
    ),
    "judge_collapse": (
        f"a judge is collapsed on a criterion when one rating covers >= {COLLAPSE_SHARE:.0%} of "
        f"the drafts it rated (at least {MIN_COLLAPSE_DRAFTS} drafts)"
    ),
    "panel": (
        "the panel's rating is the mean of its judges' ratings; its yes/no/na answer the most "
        "frequent one, a tie going to the earliest-listed judge among the tied answers"
    ),
}
