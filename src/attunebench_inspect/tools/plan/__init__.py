"""`attunebench plan`: how many conversations and epochs separate two models at a given Composite
difference, with what power, at what cost. The arithmetic (`power.py`) is pure; the command
(`command.py`) reads a pilot's logs or stated variances and prices the run with the estimate's
bill."""

from .command import Pilot, PricedRow, pilot_from_logs, plan_document, plan_lines, plan_rows, priced
from .power import (
    MAX_CONVERSATIONS,
    PlanRow,
    Variances,
    conversations_needed,
    plan,
    power,
    run_cost,
    variances_from_pilot,
)

__all__ = [
    "MAX_CONVERSATIONS",
    "Pilot",
    "PlanRow",
    "PricedRow",
    "Variances",
    "conversations_needed",
    "pilot_from_logs",
    "plan",
    "plan_document",
    "plan_lines",
    "plan_rows",
    "power",
    "priced",
    "run_cost",
    "variances_from_pilot",
]
