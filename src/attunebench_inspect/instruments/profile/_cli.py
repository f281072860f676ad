"""What the profile task adds to `attunebench validate`: its vocabulary and the labels it reads."""

from __future__ import annotations

import argparse

from ...data._problems import DataProblem
from ...data._validate import Check
from ...tools._instrument import Validation
from ._solver import vocabulary_problems
from ._vocabulary import load_vocabulary, vocabulary_check


def _add(validate: argparse.ArgumentParser) -> None:
    validate.add_argument(
        "--vocabulary",
        help="the profile task's vocabulary JSON (default: bundled); a profile label it cannot "
        "read as one of its options is a warning",
    )


def _checks(args: argparse.Namespace) -> tuple[list[DataProblem], list[Check]]:
    vocabulary = load_vocabulary(args.vocabulary)
    # The vocabulary's own problems come first: they are checked against what its call can carry.
    return vocabulary_problems(vocabulary), [vocabulary_check(vocabulary)]


VALIDATION = Validation(_add, _checks)
