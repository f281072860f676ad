"""Calls, tokens and the bill of a run, known before it starts (`attunebench estimate`)."""

from ._bill import Plan, Prices, bills
from ._cache.count import TokenizerMissing, default_tokenizer
from ._cli import add_estimate
from ._command import PricedTask, estimate_modes

__all__ = [
    "Plan",
    "PricedTask",
    "Prices",
    "TokenizerMissing",
    "add_estimate",
    "bills",
    "default_tokenizer",
    "estimate_modes",
]
