"""The report's sections (the main task's and each instrument's, in the order they are shown) and
the report in each of its forms: terminal, Markdown, CSV, JSON, HTML and figures."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from .. import instruments
from ..tools.report._build import Report
from ..tools.report._formats import csv_text, json_text, markdown_text, terminal_text
from ..tools.report._formats.html_page import PLOTS_HINT, html_page
from ..tools.report._sections import MAIN_SECTIONS
from ..tools.report._sections.base import Section, models_besides_chance
from ..tools.report._sections.scope import SECTION as SCOPE
from ..tools.report._table import Table

if TYPE_CHECKING:
    from ..tools.report._plot import Chart


def sections() -> list[Section]:
    """The report's sections in the order they are shown: the main task's, each instrument's
    after the section its record names. Each gives its tables (none where it has nothing to
    show) and its figures per mode."""
    shown = list(MAIN_SECTIONS)
    for instrument in instruments.INSTRUMENTS:
        if instrument.section is not None:
            at = next(i for i, s in enumerate(shown) if s.name == instrument.after)
            # After the named section and any instrument's placed after it before this one.
            while at + 1 < len(shown) and shown[at + 1] not in MAIN_SECTIONS:
                at += 1
            shown.insert(at + 1, instrument.section)
    return shown


class MissingPlots(RuntimeError):
    pass


def plots_available() -> bool:
    """Whether matplotlib is installed (figures are optional: the `plots` extra)."""
    return find_spec("matplotlib") is not None


def tables(report: Report) -> list[Table]:
    shown = sections()
    if not report.leaderboard:  # no run of the main task: the other tasks' sections only
        alone = [i.section for i in instruments.INSTRUMENTS if report.parts[i.name].alone()]
        shown = [SCOPE, *(s for s in shown if s in alone)]
    return [table for section in shown for table in section.tables(report)]


def charts(report: Report) -> list[Chart]:
    """Every figure of the report, mode by mode, section by section."""
    from matplotlib import rc_context

    from ..tools.report._plot import STYLE

    def of_mode(mode: str) -> Iterator[Chart]:
        for section in sections():
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
    return json_text(report.document())


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
