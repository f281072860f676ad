"""The `attunebench` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TypeAlias

from .._util.files import FileProblem, write_atomic
from ..data._codebook import load_codebook
from ..data._problems import InputError
from ..data._source import BUNDLED, resolve


def _validate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ..data._validate import validate_path
    from ..instruments.profile._solver import vocabulary_problems
    from ..instruments.profile._vocabulary import load_vocabulary

    source = resolve(args.path, args.codebook)
    codebook = load_codebook(source.codebook)
    vocabulary = load_vocabulary(args.vocabulary)
    summary = validate_path(source.conversations, codebook, vocabulary)
    # The vocabulary is the profile task's: checked against what its call can carry.
    summary = replace(summary, problems=[*vocabulary_problems(vocabulary), *summary.problems])
    for line in summary.lines(source.describe(summary.conversations)):
        print(line)
    if args.ids:
        print("conversation IDs (for inspect eval --sample-id):")
        for cid in summary.ids:
            print(f"  {cid}")
    return 1 if summary.problems else 0


def _conformance(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..score._conformance import bundled_case_files, run_cases

    files = [Path(f) for f in args.files] or bundled_case_files()
    passed, failed, lines = run_cases(files)
    for line in lines:
        print(line)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def _composite(args: argparse.Namespace) -> int:
    from ..tools.report._composite import agrees, run_composite
    from ..tools.report._logs import read_runs
    from .report import is_main_task_run

    runs, skipped = read_runs(args.logs)
    # The profile task and the contamination probe have no Composite (`attunebench report`
    # shows them).
    runs = [r for r in runs if is_main_task_run(r)]
    for item in skipped:
        print(f"skipped {item.location}: {item.reason}", file=sys.stderr)
    if not runs:
        print("no successful AttuneBench log found", file=sys.stderr)
        return 1
    print("model\tmode\tconversations\tcomposite [95% CI]\tlogged\tlog\ttask version")
    mismatch = False
    for run in runs:
        result = run_composite(run, resamples=args.resamples, seed=args.seed)
        logged = f"{result.logged:.2f}" if result.logged is not None else "-"
        mismatch |= not agrees(result)
        print(
            f"{run.model}\t{run.mode}\t{result.interval.n}\t{result.interval.show()}"
            f"\t{logged}\t{run.location}\t{run.version}"
        )
    if mismatch:
        print("the recomputed Composite disagrees with a log header", file=sys.stderr)
    return 1 if mismatch else 0


def _report(args: argparse.Namespace) -> int:
    from ..instruments.contamination._report import PROBE_TASK
    from ..instruments.reannotation._study import ThirdPartyError
    from ..tools.report._filters import FilterError
    from ..tools.report._html import PLOTS_HINT, plots_available, to_html, write_plots
    from ..tools.report._render import to_csv, to_json, to_markdown, to_terminal
    from .report import build_report

    if args.plots and not plots_available():
        print(f"attunebench report: --plots needs matplotlib: {PLOTS_HINT}", file=sys.stderr)
        return 2
    if (args.identities or args.codebook) and not args.third_party:
        print(
            "attunebench report: --identities and --codebook go with --third-party", file=sys.stderr
        )
        return 2
    try:
        report = build_report(
            args.logs,
            resamples=args.resamples,
            seed=args.seed,
            where=args.where,
            compare=args.compare,
            groups=args.groups,
            diagnostics=args.diagnostics,
            task_version=args.task_version,
            third_party=args.third_party or (),
            identities=args.identities,
            codebook=args.codebook,
        )
    except (FilterError, FileNotFoundError) as ex:
        print(f"attunebench report: {ex}", file=sys.stderr)
        return 2
    except ThirdPartyError as ex:
        for line in ex.problems:
            print(line, file=sys.stderr)
        print(
            f"attunebench report: no report: {len(ex.problems)} problem(s) with the third-party "
            "labels",
            file=sys.stderr,
        )
        return 1
    except InputError as ex:
        print(f"attunebench report: {ex}", file=sys.stderr)
        return 1
    for item in report.skipped:
        print(f"skipped {item.location}: {item.reason}", file=sys.stderr)
    if not report.runs:
        print("no successful AttuneBench log found", file=sys.stderr)
        return 1
    # The contamination probe's verdict is a run's, over every text it probed: --where does not
    # filter it.
    filtered = [r for r in report.runs if r.mode != PROBE_TASK]
    if args.where and not any(r.conversations for r in filtered):
        print(
            f"attunebench report: --where {args.where!r} matches no conversation in "
            f"{len(filtered)} runs",
            file=sys.stderr,
        )
        return 1
    render = {"terminal": to_terminal, "markdown": to_markdown, "csv": to_csv, "json": to_json}
    text = render[args.format](report)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    if args.html:
        write_atomic(args.html, to_html(report))
        bare = "" if plots_available() else f" (no figures: matplotlib is absent; {PLOTS_HINT})"
        print(f"HTML report: {args.html}{bare}", file=sys.stderr)
    if args.plots:
        written = write_plots(report, args.plots)
        print(f"{len(written)} figures in {args.plots}", file=sys.stderr)
    return 0


def _metrics(args: argparse.Namespace) -> int:
    from ..score._catalog_doc import catalog_markdown, write

    if args.write:
        write(args.write)
        print(f"wrote the metric tables into {args.write}", file=sys.stderr)
    else:
        sys.stdout.write(catalog_markdown())
    return 0


def _per_model(name: str, values: list[float], models: int) -> list[float]:
    """One price for every model, or one per model in order."""
    if len(values) not in (1, models):
        raise ValueError(f"--{name} takes one price or one per model ({models}); got {len(values)}")
    return values * models if len(values) == 1 else values


def _estimate(args: argparse.Namespace) -> int:
    from ..solve._modes import MODES
    from ..tools.estimate import (
        Plan,
        Prices,
        TokenizerMissing,
        default_tokenizer,
        estimate_modes,
        to_json,
        to_terminal,
    )

    models: list[str] = args.model or []
    try:
        if not models and not args.breakdown:
            raise ValueError("--model is required (or --breakdown alone, for the input by content)")
        if models and not (args.price_in and args.price_out):
            raise ValueError("--price-in and --price-out are required with --model")
        if not models and (args.price_in or args.price_out or args.price_cached_in):
            raise ValueError("prices are per model: name the models to bill with --model")
        if not models and args.contamination:
            raise ValueError(
                "--contamination adds the probe to a bill: name the models with --model"
            )
        inputs = _per_model("price-in", args.price_in or [], len(models))
        outputs = _per_model("price-out", args.price_out or [], len(models))
        cached: list[float | None] = (
            list(_per_model("price-cached-in", args.price_cached_in, len(models)))
            if args.price_cached_in
            else [None] * len(models)
        )
    except ValueError as ex:
        print(f"attunebench estimate: {ex}", file=sys.stderr)
        return 2
    priced = [
        (model, Prices(i, o, c))
        for model, i, o, c in zip(models, inputs, outputs, cached, strict=True)
    ]
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
            contamination=args.contamination,
        )
    except TokenizerMissing as ex:
        print(f"attunebench estimate: {ex}", file=sys.stderr)
        return 2
    render = to_json if args.format == "json" else to_terminal
    text = render(estimates, priced, source)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _plan(args: argparse.Namespace) -> int:
    from ..data._problems import InputError
    from ..solve._modes import PRIMARY
    from ..tools.estimate import Prices, TokenizerMissing, default_tokenizer
    from ..tools.plan import Pilot, Variances, pilot_from_logs, plan_document, plan_lines, plan_rows
    from ..tools.plan import priced as priced_rows

    models: list[str] = args.model or []
    try:
        if bool(args.pilot) == bool(args.variances):
            raise ValueError("give the pilot's logs (--pilot) or the variances (--variances)")
        if models and not (args.price_in and args.price_out):
            raise ValueError("--price-in and --price-out are required with --model")
        inputs = _per_model("price-in", args.price_in or [], len(models))
        outputs = _per_model("price-out", args.price_out or [], len(models))
        if args.variances and min(args.variances) < 0:
            raise ValueError(f"--variances must not be negative; got {args.variances}")
    except ValueError as ex:
        print(f"attunebench plan: {ex}", file=sys.stderr)
        return 2
    try:
        source = resolve(args.data, args.codebook)
        pilot = (
            pilot_from_logs(args.pilot, args.models, args.mode)
            if args.pilot
            else Pilot("stated", Variances(*args.variances))
        )
        rows = plan_rows(
            pilot,
            args.difference,
            target=args.power,
            alpha=args.alpha,
            max_epochs=args.max_epochs,
            available=args.available,
        )
        priced, conversations = priced_rows(
            rows,
            [(m, Prices(i, o)) for m, i, o in zip(models, inputs, outputs, strict=True)],
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
        text = plan_document(pilot, args.difference, args.power, args.alpha, priced)
    else:
        lines = plan_lines(pilot, args.difference, args.power, args.alpha, priced)
        # The data set priced, as the estimate names it (nothing is priced without a model).
        text = "\n".join([*([source.describe(conversations)] if models else []), *lines]) + "\n"
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _human_export(args: argparse.Namespace) -> int:
    from ..data._problems import InputError
    from ..instruments.human._export import export_page

    source = resolve(args.data, args.codebook)
    try:
        chosen = export_page(
            source,
            load_codebook(source.codebook),
            args.out,
            ids=args.ids,
            sample=args.sample,
            seed=args.seed,
            shuffle_seed=args.shuffle_seed,
        )
    except InputError as ex:
        print(f"attunebench human export: {ex}", file=sys.stderr)
        return 1
    print(
        f"wrote {args.out}: {len(chosen.ids)} conversation(s): {', '.join(chosen.ids)}",
        file=sys.stderr,
    )
    print(f"{source.describe(chosen.available)}; the page shows {len(chosen.ids)}", file=sys.stderr)
    return 0


def _human_import(args: argparse.Namespace) -> int:
    from ..data._problems import InputError
    from ..instruments.human._imports import check_files, default_log_dir, replay

    source = resolve(args.data, args.codebook)
    log_dir = args.log_dir or default_log_dir()
    answers, problems, loaded = check_files(args.answers, source, log_dir, args.supersede)
    for file in answers:
        for warning in file.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    print(source.describe(len(loaded.conversations)), file=sys.stderr)
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        print(f"nothing imported: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    failed = False
    for file in answers:
        try:
            imported = replay(file, source, log_dir)
        except InputError as ex:
            print(f"attunebench human import: {ex}", file=sys.stderr)
            return 1
        failed |= imported.log.status != "success"
        for line in imported.lines():
            print(line)
    return 1 if failed else 0


DATA_HELP = (
    "the data set: a data set root (a folder holding conversations/ and annotation_codebook.json, "
    "or the deposit's 'Test Samples/Sample200/' and annotation_codebook.json), a conversation "
    f"folder, a JSON or JSONL file, or {BUNDLED} (default: {BUNDLED}, the synthetic set)"
)
CODEBOOK_HELP = "annotation codebook JSON (default: a data set root's own, else the bundled one)"

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The `attunebench` subcommands, each added by its `_add_...` function."""


def _add_validate(commands: Commands) -> None:
    validate = commands.add_parser(
        "validate",
        help="check a conversation dataset without running any model "
        "(exit 1 on problems; warnings alone exit 0)",
    )
    validate.add_argument("path", nargs="?", default=BUNDLED, help=DATA_HELP)
    validate.add_argument("--codebook", help=CODEBOOK_HELP)
    validate.add_argument(
        "--ids",
        action="store_true",
        help="also list the valid conversations' IDs, one a line (for inspect eval --sample-id)",
    )
    validate.add_argument(
        "--vocabulary",
        help="the profile task's vocabulary JSON (default: bundled); a profile label it cannot "
        "read as one of its options is a warning",
    )
    validate.set_defaults(run=_validate)


def _add_composite(commands: Commands) -> None:
    composite = commands.add_parser(
        "composite", help="recompute the Composite with a bootstrap CI from .eval logs"
    )
    composite.add_argument("logs", nargs="+", help=".eval log files or log folders")
    composite.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    composite.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    composite.set_defaults(run=_composite)


def _add_report(commands: Commands) -> None:
    report = commands.add_parser(
        "report", help="every analysis of the paper from .eval logs (never re-runs a model)"
    )
    report.add_argument("logs", nargs="+", help=".eval log files or log folders")
    report.add_argument(
        "--format",
        choices=("terminal", "markdown", "csv", "json"),
        default="terminal",
        help="output format (default: terminal tables)",
    )
    report.add_argument("--output", "-o", help="write the output to this file, not stdout")
    report.add_argument("--html", help="also write a self-contained HTML report here")
    report.add_argument(
        "--plots", help="also write every figure as PNG into this folder (needs matplotlib)"
    )
    report.add_argument(
        "--where",
        help="analyse only conversations matching this filter, e.g. 'category=Work' "
        "(an unknown field is an error)",
    )
    report.add_argument(
        "--compare",
        help="compare conversations matching this filter with the rest, e.g. 'group=any_diagnosis'",
    )
    report.add_argument("--groups", help="JSON file of named groups (name -> filter)")
    report.add_argument(
        "--diagnostics", action="store_true", help="add the diagnostic metrics to the leaderboard"
    )
    report.add_argument(
        "--task-version",
        metavar="VERSION",
        help="report the runs of this task version (default: the newest among the logs; runs of "
        "other versions are listed as skipped, never ranked with them)",
    )
    report.add_argument(
        "--third-party",
        nargs="+",
        metavar="ANSWERS.json",
        help="answer files of annotators who did not hold the conversations: every run scored "
        "again against their labels, and the reviewer's test (docs/third-party.md)",
    )
    report.add_argument(
        "--identities",
        metavar="FILE",
        help="with --third-party: JSON, annotator -> the participant ID of an annotator who was "
        "also a participant (their own conversations are marked and left out of the consensus)",
    )
    report.add_argument(
        "--codebook",
        help="with --third-party: the codebook of the runs and the answer files (default: bundled)",
    )
    report.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    report.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    report.set_defaults(run=_report)


def _add_estimate(commands: Commands) -> None:
    from ..solve._modes import MODES, PRIMARY
    from ..solve._provider_rules import ANSWER_FORMATS

    estimate = commands.add_parser(
        "estimate",
        help="calls, tokens and cost of a run before running it (offline: no model is called)",
    )
    _add_priced_run(estimate, cached=True)
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
    estimate.add_argument(
        "--contamination",
        action="store_true",
        help="also bill the contamination probe (attunebench_inspect/contamination) on the same "
        "data: two calls per probed text (docs/contamination.md)",
    )
    estimate.add_argument(
        "--breakdown",
        action="store_true",
        help="also (or, without --model, only) each mode's input by kind of content: the "
        "prefix shared with an earlier call, and what no earlier call shares",
    )
    _add_output(estimate)
    estimate.set_defaults(run=_estimate)


def _add_priced_run(command: argparse.ArgumentParser, *, cached: bool) -> None:
    """The arguments of a command that prices a run: its data, judge, models, prices, tokenizer
    (`attunebench estimate` and `plan` bill through the same estimate)."""
    from ..tools.estimate import TOKENIZERS

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
            type=float,
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


def _add_output(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--format", choices=("terminal", "json"), default="terminal", help="output format"
    )
    command.add_argument("--output", "-o", help="write the output to this file, not stdout")


def _add_plan(commands: Commands) -> None:
    from ..solve._modes import MODES

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
        type=float,
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
    _add_priced_run(plan, cached=False)
    _add_output(plan)
    plan.set_defaults(run=_plan)


def _add_human(commands: Commands) -> None:
    human = commands.add_parser(
        "human",
        help="the human baseline: the protocol's questions as an offline page for people, and "
        "their answer files as ordinary runs (docs/human-baseline.md)",
    )
    human_commands = human.add_subparsers(dest="human_command", required=True)
    export = human_commands.add_parser(
        "export", help="write one self-contained HTML page of the questions of some conversations"
    )
    export.add_argument("--data", default=BUNDLED, help=DATA_HELP)
    export.add_argument("--codebook", help=CODEBOOK_HELP)
    chosen = export.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--ids", nargs="+", metavar="ID", help="these conversations, in order")
    chosen.add_argument("--sample", type=int, metavar="N", help="N conversations drawn at random")
    export.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    export.add_argument(
        "--shuffle-seed",
        type=int,
        default=0,
        help="seed of the replies' neutral labels, as the task's shuffle_seed (default 0)",
    )
    export.add_argument("--out", required=True, help="the HTML page to write")
    export.set_defaults(run=_human_export)
    imported = human_commands.add_parser(
        "import",
        help="replay answer files through the solver and scorers: one Inspect log per annotator "
        "(model human/<annotator>)",
    )
    imported.add_argument("answers", nargs="+", metavar="ANSWERS.json", help="answer files")
    imported.add_argument("--data", default=BUNDLED, help=f"the data set they answer: {DATA_HELP}")
    imported.add_argument("--codebook", help=CODEBOOK_HELP)
    imported.add_argument(
        "--log-dir", help="where to write the logs (default: Inspect's, $INSPECT_LOG_DIR or ./logs)"
    )
    imported.add_argument(
        "--supersede",
        action="store_true",
        help="import an annotator already imported in this mode into the log folder: the new "
        "log replaces the old one in reports (without it, that is refused)",
    )
    imported.set_defaults(run=_human_import)
    schema = human_commands.add_parser(
        "schema", help="print the JSON Schema of answer files (the modes filled in)"
    )
    schema.set_defaults(run=_human_schema)


def _add_conformance(commands: Commands) -> None:
    conformance = commands.add_parser(
        "conformance", help="check the metric arithmetic against conformance vectors"
    )
    conformance.add_argument("files", nargs="*", help="case files (default: the bundled ones)")
    conformance.set_defaults(run=_conformance)


def _add_metrics(commands: Commands) -> None:
    metrics = commands.add_parser(
        "metrics", help="print every metric of the catalog as Markdown tables"
    )
    metrics.add_argument(
        "--write", metavar="FILE", help="replace the generated block of FILE (scorers/METRICS.md)"
    )
    metrics.set_defaults(run=_metrics)


def _human_schema(args: argparse.Namespace) -> int:
    import json

    from ..instruments.human._answers import answers_schema

    print(json.dumps(answers_schema(), indent=2, ensure_ascii=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attunebench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for add in (
        _add_validate,
        _add_composite,
        _add_report,
        _add_estimate,
        _add_plan,
        _add_human,
        _add_conformance,
        _add_metrics,
    ):
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
