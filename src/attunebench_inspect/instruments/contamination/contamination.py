"""The contamination probe's task, `attunebench_inspect/contamination` (docs/contamination.md)."""

# inspect-evals-lint: ignore-file[IEFS002] -- an instrument's task is in its folder

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from ..._parameters import TASK_VERSION, check, load, no_unknown, some_of, told
from ...data._source import BUNDLED
from ._dataset import METHOD, METHOD_KEY, METHODS_KEY, NOT_PROBED_KEY, probe_data
from ._rules import GUIDED, METHODS
from ._scorer import CONTAMINATION_HEADLINE, contamination_scorer
from ._solver import contamination_solver


@task
def contamination(
    data: str = BUNDLED,
    codebook: str | None = None,
    seed: int = 0,
    skip_invalid: bool = False,
    methods: str | list[str] = GUIDED,
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
        methods: which methods run, comma-separated: `guided` (the guided-instruction probe,
            the default) and `layout` (the files-layout probe); each has its sub-verdict and
            the verdict reads them by the overall rule (docs/contamination.md).
    """
    with told():
        no_unknown(unknown, ("data", "codebook", "seed", "skip_invalid", "methods"))
        check("seed", seed, int, "an integer")
        chosen = some_of("methods", methods, METHODS)
        loaded = load(data, codebook, skip_invalid)
        probe = probe_data(loaded.result.conversations, seed, loaded.dataset_name, chosen)
        return Task(
            dataset=probe.dataset,
            solver=contamination_solver(),
            scorer=contamination_scorer(),
            headline_metric=CONTAMINATION_HEADLINE,
            version=TASK_VERSION,
            continue_on_fail=True,
            metadata={
                **loaded.metadata(),
                "seed": seed,
                METHODS_KEY: chosen,
                NOT_PROBED_KEY: [str(p) for p in probe.not_probed],
                METHOD_KEY: METHOD,
            },
        )
