"""`attunebench plan`: its arguments and what it prints."""

from __future__ import annotations

import argparse
import sys

from ...data._codebook import load_codebook
from ...data._problems import InputError
from ...data._source import resolve
from ...solve._modes import MODES, PRIMARY
from ...tools._arguments import Commands, add_output, add_priced_run, amount, per_model, put
from ...tools.estimate import Prices, TokenizerMissing, default_tokenizer
from ._plan import pilot_from_logs, plan_document, plan_lines, plan_rows, priced, stated
from ._power import Variances


def add_plan(commands: Commands) -> None:
    plan = commands.add_parser(
        "plan",
        help="how many conversations and epochs separate two models at a Composite difference, "
        "with what power, at what cost (from a pilot's logs or stated variances)",
    )
    plan.add_argument(
        "--pilot",
        nargs="+",
        metavar="LOG",
        help="the pilot's logs (files or folders): two runs of one mode with --epochs 2 or more",
    )
    plan.add_argument("--models", nargs=2, metavar=("A", "B"), help="the pilot's two models")
    plan.add_argument("--mode", choices=MODES, help="the pilot's mode, and the mode priced")
    plan.add_argument(
        "--variances",
        nargs=3,
        type=amount,
        metavar=("BETWEEN", "WITHIN_A", "WITHIN_B"),
        help="instead of a pilot, in Composite points squared: the between-conversation "
        "variance of the two models' difference, and each model's variance of a conversation's "
        "Composite across epochs",
    )
    plan.add_argument(
        "--difference",
        type=float,
        required=True,
        help="the true Composite difference to detect, in points",
    )
    plan.add_argument("--power", type=float, default=0.8, help="the power wanted (default 0.8)")
    plan.add_argument("--alpha", type=float, default=0.05, help="the test's level (default 0.05)")
    plan.add_argument("--max-epochs", type=int, default=5, help="epochs from 1 to this (default 5)")
    plan.add_argument(
        "--available", type=int, help="conversations the data set has: marks larger plans"
    )
    add_priced_run(plan, cached=False)
    add_output(plan)
    plan.set_defaults(run=_plan)


def _checked(args: argparse.Namespace, models: list[str]) -> list[Prices]:
    if bool(args.pilot) == bool(args.variances):
        raise ValueError("give the pilot's logs (--pilot) or the variances (--variances)")
    if models and not (args.price_in and args.price_out):
        raise ValueError("--price-in and --price-out are required with --model")
    inputs = per_model("price-in", args.price_in or [], len(models))
    outputs = per_model("price-out", args.price_out or [], len(models))
    if args.variances and min(args.variances) < 0:
        raise ValueError(f"--variances must not be negative; got {args.variances}")
    return [Prices(i, o) for i, o in zip(inputs, outputs, strict=True)]


def _plan(args: argparse.Namespace) -> int:
    models: list[str] = args.model or []
    try:
        prices = _checked(args, models)
    except ValueError as ex:
        print(f"attunebench plan: {ex}", file=sys.stderr)
        return 2
    try:
        source = resolve(args.data, args.codebook)
        pilot = (
            pilot_from_logs(args.pilot, args.models, args.mode)
            if args.pilot
            else stated(Variances(*args.variances))
        )
        rows = plan_rows(
            pilot,
            args.difference,
            target=args.power,
            alpha=args.alpha,
            max_epochs=args.max_epochs,
            available=args.available,
        )
        costed, conversations = priced(
            rows,
            list(zip(models, prices, strict=True)),
            data=str(source.conversations),
            codebook=load_codebook(source.codebook),
            mode=args.mode or PRIMARY,
            judge=args.judge,
            tokenizer=args.tokenizer or default_tokenizer(),
        )
    except (InputError, TokenizerMissing, FileNotFoundError) as ex:
        print(f"attunebench plan: {ex}", file=sys.stderr)
        return 2
    if args.format == "json":
        text = plan_document(pilot, args.difference, args.power, args.alpha, costed)
    else:
        lines = plan_lines(pilot, args.difference, args.power, args.alpha, costed)
        # The data set priced, as the estimate names it (nothing is priced without a model).
        text = "\n".join([*([source.describe(conversations)] if models else []), *lines]) + "\n"
    put(text, args.output)
    return 0
