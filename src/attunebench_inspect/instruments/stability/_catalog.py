"""The figures the stability instrument writes into the main task's log header, declared as the
main task's metrics are (`score.MetricSpec`, family and group `stability`): what scorers/METRICS.md
says of each. The report adds their intervals and verdicts (`_section.py`)."""

from __future__ import annotations

from ...score._catalog_doc import TABLE_HEAD, metric_row
from ...score._metric_spec import MetricSpec
from ._rules import COLLAPSE_SHARE, MIN_COLLAPSE_DRAFTS, MIN_TEST_RETEST

STABILITY_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "pairwise_earlier_share", "Earlier-shown share", "stability", "run", "stability",
        "share of the run's pairwise choices (every epoch's) that went to the reply shown "
        "earlier of the two compared; the display order is seeded at random, so a chooser that "
        "ignores position gives 1/2 whatever the data",
        "absent with no parsed comparison",
        expected=0.5,
    ),
    MetricSpec(
        "position_consistency", "Position consistency", "stability", "run", "stability",
        "share of swaps (one comparison in two epochs that showed its two replies in opposite "
        "order) where the model chose the same reply both times",
        "absent with one epoch, or no swap",
    ),
    MetricSpec(
        "position_consistency_excess", "Position consistency over chance", "stability", "run",
        "stability",
        "`position_consistency` minus the consistency a chooser blind to content, with the "
        "model's own shares of earlier choices, reaches on the same swaps (1/2 for a coin, 0 for "
        "an always-earlier chooser): above 0 the choices follow the content",
        "absent with one epoch, or no swap",
        low=-1.0,
    ),
    MetricSpec(
        "composite_icc", "Composite test-retest ICC", "stability", "run", "stability",
        "ICC(A,1) (two-way random effects, absolute agreement, one epoch; McGraw & Wong 1996) of "
        "the per-conversation Composite across epochs, over the conversations with a Composite "
        "in every epoch",
        f"absent with one epoch, or fewer than {MIN_TEST_RETEST} complete conversations; 1 when "
        "every epoch scores every conversation alike",
        low=-1.0,
    ),
    MetricSpec(
        "composite_epoch_sd", "Composite SD across epochs", "stability", "run", "stability",
        "standard deviation (n - 1) of the run Composite of each epoch, in Composite points",
        "absent with one epoch",
        higher_is_better=False, high=100.0,
    ),
    MetricSpec(
        "judge_alpha_overall", "Judge panel alpha (overall)", "stability", "run", "stability",
        "Krippendorff's alpha (ordinal) of the panel's *overall* ratings of the drafts: 1 when "
        "the judges agree, 0 at chance (every criterion, with CIs, in the report)",
        "absent with fewer than two judges, and where undefined (no draft rated by two judges, "
        "or one rating throughout)",
        low=-1.0,
    ),
    MetricSpec(
        "judge_alpha_binary", "Judge panel alpha (binary)", "stability", "run", "stability",
        "Krippendorff's alpha (nominal: yes, no, na) of the panel's answers to the binary "
        "questions about the drafts (a unit: one question about one draft)",
        "absent with fewer than two judges, and where undefined",
        low=-1.0,
    ),
    MetricSpec(
        "judge_leniency_spread", "Judge panel leniency spread", "stability", "run", "stability",
        "the most lenient judge's mean *overall* rating minus the least lenient's, on the 1-7 "
        "scale (each judge's mean in the report)",
        "absent with fewer than two judges",
        higher_is_better=False, high=6.0,
    ),
    MetricSpec(
        "judge_collapsed_share", "Judge panel collapsed share", "stability", "run", "stability",
        "share of the panel's judges whose *overall* ratings collapsed: one rating on at least "
        f"{COLLAPSE_SHARE:.0%} of the {MIN_COLLAPSE_DRAFTS} or more drafts they rated",
        f"absent with fewer than two judges, and when no judge rated {MIN_COLLAPSE_DRAFTS} drafts",
        higher_is_better=False,
    ),
)  # fmt: skip

INTRODUCTION = (
    "Does the score hold still? Instruments beside the Composite, never in it "
    "([docs/stability.md](../docs/stability.md)), written by `stability_scorer`. Its metric reads "
    "every epoch's scores unreduced (Inspect's `@metric(scores=\"unreduced\")`), so what "
    "compares epochs can be a log metric; each appears only where it applies (two epochs, two "
    "judges). The report adds their intervals and verdicts, position shares by position, and "
    "rank stability across models"
)


def stability_markdown() -> list[str]:
    """The Stability section of scorers/METRICS.md's generated block."""
    return [
        "### Stability",
        "",
        INTRODUCTION + ".",
        "",
        *TABLE_HEAD,
        *(metric_row(e) for e in STABILITY_METRICS),
        "",
    ]
