"""The AttuneBench tasks: one `attunebench(mode=...)` and a task per mode."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import rich
import yaml
from inspect_ai import Task, task
from inspect_ai.util import display_type

from ._bundled import bundled_conversations_dir
from .data.codebook import Codebook, load_codebook
from .data.load import LoadResult, load_conversations
from .data.problems import DataProblem, InputError, shorten
from .data.profile import PROFILE_OPTIONS_KEY, check_profiles, profile_dataset
from .data.profile_vocabulary import load_vocabulary, vocabulary_warnings
from .data.samples import to_dataset
from .score import HEADLINE, attunebench_scorers
from .score.profile_scorer import PROFILE_HEADLINE, profile_scorer
from .solve import MODES, attunebench_solver, mode_spec
from .solve.profile import profile_solver
from .solve.requests import ANSWER_FORMATS, SCHEDULES, AnswerFormat, Schedule

logger = logging.getLogger(__name__)


def _eval_yaml_version() -> str:
    data = yaml.safe_load((Path(__file__).parent / "eval.yaml").read_text())
    return str(data["version"])


TASK_VERSION = _eval_yaml_version()
"""From eval.yaml. The number changes when scores stop being comparable with earlier ones, the
letter when only the interface changes (README, Changelog)."""

_PARAMETERS = ("data", "codebook", "shuffle_seed", "skip_invalid", "answer_format", "schedule")
"""The parameters of a mode task; `attunebench` also takes `mode`."""
_PROFILE_PARAMETERS = ("data", "codebook", "vocabulary", "skip_invalid")


@contextmanager
def _told() -> Iterator[None]:
    """Inspect's CLI prints an InputError (a PrerequisiteError) as its message alone, except
    under --display none, which silences its console and would lose the message: print it then."""
    try:
        yield
    except InputError as error:
        if display_type() == "none":
            print(error, file=sys.stderr)
        # Inspect's exception hook prints the message with rich, which wraps at the terminal's
        # width (80 columns in a pipe or a CI log): unwrapped, each problem stays one line.
        rich.get_console().soft_wrap = True
        raise


def _check(name: str, value: object, kind: type | tuple[type, ...], expected: str) -> None:
    # -T values arrive YAML-parsed and Inspect does not check annotations: check them here.
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise InputError(f"task parameter {name} must be {expected}; got {value!r}")


def _no_unknown(params: dict[str, Any], accepted: Sequence[str]) -> None:
    # Inspect passes `model` to every task that takes keyword arguments.
    unknown = sorted(k for k in params if k != "model")
    if unknown:
        raise InputError(
            f"unknown task parameter(s): {', '.join(unknown)}; "
            f"the parameters are {', '.join(accepted)}"
        )


@dataclass(frozen=True)
class _Loaded:
    """A checked dataset: what every task builds on."""

    book: Codebook
    source: Path
    result: LoadResult

    def metadata(self, warnings: Sequence[DataProblem] = ()) -> dict[str, object]:
        """The task metadata every task records: where the data came from, what was skipped."""
        skipped: dict[str, list[str]] = {}
        for problem in self.result.problems:
            skipped.setdefault(problem.source, []).append(str(problem))
        every = [*self.result.warnings, *warnings]
        if every:
            logger.warning(
                f"{len(every)} data warning(s), in the log's task metadata (data_warnings); "
                f"`attunebench validate {self.source}` checks the data format"
            )
        return {
            "data": str(self.source),
            "codebook": self.book.path,
            "codebook_sha256": self.book.sha256,
            "skipped_conversations": skipped,
            "data_warnings": [str(w) for w in every],
        }


def _load(data: str | None, codebook: str | None, skip_invalid: bool) -> _Loaded:
    _check("data", data, (str, type(None)), "a path")
    _check("codebook", codebook, (str, type(None)), "a path")
    _check("skip_invalid", skip_invalid, bool, "true or false")
    book = load_codebook(codebook)
    source = Path(data) if data is not None else bundled_conversations_dir()
    return _Loaded(book, source, load_conversations(source, book, skip_invalid=skip_invalid))


def _one_of(name: str, value: object, allowed: Sequence[str]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise InputError(
            f"task parameter {name} must be one of {', '.join(allowed)}; got {shorten(value)}"
        )


@dataclass(frozen=True)
class _Requests:
    """How requests are constrained and ordered (solve/requests.py)."""

    answer_format: AnswerFormat = "auto"
    schedule: Schedule = "auto"


def _build(
    mode: str,
    data: str | None,
    codebook: str | None,
    shuffle_seed: int,
    skip_invalid: bool,
    requests: _Requests,
) -> Task:
    try:
        spec = mode_spec(mode)
    except ValueError as ex:
        raise InputError(str(ex)) from None
    _check("shuffle_seed", shuffle_seed, int, "an integer")
    _one_of("answer_format", requests.answer_format, ANSWER_FORMATS)
    _one_of("schedule", requests.schedule, SCHEDULES)
    loaded = _load(data, codebook, skip_invalid)
    return Task(
        dataset=to_dataset(loaded.result, name=loaded.source.name),
        solver=attunebench_solver(
            spec, loaded.book, shuffle_seed, requests.answer_format, requests.schedule
        ),
        scorer=attunebench_scorers(codebook),
        headline_metric=HEADLINE,
        version=TASK_VERSION,
        metadata={
            "mode": spec.mode,
            **loaded.metadata(),
            "shuffle_seed": shuffle_seed,
            "answer_format": requests.answer_format,
            "schedule": requests.schedule,
        },
    )


@task
def attunebench(
    mode: str = "default",
    data: str | None = None,
    codebook: str | None = None,
    shuffle_seed: int = 0,
    skip_invalid: bool = False,
    answer_format: AnswerFormat = "auto",
    schedule: Schedule = "auto",
    **unknown: Any,
) -> Task:
    """AttuneBench: predict, turn by turn, what the person in a real conversation labelled.

    Args:
        mode: default, verbose, omniscient or verbose_omniscient.
        data: conversation folder, JSON file or JSONL file (default: the bundled synthetic set).
        codebook: annotation codebook JSON (default: the bundled codebook).
        shuffle_seed: seed of the per-turn order of the three responses in the pairwise call.
        skip_invalid: run without invalid conversations (listed in the task metadata) instead
            of stopping with the list of problems.
        answer_format: schema (the response schema goes with every call), prompt (the answer's
            shape is stated in the prompt only) or auto (prompt for OpenAI and Anthropic
            models, whose prompt caches key on the schema; schema elsewhere).
        schedule: prefix_first (the call that writes a shared prefix to the provider's cache
            goes first), all_at_once, or auto (all_at_once under --batch, else prefix_first).
    """
    with _told():
        _no_unknown(unknown, ("mode", *_PARAMETERS))
        return _build(
            mode, data, codebook, shuffle_seed, skip_invalid, _Requests(answer_format, schedule)
        )


def _mode_task(
    mode: str,
    data: str | None,
    codebook: str | None,
    shuffle_seed: int,
    skip_invalid: bool,
    requests: _Requests,
    unknown: dict[str, Any],
) -> Task:
    with _told():
        if "mode" in unknown:
            wanted = shorten(unknown["mode"])
            raise InputError(
                f"task parameter mode is not accepted by attunebench_inspect/{mode} (its mode "
                f"is fixed); use attunebench_inspect/attunebench -T mode={wanted} "
                "or the task of that name"
            )
        _no_unknown(unknown, _PARAMETERS)
        return _build(mode, data, codebook, shuffle_seed, skip_invalid, requests)


# One plain @task function per mode, so that static scanners (`inspect list tasks`, linters)
# see every task; each is `attunebench` with its mode fixed.


@task
def default(
    data: str | None = None,
    codebook: str | None = None,
    shuffle_seed: int = 0,
    skip_invalid: bool = False,
    answer_format: AnswerFormat = "auto",
    schedule: Schedule = "auto",
    **unknown: Any,
) -> Task:
    """AttuneBench in default mode, the primary benchmark (parameters as `attunebench`)."""
    return _mode_task(
        "default",
        data,
        codebook,
        shuffle_seed,
        skip_invalid,
        _Requests(answer_format, schedule),
        unknown,
    )


@task
def verbose(
    data: str | None = None,
    codebook: str | None = None,
    shuffle_seed: int = 0,
    skip_invalid: bool = False,
    answer_format: AnswerFormat = "auto",
    schedule: Schedule = "auto",
    **unknown: Any,
) -> Task:
    """AttuneBench in verbose mode: reasoning before each answer (parameters as `attunebench`)."""
    return _mode_task(
        "verbose",
        data,
        codebook,
        shuffle_seed,
        skip_invalid,
        _Requests(answer_format, schedule),
        unknown,
    )


@task
def omniscient(
    data: str | None = None,
    codebook: str | None = None,
    shuffle_seed: int = 0,
    skip_invalid: bool = False,
    answer_format: AnswerFormat = "auto",
    schedule: Schedule = "auto",
    **unknown: Any,
) -> Task:
    """AttuneBench with the participant's profile, pre-conversation PANAS and topic attitude in
    the context (parameters as `attunebench`)."""
    return _mode_task(
        "omniscient",
        data,
        codebook,
        shuffle_seed,
        skip_invalid,
        _Requests(answer_format, schedule),
        unknown,
    )


@task
def verbose_omniscient(
    data: str | None = None,
    codebook: str | None = None,
    shuffle_seed: int = 0,
    skip_invalid: bool = False,
    answer_format: AnswerFormat = "auto",
    schedule: Schedule = "auto",
    **unknown: Any,
) -> Task:
    """AttuneBench in verbose and omniscient mode together (parameters as `attunebench`)."""
    return _mode_task(
        "verbose_omniscient",
        data,
        codebook,
        shuffle_seed,
        skip_invalid,
        _Requests(answer_format, schedule),
        unknown,
    )


@task
def profile(
    data: str | None = None,
    codebook: str | None = None,
    vocabulary: str | None = None,
    skip_invalid: bool = False,
    **unknown: Any,
) -> Task:
    """Experimental: predict the participant's profile (demographics, diagnoses, computed scores,
    topic attitude) from the whole conversation, in one call (docs/profile.md).

    Args:
        data: conversation folder, JSON file or JSONL file (default: the bundled synthetic set).
        codebook: annotation codebook JSON (default: the bundled codebook).
        vocabulary: the answer options of the profile fields, JSON shaped as the bundled
            dataset/profile_vocabulary.json (default: that file).
        skip_invalid: run without invalid conversations (listed in the task metadata) instead
            of stopping with the list of problems.
    """
    with _told():
        _no_unknown(unknown, _PROFILE_PARAMETERS)
        _check("vocabulary", vocabulary, (str, type(None)), "a path")
        words = load_vocabulary(vocabulary)
        loaded = _load(data, codebook, skip_invalid)
        loaded = replace(loaded, result=check_profiles(loaded.result, skip_invalid))
        conversations = loaded.result.conversations
        warnings = [w for c in conversations for w in vocabulary_warnings(c, words)]
        options = words.options()
        return Task(
            dataset=profile_dataset(conversations, name=loaded.source.name),
            solver=profile_solver(options),
            scorer=profile_scorer(words.dump()),
            headline_metric=PROFILE_HEADLINE,
            version=TASK_VERSION,
            metadata={
                **loaded.metadata(warnings),
                "profile_vocabulary": words.path,
                "profile_vocabulary_sha256": words.sha256,
                PROFILE_OPTIONS_KEY: options,
            },
        )


__all__ = [
    "MODES",
    "TASK_VERSION",
    "attunebench",
    "default",
    "omniscient",
    "profile",
    "verbose",
    "verbose_omniscient",
]
