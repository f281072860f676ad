"""The `attunebench` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TypeAlias

from ..data.codebook import load_codebook
from ..data.problems import InputError


def _validate(args: argparse.Namespace) -> int:
    from ..data.profile_vocabulary import load_vocabulary
    from ..data.validate import validate_path

    codebook = load_codebook(args.codebook)
    summary = validate_path(args.path, codebook, load_vocabulary(args.vocabulary))
    for line in summary.lines():
        print(line)
    return 1 if summary.problems else 0


def _conformance(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..score.conformance import bundled_case_files, run_cases

    files = [Path(f) for f in args.files] or bundled_case_files()
    passed, failed, lines = run_cases(files)
    for line in lines:
        print(line)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def _composite(args: argparse.Namespace) -> int:
    from .report.build import is_main_task_run
    from .report.composite import agrees, run_composite
    from .report.logs import read_runs

    runs, skipped = read_runs(args.logs)
    # The profile task and the contamination probe have no Composite (`attunebench report`
    # shows them).
    runs = [r for r in runs if is_main_task_run(r)]
    for item in skipped:
        print(f"skipped {item.location}: {item.reason}", file=sys.stderr)
    if not runs:
        print("no successful AttuneBench log found", file=sys.stderr)
        return 1
    print("model\tmode\tconversations\tcomposite [95% CI]\tlogged\tlog")
    mismatch = False
    for run in runs:
        result = run_composite(run, resamples=args.resamples, seed=args.seed)
        logged = f"{result.logged:.2f}" if result.logged is not None else "-"
        mismatch |= not agrees(result)
        print(
            f"{run.model}\t{run.mode}\t{result.interval.n}\t{result.interval.show()}"
            f"\t{logged}\t{run.location}"
        )
    if mismatch:
        print("the recomputed Composite disagrees with a log header", file=sys.stderr)
    return 1 if mismatch else 0


def _report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .report.build import build_report
    from .report.contamination import PROBE_TASK
    from .report.filters import FilterError
    from .report.html import PLOTS_HINT, plots_available, to_html, write_plots
    from .report.render import to_csv, to_json, to_markdown, to_terminal
    from .third_party.study import ThirdPartyError

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
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.html:
        Path(args.html).write_text(to_html(report), encoding="utf-8")
        bare = "" if plots_available() else f" (no figures: matplotlib is absent; {PLOTS_HINT})"
        print(f"HTML report: {args.html}{bare}", file=sys.stderr)
    if args.plots:
        written = write_plots(report, args.plots)
        print(f"{len(written)} figures in {args.plots}", file=sys.stderr)
    return 0


def _metrics(args: argparse.Namespace) -> int:
    from ..score.catalog_doc import catalog_markdown, write

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
    from pathlib import Path

    from ..solve.modes import MODES
    from .estimate import (
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
    try:
        estimates = estimate_modes(
            args.data,
            load_codebook(args.codebook),
            modes,
            args.judge,
            args.tokenizer or default_tokenizer(),
            plan=Plan(args.schedule, args.answer_format),
            bill=bool(models),
            breakdown=args.breakdown,
            contamination=args.contamination,
        )
    except TokenizerMissing as ex:
        print(f"attunebench estimate: {ex}", file=sys.stderr)
        return 2
    render = to_json if args.format == "json" else to_terminal
    text = render(estimates, priced)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _human_export(args: argparse.Namespace) -> int:
    from ..data.problems import InputError
    from .human.export import export_page

    try:
        chosen = export_page(
            args.data,
            load_codebook(args.codebook),
            args.out,
            ids=args.ids,
            sample=args.sample,
            seed=args.seed,
            shuffle_seed=args.shuffle_seed,
        )
    except InputError as ex:
        print(f"attunebench human export: {ex}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {len(chosen)} conversation(s): {', '.join(chosen)}", file=sys.stderr)
    return 0


def _human_import(args: argparse.Namespace) -> int:
    from ..data.problems import InputError
    from .human.imports import check_files, replay

    answers, problems = check_files(args.answers, args.data, args.codebook)
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        print(f"nothing imported: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    failed = False
    for file in answers:
        try:
            imported = replay(file, args.data, args.codebook, args.log_dir)
        except InputError as ex:
            print(f"attunebench human import: {ex}", file=sys.stderr)
            return 1
        failed |= imported.log.status != "success"
        for line in imported.lines():
            print(line)
    return 1 if failed else 0


Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The `attunebench` subcommands, each added by its `_add_...` function."""


def _add_validate(commands: Commands) -> None:
    validate = commands.add_parser(
        "validate",
        help="check a conversation dataset without running any model "
        "(exit 1 on problems; warnings alone exit 0)",
    )
    validate.add_argument("path", help="conversation folder, JSON file or JSONL file")
    validate.add_argument("--codebook", help="annotation codebook JSON (default: bundled)")
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
    from ..solve.modes import MODES, PRIMARY
    from ..solve.provider_rules import ANSWER_FORMATS
    from .estimate import TOKENIZERS

    estimate = commands.add_parser(
        "estimate",
        help="calls, tokens and cost of a run before running it (offline: no model is called)",
    )
    estimate.add_argument(
        "--data", help="conversation folder, JSON file or JSONL file (default: the bundled set)"
    )
    estimate.add_argument("--codebook", help="annotation codebook JSON (default: bundled)")
    estimate.add_argument(
        "--mode",
        nargs="+",
        default=[PRIMARY],
        choices=(*MODES, "all"),
        metavar="MODE",
        help=f"mode(s) to estimate: {', '.join(MODES)}, or all (default: {PRIMARY})",
    )
    estimate.add_argument(
        "--judge", action="store_true", help="with a judge role (its calls priced as the model's)"
    )
    estimate.add_argument(
        "--model", nargs="+", help="model name(s) to bill (needs --price-in and --price-out)"
    )
    for name, what in (
        ("in", "input"),
        ("out", "output"),
        ("cached-in", "cached input (default: the provider's documented share of the input)"),
    ):
        estimate.add_argument(
            f"--price-{name}",
            type=float,
            nargs="+",
            metavar="USD_PER_MTOK",
            help=f"{what} price in US dollars per million tokens: one for all models, "
            "or one per model",
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
        "--tokenizer",
        choices=TOKENIZERS,
        help="o200k_base (default where toktok is installed), cl100k_base, or chars "
        "(a calibrated characters-per-token estimate)",
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
    estimate.add_argument(
        "--format", choices=("terminal", "json"), default="terminal", help="output format"
    )
    estimate.add_argument("--output", "-o", help="write the output to this file, not stdout")
    estimate.set_defaults(run=_estimate)


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
    export.add_argument("--data", required=True, help="conversation folder, JSON or JSONL file")
    export.add_argument("--codebook", help="annotation codebook JSON (default: bundled)")
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
    imported.add_argument("--data", required=True, help="the conversations they answer")
    imported.add_argument("--codebook", help="annotation codebook JSON (default: bundled)")
    imported.add_argument("--log-dir", help="where to write the logs (default: Inspect's)")
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

    from ..providers.answers import answers_schema

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
    return code


if __name__ == "__main__":
    sys.exit(main())
