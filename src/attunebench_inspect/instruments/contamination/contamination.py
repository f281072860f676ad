"""The contamination probe's task, `attunebench_inspect/contamination` (docs/contamination.md)."""

# inspect-evals-lint: ignore-file[IEFS002] -- an instrument's task is in its folder

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task

from ..._parameters import TASK_VERSION, Loaded, check, load, no_unknown, some_of, told
from ...data._problems import InputError
from ...data._source import BUNDLED
from ._dataset import METHOD, METHOD_KEY, METHODS_KEY, NOT_PROBED_KEY, probe_data
from ._rules import DEFAULT_METHODS, LIKELIHOOD, METHODS
from ._scorer import CONTAMINATION_HEADLINE, contamination_scorer
from ._solver import contamination_solver


@task
def contamination(
    data: str = BUNDLED,
    codebook: str | None = None,
    seed: int = 0,
    skip_invalid: bool = False,
    methods: str | list[str] = DEFAULT_METHODS,
    likelihood_control: str | None = None,
    **unknown: Any,
) -> Task:
    """Has the model seen these conversations? Golchin & Surdeanu's guided-instruction probe on
    the data set's published texts: a verdict beside the Composite (docs/contamination.md).

    Args:
        data: a data set root, a conversation folder, a JSON file or a JSONL file (default:
            bundled, the bundled synthetic set).
        codebook: annotation codebook JSON (default: a data set root's own, else the bundled
            codebook).
        seed: seed of the random length of each text's shown segment.
        skip_invalid: run without invalid conversations (listed in the task metadata) instead
            of stopping with the list of problems.
        methods: which methods run, comma-separated: `guided` (the guided-instruction probe),
            `layout` (the files-layout probe) and `likelihood` (the likelihood method, where
            the provider scores a given text); default guided,likelihood. Each has its
            sub-verdict and the verdict reads them by the overall rule (docs/contamination.md).
        likelihood_control: never-published conversations of the same collection (a data set,
            read as `data` is, with its codebook): the likelihood method's control test; without
            it, its decoy-ID test. Their texts are sent to the model evaluated.
    """
    with told():
        no_unknown(
            unknown,
            ("data", "codebook", "seed", "skip_invalid", "methods", "likelihood_control"),
        )
        check("seed", seed, int, "an integer")
        chosen = some_of("methods", methods, METHODS)
        check("likelihood_control", likelihood_control, (str, type(None)), "a data set path")
        loaded = load(data, codebook, skip_invalid)
        control = (
            None
            if likelihood_control is None
            else control_set(likelihood_control, loaded, chosen, skip_invalid)
        )
        probe = probe_data(
            loaded.result.conversations,
            seed,
            loaded.dataset_name,
            chosen,
            control.result.conversations if control else None,
        )
        return Task(
            dataset=probe.dataset,
            solver=contamination_solver(),
            scorer=contamination_scorer(),
            headline_metric=CONTAMINATION_HEADLINE,
            version=TASK_VERSION,
            continue_on_fail=True,
            metadata={
                **loaded.metadata(
                    controls=[c.conversation.conversationId for c in control.result.conversations]
                    if control
                    else ()
                ),
                "seed": seed,
                METHODS_KEY: chosen,
                "likelihood_control": str(control.source.conversations) if control else None,
                "likelihood_control_sha256": control.result.sha256 if control else None,
                NOT_PROBED_KEY: [str(p) for p in probe.not_probed],
                METHOD_KEY: METHOD,
            },
        )


def control_set(path: str, loaded: Loaded, methods: Sequence[str], skip_invalid: bool) -> Loaded:
    """The likelihood method's never-published conversations, read as `data` is (with the data
    set's codebook); one line where the method is not chosen or a conversation is published."""
    if LIKELIHOOD not in methods:
        raise InputError(
            f"task parameter likelihood_control is the likelihood method's; methods are "
            f"{','.join(methods)} (add likelihood)"
        )
    control = load(path, loaded.codebook_param, skip_invalid)
    published = {c.conversation.conversationId for c in loaded.result.conversations}
    both = [c for c in control.result.conversations if c.conversation.conversationId in published]
    if both:
        raise InputError(
            f"{both[0].source}: task parameter likelihood_control: conversation "
            f"{both[0].conversation.conversationId} is in data too ({len(both)} such); a control "
            "conversation must never have been published"
        )
    return control
