"""Import paths that moved with the layout of version 0.2 keep working, with a deprecation
warning, until the next release: `from attunebench_inspect.report.build import build_report`
gives `attunebench_inspect.tools.report.build`'s own `build_report`.

An old path is a small module of its own that forwards every attribute to the new one (PEP 562),
not the new module registered under a second name: the import system would give the module the
old path's spec, which has no origin, and Inspect, which reads a task module's spec to tell an
installed package from a local file, would then log the suite's tasks with a task file, so that
`eval_set` no longer recognised their finished runs.
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
        target = importlib.import_module(new)
        forward = ModuleType(spec.name, target.__doc__)
        forward.__getattr__ = lambda name: getattr(target, name)  # type: ignore[method-assign]
        forward.__dict__["__all__"] = getattr(target, "__all__", [])
        if hasattr(target, "__path__"):
            forward.__path__ = []  # a package: its submodules come through this finder too
        return forward

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: every attribute is the new module's."""


def install() -> None:
    if not any(isinstance(f, _Moved) for f in sys.meta_path):
        sys.meta_path.insert(0, _Moved())
