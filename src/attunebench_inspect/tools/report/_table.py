"""What every section of the report is made of: a `Table` of cells with its title, note and the
line that replaces it where it has nothing to show, and how a number or an interval reads in a
cell. The formats (`_formats/`) lay tables out; the sections (`_sections/`, the instruments')
fill them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..._util.bootstrap import Interval, fixed
from ...score._catalog import BY_NAME

Cell = str | float | int | None
T = TypeVar("T")
Columns = Sequence[tuple[str, Callable[[T], Cell]]]
"""A table's columns: each heading, and its cell of a row's item."""


@dataclass(frozen=True)
class Table:
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    note: str = ""
    empty: str = ""
    """Why the table may have no rows."""

    @property
    def unsaid(self) -> str:
        """The one line that replaces a table with nothing to say ("" for a table with rows):
        printed instead of empty headers."""
        return "" if self.rows else self.empty


def item_table(title: str, items: Iterable[T], columns: Columns[T]) -> Table:
    """A table of a row per item."""
    rows = [[cell(item) for _, cell in columns] for item in items]
    return Table(title, [heading for heading, _ in columns], rows)


def number(value: float, digits: int = 3) -> str:
    """`value` with `digits` decimals, "-" where missing."""
    return "-" if math.isnan(value) else fixed(value, digits)


def ci(value: Interval, digits: int = 3) -> str:
    """An estimate and its interval; over one conversation the estimate alone (a bootstrap
    over one value has no spread to show)."""
    if math.isnan(value.estimate):
        return "-"
    if value.n == 1:
        return number(value.estimate, digits)
    low, high = number(value.low, digits), number(value.high, digits)
    return f"{number(value.estimate, digits)} [{low}, {high}]"


def text(cell: Cell) -> str:
    if cell is None:
        return "-"
    if isinstance(cell, float):
        return number(cell)
    return str(cell)


def nothing_to_show(title: str, why: str) -> Table:
    return Table(title, [], [], empty=why)


def too_few(wanted: int, have: int) -> str:
    return f"Needs {wanted} models besides chance in this mode; the logs have {have}."


def sentence(rule: str) -> str:
    return rule[:1].upper() + rule[1:]


_CATALOG_RANK = {name: i for i, name in enumerate(BY_NAME)}


def catalog_order(names: set[str]) -> list[str]:
    """Metric names in the catalog's order (Composite inputs by pillar), unknown names last."""
    return sorted(names, key=lambda n: (_CATALOG_RANK.get(n, len(_CATALOG_RANK)), n))
