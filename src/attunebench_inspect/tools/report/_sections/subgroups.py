"""A subgroup of conversations (`--compare`) beside the rest."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ....score._catalog import label
from .._build import Report
from .._table import Table, ci
from .base import Section

if TYPE_CHECKING:  # figures need the `plots` extra
    from .._plot import Chart


def _tables(report: Report) -> list[Table]:
    if not report.compare:
        return []
    compared = {(s.model, s.mode) for s in report.subgroups}
    left_out = [
        f"{r.model} ({r.mode})" for r in report.leaderboard if (r.model, r.mode) not in compared
    ]
    where = f" among the conversations where {report.where}" if report.where else ""
    why = (
        f"no conversation in the subgroup, or none in the rest{where}: {', '.join(left_out)}"
        if left_out
        else ""
    )
    return [
        Table(
            f"Subgroup: {report.compare} vs the rest",
            ["mode", "model", "metric", "subgroup", "rest", "difference [95% CI]"],
            [
                [
                    s.mode,
                    s.model,
                    label(s.metric),
                    f"{ci(s.inside)} (n={s.inside.n})",
                    f"{ci(s.rest)} (n={s.rest.n})",
                    ci(s.difference),
                ]
                for s in report.subgroups
            ],
            f"Not compared, {why}." if why and report.subgroups else "",
            empty=f"No subgroup comparison: {why}." if why else "",
        )
    ]


def _charts(report: Report, mode: str) -> Iterator[Chart]:
    from .._charts import subgroup
    from .._plot import Chart

    composite = [s for s in report.subgroups if s.mode == mode and s.metric == "composite"]
    if composite and report.compare:
        yield Chart(f"subgroup_{mode}", mode, subgroup(mode, composite, report.compare))


SECTION = Section("subgroups", _tables, _charts)
