"""The contamination probe (issue 28) as a file task, for as long as the package does not
register it as `attunebench_inspect/contamination`: finetune.py runs this file then. The task
is the package's own; only its name in the logs is this file's `contamination`."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from attunebench_inspect.probes.contamination import contamination as probe


@task
def contamination(**parameters: Any) -> Task:
    return probe(**parameters)
