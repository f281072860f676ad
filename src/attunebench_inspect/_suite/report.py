"""`build_report`: logs in, every analysis out, as typed objects (the Python API of the report):
the main task's part (tools/report/) and each instrument's, in the order they are registered."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import instruments
from .._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..data._problems import InputError
from ..tools.report._build import Report, build_main


def is_person(model: str) -> bool:
    """Whether a main-task run's model is a person's (an instrument says so)."""
    return any(i.is_person is not None and i.is_person(model) for i in instruments.INSTRUMENTS)


def build_report(
    logs: Sequence[str | Path],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    where: str | None = None,
    compare: str | None = None,
    groups: str | Path | None = None,
    diagnostics: bool = False,
    task_version: str | None = None,
    **options: Any,
) -> Report:
    """Every analysis of the AttuneBench paper over the newest successful log per
    (task, model, mode) among `logs` (files or folders), at one task version (`task_version`,
    else the newest among them), over one conversation set per task (`compared`), and each
    instrument's part. Never re-runs a model.

    `options`: the instruments' own, as `attunebench report` takes them: `third_party` (answer
    files of annotators who did not hold the conversations, read as labels; docs/third-party.md),
    `identities` (a JSON file, annotator -> the participant ID of an annotator who was also a
    participant) and `codebook` (the one the runs and the answer files used; default: the bundled
    one). `ThirdPartyError` lists what stops their use, one line each. A `where` that matches no
    conversation of any run it cuts is an `InputError`."""
    known = {name for i in instruments.INSTRUMENTS if i.options for name in i.options.names}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"build_report: unknown option(s) {unknown}; known: {sorted(known)}")
    hooks = [i for i in instruments.INSTRUMENTS if i.of_run is not None]
    main = build_main(
        logs,
        resamples=resamples,
        seed=seed,
        where=where,
        compare=compare,
        groups=groups,
        diagnostics=diagnostics,
        task_version=task_version,
        is_person=is_person,
        of_run=[i.of_run for i in hooks if i.of_run is not None],
    )
    runs, parts = list(main.scope.main.runs), {}
    for instrument in instruments.INSTRUMENTS:
        read = main.of_runs[hooks.index(instrument)] if instrument in hooks else []
        reported = instrument.report(replace(main.scope, of_runs=read, options=options))
        parts[instrument.name] = reported.part
        runs += reported.runs
    if where and runs and not any(main.cut):
        raise InputError(f"--where {where!r} matches no conversation in {len(main.cut)} runs")
    return replace(main.scope.main, runs=runs, parts=parts)
