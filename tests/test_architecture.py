"""The layout's rules (ARCHITECTURE.md), checked: the eval imports no tool, a mode is declared
once and wired everywhere, nothing but the suite is a task, and every private Inspect import is
pinned here."""

from __future__ import annotations

import ast
import importlib
import io
import subprocess
import sys
import tokenize
from pathlib import Path

import inspect_ai
import pytest
import yaml
from inspect_ai.util import registry_info

from attunebench_inspect.solve._modes import MODES

# The module, not the task of the same name that the package exports.
TASKS = importlib.import_module("attunebench_inspect.attunebench")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "attunebench_inspect"
TOOLS = PACKAGE / "tools"
TASK_MODULE = PACKAGE / "attunebench.py"


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_of(path) if path.name == "__init__.py" else _module_of(path).rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _eval_modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if TOOLS not in p.parents]


def test_no_module_of_the_eval_imports_a_tool_or_an_instrument() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            m
            for m in _imports(path)
            if m.startswith("attunebench_inspect.tools") or m.split(".")[0] == "loopback"
        )
        for path in _eval_modules()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_nothing_shipped_imports_the_loopback_instruments() -> None:
    users = [p for p in PACKAGE.rglob("*.py") if any(m.startswith("loopback") for m in _imports(p))]
    assert users == []


def _string_literals(path: Path) -> set[str]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    values: set[str] = set()
    for token in tokens:
        if token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):  # f-strings and the like
                continue
            if isinstance(value, str):
                values.add(value)
    return values


NOT_A_MODE = {"solve/schemas.py": {"default"}}
"""Literals that spell a mode's name and mean something else: JSON Schema's "default"."""


def test_a_mode_name_is_written_in_at_most_two_source_files() -> None:
    files = set()
    for path in PACKAGE.rglob("*.py"):
        name = str(path.relative_to(PACKAGE))
        if (_string_literals(path) & set(MODES)) - NOT_A_MODE.get(name, set()):
            files.add(name)
    assert files <= {"solve/modes.py", "attunebench.py"}


def test_every_mode_has_its_task_registered_under_its_name() -> None:
    assert tuple(TASKS.MODE_TASKS) == MODES
    for mode, task in TASKS.MODE_TASKS.items():
        assert registry_info(task).name == f"attunebench_inspect/{mode}"
        assert task().metadata["mode"] == mode


def _registered(name: str) -> str | None:
    try:
        return registry_info(getattr(TASKS, name)).name
    except ValueError:
        return None


def test_eval_yaml_and_the_readme_list_every_task() -> None:
    registered = {n for n in map(_registered, TASKS.__all__) if n is not None}
    eval_yaml = yaml.safe_load((PACKAGE / "eval.yaml").read_text(encoding="utf-8"))
    assert {f"attunebench_inspect/{t['name']}" for t in eval_yaml["tasks"]} == registered
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in registered:
        assert f"`{name}`" in readme, name


def test_inspect_list_tasks_shows_the_suite_only() -> None:
    listed = subprocess.run(
        [str(Path(sys.executable).with_name("inspect")), "list", "tasks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert listed and all(
        line.startswith("src/attunebench_inspect/attunebench.py@") for line in listed
    )


PRIVATE_INSPECT_IMPORTS = {
    "attunebench_inspect.data.problems": {
        "inspect_ai._util.error",
        "inspect_ai._util.error.PrerequisiteError",
    },
    "attunebench_inspect.solve.judges": {"inspect_ai.model._model.active_model"},
    "attunebench_inspect.solve.provider_rules": {
        "inspect_ai.model._generate_config.active_generate_config",
        "inspect_ai.model._model.active_model",
    },
}
"""Every private Inspect name the package imports, by module. `PrerequisiteError`: Inspect's CLI
prints one as its message alone (our one-line errors under `inspect eval`) and exports it
nowhere. The accessors: Inspect exports none for the eval's generate config (where `--batch`
and `--extra-body` land) nor for the model under test outside `get_model()`. Checked on
inspect_ai 0.3.285."""


def test_every_private_inspect_import_is_pinned_here() -> None:
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        private = {
            m
            for m in _imports(path)
            if m.startswith("inspect_ai.") and any(p.startswith("_") for p in m.split(".")[1:-1])
        }
        if private:
            found[_module_of(path)] = private
    assert found == PRIVATE_INSPECT_IMPORTS


@pytest.mark.skipif(
    not inspect_ai.__version__.startswith("0.3."), reason="pinned on the 0.3 series"
)
def test_the_pinned_private_accessors_behave_as_on_inspect_0_3_285() -> None:
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai.model import GenerateConfig, Model
    from inspect_ai.model._generate_config import (
        active_generate_config,
        set_active_generate_config,
    )
    from inspect_ai.model._model import active_model

    set_active_generate_config(GenerateConfig(batch=True))
    try:
        assert active_generate_config().batch is True
    finally:
        set_active_generate_config(GenerateConfig())
    # None outside an eval; the model under test inside one (tests/test_requests.py).
    assert active_model() is None or isinstance(active_model(), Model)
    assert issubclass(PrerequisiteError, Exception)


def test_each_package_exports_its_public_names_in_one_style() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        targets = [
            target
            for n in tree.body
            for target in (n.targets if isinstance(n, ast.Assign) else [getattr(n, "target", None)])
        ]
        has_all = any(getattr(target, "id", None) == "__all__" for target in targets)
        defines = [
            n for n in tree.body if not isinstance(n, ast.Expr | ast.ImportFrom | ast.Import)
        ]
        assert has_all or not defines, f"{init.relative_to(ROOT)} defines names without __all__"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("attunebench_inspect.tasks", "attunebench_inspect.attunebench"),
        ("attunebench_inspect.analysis", "attunebench_inspect.tools.analysis"),
        ("attunebench_inspect.report.build", "attunebench_inspect.tools.report.build"),
        ("attunebench_inspect.report.figures", "attunebench_inspect.tools.report.figures"),
        ("attunebench_inspect.estimate", "attunebench_inspect.tools.estimate"),
        ("attunebench_inspect.human.answers", "attunebench_inspect.providers.answers"),
    ],
)
def test_a_moved_import_path_works_with_a_deprecation_warning(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is now {new}"):
        moved = importlib.import_module(old)
    target = importlib.import_module(new)
    names = getattr(target, "__all__", None) or [
        n for n in vars(target) if not n.startswith("_") and n != "annotations"
    ]
    assert names and all(getattr(moved, n) is getattr(target, n) for n in names)
    # The module keeps its own spec: Inspect reads it to tell an installed task from a local file.
    assert target.__spec__ is not None and target.__spec__.name == new
