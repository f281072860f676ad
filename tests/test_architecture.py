"""The layout's rules (ARCHITECTURE.md), checked: each layer imports only from below it, an
instrument is wired everywhere its recipe says, a mode is declared once, nothing but the suite is
a task, the module tables match the tree, and every private Inspect import is pinned here."""

from __future__ import annotations

import ast
import importlib
import io
import os
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
from attunebench_inspect._suite.render import sections
from attunebench_inspect.solve._modes import MODES
from attunebench_inspect.tools._instrument import Instrument
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
    ("providers",),
    ("tools",),
    ("instruments",),
    ("_suite",),
    ("attunebench", "_registry", "__init__"),
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
            if node.module:  # `from .. import x` imports x, not the package above it
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


_MUTATORS = {"append", "extend", "add", "update", "setdefault", "pop", "clear", "insert", "remove"}


def _mutated_globals(path: Path) -> list[str]:
    """The module-level names a function of `path` changes (`global`, a mutating method, an
    item assigned): state that outlives a run and that an import may have set."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_names = {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign | ast.AnnAssign)
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if isinstance(t, ast.Name)
    }
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        local = {a.arg for a in (*function.args.args, *function.args.kwonlyargs)} | {
            t.id
            for n in ast.walk(function)
            if isinstance(n, ast.Assign)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        shared = module_names - local
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found.append(f"{function.name}: global {', '.join(node.names)}")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MUTATORS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in shared
            ):
                found.append(f"{function.name}: {node.func.value.id}.{node.func.attr}()")
            elif isinstance(node, ast.Assign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [
                    f"{function.name}: {t.value.id}[...] ="
                    for t in targets
                    if isinstance(t, ast.Subscript)
                    and isinstance(t.value, ast.Name)
                    and t.value.id in shared
                ]
    return found


def test_no_function_changes_module_level_state() -> None:
    """No registration by import and no state shared between runs: what an instrument adds comes
    through its record, and what a run remembers (a warning said once) lives in an object made
    with its task (ARCHITECTURE.md, "The instrument record")."""
    found = {
        str(path.relative_to(PACKAGE)): changed
        for path in PACKAGE.rglob("*.py")
        if (changed := _mutated_globals(path))
    }
    assert found == {}


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
    assert [i.name for i in instruments.INSTRUMENTS] == [
        i.__name__.rsplit(".", 1)[1] for i in _instrument_packages()
    ]
    assert {i.name for i in instruments.INSTRUMENTS} == folders


def _instrument_packages() -> list[ModuleType]:
    return [
        importlib.import_module(f"attunebench_inspect.instruments.{i.name}")
        for i in instruments.INSTRUMENTS
    ]


@pytest.mark.parametrize("instrument", instruments.INSTRUMENTS, ids=lambda i: i.name)
def test_an_instrument_is_wired_everywhere_its_recipe_says(instrument: Instrument) -> None:
    package = importlib.import_module(f"attunebench_inspect.instruments.{instrument.name}")
    assert package.INSTRUMENT is instrument
    modules = {m.__name__.rsplit(".", 1)[1]: m for m in _modules(package)}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    architecture = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    # Its doc: a page of docs/, linked from the README; its folder in ARCHITECTURE.md.
    assert (ROOT / instrument.doc).is_file() and instrument.doc in readme
    assert f"`instruments/{instrument.name}/`" in architecture
    # Its Inspect objects: registered through `_registry` (tasks also in eval.yaml, the README).
    for kind in ("task", "scorer", "modelapi"):
        defined = {n for m in modules.values() for n in _registered(m, kind)}
        assert defined <= _registry_names(kind), (kind, defined)
    tasks = {n for m in modules.values() for n in _registered(m, "task")}
    listed = {f"attunebench_inspect/{t['name']}" for t in _eval_yaml()["tasks"]}
    assert tasks <= listed and all(f"`{t}`" in readme for t in tasks)
    # What its modules define is what its record gives: its section, price and commands.
    if "_section" in modules:
        assert modules["_section"].SECTION is instrument.section in sections()
    if "_estimate" in modules:
        assert modules["_estimate"].PRICED in instrument.priced
    adds = [
        v
        for m in modules.values()
        for k, v in vars(m).items()
        if k.startswith("add_") and getattr(v, "__module__", None) == m.__name__
    ]
    assert set(adds) == set(instrument.commands)
    assert _commands_of(list(adds)) <= _commands_of(None)
    # The scorers it adds to the main task are among the main task's.
    names = {registry_info(s).name for s in TASKS.attunebench().scorer}
    assert {registry_info(make).name for make in instrument.main_task_scorers} <= names


def test_nothing_outside_an_instrument_imports_its_private_modules() -> None:
    """An instrument's folder is its own: the suite reads its record, another instrument its
    public names (`__init__`)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        mine = _instrument_of(_module_of(path))
        private = sorted(
            m
            for m in _imports(path)
            if (theirs := _instrument_of(m)) is not None
            and theirs != mine
            and len(m.split(".")) > 3
            and m.split(".")[3].startswith("_")
        )
        if private:
            found[str(path.relative_to(PACKAGE))] = private
    assert found == {}


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


# --- every name true: the files named in code, comments and docs exist ------------------------

_NAMED_FILE = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.(?:py|md))(?![\w/])")
NAMED_ELSEWHERE = {
    "rejudge.py": "the original AttuneBench release's script (seed 003)",
    "predict_profile.py": "the original AttuneBench release's script (seed 003)",
    "convert_hf_to_gguf.py": "llama.cpp's converter (scripts/llama-server.sh builds llama.cpp)",
    "script.py": "a test's argv[0]",
    "llama_cpp/llama.py": "llama-cpp-python's source, which bench/contamination/ patches",
    "llama.py": "llama-cpp-python's source, which bench/contamination/ patches",
    "../docs/stability.md": "a link of scorers/METRICS.md, which the stability catalog writes",
}
"""Files named in the repository that are not in it, and where they are."""


def _names_a_file(name: str, where: str, tracked: set[str]) -> bool:
    folder = Path(where).parent
    candidates = {
        name,
        str(Path(os.path.normpath(folder / name))),
        f"src/attunebench_inspect/{name}",
    }
    if candidates & tracked or name in NAMED_ELSEWHERE:
        return True
    if name.startswith("inspect_ai/"):  # Inspect's own source, as installed
        return (Path(inspect_ai.__file__).parent.parent / name).is_file()
    if "/" not in name:
        return any(Path(t).name == name for t in tracked)
    return any(t.endswith("/" + name) for t in tracked)


def test_every_file_named_in_code_comments_and_docs_exists() -> None:
    tracked = set(
        subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    )
    absent = [
        f"{where}:{n}: {m.group(1)}"
        for where in sorted(tracked)
        if where.endswith((".py", ".md")) and not where.startswith("dataset/")
        for n, line in enumerate((ROOT / where).read_text(encoding="utf-8").splitlines(), 1)
        for m in _NAMED_FILE.finditer(line)
        if not _names_a_file(m.group(1), where, tracked)
    ]
    assert absent == []


_MODULE_PATH = re.compile(
    r"`(?:attunebench_inspect\.)?((?:tools|solve|score|instruments|_suite|_util|providers)"
    r"(?:\.[A-Za-z_]\w*)+)|(?<![\w.])attunebench_inspect((?:\.[A-Za-z_]\w*)+)"
)


def _resolves(dotted: str) -> bool:
    parts = ["attunebench_inspect", *dotted.strip(".").split(".")]
    for end in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        return all((found := getattr(found, p, None)) is not None for p in parts[end:])
    return False


def test_every_module_path_named_in_the_docs_resolves() -> None:
    """`attunebench_inspect.x.y` anywhere, and `tools.x.y`, `solve.x` ... in backticks of a page
    of docs: a user's import or a reader's pointer (the README's changelog names old paths on
    purpose)."""
    pages = [
        ROOT / "README.md",
        ROOT / "ARCHITECTURE.md",
        *ROOT.glob("*/*.md"),
        *ROOT.glob("docs/*.md"),
    ]
    absent = []
    for page in pages:
        text = page.read_text(encoding="utf-8").split("\n## Changelog")[0]
        for match in _MODULE_PATH.finditer(text):
            dotted = match.group(1) or match.group(2)
            if not _resolves(dotted):
                absent.append(f"{page.relative_to(ROOT)}: {dotted}")
    assert absent == []


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
    named = {f"instruments/{i.name}" for i in instruments.INSTRUMENTS}
    kits = {"tools/report", "tools/estimate"}
    core = {"core", "core/data", "core/solve", "core/score"}
    assert folders == {"instruments", "tools", "suite", "e2e"} | core | kits | named
    assert all((tests / f / "__init__.py").exists() for f in folders)
    assert not [p.name for p in tests.glob("test_*.py") if p.name != "test_architecture.py"]
    # The units `make test` hands its processes name modules that exist (tests/conftest.py).
    assert all((ROOT / m).exists() for m in (*SHARED_LOGS, *LONGEST))
