"""Calls, tokens and the bill of a run, known before it starts (`attunebench estimate`)."""

from .bill import ModeEstimate, Plan, Prices, RunBill, bills
from .breakdown import KINDS, Breakdown
from .cache.count import TOKENIZERS, TokenizerMissing, default_tokenizer
from .command import Estimates, estimate_modes, to_json, to_terminal

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
