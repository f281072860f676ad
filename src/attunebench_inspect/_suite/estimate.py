"""The estimate's list of tasks beside the main one: what `attunebench estimate` can add to a
bill (a flag each). An instrument with a task of its own joins here."""

from ..instruments.contamination import LAYOUT_PRICED as CONTAMINATION_LAYOUT
from ..instruments.contamination import PRICED as CONTAMINATION
from ..tools.estimate import PricedTask

PRICED: tuple[PricedTask, ...] = (CONTAMINATION, CONTAMINATION_LAYOUT)
