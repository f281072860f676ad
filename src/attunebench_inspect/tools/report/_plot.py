"""What the report's figures are drawn with: matplotlib's Agg backend in the report's style, a
`Chart` per figure, PNG bytes for `--plots` and the HTML page, and the helpers every section's
figures share (model rows, intervals, colour grids).

Needs the `plots` extra (matplotlib, Pillow): sections import their charts only where figures
are drawn.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib import colormaps, rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure, SubFigure
from numpy.typing import NDArray
from PIL import Image

from ..._util.bootstrap import Interval
from ..._util.files import output_folder, write_atomic
from ...score._catalog import spec
from ._table import number

if TYPE_CHECKING:  # newer than the oldest matplotlib the `plots` extra allows
    from matplotlib.typing import RcKeyType

DPI = 100
"""Figure inches to CSS pixels: a figure WIDTH inches wide is shown WIDTH * 100 px wide."""
PNG_DPI = 200
"""Twice the CSS size, so PNGs stay sharp on high-density screens and when zoomed."""
WIDTH = 11.0
"""Full-width figures: 1100 px, inside the page's 1200 px column at a 1280 px window."""
NAME_CHARS = 36
"""Longer model names are shortened in the middle, where provider/name/date prefixes and
suffixes are least telling."""
MINUS = "\N{MINUS SIGN}"
NO_VALUE = "\N{EN DASH}"
BAR = "#3566a8"
CHANCE = "#a0a0a0"
SERIES = ("#3566a8", "#d1792b", "#3f9a58", "#b7443e", "#7a5aa6", "#8c6d3f", "#c2578f", "#4d4d4d")
MARKERS = "osD^v"
"""With more models than colours, the marker tells repeated colours apart."""

STYLE: dict[RcKeyType, Any] = {
    "font.size": 10,
    "axes.titlesize": 10,
    "figure.titlesize": 12,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
}


@dataclass(frozen=True)
class Chart:
    name: str
    """File stem, e.g. composite_default."""
    mode: str
    figure: Figure


def short(name: str, limit: int = NAME_CHARS) -> str:
    """`name` in at most `limit` characters, with an ellipsis in the middle if it is longer."""
    if len(name) <= limit:
        return name
    head = (limit - 1) // 2
    return f"{name[:head]}…{name[len(name) - (limit - 1 - head) :]}"


def tick_number(value: float) -> str:
    return f"{value:.3g}".replace("-", MINUS)


def scale(metric: str) -> str:
    """A metric's axis label: its catalog label and range, e.g. "Binary OM (0 to 1)"."""
    entry = spec(metric)
    return f"{entry.label} ({tick_number(entry.low)} to {tick_number(entry.high)})"


def new_figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def title(figure: Figure, text: str) -> None:
    """The figure's title, wrapped to its width (titles carry mode names and filters)."""
    chars = int(figure.get_figwidth() * DPI / 10.5)  # 12 pt DejaVu Sans: under 10.5 px a letter
    figure.suptitle(textwrap.fill(text, chars))


def png(figure: Figure) -> bytes:
    raw = BytesIO()
    with rc_context(STYLE):
        figure.savefig(raw, format="png", dpi=PNG_DPI, metadata={"Software": None})
    # 256 colours: under a third of the bytes (the HTML page inlines every figure) and, with flat
    # fills and antialiased text at twice the CSS size, no visible change.
    image = Image.open(raw).convert("RGB")
    image = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    # The octree rounds the white background to 254, a grey box on the white page: snap it back.
    colours = image.getpalette() or []
    triples = [colours[i : i + 3] for i in range(0, len(colours), 3)]
    image.putpalette([c for t in triples for c in ([255] * 3 if min(t) >= 250 else t)])
    out = BytesIO()
    image.save(out, format="png")
    return out.getvalue()


def decimal(value: float, digits: int = 2) -> str:
    return number(value, digits).replace("-", MINUS)


def show(interval: Interval, digits: int = 1) -> str:
    """An estimate and its interval, as the tables write them (`_table.ci`: over one
    conversation, the estimate alone)."""
    if math.isnan(interval.estimate):
        return NO_VALUE
    if interval.n == 1:
        return decimal(interval.estimate, digits)
    low, high = (decimal(x, digits) for x in (interval.low, interval.high))
    return f"{decimal(interval.estimate, digits)} [{low}, {high}]"


def errors(intervals: Sequence[Interval]) -> NDArray[np.float64]:
    """Matplotlib's (2, n) error bar lengths below and above each estimate (0 where unknown)."""
    below = [i.estimate - i.low for i in intervals]
    above = [i.high - i.estimate for i in intervals]
    return np.nan_to_num(np.array([below, above], dtype=np.float64))


def numbers_on_right(ax: Axes, texts: Sequence[str]) -> None:
    """Each row's estimate and interval as tick labels on the right, where the layout keeps
    them inside the canvas."""
    right = ax.secondary_yaxis("right")
    right.set_yticks(range(len(texts)), labels=texts)
    right.tick_params(length=0)
    right.spines["right"].set_visible(False)


def model_rows(ax: Axes, models: Sequence[str]) -> None:
    ax.set_yticks(range(len(models)), labels=[short(m) for m in models])
    ax.set_ylim(len(models) - 0.5, -0.5)  # the first row on top
    ax.set_ylabel("model")


def _text_colour(cmap: Colormap, shade: float) -> str:
    red, green, blue, _ = cmap(shade)
    return "white" if 0.299 * red + 0.587 * green + 0.114 * blue < 0.5 else "black"


def grid(
    ax: Axes,
    shade: NDArray[np.float64],
    texts: Sequence[Sequence[str]],
    cmap: Colormap,
    rows: Sequence[str],
    columns: Sequence[str],
) -> None:
    """A heatmap of `shade` (0 to 1; NaN grey) with each cell's number written in it, so it
    reads with one model, with two, and in black and white."""
    ax.imshow(np.ma.masked_invalid(shade), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for (i, j), value in np.ndenumerate(shade):
        colour = "black" if np.isnan(value) else _text_colour(cmap, float(value))
        ax.text(j, i, texts[i][j], ha="center", va="center", color=colour, fontsize=9)
    ax.set_xticks(range(len(columns)), labels=columns, rotation=35, ha="right")
    ax.set_yticks(range(len(rows)), labels=rows)
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)


def colorbar(
    figure: Figure | SubFigure,
    ax: Axes | list[Axes],
    cmap: Colormap,
    low: float,
    high: float,
    text: str,
) -> Colorbar:
    bar = figure.colorbar(ScalarMappable(Normalize(low, high), cmap), ax=ax, shrink=0.9)
    bar.set_label(text)
    return bar


def sequential() -> Colormap:
    return colormaps["viridis"].with_extremes(bad="#e6e6e6")


def diverging() -> Colormap:
    return colormaps["RdBu"].with_extremes(bad="#e6e6e6")


Series = tuple[str, str, Sequence[Interval]]
"""A legend name, a colour, and one interval per row."""


def points(
    ax: Axes,
    intervals: Sequence[Interval],
    colour: str,
    shift: float = 0.0,
    name: str | None = None,
) -> None:
    """Each row's estimate as a point with its interval as error bars, `shift` below the row."""
    ax.errorbar(
        [i.estimate for i in intervals],
        np.arange(len(intervals)) + shift,
        xerr=errors(intervals),
        fmt="o",
        color=colour,
        capsize=3,
        label=name,
    )


def two_series(ax: Axes, first: Series, second: Series) -> None:
    """Two intervals per row, the first drawn just above the row and the second just below."""
    for offset, (name, colour, intervals) in enumerate((first, second)):
        points(ax, intervals, colour, (offset - 0.5) * 0.3, name)


def write_pngs(charts: Sequence[Chart], folder: Path) -> list[Path]:
    output_folder(folder)
    paths = [folder / f"{chart.name}.png" for chart in charts]
    for chart, path in zip(charts, paths, strict=True):
        write_atomic(path, png(chart.figure))
    return paths
