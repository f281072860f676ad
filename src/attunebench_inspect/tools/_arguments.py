"""What the `attunebench` commands share: the subcommand table's type, the arguments of a
command that reads a data set or prices a run, and where a command writes its output."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import TypeAlias

from .._util.files import write_atomic, write_stdout
from ..data._source import BUNDLED

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The `attunebench` subcommands: a command adds its parser here (_suite/cli.py)."""

WIDTH = 120
"""The columns of a terminal every command's output fits: prose wraps, tables are split or wrap
(a common editor and CI log width)."""
DATA_HELP = (
    "the data set: a data set root (a folder holding conversations/ and annotation_codebook.json, "
    "or the deposit's 'Test Samples/Sample200/' and annotation_codebook.json), a conversation "
    f"folder, a JSON or JSONL file, or {BUNDLED} (default: {BUNDLED}, the synthetic set)"
)
CODEBOOK_HELP = "annotation codebook JSON (default: a data set root's own, else the bundled one)"


def amount(text: str) -> float:
    """An argument that is a finite number, 0 or more (a price, a variance): argparse says a
    bad one in one line."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number, 0 or more; got {text}")
    return value


def add_priced_run(command: argparse.ArgumentParser, *, cached: bool) -> None:
    """The arguments of a command that prices a run: its data, judge, models, prices, tokenizer
    (`attunebench estimate` and `plan` bill through the same estimate)."""
    from .estimate._cache.count import TOKENIZERS

    command.add_argument("--data", default=BUNDLED, help=DATA_HELP)
    command.add_argument("--codebook", help=CODEBOOK_HELP)
    command.add_argument(
        "--judge", action="store_true", help="with a judge role (its calls priced as the model's)"
    )
    command.add_argument(
        "--model", nargs="+", help="model name(s) to bill (needs --price-in and --price-out)"
    )
    prices = [("in", "input"), ("out", "output")]
    if cached:
        prices.append(
            ("cached-in", "cached input (default: the provider's documented share of the input)")
        )
    for name, what in prices:
        command.add_argument(
            f"--price-{name}",
            type=amount,
            nargs="+",
            metavar="USD_PER_MTOK",
            help=f"{what} price in US dollars per million tokens: one for all models, "
            "or one per model",
        )
    command.add_argument(
        "--tokenizer",
        choices=TOKENIZERS,
        help="o200k_base (default where toktok is installed), cl100k_base, or chars "
        "(a calibrated characters-per-token estimate)",
    )


def add_output(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--format", choices=("terminal", "json"), default="terminal", help="output format"
    )
    command.add_argument("--output", "-o", help="write the output to this file, not stdout")


def per_model(name: str, values: Sequence[float], models: int) -> list[float]:
    """One price for every model, or one per model in order."""
    if len(values) not in (1, models):
        raise ValueError(f"--{name} takes one price or one per model ({models}); got {len(values)}")
    return list(values) * models if len(values) == 1 else list(values)


def put(text: str, output: str | None) -> None:
    """A command's output: into the file `output` (written whole), else to stdout."""
    if output:
        write_atomic(output, text)
    else:
        write_stdout(text)
