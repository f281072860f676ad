"""The report's figures: what each one shows (axes with units, titles, legends), that no text falls
outside its canvas, the PNG files, the HTML page without matplotlib, and, in headless Chromium,
that the page fits a 1280 px window."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

import pytest
from matplotlib.figure import Figure
from PIL import Image

from attunebench_inspect import TASK_VERSION, Report, to_html
from attunebench_inspect._suite.cli import main
from attunebench_inspect._suite.render import MissingPlots, charts, write_plots
from attunebench_inspect.score._catalog import label, spec
from attunebench_inspect.tools.report._analyses import DRIFT_METRICS, Settings, turn_drift
from attunebench_inspect.tools.report._plot import DPI, NAME_CHARS, PNG_DPI, Chart, scale, short
from attunebench_inspect.tools.report._run_table import Conversation, RunTable
from tests.figure_text import colorbar_labels, legend_texts, texts_outside
from tests.tools.report import test_report

# The session's logs of known skill and their report (test_report.py): default mode has three
# models besides chance (so a Spearman matrix), verbose two (win rates only).
logs = test_report.logs
report = test_report.report

LONG = "provider/an-evaluated-model-with-a-very-long-name-2024-10-22 (omniscient judge)"


def _by_name(report: Report) -> dict[str, Chart]:
    return {c.name: c for c in charts(report)}


def _axes(figure: Figure) -> list[tuple[str, str]]:
    """(x label, y label) of each plotting axes (colour bars left out; a panel that shares the
    y axis of the one on its left has no y label of its own)."""
    return [(a.get_xlabel(), a.get_ylabel()) for a in figure.axes if a.get_label() != "<colorbar>"]


def test_every_figure_has_its_axes_units_and_title(report: Report) -> None:
    found = _by_name(report)
    every_mode = (
        "composite", "metrics", "perspective", "drift", "subgroup", "win_rates", "position",
        "rank_stability",
    )  # fmt: skip
    assert set(found) == {
        *(f"{kind}_{mode}" for kind in every_mode for mode in ("default", "verbose")),
        "spearman_default",
    }
    for chart in found.values():
        assert f"({chart.mode}" in chart.figure.get_suptitle()
        axes = _axes(chart.figure)
        assert all(x for x, _ in axes) and axes[0][1], chart.name
        assert all(colorbar_labels(chart.figure)), chart.name
        assert chart.figure.get_figwidth() * DPI <= 1100  # inside the page's 1200 px column

    composite = found["composite_default"].figure
    assert _axes(composite) == [(scale("composite"), "model")]
    assert scale("composite") == f"{label('composite')} (\N{MINUS SIGN}17.6 to 100)"
    assert composite.axes[0].get_xlim() == (spec("composite").low, spec("composite").high)
    assert "95% bootstrap CI" in composite.get_suptitle()
    numbers = composite.axes[0].child_axes[0].get_yticklabels()  # estimate [CI] on the right
    assert len(numbers) == 4 and all("[" in t.get_text() for t in numbers)

    heatmap = found["metrics_default"].figure.axes[0]
    columns = [t.get_text() for t in heatmap.get_xticklabels()]
    assert label("emotion_f1") in columns and label("binary_hp_accuracy") in columns
    assert len(heatmap.texts) == 4 * len(columns)  # every cell has its number

    gaps = found["perspective_default"].figure
    assert [a.get_title(loc="left") for a in gaps.axes if a.get_title(loc="left")] == [
        "OM - HP", "OM: observer - HP-facing", "HP: observer - HP-facing",
    ]  # fmt: skip
    assert {x for x, _ in _axes(gaps) if x} == {"difference (percentage points)"}

    position = found["position_default"].figure
    assert _axes(position) == [("share of the model's pairwise choices (0 to 1)", "model")]
    legend = position.axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [
        "expected if blind to position", "position 1 (shown first)", "position 2", "position 3",
    ]  # fmt: skip
    verdicts = position.axes[0].child_axes[0].get_yticklabels()  # earlier share and verdict
    assert len(verdicts) == 4 and all("earlier" in t.get_text() for t in verdicts)
    ranks = found["rank_stability_default"].figure.axes[0]
    assert (
        len(ranks.texts) == 3 * 3
        and "settled" in found["rank_stability_default"].figure.get_suptitle()
    )

    drift = found["drift_default"].figure
    assert [y for _, y in _axes(drift)] == [scale(m) for m in DRIFT_METRICS]
    assert all(x == "conversation third" for x, _ in _axes(drift))
    for ax, metric in zip(drift.axes, DRIFT_METRICS, strict=True):
        assert ax.get_ylim() == (spec(metric).low, spec(metric).high)  # the whole range
    # Three models besides chance: the series pooled over them is drawn too.
    assert set(legend_texts(drift)) == {
        "attunebench/majority", "chance", "mockllm/truth-0.2", "mockllm/truth-0.7", "all models",
    }  # fmt: skip

    subgroup = found["subgroup_default"].figure
    assert _axes(subgroup)[0] == (scale("composite"), "model")
    assert "subgroup" in _axes(subgroup)[1][0]
    assert legend_texts(subgroup) == ["subgroup: group=any_diagnosis", "the rest"]

    spearman = found["spearman_default"].figure
    assert _axes(spearman) == [("metric", "metric")]
    assert colorbar_labels(spearman) == ["Spearman rank correlation (\N{MINUS SIGN}1 to 1)"]
    wins = found["win_rates_verbose"].figure
    assert _axes(wins) == [("column model", "row model")]
    assert colorbar_labels(wins) == ["win rate (0 to 1)"]


def test_no_text_leaves_the_canvas_and_long_names_are_shortened(report: Report) -> None:
    """Long model names are shortened in the middle, and every title, label and legend stays
    inside its figure."""
    assert short(LONG) == "provider/an-evalu…(omniscient judge)"
    assert len(short(LONG)) == NAME_CHARS and short("chance") == "chance"
    renamed = {"mockllm/truth-0.7": LONG}
    long_names = dataclasses.replace(
        report,
        leaderboard=[
            dataclasses.replace(r, model=renamed.get(r.model, r.model)) for r in report.leaderboard
        ],
        drift=[dataclasses.replace(d, model=renamed.get(d.model, d.model)) for d in report.drift],
        compare="group=any_diagnosis and computed_scores.promis_anxiety_t>=55 or "
        "demographics.gender=Female and turn_count>=4",
    )
    found = _by_name(long_names)
    assert short(LONG) in legend_texts(found["drift_default"].figure)
    for chart in found.values():
        assert texts_outside(chart.figure) == [], chart.name


def test_turn_drift_intervals_resample_conversations() -> None:
    """Two conversations of three turns, one always right and one always wrong: every third's
    pooled mean is 0.5, and a replicate redraws whole conversations, so it is 0, 0.5 or 1."""

    def conversation(cid: str, value: float) -> Conversation:
        turns = [
            {"turn": float(n), "turn_count": 3.0, "binary_om_accuracy": value} for n in (1, 2, 3)
        ]
        return Conversation(cid, {}, turns, {}, {}, 0.0)

    table = RunTable(
        "m", "default", "t", "loc", {"a": conversation("a", 1.0), "b": conversation("b", 0.0)}
    )
    [row] = [
        d
        for d in turn_drift([table], Settings(2000, 0))
        if d.model == "m" and d.metric == "binary_om_accuracy"
    ]
    assert row.thirds == (0.5, 0.5, 0.5) and row.turns == (2, 2, 2)
    for interval in row.intervals:
        assert (interval.estimate, interval.low, interval.high, interval.n) == (0.5, 0.0, 1.0, 2)


def test_plots_are_the_figures_as_png(report: Report, tmp_path: Path) -> None:
    written = write_plots(report, tmp_path / "plots")
    assert sorted(p.stem for p in written) == sorted(_by_name(report))
    for path in written:
        with Image.open(path) as image:
            assert image.format == "PNG"
            # Twice the CSS size: sharp on high-density screens, at most 1100 CSS px wide.
            assert image.width <= 1100 * PNG_DPI // 100


def test_without_matplotlib(
    report: Report,
    logs: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The HTML page keeps every table and says in one line why it has no figures; --plots is an
    error with the install hint, before any work."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    page = to_html(report)
    assert (
        "data:image/png" not in page
        and f"Leaderboard, task version {TASK_VERSION}: Composite and pillars" in page
    )
    hint = "pip install &#x27;attunebench-inspect[plots]&#x27;"
    assert f"<p class='note'>Figures omitted: they need matplotlib ({hint}).</p>" in page
    with pytest.raises(MissingPlots, match=r"pip install 'attunebench-inspect\[plots\]'"):
        write_plots(report, tmp_path / "plots")
    assert main(["report", str(logs), "--plots", str(tmp_path / "plots")]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.splitlines() == [
        "attunebench report: --plots needs matplotlib: pip install 'attunebench-inspect[plots]'"
    ]
    assert not (tmp_path / "plots").exists()


def test_html_report_fits_1280_px_in_chromium(report: Report, tmp_path: Path) -> None:
    """The page in headless Chromium at 1280 x 800: no horizontal scroll, every figure loaded,
    and every table whole in the window (its box would scroll, but a column out of sight is
    one nobody reads: the Operations table once hid its cached tokens so)."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="needs Playwright (pip install playwright)"
    )
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("needs Chromium on PATH (Debian: apt-get install chromium)")
    page_file = tmp_path / "report.html"
    page_file.write_text(to_html(report), encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(page_file.as_uri())
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        images = page.evaluate(
            "Array.from(document.images).map(i => [i.complete && i.naturalWidth > 0, "
            "i.getBoundingClientRect().right])"
        )
        cut = page.evaluate(
            "Array.from(document.querySelectorAll('table')).filter(t => "
            "t.getBoundingClientRect().right > t.parentElement.getBoundingClientRect().right "
            "|| t.parentElement.getBoundingClientRect().right > innerWidth)"
            ".map(t => t.parentElement.previousElementSibling.textContent)"
        )
        tables = page.evaluate("document.querySelectorAll('table').length")
        browser.close()
    assert scroll_width <= 1280
    assert tables >= 10 and cut == []
    assert len(images) == len(charts(report))
    assert all(loaded and right <= 1280 for loaded, right in images)
