"""`attunebench human`: export the page, import its answer files, print their schema."""

from __future__ import annotations

import argparse
import json
import sys

from ...data._codebook import load_codebook
from ...data._problems import InputError
from ...data._source import BUNDLED, resolve
from ...tools._arguments import CODEBOOK_HELP, DATA_HELP, Commands
from ._answers import answers_schema
from ._export import export_page
from ._imports import check_files, default_log_dir, replay


def add_human(commands: Commands) -> None:
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
    export.set_defaults(run=_export)
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
    imported.set_defaults(run=_import)
    schema = human_commands.add_parser(
        "schema", help="print the JSON Schema of answer files (the modes filled in)"
    )
    schema.set_defaults(run=_schema)


def _export(args: argparse.Namespace) -> int:
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


def _import(args: argparse.Namespace) -> int:
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


def _schema(args: argparse.Namespace) -> int:
    print(json.dumps(answers_schema(), indent=2, ensure_ascii=False))
    return 0
