"""`attunebench estimate`: its arguments and what it prints."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ...data._codebook import load_codebook
from ...data._problems import InputError
from ...data._source import resolve
from ...solve._modes import MODES, PRIMARY
from ...solve._provider_rules import ANSWER_FORMATS
from .._arguments import Commands, add_output, add_priced_run, per_model, put
from ._bill import Plan, Prices
from ._cache.count import TokenizerMissing, default_tokenizer
from ._command import PricedTask, estimate_modes, to_json, to_terminal


def add_estimate(commands: Commands, tasks: Sequence[PricedTask]) -> None:
    """The command, with a flag for each of `tasks` that adds it to the bill."""
    estimate = commands.add_parser(
        "estimate",
        help="calls, tokens and cost of a run before running it (offline: no model is called)",
    )
    add_priced_run(estimate, cached=True)
    estimate.add_argument(
        "--mode",
        nargs="+",
        default=[PRIMARY],
        choices=(*MODES, "all"),
        metavar="MODE",
        help=f"mode(s) to estimate: {', '.join(MODES)}, or all (default: {PRIMARY})",
    )
    estimate.add_argument(
        "--schedule",
        choices=("prefix_first", "all_at_once"),
        default="prefix_first",
        help="the order calls are sent in without --batch (the task parameter schedule; "
        "default: prefix_first, what auto picks)",
    )
    estimate.add_argument(
        "--answer-format",
        choices=ANSWER_FORMATS,
        default="auto",
        help="the task parameter answer_format: schema puts the response schema in OpenAI's "
        "and Anthropic's prompts (default: auto)",
    )
    for task in tasks:
        estimate.add_argument(f"--{task.name}", action="store_true", help=task.help)
    estimate.add_argument(
        "--breakdown",
        action="store_true",
        help="also (or, without --model, only) each mode's input by kind of content: the "
        "prefix shared with an earlier call, and what no earlier call shares",
    )
    add_output(estimate)
    estimate.set_defaults(run=lambda args: _estimate(args, tasks))


def _prices(
    args: argparse.Namespace, models: list[str], tasks: Sequence[PricedTask]
) -> list[Prices]:
    if not models and not args.breakdown:
        raise ValueError("--model is required (or --breakdown alone, for the input by content)")
    if models and not (args.price_in and args.price_out):
        raise ValueError("--price-in and --price-out are required with --model")
    if not models and (args.price_in or args.price_out or args.price_cached_in):
        raise ValueError("prices are per model: name the models to bill with --model")
    for task in tasks:
        if not models and getattr(args, task.name):
            raise ValueError(
                f"--{task.name} adds the probe to a bill: name the models with --model"
            )
    inputs = per_model("price-in", args.price_in or [], len(models))
    outputs = per_model("price-out", args.price_out or [], len(models))
    cached: list[float | None] = (
        list(per_model("price-cached-in", args.price_cached_in, len(models)))
        if args.price_cached_in
        else [None] * len(models)
    )
    return [Prices(i, o, c) for i, o, c in zip(inputs, outputs, cached, strict=True)]


def _estimate(args: argparse.Namespace, tasks: Sequence[PricedTask]) -> int:
    models: list[str] = args.model or []
    try:
        prices = _prices(args, models, tasks)
    except ValueError as ex:
        print(f"attunebench estimate: {ex}", file=sys.stderr)
        return 2
    modes = list(MODES) if "all" in args.mode else list(dict.fromkeys(args.mode))
    source = resolve(args.data, args.codebook)
    try:
        estimates = estimate_modes(
            str(source.conversations),
            load_codebook(source.codebook),
            modes,
            args.judge,
            args.tokenizer or default_tokenizer(),
            plan=Plan(args.schedule, args.answer_format),
            hint=f"check it with `{source.validate_command()}`",
            bill=bool(models),
            breakdown=args.breakdown,
            tasks=[t for t in tasks if getattr(args, t.name)],
            progress=lambda line: print(f"attunebench estimate: {line}", file=sys.stderr),
        )
    except TokenizerMissing as ex:
        print(f"attunebench estimate: {ex}", file=sys.stderr)
        return 2
    render = to_json if args.format == "json" else to_terminal
    try:
        text = render(estimates, list(zip(models, prices, strict=True)), source)
    except InputError as ex:  # a bill that is not a finite number
        print(f"attunebench estimate: {ex}", file=sys.stderr)
        return 2
    put(text, args.output)
    return 0
