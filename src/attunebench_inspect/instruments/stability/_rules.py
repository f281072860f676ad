"""The rules of every stability verdict, fixed here before any data is seen, the sentences that
state them beside their figures (`RULES`), and each verdict's declared readings (`READINGS`);
docs/stability.md tabulates when each verdict abstains."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..._util.verdict import cannot_decide

NAN = float("nan")
Matrix = NDArray[np.float64]

MIN_COMPARISONS = 30
"""Fewer pairwise choices than this: position bias cannot decide."""
BIAS_ALPHA = 0.01
"""The level of the permutation test for "position-biased" (`_position.py`); why this strict:
docs/stability.md, 'Does the answer follow the content? (position)'."""
BIAS_MARGIN = 0.05
"""The smallest deviation from the uniform expectation called a bias (5 points of share)."""
MIN_SWAPS = 30
"""Fewer swapped comparison pairs than this: position consistency cannot decide."""
MIN_CLUSTERS = 10
"""Fewer conversations than this: a verdict read on a bootstrap interval over conversations
(position consistency, rank stability, the panel's agreement) cannot decide. Below it a
percentile interval is too narrow to read (one conversation gives an interval of one point);
the report's threshold for too few conversations is the same."""
MIN_TEST_RETEST = 5
"""Fewer complete conversations than this: no ICC (its F-based interval needs a few rows)."""
MIN_AGREEMENT_UNITS = 20
"""Fewer units (drafts, or questions about drafts) answered by two judges or more than this: the
panel's agreement cannot decide (two judges agreeing on three drafts by chance is no panel)."""
COLLAPSE_SHARE = 0.9
"""A judge whose most frequent rating covers this share of the drafts it rated has "collapsed"."""
MIN_COLLAPSE_DRAFTS = 20
"""Fewer rated drafts than this: collapse cannot decide."""
RANK_SETTLED = 0.975
"""A pair's order is "settled" when it holds in at least this share of replicates: the same as
the 95% percentile interval of the paired difference excluding 0 (one tail of 2.5%)."""
MIN_PILOT_CONVERSATIONS = 10
"""Fewer shared conversations in a pilot: the plan cannot decide (it would plan on noise)."""
RESOLUTION = 0.01
"""Composite points: the precision a report gives a Composite (two decimals). The plan refuses
a difference to detect below it, and reads a variance of a conversation's difference below its
square as none (docs/stability.md, 'How many epochs and conversations?')."""

READINGS: dict[str, tuple[str, ...]] = {
    "position_bias": ("position-biased", "no position bias found"),
    "position_consistency": ("follows content", "consistent only by chance", "against content"),
    "test_retest": ("poor", "moderate", "good", "excellent"),
    "rank_stability": ("settled", "not settled"),
    "judge_agreement": ("reliable", "tentative", "unreliable"),
    "judge_collapse": ("collapsed", "not collapsed"),
    "self_judge": ("same model", "same family", "not related"),
    "plan": ("conversations needed", "unreachable"),
}
"""Each verdict's readings besides "cannot decide: <reason>" (the positive one first)."""

RULES: dict[str, str] = {
    "position_bias": (
        f"position-biased when Pearson's chi-square over the displayed pairs rejects a chooser "
        f"blind to the order at p < {BIAS_ALPHA}, p from redrawing each turn's display order "
        f"(a permutation test: the answers of one call move together), and some share (the "
        f"earlier-displayed one's, or a position's) is {BIAS_MARGIN:.2f} or more from its "
        f"expectation; "
        f"{cannot_decide(f'fewer than {MIN_COMPARISONS} choices')}"
    ),
    "position_consistency": (
        "the same reply (by content) chosen in two epochs that showed the pair in opposite order; "
        "follows content when the 95% CI of consistency minus its content-blind chance (from the "
        "model's own position shares) lies above 0, only by chance when it covers 0, against "
        f"content when below; {cannot_decide('one epoch')}, fewer than {MIN_SWAPS} swapped "
        f"pairs or fewer than {MIN_CLUSTERS} conversations"
    ),
    "test_retest": (
        "ICC(A,1) (two-way random effects, absolute agreement, single epoch; McGraw & Wong 1996) "
        "of the per-conversation Composite across epochs, read on Koo & Li's (2016) bands: "
        "< 0.5 poor, 0.5-0.75 moderate, 0.75-0.9 good, > 0.9 excellent; "
        f"{cannot_decide('one epoch')}, fewer than {MIN_TEST_RETEST} complete conversations, or "
        "no variance at all"
    ),
    "rank_stability": (
        "per pair of models, the share of bootstrap replicates (conversations, then epochs "
        "within each) in which their order holds; the order is settled when the share is >= "
        f"{RANK_SETTLED} (the paired difference's 95% percentile interval excludes 0); "
        f"{cannot_decide(f'fewer than {MIN_CLUSTERS} conversations')} every model has, or a tie"
    ),
    "judge_agreement": (
        "Krippendorff's alpha (ordinal for ratings, nominal for yes/no/na) with a 95% bootstrap "
        "CI over conversations (each one's drafts drawn together); Krippendorff (2004): >= 0.8 "
        f"reliable, 0.667-0.8 tentative, < 0.667 unreliable; {cannot_decide('one judge')}, "
        f"fewer than {MIN_AGREEMENT_UNITS} units answered by two judges, fewer than "
        f"{MIN_CLUSTERS} conversations, or one value throughout"
    ),
    "judge_collapse": (
        f"a judge is collapsed on a criterion when one rating covers >= {COLLAPSE_SHARE:.0%} of "
        f"the drafts it rated; {cannot_decide(f'fewer than {MIN_COLLAPSE_DRAFTS} rated drafts')}"
        f", or the drafts themselves do not vary (one draft text on >= {COLLAPSE_SHARE:.0%} of "
        "them)"
    ),
    "panel": (
        "the panel's rating is the mean of its judges' ratings; its yes/no/na answer the most "
        "frequent one, a tie going to the earliest-listed judge among the tied answers"
    ),
    "plan": (
        "the fewest conversations whose two-sided paired t reaches the power wanted, per number "
        f"of epochs; {cannot_decide('a pilot of one epoch')}, fewer than "
        f"{MIN_PILOT_CONVERSATIONS} shared conversations, two runs of identical Composites, or "
        f"a variance of a conversation's difference under {RESOLUTION}^2 (an SD under "
        f"{RESOLUTION} Composite points, the report's precision)"
    ),
}
