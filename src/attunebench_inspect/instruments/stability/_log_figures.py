"""The stability figures a log can show, from a run's records (`_record.py`): point
estimates only, cheap enough for Inspect to recompute as a run goes; the report adds their
intervals and verdicts. Each is present only where it applies (docs/stability.md, 'Where to
look'): undefined is absent, never a number. Pure: no Inspect."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from ...score._panel import ANSWER_DOMAIN, RATING_DOMAIN
from ...solve._predictions import JudgeVerdict
from ._agreement import Draft, alpha, judge_profile, panel_data
from ._position import consistency_point
from ._record import StabilityRecord
from ._retest import retest_reliability


def epoch_composites(records: Sequence[StabilityRecord]) -> dict[str, list[float]]:
    """conversation -> its Composite per epoch, in order (shorter where an epoch errored)."""
    by_conversation: dict[str, dict[int, float]] = defaultdict(dict)
    for r in records:
        by_conversation[r.conversation][r.epoch] = r.composite
    return {c: [e[k] for k in sorted(e)] for c, e in sorted(by_conversation.items())}


def judged_drafts(records: Sequence[StabilityRecord]) -> dict[Draft, dict[str, JudgeVerdict]]:
    """(conversation, epoch, turn) -> model role -> that judge's answer about the draft."""
    return {
        (r.conversation, r.epoch, turn): dict(verdicts)
        for r in records
        for turn, verdicts in r.verdicts.items()
    }


def draft_digests(records: Sequence[StabilityRecord]) -> dict[Draft, str]:
    """(conversation, epoch, turn) -> the digest of the judged draft's text."""
    return {(r.conversation, r.epoch, turn): d for r in records for turn, d in r.drafts.items()}


def log_metrics(records: Sequence[StabilityRecord]) -> dict[str, float]:
    """Every stability figure that applies to a run, by its catalog name."""
    values: dict[str, float] = {}
    choices = [c for r in records for c in r.choices]
    if choices:
        values["pairwise_earlier_share"] = sum(c.chose_earlier for c in choices) / len(choices)
    if len({r.epoch for r in records}) >= 2:
        point = consistency_point(choices)
        if point is not None:
            values["position_consistency"] = point.consistency
            values["position_consistency_excess"] = point.consistency - point.chance
        retest = retest_reliability(epoch_composites(records))
        if retest.icc is not None:
            values["composite_icc"] = retest.icc.value
        values["composite_epoch_sd"] = retest.spread_sd
    # The panel's figures need two judges; they read every epoch's drafts.
    roles = dict.fromkeys(role for r in records for role in r.judges)
    if len(roles) >= 2:
        panel = panel_data(list(roles), judged_drafts(records), draft_digests(records))
        overall = panel.ratings.get("overall", [])
        profiles = [judge_profile(row, panel.digests) for row in overall]
        means = [p.mean for p in profiles if p.drafts]
        decided = [p.collapsed for p in profiles if p.collapsed is not None]
        values["judge_alpha_overall"] = alpha(overall, "ordinal", RATING_DOMAIN)
        values["judge_alpha_binary"] = alpha(panel.answers, "nominal", ANSWER_DOMAIN)
        values["judge_leniency_spread"] = max(means) - min(means) if means else math.nan
        values["judge_collapsed_share"] = sum(decided) / len(decided) if decided else math.nan
    return {name: value for name, value in values.items() if not math.isnan(value)}
