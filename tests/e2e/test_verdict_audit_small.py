"""The verdict audit, small (bench/audit/run.py --small): each instrument's module on a few
seeds. No false verdict on a negative or uninformative input, and on planted positives the power
its doc states (the full audit's rate, with the small run's granularity)."""

from __future__ import annotations

import importlib

import pytest
from bench.audit.rows import AuditRow, tally

MODULES = ("stability", "reannotation", "contamination")
LOW_POWER = {
    "the earlier-shown reply on 5% of comparisons, else the longer": 0.0,
    "the earlier-shown reply on 10% of comparisons, else the longer": 0.0,
    "the earlier-shown reply for a whole call in 10% of calls, else the longer": 0.0,
    "the longer on 25% of comparisons, else a coin": 0.0,
    "two models 1 point(s) apart, 40 conversations": 0.0,
    "two models 2 point(s) apart, 40 conversations": 1 / 3,
    "three annotators who read the person on 30% of items, else mostly a generic reading "
    "the models track": 1 / 3,
}
"""Planted positives whose power the docs state below 1 (the power curve's low end: a slight
bias, a model near chance, close models): the small run must reach this share of its seeds;
every other planted positive, all of them."""


def _rows(name: str) -> list[AuditRow]:
    try:
        module = importlib.import_module(f"bench.audit.{name}")
    except ModuleNotFoundError as ex:
        if ex.name != f"bench.audit.{name}":
            raise
        pytest.skip(f"bench/audit/{name}.py is not in this checkout")
    rows: list[AuditRow] = module.audit(200, small=True)
    return rows


@pytest.mark.parametrize("name", MODULES)
def test_the_small_audit(name: str) -> None:
    rows = _rows(name)
    assert rows and all(r.seeds > 0 for r in rows)
    for row in rows:
        assert sum(row.verdicts.values()) == row.seeds, row
        if row.planted != "positive":
            assert row.false_verdicts == 0, row
        else:
            assert row.power is not None and row.power >= LOW_POWER.get(row.behaviour, 1.0), row


def test_a_metamorphic_seed_is_false_once() -> None:
    """A seed whose verdict is wrong after the change and moved with it counts once (it counted
    twice: "4 of 50" for 2 verdicts)."""
    before = ["not suspected", "not suspected", "suspected", "not suspected"]
    after = ["suspected", "not suspected", "not suspected", "cannot decide: x"]
    row = tally("i", "b", "negative", after, ["not suspected"], before=before)
    # seed 0: wrong and moved (1); seed 2: moved to a right reading (1); seed 3: moved to an
    # abstention (1); seed 1: neither.
    assert row.false_verdicts == 3
    assert tally("i", "b", "negative", after, ["not suspected"]).false_verdicts == 1
