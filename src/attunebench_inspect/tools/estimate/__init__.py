"""Calls, tokens and the bill of a run, known before it starts (`attunebench estimate`)."""

from ._bill import ModeEstimate, Plan, Prices, RunBill, bills
from ._breakdown import KINDS, Breakdown
from ._cache.count import TOKENIZERS, TokenizerMissing, default_tokenizer
from ._cli import add_estimate
from ._command import Estimates, PricedTask, estimate_modes, to_json, to_terminal

__all__ = [
    "KINDS",
    "TOKENIZERS",
    "Breakdown",
    "Estimates",
    "ModeEstimate",
    "Plan",
    "PricedTask",
    "Prices",
    "RunBill",
    "TokenizerMissing",
    "add_estimate",
    "bills",
    "default_tokenizer",
    "estimate_modes",
    "to_json",
    "to_terminal",
]
