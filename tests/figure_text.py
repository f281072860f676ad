"""What a matplotlib figure shows as text: its colour bars' labels, its legend, and any text that
reaches past its canvas."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.text import Text


def colorbar_labels(figure: Figure) -> list[str]:
    return [a.get_ylabel() for a in figure.axes if a.get_label() == "<colorbar>"]


def legend_texts(figure: Figure) -> list[str]:
    return [t.get_text() for legend in figure.legends for t in legend.get_texts()]


def texts_outside(figure: Figure) -> list[str]:
    """Every text that reaches past the canvas (a clipped title, legend entry or label)."""
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    canvas = figure.bbox.padded(1)
    shown = [t for t in figure.findobj(Text) if t.get_visible() and t.get_text()]
    return [
        t.get_text()
        for t in shown
        if not all(canvas.contains(*corner) for corner in t.get_window_extent(renderer).corners())
    ]
