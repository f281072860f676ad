"""Import paths that moved with the layout of version 0.2 keep working, with a deprecation
warning, until the next release: `import attunebench_inspect.report.build` gives the module
`attunebench_inspect.tools.report.build` itself (one module object, not a copy).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

MOVED = {
    "attunebench_inspect.tasks": "attunebench_inspect.attunebench",
    "attunebench_inspect.analysis": "attunebench_inspect.tools.analysis",
    "attunebench_inspect.cli": "attunebench_inspect.tools.cli",
    "attunebench_inspect.report": "attunebench_inspect.tools.report",
    "attunebench_inspect.report.records": "attunebench_inspect.tools.report.log_fields",
    "attunebench_inspect.report.bootstrap": "attunebench_inspect.bootstrap",
    "attunebench_inspect.estimate": "attunebench_inspect.tools.estimate",
    "attunebench_inspect.prompt_cache": "attunebench_inspect.tools.estimate.cache",
    "attunebench_inspect.human": "attunebench_inspect.providers",
    "attunebench_inspect.human.answers": "attunebench_inspect.providers.answers",
    "attunebench_inspect.human.provider": "attunebench_inspect.providers.replay",
    "attunebench_inspect.human.export": "attunebench_inspect.tools.human.export",
    "attunebench_inspect.human.imports": "attunebench_inspect.tools.human.imports",
    "attunebench_inspect.baselines": "attunebench_inspect.providers.baselines",
    "attunebench_inspect.baselines.providers": "attunebench_inspect.providers.baselines",
    "attunebench_inspect.solve.record": "attunebench_inspect.solve.call_record",
}
"""Old module -> new module; a package's submodules follow it unless listed themselves."""


def new_name(old: str) -> str | None:
    """Where a module of the old layout is now; None for a name that did not move."""
    if old in MOVED:
        return MOVED[old]
    head = old.rpartition(".")[0]
    while head:
        if head in MOVED:
            return f"{MOVED[head]}.{old[len(head) + 1 :]}"
        head = head.rpartition(".")[0]
    return None


class _Moved(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self) -> None:
        self._own_specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("attunebench_inspect.") or new_name(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = new_name(spec.name)
        assert new is not None
        warnings.warn(
            f"{spec.name} is now {new}; the old path works until the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(new)
        self._own_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module is the one at its new path, already executed. The import system has just
        given it the old path's spec (which has no origin): it gets its own back, or Inspect,
        which reads a task module's spec to tell an installed package from a local file, would
        log the suite's tasks with a task file and `eval_set` would no longer recognise their
        finished runs."""
        if module.__spec__ is not None and module.__spec__.name in self._own_specs:
            module.__spec__ = self._own_specs.pop(module.__spec__.name)


def install() -> None:
    if not any(isinstance(f, _Moved) for f in sys.meta_path):
        sys.meta_path.insert(0, _Moved())
