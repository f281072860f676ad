"""The `attunebench` command line: every subcommand, the suite's own, the tools' and the
instruments', added from one list."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .. import instruments
from .._util.files import FileProblem
from ..data._problems import InputError
from ..tools._arguments import Commands
from ..tools.estimate import add_estimate
from .commands import add_composite, add_conformance, add_metrics, add_report, add_validate


def commands() -> list[Callable[[Commands], None]]:
    """The subcommands in the order `attunebench --help` lists them: the suite's, the
    estimate's (with every instrument's task it can price), the instruments', then the
    catalog's. A command's module adds its parser (`add_...`) and sets the function that runs
    it."""
    priced = tuple(p for i in instruments.INSTRUMENTS for p in i.priced)
    return [
        add_validate,
        add_composite,
        add_report,
        lambda parsers: add_estimate(parsers, priced),
        *(add for i in instruments.INSTRUMENTS for add in i.commands),
        add_conformance,
        add_metrics,
    ]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attunebench", description="The `attunebench` command line."
    )
    parsers = parser.add_subparsers(dest="command", required=True)
    for add in commands():
        add(parsers)
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
