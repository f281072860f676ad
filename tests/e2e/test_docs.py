"""Every shell command and every Python line of README.md and docs/ runs as written.

The fenced `bash` blocks are read command by command (a line ending in a backslash continues),
the fenced `python` blocks statement by statement.
A command that needs what a fresh clone has not (a provider's key, the published deposit, a
bucket, annotators' answer files) says so in a comment beginning `needs`, and its block holds a
command beside it that runs offline; every other command is run, in its page's order, in a
scratch folder that holds what `make run` leaves (`logs/` with the random baseline's run and the
majority baseline's beside it), every page's after the one before it as a newcomer would, and
must exit 0; `make run`'s report must then still rank the 25-conversation runs. The few commands
that are not run here say why in `NOT_RUN`: CI runs them, or they start a server. A Python
statement that needs what a fresh clone has not says so the same way (a `# needs` comment on one
of its lines); each block's other statements run as a script of their own, in the same folder, at
the point of the page where the block stands.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO as ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```(?:bash|sh|shell)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PYTHON = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
NOT_RUN = {
    "make run": "the install and the run: `make run` is what this test's logs stand for",
    "make test": "the suite itself, in CI",
    "make lint": "in CI",
    "make typecheck": "in CI",
    "make evals-lint": "in CI",
    ".venv/bin/pytest --runslow": "the slow tests: the embedding model and llama-server",
    ".venv/bin/pytest tests/": "a part of the suite, which `make test` runs whole",
    "pip install": "an install: the test runs in the installed environment",
    "inspect view": "a server: tests/core/score/test_viewer.py reads what it shows",
    # The benchmarks run from the repository for minutes to hours and state their measured times.
    ".venv/bin/python bench/": "a benchmark of the repository (bench/), hours on 2 cores",
    "nice -n 10 .venv/bin/python bench/": "a benchmark of the repository (bench/)",
    "nice -n 19 .venv/bin/python bench/": "a benchmark of the repository (bench/)",
}


@dataclass(frozen=True)
class Command:
    page: str
    line: int
    text: str
    needs: str
    """What the command needs that a fresh clone has not ("" where it runs offline)."""

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def _split_comment(line: str) -> tuple[str, str]:
    """A shell line's command and its trailing comment (a `#` outside quotes, after a space)."""
    quote: str | None = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].strip(), line[index + 1 :].strip()
    return line.strip(), ""


def commands(page: Path) -> list[list[Command]]:
    """The commands of each fenced shell block of a page."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in _BLOCK.finditer(text):
        first = text[: match.start(1)].count("\n") + 1
        block: list[Command] = []
        pending, start = "", 0
        for offset, raw in enumerate(match.group(1).splitlines()):
            if not pending:
                start = first + offset
            command, comment = _split_comment(raw)
            if command.endswith("\\"):
                pending += command[:-1] + " "
                continue
            command = pending + command
            pending = ""
            if command:
                needs = comment if comment.startswith("needs") else ""
                block.append(Command(page.name, start, command, needs))
        blocks.append(block)
    return blocks


EVERY = [c for page in PAGES for block in commands(page) for c in block]


@dataclass(frozen=True)
class Snippet:
    """A fenced Python block: the statements that run offline, and those that need more."""

    page: str
    line: int
    runs: str
    needs: list[str]
    """Each skipped statement's first line and what it needs."""

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def snippets(page: Path) -> list[Snippet]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _PYTHON.finditer(text):
        source = match.group(1)
        lines = source.splitlines()
        comments = {
            t.start[0]: t.string.lstrip("# ")
            for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type == tokenize.COMMENT
        }
        runs, needs = [], []
        for statement in ast.parse(source).body:
            span = range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
            need = next((comments[n] for n in span if comments.get(n, "").startswith("needs")), "")
            if need:
                needs.append(f"{lines[statement.lineno - 1].strip()}  # {need}")
            else:
                runs.append("\n".join(lines[n - 1] for n in span))
        first = text[: match.start(1)].count("\n") + 1
        found.append(Snippet(page.name, first, "\n".join(runs), needs))
    return found


def test_every_python_block_imports_what_it_names() -> None:
    """Fast: each block's imports resolve, and a block that needs more still runs something."""
    blocks = [s for page in PAGES for s in snippets(page)]
    assert blocks
    for block in blocks:
        tree = ast.parse(block.runs)
        imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        exec(compile(ast.Module(body=imports, type_ignores=[]), str(block), "exec"), {})
        assert len(tree.body) > len(imports) or not block.needs, f"{block}: nothing runs offline"


def _not_run(command: Command) -> str | None:
    return next((why for head, why in NOT_RUN.items() if command.text.startswith(head)), None)


def test_commands_that_need_a_key_or_the_deposit_say_so_and_have_an_offline_neighbour() -> None:
    for page in PAGES:
        for block in commands(page):
            needing = [c for c in block if c.needs]
            runnable = [c for c in block if not c.needs and not _not_run(c)]
            if needing:
                assert runnable, f"{needing[0]}: no command beside it runs offline"
    for command in EVERY:
        if command.needs or _not_run(command):
            continue
        # A provider's model called (the estimate only names one), or the deposit's path, on a
        # line that claims to run offline.
        provider = r"(openai|anthropic|openrouter|google)/"
        called = rf"(--model |judge=|--model-role \S+=){provider}"
        assert not (command.text.startswith("inspect ") and re.search(called, command.text)), (
            command
        )
        assert "/data/" not in command.text and "s3://" not in command.text, command
        assert "<" not in command.text and "..." not in command.text, command


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder as a fresh clone leaves it after `make run` and `make run
    MODEL=attunebench/majority`: both baselines on the bundled set, in `logs/`."""
    folder = tmp_path_factory.mktemp("clone")
    for model in ("attunebench/random", "attunebench/majority"):
        _run(f"inspect eval attunebench_inspect/default --model {model} --log-dir logs", folder)
    return folder


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("INSPECT_LOG_DIR", None)
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert "Traceback" not in done.stderr, f"{command}\n{done.stderr[-4000:]}"
    return done


@pytest.mark.slow
def test_every_offline_command_runs_in_order_and_the_report_still_ranks_the_whole_runs(
    scratch: Path,
) -> None:
    """A newcomer's fresh clone: every offline command of README.md, then of each page of docs/,
    in order, in one folder; afterwards `make run`'s report still ranks the runs over the 25
    bundled conversations and one epoch and says what it set aside (the recipes' --limit,
    --sample-id and --epochs 2 runs among them), first that the numbers are synthetic
    (docs/report.md, "Which runs are compared")."""
    for page in PAGES:
        steps = [(c.line, c.text) for block in commands(page) for c in block]
        steps += [(s.line, f"python - <<'PYTHON'\n{s.runs}\nPYTHON") for s in snippets(page)]
        for line, text in sorted(steps, key=lambda step: step[0]):
            command = next((c for c in EVERY if c.page == page.name and c.line == line), None)
            if command is not None and (command.needs or _not_run(command)):
                continue
            _run(text, scratch)
    report = json.loads(_run("attunebench report logs --format json", scratch).stdout)
    board = {(r["model"], r["mode"]): r["composite"]["n"] for r in report["leaderboard"]}
    assert board[("chance", "default")] == board[("attunebench/majority", "default")] == 25
    assert set(board.values()) == {25}
    (main,) = [c for c in report["compared"] if c["task"] == "main task"]
    assert main["conversations"] == 25 and main["synthetic"] and main["set_aside"] >= 3
    assert main["epochs"] == 1
    aside = [s["reason"] for s in report["skipped"] if s["reason"].startswith("set aside: ")]
    assert any("of the 25 conversations (--limit or --sample-id)" in a for a in aside)
    # docs/stability.md's `--epochs 2` run does not replace the 1-epoch chance row.
    assert any("a run of 2 epochs (--epochs)" in a for a in aside)
    text = _run("attunebench report logs --html logs/report.html", scratch).stdout
    assert text.lstrip("\n").startswith("Synthetic: not AttuneBench results. What this report")
