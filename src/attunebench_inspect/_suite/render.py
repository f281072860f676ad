"""The report's list of sections (`SECTIONS`: the main task's and each instrument's, in the order
they are shown) and the report in each of its forms: terminal, Markdown, CSV, JSON, HTML and
figures."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..instruments.contamination._section import SECTION as CONTAMINATION
from ..instruments.human._section import SECTION as HUMAN
from ..instruments.profile._section import SECTION as PROFILE
from ..instruments.reannotation._section import SECTION as REANNOTATION
from ..instruments.stability._section import SECTION as STABILITY
from ..tools.report._formats import csv_text, json_text, markdown_text, terminal_text
from ..tools.report._formats.html_page import PLOTS_HINT, html_page
from ..tools.report._sections import (
    CAPABILITY,
    DISTINGUISHABILITY,
    LEADERBOARD,
    MODE_DELTAS,
    OPERATIONS,
    PERSPECTIVE,
    SCOPE,
    SUBGROUPS,
)
from ..tools.report._sections.base import Section, models_besides_chance
from ..tools.report._table import Table
from .report import Report

if TYPE_CHECKING:
    from ..tools.report._plot import Chart

SECTIONS: tuple[Section[Any], ...] = (
    SCOPE,
    LEADERBOARD,
    CONTAMINATION,
    HUMAN,
    DISTINGUISHABILITY,
    PERSPECTIVE,
    STABILITY,
    SUBGROUPS,
    CAPABILITY,
    MODE_DELTAS,
    PROFILE,
    REANNOTATION,
    OPERATIONS,
)
"""The report's sections in the order they are shown; each gives its tables (none where it has
nothing to show) and its figures per mode. An instrument with a section joins here."""


class MissingPlots(RuntimeError):
    pass


def plots_available() -> bool:
    """Whether matplotlib is installed (figures are optional: the `plots` extra)."""
    return find_spec("matplotlib") is not None


def tables(report: Report) -> list[Table]:
    shown = SECTIONS
    if not report.leaderboard:  # no run of the main task: the other tasks' sections only
        shown = (SCOPE, *((CONTAMINATION,) if report.contamination else ()), PROFILE)
    return [table for section in shown for table in section.tables(report)]


def charts(report: Report) -> list[Chart]:
    """Every figure of the report, mode by mode, section by section."""
    from matplotlib import rc_context

    from ..tools.report._plot import STYLE

    def of_mode(mode: str) -> Iterator[Chart]:
        for section in SECTIONS:
            if section.charts is not None:
                yield from section.charts(report, mode)

    with rc_context(STYLE):
        return [c for mode in models_besides_chance(report) for c in of_mode(mode)]


def to_terminal(report: Report) -> str:
    return terminal_text(tables(report))


def to_markdown(report: Report) -> str:
    return markdown_text(tables(report))


def to_csv(report: Report) -> str:
    return csv_text(tables(report))


def to_json(report: Report) -> str:
    return json_text(report)


FORMS = {"terminal": to_terminal, "markdown": to_markdown, "csv": to_csv, "json": to_json}
"""`attunebench report --format`: the report in each form."""


def to_html(report: Report) -> str:
    """One self-contained HTML page: every figure (where matplotlib is installed) and table."""
    settings = f"{report.resamples} bootstrap resamples, seed {report.seed}" + (
        f"; conversations where {report.where}" if report.where else ""
    )
    runs = ", ".join(f"{r.model} ({r.mode}, {r.conversations} conversations)" for r in report.runs)
    figures = charts(report) if plots_available() else None
    return html_page(runs, settings, tables(report), figures, lead=len(SCOPE.tables(report)))


def write_plots(report: Report, folder: str | Path) -> list[Path]:
    """Every figure as a PNG file in `folder`; raises MissingPlots without matplotlib."""
    if not plots_available():
        raise MissingPlots(f"--plots needs matplotlib: {PLOTS_HINT}")
    from ..tools.report._plot import write_pngs

    return write_pngs(charts(report), Path(folder))
