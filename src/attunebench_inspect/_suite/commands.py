"""The suite's own commands: `validate` (a data set, for the main task and the profile task),
`composite` (recomputed from logs), `report`, `metrics` and `conformance` (every metric the
suite declares)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from .. import instruments
from .._util.files import write_atomic
from ..data._codebook import load_codebook
from ..data._problems import InputError, Problems
from ..data._source import BUNDLED, resolve
from ..data._validate import validate_path
from ..score._catalog_doc import write
from ..score._conformance import bundled_case_files, run_cases
from ..tools._arguments import CODEBOOK_HELP, DATA_HELP, WIDTH, Commands, put
from ..tools.report._build import Report
from ..tools.report._composite import agrees, run_composite
from ..tools.report._filters import FilterError
from ..tools.report._formats.html_page import PLOTS_HINT
from ..tools.report._logs import Skipped, is_main_task_run, read_runs
from .catalog import compute, metrics_markdown
from .render import FORMS, plots_available, to_html, write_plots
from .report import build_report


def add_validate(commands: Commands) -> None:
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
    for instrument in instruments.INSTRUMENTS:
        if instrument.validation:
            instrument.validation.add(validate)
    validate.set_defaults(run=_validate)


def _validate(args: argparse.Namespace) -> int:
    source = resolve(args.path, args.codebook)
    codebook = load_codebook(source.codebook)
    first, checks = [], []
    for instrument in instruments.INSTRUMENTS:
        if instrument.validation:
            own, more = instrument.validation.checks(args)
            first += own
            checks += more
    summary = validate_path(source.conversations, codebook, checks)
    summary = replace(summary, problems=[*first, *summary.problems])
    lines = summary.lines(source.describe(summary.conversations))
    if args.ids:
        lines.append("conversation IDs (for inspect eval --sample-id):")
        lines += [f"  {cid}" for cid in summary.ids]
    put("".join(f"{line}\n" for line in lines), None)
    return 1 if summary.problems else 0


def say_skipped(skipped: Sequence[Skipped]) -> None:
    """Each log left out, on stderr: the run and why (wrapped), then its location on a line of
    its own, whole."""
    for item in skipped:
        named = f" {item.model} ({item.mode})" if item.model else ""
        why = textwrap.fill(f"skipped{named}: {item.reason}", WIDTH, subsequent_indent="  ")
        print(f"{why}\n  {item.location}", file=sys.stderr)


def add_composite(commands: Commands) -> None:
    composite = commands.add_parser(
        "composite", help="recompute the Composite with a bootstrap CI from .eval logs"
    )
    composite.add_argument("logs", nargs="+", help=".eval log files or log folders")
    composite.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    composite.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    composite.set_defaults(run=_composite)


def _composite(args: argparse.Namespace) -> int:
    runs, skipped = read_runs(args.logs)
    # The profile task and the contamination probe have no Composite (`attunebench report`
    # shows them).
    runs = [r for r in runs if is_main_task_run(r)]
    say_skipped(skipped)
    if not runs:
        print("no successful AttuneBench log found", file=sys.stderr)
        return 1
    rows = ["model\tmode\tconversations\tcomposite [95% CI]\tlogged\tlog\ttask version"]
    mismatch = False
    for run in runs:
        result = run_composite(run, resamples=args.resamples, seed=args.seed)
        logged = f"{result.logged:.2f}" if result.logged is not None else "-"
        mismatch |= not agrees(result)
        rows.append(
            f"{run.model}\t{run.mode}\t{result.interval.n}\t{result.interval.show()}"
            f"\t{logged}\t{run.location}\t{run.version}"
        )
    put("".join(f"{row}\n" for row in rows), None)
    if mismatch:
        print("the recomputed Composite disagrees with a log header", file=sys.stderr)
    return 1 if mismatch else 0


def add_report(commands: Commands) -> None:
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
    for instrument in instruments.INSTRUMENTS:
        if instrument.options:
            instrument.options.add(report)
    report.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    report.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    report.set_defaults(run=_report)


def _mistaken(args: argparse.Namespace) -> str | None:
    """What is wrong with the report's arguments before any log is read."""
    if args.plots and not plots_available():
        return f"--plots needs matplotlib: {PLOTS_HINT}"
    found = (i.options.mistaken(args) for i in instruments.INSTRUMENTS if i.options)
    return next((m for m in found if m), None)


def _report(args: argparse.Namespace) -> int:
    mistaken = _mistaken(args)
    if mistaken:
        print(f"attunebench report: {mistaken}", file=sys.stderr)
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
            **{
                name: getattr(args, name)
                for i in instruments.INSTRUMENTS
                if i.options
                for name in i.options.names
            },
        )
    except (FilterError, FileNotFoundError) as ex:
        print(f"attunebench report: {ex}", file=sys.stderr)
        return 2
    except Problems as ex:
        for line in ex.problems:
            print(line, file=sys.stderr)
        print(
            f"attunebench report: no report: {len(ex.problems)} problem(s) with {ex.concern}",
            file=sys.stderr,
        )
        return 1
    except InputError as ex:
        print(f"attunebench report: {ex}", file=sys.stderr)
        return 1
    return _written(report, args)


def _written(report: Report, args: argparse.Namespace) -> int:
    """The report in the forms asked for, after what was skipped; 1 where it has nothing."""
    say_skipped(report.skipped)
    if not report.runs:
        print("no successful AttuneBench log found", file=sys.stderr)
        return 1
    put(FORMS[args.format](report), args.output)
    if args.html:
        write_atomic(args.html, to_html(report))
        bare = "" if plots_available() else f" (no figures: matplotlib is absent; {PLOTS_HINT})"
        print(f"HTML report: {args.html}{bare}", file=sys.stderr)
    if args.plots:
        written = write_plots(report, args.plots)
        print(f"{len(written)} figures in {args.plots}", file=sys.stderr)
    return 0


def add_metrics(commands: Commands) -> None:
    metrics = commands.add_parser(
        "metrics", help="print every metric of the catalog as Markdown tables"
    )
    metrics.add_argument(
        "--write", metavar="FILE", help="replace the generated block of FILE (scorers/METRICS.md)"
    )
    metrics.set_defaults(run=_metrics)


def _metrics(args: argparse.Namespace) -> int:
    if args.write:
        write(args.write, metrics_markdown())
        print(f"wrote the metric tables into {args.write}", file=sys.stderr)
    else:
        sys.stdout.write(metrics_markdown())
    return 0


def add_conformance(commands: Commands) -> None:
    conformance = commands.add_parser(
        "conformance", help="check the metric arithmetic against conformance vectors"
    )
    conformance.add_argument("files", nargs="*", help="case files (default: the bundled ones)")
    conformance.set_defaults(run=_conformance)


def _conformance(args: argparse.Namespace) -> int:
    files = [Path(f) for f in args.files] or bundled_case_files()
    passed, failed, lines = run_cases(files, compute)
    put("".join(f"{line}\n" for line in [*lines, f"{passed} passed, {failed} failed"]), None)
    return 1 if failed or not passed else 0
