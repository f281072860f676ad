"""Calls, tokens and the bill of a run, known before it starts (`attunebench estimate`)."""

from ._bill import ModeEstimate, Plan, Prices, RunBill, bills
from ._breakdown import KINDS, Breakdown
from ._cache.count import TOKENIZERS, TokenizerMissing, default_tokenizer
from ._command import Estimates, estimate_modes, to_json, to_terminal

__all__ = [
    "KINDS",
    "TOKENIZERS",
    "Breakdown",
    "Estimates",
    "ModeEstimate",
    "Plan",
    "Prices",
    "RunBill",
    "TokenizerMissing",
    "bills",
    "default_tokenizer",
    "estimate_modes",
    "to_json",
    "to_terminal",
]
