"""`attunebench plan`: a pilot's (or stated) variances, the plan's table, each row's cost."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import partial
from operator import mul

from ...data._codebook import Codebook
from ...data._problems import InputError
from ...score._catalog import BY_NAME
from ...solve._modes import mode_spec
from ...tools.estimate import Prices, bills, estimate_modes
from ...tools.estimate._bill_text import table
from ...tools.report._compared import compared
from ...tools.report._logs import is_main_task_run, read_runs
from ...tools.report._run_table import run_table
from ._power import PlanRow, Variances, pilot_abstention, plan, run_cost, variances_from_pilot
from ._rules import RESOLUTION, RULES

MAX_EPOCHS = 100
"""The most epochs a plan searches (each row is a power search over conversations)."""


@dataclass(frozen=True)
class Pilot:
    """Where the variances came from: two runs of a pilot, or the user's statement."""

    source: str
    variances: Variances
    observed: float | None = None
    """The pilot's observed Composite difference A - B (shown, never planned on: Hoenig &
    Heisey 2001)."""
    abstention: str | None = None
    """Why the pilot or the statement cannot decide a plan (RULES["plan"]); None: it can."""


def stated(variances: Variances) -> Pilot:
    """Variances the user states (`--variances`)."""
    return Pilot("stated", variances, abstention=variances.abstention)


def pilot_from_logs(logs: Sequence[str], models: Sequence[str] | None, mode: str | None) -> Pilot:
    """The variance components of the pilot's two runs (the models named, or the only two)."""
    runs = compared([r for r in read_runs(logs)[0] if is_main_task_run(r)], lambda r: "main")[0]
    if mode is not None:
        runs = [r for r in runs if r.mode == mode]
    if models:
        chosen = [next((r for r in runs if r.model == m), None) for m in models]
        missing = [m for m, r in zip(models, chosen, strict=True) if r is None]
        if missing:
            found = ", ".join(sorted({f"{r.model} ({r.mode})" for r in runs})) or "none"
            raise InputError(f"no run of {', '.join(missing)} in the pilot logs; runs: {found}")
        pair = [r for r in chosen if r is not None]
    else:
        pair = runs
    if len(pair) != 2 or pair[0].mode != pair[1].mode:
        listed = ", ".join(f"{r.model} ({r.mode})" for r in pair) or "none"
        raise InputError(
            f"the pilot needs two runs of one mode (name them with --models A B, and "
            f"--mode); found {listed}"
        )
    a, b = (run_table(r).epoch_composites for r in pair)
    shared = sorted(set(a) & set(b))
    names = " - ".join(f"{r.model}" for r in pair)
    source = f"pilot {names} ({pair[0].mode}, {len(shared)} shared conversations)"
    abstention = pilot_abstention(a, b)
    if abstention is not None:
        return Pilot(source, Variances(math.nan, math.nan, math.nan), abstention=abstention)
    observed = sum(sum(a[c]) / len(a[c]) - sum(b[c]) / len(b[c]) for c in shared) / len(shared)
    return Pilot(source, variances_from_pilot(a, b), observed)


@dataclass(frozen=True)
class PricedRow:
    row: PlanRow
    cost_usd: dict[str, float]
    """Per model, the run's bill with the provider's cache, every epoch priced as the first."""

    @property
    def total_usd(self) -> float:
        return sum(self.cost_usd.values()) if self.cost_usd else math.nan


def priced(
    rows: Sequence[PlanRow],
    models: Sequence[tuple[str, Prices]],
    *,
    data: str | None,
    codebook: Codebook,
    mode: str,
    judge: bool,
    tokenizer: str,
) -> tuple[list[PricedRow], int]:
    """Each row with each model's cost: the estimate's bill of the data set in `mode`, per
    conversation, times the row's conversations and epochs; and how many conversations the data
    set priced has (0 without models: nothing was priced)."""
    if not models:
        return [PricedRow(r, {}) for r in rows], 0
    estimates = estimate_modes(data, codebook, [mode_spec(mode).mode], judge, tokenizer)
    per_conversation = {
        bill.model: bill.cost_usd_cache / bill.conversations
        for bill in bills(estimates.bill, models, estimates.tokens)
    }
    return [
        PricedRow(
            r,
            {model: run_cost(r, [partial(mul, cost)]) for model, cost in per_conversation.items()},
        )
        for r in rows
    ], len(estimates.ids)


def plan_rows(
    pilot: Pilot,
    difference: float,
    *,
    target: float,
    alpha: float,
    max_epochs: int,
    available: int | None,
) -> list[PlanRow]:
    if not difference >= RESOLUTION or not math.isfinite(difference):
        raise InputError(
            f"--difference must be at least {RESOLUTION} Composite points (the precision a "
            f"report gives a Composite: a smaller difference cannot be shown); got {difference:g}"
        )
    low, high = BY_NAME["composite"].low, BY_NAME["composite"].high
    if difference > high - low:
        raise InputError(
            f"--difference must be at most {high - low:.1f} Composite points (a Composite runs "
            f"from {low:.1f} to {high:g}, so no two differ by more); got {difference}"
        )
    if not 0 < target < 1 or not 0 < alpha < 1:
        raise InputError(f"--power and --alpha must be in (0, 1); got {target}, {alpha}")
    if target <= alpha:
        raise InputError(
            f"--power must be above --alpha (a test rejects at rate alpha with no difference at "
            f"all, so any plan reaches a power of alpha); got power {target}, alpha {alpha}"
        )
    if not 1 <= max_epochs <= MAX_EPOCHS:
        raise InputError(f"--max-epochs must be from 1 to {MAX_EPOCHS}; got {max_epochs}")
    if pilot.abstention is not None:
        return []
    return plan(
        difference,
        pilot.variances,
        target=target,
        alpha=alpha,
        max_epochs=max_epochs,
        available=available,
    )


def plan_lines(
    pilot: Pilot, difference: float, target: float, alpha: float, rows: Sequence[PricedRow]
) -> list[str]:
    if pilot.abstention is not None:
        return [f"Plan ({pilot.source}): {pilot.abstention} ({RULES['plan']})"]
    v = pilot.variances
    lines = [
        f"Variances ({pilot.source}), Composite points squared: between conversations "
        f"{v.between:.2f}, within (across epochs) A {v.within_a:.2f}, B {v.within_b:.2f}",
    ]
    if pilot.observed is not None:
        lines.append(
            f"The pilot's observed difference A - B: {pilot.observed:.2f} points (not planned on)"
        )
    lines.append(
        f"To detect a Composite difference of {difference:g} points with power {target:g} at "
        f"alpha {alpha:g} (two-sided paired t over shared conversations):"
    )
    models = list(rows[0].cost_usd) if rows else []
    totals = ["total USD"] if models else []
    header = ["epochs", "conversations", "power", *(f"{m} USD" for m in models), *totals]
    cells_of_rows: list[list[str]] = []
    for p in rows:
        r = p.row
        n = (
            "unreachable"
            if r.conversations is None
            else f"{r.conversations}" + ("" if r.available else " (more than the data has)")
        )
        cells = [str(r.epochs), n, "-" if math.isnan(r.power) else f"{r.power:.3f}"]
        cells += [_usd(p.cost_usd[m]) for m in models]
        cells += [_usd(p.total_usd)] if models else []
        cells_of_rows.append(cells)
    lines += table(header, cells_of_rows, text_columns=len(header))
    if models:
        lines.append(
            "Cost: attunebench estimate's bill with each provider's prompt cache, per "
            "conversation of the data set priced, times conversations and epochs (every epoch "
            "priced as the first)."
        )
    return lines


def _usd(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:,.2f}"


def _json_number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def plan_document(
    pilot: Pilot, difference: float, target: float, alpha: float, rows: Sequence[PricedRow]
) -> str:
    document = {
        "source": pilot.source,
        "abstention": pilot.abstention,
        "variances": {k: _json_number(v) for k, v in asdict(pilot.variances).items()},
        "observed_difference": pilot.observed,
        "rule": RULES["plan"],
        "difference": difference,
        "power_target": target,
        "alpha": alpha,
        "rows": [
            {
                "epochs": p.row.epochs,
                "conversations": p.row.conversations,
                "power": _json_number(p.row.power),
                "available": p.row.available,
                "cost_usd": {m: _json_number(c) for m, c in p.cost_usd.items()},
                "total_usd": _json_number(p.total_usd),
            }
            for p in rows
        ],
    }
    return json.dumps(document, indent=2) + "\n"
