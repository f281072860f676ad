"""The report's section of the human baseline: each person beside each model, on the
conversations both answered (docs/human-baseline.md)."""

from __future__ import annotations

from ...score._catalog import label
from ...tools.report._analyses import FEW_CONVERSATIONS
from ...tools.report._build import Report
from ...tools.report._sections.base import Section
from ...tools.report._table import Cell, Table, ci
from ._answers import is_human
from ._comparison import HumanComparison, HumanPart


def _human_row(h: HumanComparison) -> list[Cell]:
    digits = 2 if h.metric == "composite" else 3
    few = h.conversations < FEW_CONVERSATIONS
    return [
        h.mode,
        h.human,
        h.model,
        f"{h.conversations} (few)" if few else h.conversations,
        label(h.metric),
        *(ci(v, digits) for v in (h.human_value, h.model_value, h.difference)),
    ]


def _tables(report: Report) -> list[Table]:
    humans = sorted({r.model for r in report.runs if is_human(r.model)})
    if not humans:
        return []
    return [
        Table(
            "Humans beside models, on the conversations both answered (95% bootstrap CI)",
            ["mode", "human", "model", "n", "metric", "human", "model", "human - model"],
            [_human_row(h) for h in report.part(HumanPart).human],
            "Every row is over the n conversations both the person and the model answered; the "
            "difference is paired per conversation. (few): fewer than "
            f"{FEW_CONVERSATIONS} conversations, where the interval says more than the estimate.",
            empty=f"No model shares a conversation with {', '.join(humans)}: run the models on "
            "the conversations the people answered.",
        )
    ]


SECTION = Section("human", _tables)
