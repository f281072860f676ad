"""The AttuneBench tasks: `attunebench(mode=...)`, and a task per mode made by one factory
(`_fixed_mode`), so that their parameters are `attunebench`'s by construction."""

# inspect-evals-lint: ignore-file[IEFS002] -- named after the eval, AttuneBench

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from inspect_ai import Task, task

from . import instruments
from ._parameters import TASK_VERSION, check, load, no_unknown, one_of, told
from .data._problems import InputError, shorten
from .data._samples import to_dataset
from .data._source import BUNDLED
from .score import HEADLINE, attunebench_scorers
from .score._scorers import scorer_families, viewer_config
from .solve import MODES, PRIMARY, attunebench_solver, mode_spec
from .solve._judges import panel_at_creation
from .solve._provider_rules import ANSWER_FORMATS, AnswerFormat
from .solve._schedule import SCHEDULES, Schedule


@task
def attunebench(
    mode: str = PRIMARY,
    data: str = BUNDLED,
    codebook: str | None = None,
    shuffle_seed: int = 0,
    skip_invalid: bool = False,
    answer_format: AnswerFormat = "auto",
    schedule: Schedule = "auto",
    allow_self_judge: bool = False,
    **unknown: Any,
) -> Task:
    """AttuneBench: predict, turn by turn, what the person in a real conversation labelled.

    Args:
        mode: default, verbose, omniscient or verbose_omniscient.
        data: a data set root (a folder holding the conversations and their codebook, as the
            bundled dataset/ or the published deposit), a conversation folder, a JSON file or a
            JSONL file (default: bundled, the bundled synthetic set).
        codebook: annotation codebook JSON (default: a data set root's own, else the bundled
            codebook).
        shuffle_seed: seed of the per-turn order of the three responses in the pairwise call.
        skip_invalid: run without invalid conversations (listed in the task metadata) instead
            of stopping with the list of problems.
        answer_format: schema (the response schema goes with every call), prompt (the answer's
            shape is stated in the prompt only) or auto (prompt for OpenAI and Anthropic
            models, whose prompt caches key on the schema; schema elsewhere).
        schedule: prefix_first (the call that writes a shared prefix to the provider's cache
            goes first), all_at_once, or auto (all_at_once under --batch, else prefix_first).
        allow_self_judge: a judge of the panel (model roles judge, judge_2, ...) that is the
            evaluated model, or of its family from the same maker, is meant: no warning line."""
    with told():
        # The parameters other than the data first, one line each; then the data set.
        no_unknown(unknown, PARAMETERS)
        try:
            spec = mode_spec(mode)
        except ValueError as ex:
            raise InputError(str(ex)) from None
        check("shuffle_seed", shuffle_seed, int, "an integer")
        one_of("answer_format", answer_format, ANSWER_FORMATS)
        one_of("schedule", schedule, SCHEDULES)
        check("allow_self_judge", allow_self_judge, bool, "true or false")
        loaded = load(data, codebook, skip_invalid)
        panel = panel_at_creation(allow_self_judge)
        return Task(
            dataset=to_dataset(loaded.result, name=loaded.dataset_name),
            solver=attunebench_solver(
                spec, loaded.book, shuffle_seed, answer_format, schedule, allow_self_judge
            ),
            scorer=attunebench_scorers(
                loaded.codebook_param,
                [made for i in instruments.INSTRUMENTS for made in i.main_task_scorers],
            ),
            headline_metric=HEADLINE,
            version=TASK_VERSION,
            viewer=viewer_config(scorer_families()),
            # A sample ended by an unreadable reply does not stop the others; the run fails at
            # the end, and `inspect eval-retry` runs what failed (solve/_transport.py).
            continue_on_fail=True,
            metadata={
                "mode": spec.mode,
                **loaded.metadata(),
                "shuffle_seed": shuffle_seed,
                "answer_format": answer_format,
                "schedule": schedule,
                "allow_self_judge": allow_self_judge,
                **panel,
            },
        )


_SIGNATURE = inspect.signature(attunebench)
PARAMETERS = tuple(p for p in _SIGNATURE.parameters if p != "unknown")
"""The parameters of `attunebench`; a mode task takes all of them but `mode`."""


def _fixed_mode(declaration: Callable[..., None]) -> Callable[..., Task]:
    """`attunebench` with its mode fixed to the declared function's name: a task of its own,
    with `attunebench`'s parameters (less `mode`) and defaults, so Inspect logs them all."""
    spec = mode_spec(declaration.__name__)
    build = inspect.unwrap(attunebench)
    own = tuple(p for p in PARAMETERS if p != "mode")

    def mode_task(**params: Any) -> Task:
        with told():
            if "mode" in params:
                raise InputError(
                    f"task parameter mode is not accepted by attunebench_inspect/{spec.mode} "
                    f"(its mode is fixed); use attunebench_inspect/attunebench -T "
                    f"mode={shorten(params['mode'])} or the task of that name"
                )
            no_unknown({k: v for k, v in params.items() if k not in own}, own)
        task: Task = build(mode=spec.mode, **params)
        return task

    mode_task.__name__ = mode_task.__qualname__ = spec.mode
    mode_task.__module__ = declaration.__module__
    mode_task.__doc__ = f"AttuneBench, {spec.mode} mode: {spec.gives} (parameters as attunebench)."
    mode_task.__signature__ = _SIGNATURE.replace(  # type: ignore[attr-defined]
        parameters=[p for name, p in _SIGNATURE.parameters.items() if name != "mode"]
    )
    return mode_task


# A plain `def` per mode, so that static scanners (`inspect list tasks`, linters) see every task
# and that it takes parameters; its name is its mode (solve/_modes.py), its parameters, defaults
# and docstring come from `_fixed_mode`.


@task
@_fixed_mode
def default(**parameters: Any) -> None: ...


@task
@_fixed_mode
def verbose(**parameters: Any) -> None: ...


@task
@_fixed_mode
def omniscient(**parameters: Any) -> None: ...


@task
@_fixed_mode
def verbose_omniscient(**parameters: Any) -> None: ...


MODE_TASKS: dict[str, Callable[..., Task]] = {
    t.__name__: t for t in (default, verbose, omniscient, verbose_omniscient)
}
"""The task of each mode: a run of a mode is logged under its task's name."""
if tuple(MODE_TASKS) != MODES:  # pragma: no cover - a declaration without its task
    raise RuntimeError(f"attunebench.py must define one task per mode, in order: {MODES}")


__all__ = [
    "MODE_TASKS",
    "PARAMETERS",
    "TASK_VERSION",
    "attunebench",
    "default",
    "omniscient",
    "verbose",
    "verbose_omniscient",
]
