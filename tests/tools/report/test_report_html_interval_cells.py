"""The HTML report's cells holding a value and its interval: the interval goes under its value
where the table needs the room, and nowhere else."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from attunebench_inspect.tools.report._formats.html_page import html_page
from attunebench_inspect.tools.report._table import Table

# Two rows as `attunebench report` wrote them for the random baseline and memorizer/recall on the
# bundled set, in the contamination section's eleven columns of task version 4-A: the table was
# 65 px wider than its box at 1280 px, its files layout and seed columns out of sight.
CONTAMINATION = Table(
    title="Contamination: has the model seen these conversations?",
    columns=[
        "model",
        "verdict",
        "Composite [95% CI] by mode",
        "ROUGE-L guided / general",
        "difference [95% CI]",
        "permutation p",
        "exact / near-exact",
        "recalled (longest run)",
        "texts (conversations)",
        "files layout",
        "seed",
    ],
    rows=[
        [
            "chance",
            "not suspected",
            "default 21.54 [20.16, 22.88]",
            "0.085 / 0.086",
            "-0.001 [-0.007, 0.005]",
            "0.6270",
            "0 / 0",
            "0 (7)",
            "256 (25)",
            "not run",
            0,
        ],
        [
            "memorizer/recall",
            "suspected",
            "-",
            "0.258 / 0.101",
            "0.157 [0.115, 0.200]",
            "0.0001",
            "45 / 0",
            "0 (9)",
            "256 (25)",
            "not run",
            0,
        ],
    ],
)
NARROW = Table(
    title="Narrow", columns=["model", "Composite"], rows=[["chance", "21.54 [20.16, 22.88]"]]
)


def test_an_interval_cell_breaks_only_before_its_interval() -> None:
    page = html_page("", "", [NARROW], None)
    cell = re.search(r"<td[^>]*>21\.54[^<]*</td>", page)
    assert cell is not None
    assert cell.group() == "<td class='long'>21.54 [20.16,&nbsp;22.88]</td>"
    # Not an interval: one line, as before.
    assert "<td>not suspected</td>" in html_page("", "", [CONTAMINATION], None)


def test_the_contamination_table_is_whole_at_1280_px(tmp_path: Path, chromium: Any) -> None:
    page_file = tmp_path / "report.html"
    page_file.write_text(html_page("", "", [CONTAMINATION, NARROW], None), encoding="utf-8")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(page_file.as_uri())
        whole = page.evaluate(
            "Array.from(document.querySelectorAll('table')).map(t => "
            "t.getBoundingClientRect().right <= t.parentElement.getBoundingClientRect().right)"
        )
        heights = page.evaluate(
            "Array.from(document.querySelectorAll('table')).map(t => "
            "Array.from(t.querySelectorAll('td')).filter(c => c.textContent.includes('[')).map("
            "c => c.getBoundingClientRect().height))"
        )
    assert whole == [True, True]
    contamination, narrow = heights
    # Where the table needs the room the intervals wrap (two lines); where it has room, one.
    assert min(contamination) > 1.5 * narrow[0]
