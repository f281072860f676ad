"""The layout's rules (ARCHITECTURE.md), checked: each layer imports only from below it, an
instrument is wired everywhere its recipe says, a mode is declared once, nothing but the suite is
a task, the module tables match the tree, and every private Inspect import is pinned here."""

from __future__ import annotations

import ast
import importlib
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path
from types import ModuleType

import inspect_ai
import pytest
import yaml
from inspect_ai.util import registry_info

from attunebench_inspect import _registry, instruments
from attunebench_inspect._suite.cli import build_parser
from attunebench_inspect._suite.estimate import PRICED
from attunebench_inspect._suite.render import SECTIONS
from attunebench_inspect.score import attunebench_scorers
from attunebench_inspect.score._scorers import added_to_main_task
from attunebench_inspect.solve._modes import MODES
from tests.conftest import LONGEST, SHARED_LOGS

# The module, not the task of the same name that the package exports.
TASKS = importlib.import_module("attunebench_inspect.attunebench")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "attunebench_inspect"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("_util",),
    ("data",),
    ("solve", "_parameters"),
    ("score",),
    ("providers", "attunebench"),
    ("tools",),
    ("instruments",),
    ("_suite",),
    ("_registry", "__init__"),
)
"""The package's layers, lowest first, by the first part of a module's path: a module imports
from its own layer or below (ARCHITECTURE.md, "Layers")."""
INSTRUMENT_USES = {"reannotation": {"human"}}
"""Where an instrument builds on another: re-annotation reads the human page's answer files."""


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


def _layer(module: str) -> int | None:
    """The layer of a module of the package (None for other modules)."""
    parts = module.split(".")
    if parts[0] != "attunebench_inspect":
        return None
    head = parts[1] if len(parts) > 1 else "__init__"
    return next(i for i, names in enumerate(LAYERS) if head in names)


def test_every_module_of_the_package_has_a_layer() -> None:
    for path in PACKAGE.rglob("*.py"):
        assert _layer(_module_of(path)) is not None, path


def test_each_layer_imports_only_from_its_own_or_below() -> None:
    upward = {
        str(path.relative_to(PACKAGE)): sorted(
            m
            for m in _imports(path)
            if (theirs := _layer(m)) is not None and theirs > (_layer(_module_of(path)) or 0)
        )
        for path in PACKAGE.rglob("*.py")
    }
    assert {k: v for k, v in upward.items() if v} == {}


def _instrument_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "instruments" else None


def test_an_instrument_builds_on_another_only_where_the_architecture_says() -> None:
    found: dict[str, set[str]] = {}
    for path in (PACKAGE / "instruments").rglob("*.py"):
        mine = _instrument_of(_module_of(path))
        others = {_instrument_of(m) for m in _imports(path)} - {None, mine}
        if mine is not None and others:
            found.setdefault(mine, set()).update(o for o in others if o is not None)
    assert found == INSTRUMENT_USES


def test_nothing_shipped_imports_the_loopback_instruments() -> None:
    users = [p for p in PACKAGE.rglob("*.py") if any(m.startswith("loopback") for m in _imports(p))]
    assert users == []


# --- an instrument: one folder, wired everywhere its recipe says ------------------------------


def _registered(module: ModuleType, kind: str) -> set[str]:
    """The names of the Inspect objects of `kind` ("task", "scorer", "modelapi") that a module
    defines."""
    names = set()
    for value in vars(module).values():
        try:
            info = registry_info(value)
        except (ValueError, AttributeError, TypeError):
            continue
        if info.type == kind and getattr(value, "__module__", None) == module.__name__:
            names.add(info.name)
    return names


def _modules(instrument: ModuleType) -> list[ModuleType]:
    folder = Path(str(instrument.__file__)).parent
    return [
        importlib.import_module(f"{instrument.__name__}.{p.stem}")
        for p in sorted(folder.glob("*.py"))
        if p.name != "__init__.py"
    ]


def _registry_names(kind: str) -> set[str]:
    return {
        registry_info(v).name
        for v in vars(_registry).values()
        if _is_registered(v) and registry_info(v).type == kind
    }


def _is_registered(value: object) -> bool:
    try:
        registry_info(value)
    except (ValueError, AttributeError, TypeError):
        return False
    return True


def test_every_instrument_folder_is_registered() -> None:
    folders = {p.name for p in (PACKAGE / "instruments").iterdir() if (p / "__init__.py").exists()}
    assert {i.__name__.rsplit(".", 1)[1] for i in instruments.INSTRUMENTS} == folders


@pytest.mark.parametrize("instrument", instruments.INSTRUMENTS, ids=lambda i: i.__name__)
def test_an_instrument_is_wired_everywhere_its_recipe_says(instrument: ModuleType) -> None:
    name = instrument.__name__.rsplit(".", 1)[1]
    modules = {m.__name__.rsplit(".", 1)[1]: m for m in _modules(instrument)}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    architecture = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    # Its doc: a page of docs/, linked from the README; its folder in ARCHITECTURE.md.
    assert (ROOT / instrument.DOC).is_file() and instrument.DOC in readme
    assert f"`instruments/{name}/`" in architecture
    # Its Inspect objects: registered through `_registry` (tasks also in eval.yaml, the README).
    for kind in ("task", "scorer", "modelapi"):
        defined = {n for m in modules.values() for n in _registered(m, kind)}
        assert defined <= _registry_names(kind), (kind, defined)
    tasks = {n for m in modules.values() for n in _registered(m, "task")}
    listed = {f"attunebench_inspect/{t['name']}" for t in _eval_yaml()["tasks"]}
    assert tasks <= listed and all(f"`{t}`" in readme for t in tasks)
    # Its report section, its price and its command: in the suite's lists.
    if "_section" in modules:
        assert modules["_section"].SECTION in SECTIONS
    if "_estimate" in modules:
        assert modules["_estimate"].PRICED in PRICED
    if "_cli" in modules:
        cli = modules["_cli"]
        adds = [
            v
            for k, v in vars(cli).items()
            if k.startswith("add_") and getattr(v, "__module__", None) == cli.__name__
        ]
        assert adds and _commands_of(adds) <= _commands_of(None)
    # A scorer joined to the main task is among its scorers.
    joined = [
        make for make in added_to_main_task() if make.__module__.startswith(instrument.__name__)
    ]
    names = {registry_info(s).name for s in attunebench_scorers()}
    assert {registry_info(make).name for make in joined} <= names


def _commands_of(adds: list[object] | None) -> set[str]:
    """The subcommands some `add_...` functions add (None: the whole `attunebench` command)."""
    import argparse

    if adds is None:
        parser = build_parser()
    else:
        parser = argparse.ArgumentParser()
        commands = parser.add_subparsers()
        for add in adds:
            add(commands)  # type: ignore[operator]
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(action.choices)


# --- names: a mode declared once; the suite's tasks and nothing else --------------------------


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


NOT_A_MODE = {"solve/_schemas.py": {"default"}}
"""Literals that spell a mode's name and mean something else: JSON Schema's "default"."""


def test_a_mode_name_is_written_in_at_most_two_source_files() -> None:
    files = set()
    for path in PACKAGE.rglob("*.py"):
        name = str(path.relative_to(PACKAGE))
        if (_string_literals(path) & set(MODES)) - NOT_A_MODE.get(name, set()):
            files.add(name)
    assert files <= {"solve/_modes.py", "attunebench.py"}


def test_every_mode_has_its_task_registered_under_its_name() -> None:
    assert tuple(TASKS.MODE_TASKS) == MODES
    for mode, task in TASKS.MODE_TASKS.items():
        assert registry_info(task).name == f"attunebench_inspect/{mode}"
        assert task().metadata["mode"] == mode


def _eval_yaml() -> dict[str, list[dict[str, str]]]:
    loaded: dict[str, list[dict[str, str]]] = yaml.safe_load(
        (PACKAGE / "eval.yaml").read_text(encoding="utf-8")
    )
    return loaded


def test_eval_yaml_and_the_readme_list_every_task() -> None:
    registered = _registry_names("task")
    assert {f"attunebench_inspect/{t['name']}" for t in _eval_yaml()["tasks"]} == registered
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in registered:
        assert f"`{name}`" in readme, name


TASK_FILES = {
    "src/attunebench_inspect/attunebench.py",
    "src/attunebench_inspect/instruments/contamination/contamination.py",
    "src/attunebench_inspect/instruments/profile/profile.py",
}
"""The modules that define tasks, each named after its task (Inspect's listing reads files whose
names do not begin with an underscore; inspect_evals names an eval's task file after it)."""


def test_inspect_list_tasks_shows_the_suite_only() -> None:
    listed = subprocess.run(
        [str(Path(sys.executable).with_name("inspect")), "list", "tasks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert {line.split("@")[0] for line in listed} == TASK_FILES
    assert {line.split("@")[1] for line in listed} == {
        n.split("/")[1] for n in _registry_names("task")
    }


# --- the module tables of ARCHITECTURE.md match the tree ---------------------------------------

_FOLDER = re.compile(r"^#### `([^`]+/)`", re.MULTILINE)


def _documented() -> dict[str, set[str]]:
    """Per folder heading of ARCHITECTURE.md ("#### `score/`"), the files its table lists."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    found: dict[str, set[str]] = {}
    heads = list(_FOLDER.finditer(text))
    for head, after in zip(heads, [*heads[1:], None], strict=True):
        section = text[head.end() : after.start() if after else len(text)]
        rows = [line for line in section.splitlines() if line.startswith("| `")]
        found[head.group(1)] = {
            name
            for row in rows
            for name in re.findall(r"`([^`/]+\.(?:py|json|html))`", row.split("|")[1])
        }
    return found


def test_the_module_tables_of_the_architecture_match_the_tree() -> None:
    tree: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*"):
        if (
            path.is_file()
            and path.suffix in (".py", ".json", ".html")
            and path.name != "__init__.py"
        ):
            relative = path.relative_to(PACKAGE)
            if relative.parts[0] in ("dataset", "scorers") or "__pycache__" in relative.parts:
                continue
            folder = "/".join(relative.parts[:-1]) + "/" if len(relative.parts) > 1 else "./"
            tree.setdefault(folder, set()).add(path.name)
    documented = {folder: files for folder, files in _documented().items() if files}
    assert documented == tree


# --- public API, retired paths, private Inspect imports ----------------------------------------


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


def test_the_package_root_exports_what_a_user_needs() -> None:
    import attunebench_inspect as suite

    for name in suite.__all__:
        assert hasattr(suite, name), name
    assert {"build_report", "Report", "metrics_df", "load_conversations", "default"} <= set(
        suite.__all__
    )


@pytest.mark.parametrize(
    "old",
    [
        "attunebench_inspect.tasks",
        "attunebench_inspect.analysis",
        "attunebench_inspect.report.build",
        "attunebench_inspect.baselines.providers",
        "attunebench_inspect.tools.cli",
        "attunebench_inspect._moved",
    ],
)
def test_the_import_paths_of_the_old_layout_are_retired(old: str) -> None:
    """0.3's forwarding modules were promised until the next release; 0.4.0 removed them."""
    sys.modules.pop(old, None)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


PRIVATE_INSPECT_IMPORTS = {
    "attunebench_inspect.data._problems": {
        "inspect_ai._util.error",
        "inspect_ai._util.error.PrerequisiteError",
    },
    "attunebench_inspect.solve._judges": {"inspect_ai.model._model.active_model"},
    "attunebench_inspect.solve._provider_rules": {
        "inspect_ai.model._generate_config.active_generate_config",
        "inspect_ai.model._model.active_model",
    },
    "attunebench_inspect.solve._transport": {
        "inspect_ai.model._model.AttemptTimeoutError",
        "inspect_ai.model._model.StreamIdleTimeoutError",
    },
}
"""Every private Inspect name the package imports, by module. `PrerequisiteError`: Inspect's CLI
prints one as its message alone (our one-line errors under `inspect eval`) and exports it
nowhere. The accessors: Inspect exports none for the eval's generate config (where `--batch`
and `--extra-body` land) nor for the model under test outside `get_model()`. The two timeout
errors: what Inspect's retries give up on when a provider does not answer within an attempt's
time (`--attempt-timeout`, `--stream-idle-timeout`), exported nowhere. Checked on inspect_ai
0.3.285."""


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
    from inspect_ai.model._model import (
        AttemptTimeoutError,
        StreamIdleTimeoutError,
        active_model,
    )

    set_active_generate_config(GenerateConfig(batch=True))
    try:
        assert active_generate_config().batch is True
    finally:
        set_active_generate_config(GenerateConfig())
    # None outside an eval; the model under test inside one
    # (tests/core/solve/test_provider_rules.py).
    assert active_model() is None or isinstance(active_model(), Model)
    assert issubclass(PrerequisiteError, Exception)
    assert issubclass(AttemptTimeoutError, RuntimeError)
    assert issubclass(StreamIdleTimeoutError, RuntimeError)


# --- the tests mirror the code (ARCHITECTURE.md, "Tests") -----------------------------------------


def test_the_tests_are_laid_out_as_the_package() -> None:
    tests = ROOT / "tests"
    folders = {p.relative_to(tests).as_posix() for p in tests.rglob("*") if p.is_dir()}
    folders -= {f for f in folders if "__pycache__" in f or f.startswith("fixtures")}
    named = {f"instruments/{i.__name__.rsplit('.', 1)[1]}" for i in instruments.INSTRUMENTS}
    kits = {"tools/report", "tools/estimate"}
    core = {"core", "core/data", "core/solve", "core/score"}
    assert folders == {"instruments", "tools", "suite", "e2e"} | core | kits | named
    assert all((tests / f / "__init__.py").exists() for f in folders)
    assert not [p.name for p in tests.glob("test_*.py") if p.name != "test_architecture.py"]
    # The units `make test` hands its processes name modules that exist (tests/conftest.py).
    assert all((ROOT / m).exists() for m in (*SHARED_LOGS, *LONGEST))
