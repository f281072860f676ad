"""The `attunebench` command line: every subcommand, the suite's own and the tools' and the
instruments', added from one list."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .._util.files import FileProblem
from ..data._problems import InputError
from ..instruments.human._cli import add_human
from ..instruments.stability._cli import add_plan
from ..tools._arguments import Commands
from ..tools.estimate import add_estimate
from .commands import add_composite, add_conformance, add_metrics, add_report, add_validate
from .estimate import PRICED

COMMANDS: tuple[Callable[[Commands], None], ...] = (
    add_validate,
    add_composite,
    add_report,
    lambda commands: add_estimate(commands, PRICED),
    add_plan,
    add_human,
    add_conformance,
    add_metrics,
)
"""The subcommands in the order `attunebench --help` lists them; a command's module adds its
parser (`add_...`) and sets the function that runs it."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attunebench", description="The `attunebench` command line."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except InputError as ex:  # a data set or codebook it cannot use, in located lines
        print(ex, file=sys.stderr)
        return 1
    except FileProblem as ex:
        print(f"attunebench {args.command}: {ex}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
