"""Reading AttuneBench runs from Inspect logs: the newest successful log per run (its task, model,
mode, task version, conversations and epochs)."""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import fsspec  # type: ignore[import-untyped]  # (no type information; Inspect's own dependency)
from inspect_ai.log import list_eval_logs
from pydantic import ValidationError

from ..._util.files import MAX_CONFIG_BYTES, kind, read_capped
from ._log_fields import RunHeader, SampleRow, local_path, read_header, read_sample_rows

COMPOSITE_SCORER = "composite_scorer"
_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError)
"""How reading a log that is not whole fails (a copy cut short, a writer not done; Inspect's own
reader says "EOCD not found"), locally or remotely."""


@dataclass(frozen=True)
class Run:
    """One (task, model, mode) run: its log header; sample summaries are read on demand, one run
    at a time, so many large runs never sit in memory together."""

    location: str
    header: RunHeader

    @property
    def samples(self) -> list[SampleRow]:
        return read_sample_rows(self.location)

    @property
    def task(self) -> str:
        return self.header.eval.task

    @property
    def model(self) -> str:
        return self.header.eval.model

    @property
    def mode(self) -> str:
        return mode_of(self.header)

    @property
    def version(self) -> str:
        """The task version the run was made at: scores of different versions do not compare."""
        return str(self.header.eval.task_version)

    @property
    def epochs(self) -> int:
        """How many times each conversation was run (`--epochs`): a run's estimate and interval
        depend on it, so runs of different epochs are different runs."""
        return self.header.eval.config.epochs or 1

    @property
    def reducer(self) -> str:
        """How its log reduced each conversation's epochs (`--epochs-reducer`; a one-epoch run's
        is its mean): the report ranks every run by its mean over epochs."""
        reducers = self.header.eval.config.epochs_reducer or ["mean"]
        return ",".join(reducers) if self.epochs > 1 else "mean"

    @property
    def key(self) -> tuple[str, str, str, str, str, int]:
        """What a newer log of the same run replaces: the same task, model, mode and task
        version over the same conversations and epochs (a partial run never replaces a whole
        one, nor a run of 2 epochs one of 1)."""
        digest = self.header.conversations.digest
        return (self.task, self.model, self.mode, self.version, digest, self.epochs)

    def scored(self) -> list[SampleRow]:
        """The sample-epochs that were scored (errored ones are left out, and counted)."""
        return [s for s in self.samples if s.scores and COMPOSITE_SCORER in s.scores]


@dataclass(frozen=True)
class Skipped:
    """A log the report read and left out, and why; the model and mode of a run set aside or
    superseded ("" for a log that could not be read as one)."""

    location: str
    reason: str
    model: str = ""
    mode: str = ""

    @classmethod
    def run(cls, run: Run, reason: str) -> Skipped:
        return cls(run.location, reason, run.model, run.mode)


@dataclass(frozen=True)
class RunInfo:
    """What the report says of a run it read (`Report.runs`)."""

    model: str
    mode: str
    task: str
    conversations: int
    log: str
    task_version: str = ""


def _remote_files(location: str) -> list[str]:
    """The logs at a remote location (s3://bucket/prefix, ...), through fsspec as Inspect reads
    them (s3fs for S3)."""
    filesystem, path = fsspec.core.url_to_fs(location)
    if filesystem.isdir(path):
        return [info.name for info in list_eval_logs(location, descending=False)]
    if filesystem.isfile(path):
        return [location]
    raise FileNotFoundError(f"no log file or folder at {location}")


def log_files(paths: Sequence[str | Path]) -> tuple[list[str], list[Skipped]]:
    """Every .eval/.json log under the given files and folders, local or remote, and the
    log-named links of a folder that lead to no file (listed, never dropped unsaid)."""
    files: list[str] = []
    skipped: list[Skipped] = []
    for path in paths:
        # A path, or a log's own location (a file:// URI, as Inspect and `Run.location` give it).
        p = local_path(str(path))
        if p is None:
            files.extend(_remote_files(str(path)))
        elif p.is_dir():
            files.extend(info.name for info in list_eval_logs(str(p), descending=False))
            # Inspect's listing leaves out links: one that leads to a log is read as the log.
            for link in sorted(p.glob("*")):
                if link.is_symlink() and link.suffix in (".eval", ".json"):
                    if link.resolve().is_file():
                        files.append(link.as_uri())
                    else:
                        skipped.append(Skipped(link.as_uri(), "a link to no file"))
        elif p.exists():
            files.append(str(p))
        else:
            raise FileNotFoundError(f"no log file or folder at {p}")
    return files, skipped


def _first_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}"


def _whole_json(path: Path) -> bool:
    try:
        json.loads(read_capped(path, MAX_CONFIG_BYTES))
    except (OSError, ValueError):
        return False
    return True


def _unreadable(path: Path | None, error: BaseException) -> str:
    if isinstance(error, ValidationError) or (
        path is not None and path.suffix == ".json" and _whole_json(path)
    ):
        # Whole JSON that Inspect cannot read as a log: nothing is still writing it.
        return f"not an Inspect log ({_first_line(error.__cause__ or error)})"
    return f"cannot be read: still being written, or not a whole log ({_first_line(error)})"


def is_main_task_run(run: Run) -> bool:
    """A run of the main task (a mode), not of another task of the suite (the profile task, the
    contamination probe): what the Composite, the leaderboard and every analysis of the paper
    read. Its task records its mode; no other task does."""
    return "mode" in (run.header.eval.metadata or {})


def mode_of(header: RunHeader) -> str:
    """A main-task run's mode; for the suite's other tasks, which have none, the task's own name
    (`profile`, `contamination`), so that no other run reads as a mode's."""
    mode = (header.eval.metadata or {}).get("mode")
    return str(mode) if mode is not None else header.eval.task.rpartition("/")[2]


def _finished(location: str) -> RunHeader | Skipped | None:
    """A successful AttuneBench log's header; why another log is skipped; None for a log of
    another suite."""
    path = local_path(location)
    if path is not None and path.exists() and not path.is_file():
        # A FIFO would hang the read, a device would not end.
        return Skipped(location, f"{kind(path.stat().st_mode)}, not a log file")
    try:
        header = read_header(location)
    except _UNREADABLE as ex:
        # Like a log still running: another process may be writing it; the rest is reported.
        return Skipped(location, _unreadable(path, ex))
    except Exception as ex:
        # Named like a log, but not one (Inspect's readers assert, or fail validation, on JSON
        # without an `eval` section): listed, and every good log is still reported.
        return Skipped(location, f"not an Inspect log ({_first_line(ex)})")
    # Every AttuneBench task logs its codebook's digest: a log without one is another suite's.
    if "codebook_sha256" not in (header.eval.metadata or {}):
        return None
    if header.status == "success":
        return header
    if header.error:
        reason = header.error.message.splitlines()[0]
    elif header.status == "started":
        # Another process may be writing it (a shared log store), or it was cut off.
        reason = "still running, or stopped without finishing"
    else:
        reason = header.status
    why = f"status {header.status}: {reason}"
    return Skipped(location, why, header.eval.model, mode_of(header))


def _scored_nothing(header: RunHeader) -> str:
    """Why a successful log has nothing to report ("" where it has)."""
    results = header.results
    if results is not None and results.completed_samples and results.scores:
        return ""
    if header.eval.ran_no_sample:
        return "the run had no samples (--limit 0)"
    return "no sample was scored (every sample errored)"


def read_runs(paths: Sequence[str | Path]) -> tuple[list[Run], list[Skipped]]:
    """The newest successful AttuneBench log per (task, model, mode, task version, conversation
    set, epochs), and what was left out.

    `inspect eval-retry` writes a new log beside the failed one; the newest success wins. A log
    that did not succeed (or whose every sample errored), or cannot be read yet, is listed with its
    reason, not read. Runs over different conversations are all returned: which of them a report
    compares is `compared`'s rule (`_compared.py`).
    """
    newest: dict[tuple[str, str, str, str, str, int], Run] = {}
    locations, skipped = log_files(paths)
    for location in locations:
        found = _finished(location)
        if not isinstance(found, RunHeader):
            skipped += [found] if found is not None else []
            continue
        run = Run(location, found)
        current = newest.setdefault(run.key, run)
        if current is not run:
            later = run.header.eval.created > current.header.eval.created
            older, newer = (current, run) if later else (run, current)
            newest[run.key] = newer
            skipped.append(Skipped.run(older, "superseded by a newer successful log"))
    runs = []
    for run in newest.values():
        reason = _scored_nothing(run.header)
        if reason:
            skipped.append(Skipped.run(run, reason))
        else:
            runs.append(run)
    runs.sort(key=lambda r: r.key)
    return runs, skipped


def score_values(samples: Iterable[SampleRow], scorer: str) -> dict[str, list[dict[str, float]]]:
    """Per conversation id, the scorer's value dict of every epoch."""
    values: dict[str, list[dict[str, float]]] = {}
    for sample in samples:
        score = (sample.scores or {}).get(scorer)
        if score is not None and isinstance(score.value, dict):
            values.setdefault(str(sample.id), []).append(
                {k: float(v) for k, v in score.value.items() if isinstance(v, int | float)}
            )
    return values
