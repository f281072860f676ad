"""`attunebench human import`: answer files in, ordinary Inspect logs out, one per annotator: each
file checked, then replayed through the task of its mode with the model `human/<annotator>`
(docs/human-baseline.md, 'The import')."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.util import Store

from ..._util.files import FileProblem, output_folder, staging_folder
from ...data._codebook import Codebook, load_codebook
from ...data._load import LoadResult, load_conversations
from ...data._source import DataSource
from ...data._split import VisibleConversation, split
from ...score._conversation import EVALUATED_CALLS
from ...solve._store import read_walk
from ...tools.report._log_fields import local_path, read_header
from ...tools.report._logs import read_runs
from ._answers import Answers, AnswersError, problems_with_data, read_answers
from ._export import page_data


@dataclass(frozen=True)
class Imported:
    model: str
    log: EvalLog
    failures: list[str] = field(default_factory=list)
    """One line per call recorded as a parse failure (an unanswered or incomplete answer)."""

    def lines(self) -> list[str]:
        log = self.log
        if log.status != "success":
            reason = log.error.message.splitlines()[0] if log.error else log.status
            return [f"{self.model}: the replay did not succeed ({reason}); nothing was imported"]
        samples = log.samples or []
        calls = sum(len(read_walk(Store(s.store)).records) for s in samples)
        scores = log.results.scores if log.results else []
        composite = next((s.metrics["mean"].value for s in scores if s.name == "composite"), None)
        shown = f"{composite:.2f}" if composite is not None else "-"
        head = (
            f"{self.model}: {len(samples)} conversation(s), Composite {shown}, {calls} calls, "
            f"{len(self.failures)} unanswered or incomplete (parse failures); log {log.location}"
        )
        return [head, *(f"  {line}" for line in self.failures)]


def _page_problems(
    answers: Answers, visible: dict[str, VisibleConversation], book: Codebook
) -> list[str]:
    """The import reads a page's answers: the file names its page, answers only the page's
    conversations, and the page it names is the one this data and codebook export (its id is a
    digest of its content)."""
    page = answers.page
    source = answers.path
    if page is None:
        # The page writes `page` beside `task_version` (both since task version 3-B): a file
        # without it was edited, and would import conversations off its page, or was written by
        # another harness, whose answers the replay model runs directly.
        return [
            f"{source}: page: missing; expected the exported page's id and conversations (the "
            "page saves them with task_version): the file cannot be checked against the page "
            "it was answered on (another harness's answers run with `inspect eval --model "
            "human/NAME -M answers=FILE`)"
        ]
    exported = page["conversations"]
    problems = [
        f"{source}: conversations.{cid}: found a conversation that was not on the exported page "
        f"{page['id']} (it exported {', '.join(exported)}); expected only those"
        for cid in answers.ids
        if cid not in exported
    ]
    missing = [cid for cid in exported if cid not in visible]
    if missing:
        problems.append(
            f"{source}: page.conversations: found {', '.join(missing)}, not in the data; "
            "expected the conversations of the data the page was exported from"
        )
        return problems
    shown = page_data([visible[c] for c in exported], book, answers.shuffle_seed)["page"]
    if shown != page["id"]:
        problems.append(
            f"{source}: page.id: found {page['id']}; expected {shown}, the page these "
            "conversations export from this data and codebook (the answers were given to "
            "another page)"
        )
    return problems


def _imported_before(answers: Answers, log_dir: str) -> list[str]:
    """The logs of earlier imports of the same annotator in the same mode in `log_dir`."""
    if not Path(log_dir).is_dir():
        return []
    runs, _ = read_runs([log_dir])
    return [r.location for r in runs if r.model == answers.model and r.mode == answers.mode]


def check_files(
    paths: Sequence[str | Path],
    source: DataSource,
    log_dir: str,
    supersede: bool = False,
) -> tuple[list[Answers], list[str], LoadResult]:
    """Every file checked against the data and `log_dir`'s logs: every problem, and the data."""
    book = load_codebook(source.codebook)
    loaded = load_conversations(
        source.conversations, book, hint=f"check it with `{source.validate_command()}`"
    )
    visible = {
        c.conversation.conversationId: split(c.conversation)[0] for c in loaded.conversations
    }
    found: list[Answers] = []
    problems: list[str] = []
    first_of: dict[str, str] = {}
    for path in paths:
        try:
            answers = read_answers(path)
        except AnswersError as ex:
            problems.extend(ex.problems)
            continue
        problems.extend(problems_with_data(answers, visible, book))
        problems.extend(_page_problems(answers, visible, book))
        first = first_of.setdefault(answers.annotator, answers.path)
        if first != answers.path:
            problems.append(
                f"{answers.path}: annotator: found {answers.annotator}, as in {first}; expected "
                "one file per annotator (each is one run of its model)"
            )
        earlier = [] if supersede else _imported_before(answers, log_dir)
        if earlier:
            problems.append(
                f"{answers.path}: annotator: found {answers.annotator}, already imported in "
                f"{', '.join(earlier)} ({answers.mode} mode); expected a new annotator, or "
                "--supersede to replace that import (the report reads the newest log)"
            )
        found.append(answers)
    return found, problems, loaded


def _failures(log: EvalLog) -> list[str]:
    # Turn by turn in the protocol's order, then the questionnaire.
    order = {call: i for i, call in enumerate(EVALUATED_CALLS)}
    lines = []
    for sample in log.samples or []:
        records = read_walk(Store(sample.store)).records.values()
        for record in sorted(records, key=lambda r: (r.turn is None, r.turn, order[r.call])):
            if not record.parsed:
                where = f"turn {record.turn} {record.call}" if record.turn else "post-conversation"
                lines.append(f"{sample.id}: {where}: {record.error}")
    return lines


def default_log_dir() -> str:
    """Where Inspect writes logs when no folder is named (`INSPECT_LOG_DIR`, else ./logs)."""
    return os.environ.get("INSPECT_LOG_DIR", "./logs")


def replay(answers: Answers, source: DataSource, log_dir: str) -> Imported:
    """One answer file through the task of its mode, on the conversations it answers; the log
    written into a staging folder and moved in when whole (a remote log folder directly: an
    object store's upload is whole or absent)."""
    data = source.given if source.bundled else str(Path(source.given).resolve())
    book = None if source.codebook_given is None else str(Path(source.codebook_given).resolve())
    # The registered task of its mode, by name: logged under the same task as a model run.
    task = f"attunebench_inspect/{answers.mode}"
    arguments: dict[str, Any] = dict(
        task_args={"data": data, "codebook": book, "shuffle_seed": answers.shuffle_seed},
        model=answers.model,
        model_args={"answers": str(Path(answers.path).resolve()), "data": data, "codebook": book},
        sample_id=answers.ids,
        display="none",
    )
    if local_path(log_dir) is None:
        log = eval(task, log_dir=log_dir, **arguments)[0]
        return Imported(answers.model, log, _failures(log))
    folder = output_folder(log_dir)
    staging = staging_folder(folder, ".attunebench-import-")
    try:
        log = eval(task, log_dir=str(staging), **arguments)[0]
        written = local_path(log.location)
        # Only a whole, successful log joins the runs a report reads (a failed write, a full
        # disk, leaves one that says "started", or none).
        if log.status == "success" and written is not None and _succeeded(written):
            final = folder / written.name
            os.replace(written, final)
            # Read back from where it now is (a returned log reads its samples from its file).
            log = read_eval_log(str(final))
        elif log.status == "success":
            log = log.model_copy(update={"status": "error"})
        failures = _failures(log) if log.status == "success" else []
    except OSError as ex:
        raise FileProblem.writing(folder, ex) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Imported(answers.model, log, failures)


def _succeeded(log: Path) -> bool:
    """Whether a log file reads back as a finished, successful run."""
    try:
        return read_header(str(log)).status == "success"
    except Exception:  # cut short: unreadable
        return False
