"""Re-annotation in the report and in Python: the options that bring answer files in
(`attunebench report --third-party ...`, `build_report(third_party=...)`), the report's part, and
`third_party_df`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...data._codebook import load_codebook
from ...tools._instrument import Options, Reported
from ...tools.report._build import Part, Scope
from ...tools.report._dataframes import analysis_missing, log_paths
from ...tools.report._logs import is_main_task_run, read_runs
from ._labels import read_identities
from ._study import SELF, THIRD_PARTY, ThirdPartySection, rescore_runs, third_party_section

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class ReannotationPart(Part):
    third_party: ThirdPartySection | None
    """Every run against third-party labels (`--third-party`); None without answer files."""


def reannotation_part(scope: Scope) -> Reported:
    """The main task's runs scored again against the answer files' labels (`--where` applies)."""
    answers = scope.options.get("third_party") or ()
    if not answers:
        return Reported(ReannotationPart(None))
    identities = scope.options.get("identities")
    book = load_codebook(scope.options.get("codebook"))
    kept = {t.location: set(t.conversations) for t in scope.tables}
    rescored = rescore_runs(
        [r for r in scope.runs if r.location in kept],
        answers,
        book,
        identities=read_identities(identities) if identities is not None else None,
        only=kept,
    )
    settings = scope.settings
    section = third_party_section(rescored, book, resamples=settings.resamples, seed=settings.seed)
    return Reported(ReannotationPart(section))


def _add(report: argparse.ArgumentParser) -> None:
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


def _mistaken(args: argparse.Namespace) -> str | None:
    if (args.identities or args.codebook) and not args.third_party:
        return "--identities and --codebook go with --third-party"
    return None


OPTIONS = Options(("third_party", "identities", "codebook"), _add, _mistaken)
"""`third_party`: answer files of annotators who did not hold the conversations, read as labels
(docs/third-party.md); `identities`: a JSON file, annotator -> the participant ID of an annotator
who was also a participant; `codebook`: the one the runs and the answer files used (default: the
bundled one). `ThirdPartyError` lists what stops their use, one line each."""


def third_party_df(
    logs: str | Path | Sequence[str | Path],
    answers: Sequence[str | Path],
    *,
    identities: str | Path | None = None,
    codebook: str | Path | None = None,
) -> pd.DataFrame:
    """The main task's runs among `logs` scored again, without a model call: one row per run,
    conversation and label set (`labels`: "self", the participant's, or "third_party", the
    consensus of the answer files' annotators), on the conversations both have and the items
    both label, then one column per metric third-party labels can give (epochs averaged).
    `identities` and `codebook` as in `attunebench report --third-party`; `ThirdPartyError`
    lists what stops their use, one line each. Needs the `analysis` extra (pandas)."""
    try:
        import pandas as pd
    except ImportError as ex:  # pragma: no cover - depends on the environment
        raise analysis_missing("third_party_df", ex) from None
    runs, _ = read_runs(log_paths(logs))
    rescored = rescore_runs(
        [r for r in runs if is_main_task_run(r)],
        answers,
        load_codebook(codebook),
        identities=read_identities(identities) if identities is not None else None,
    )
    rows = [
        {"model": r.model, "mode": r.mode, "log": r.log, "id": cid, "labels": side, **values}
        for r in rescored.runs
        for cid, pair in sorted(r.conversations.items())
        for side, values in zip((SELF, THIRD_PARTY), pair, strict=True)
    ]
    return pd.DataFrame(rows)
