"""Calls, tokens and the bill of a run, known before it starts (`attunebench estimate`)."""

from .bill import ModeEstimate, Prices, RunBill, bills
from .breakdown import KINDS, Breakdown
from .command import Estimates, estimate_modes, to_json, to_terminal
from .tokens import TOKENIZERS, TokenizerMissing, default_tokenizer

__all__ = [
    "KINDS",
    "TOKENIZERS",
    "Breakdown",
    "Estimates",
    "ModeEstimate",
    "Prices",
    "RunBill",
    "TokenizerMissing",
    "bills",
    "default_tokenizer",
    "estimate_modes",
    "to_json",
    "to_terminal",
]
