"""`attunebench human import`: answer files in, ordinary Inspect logs out, one per annotator.

Each file is checked (against `answers.schema.json`, then the data), then replayed: the task of
its mode runs on the conversations it answers, with the model `human/<annotator>`, so the
solver, the parser, the repair round and the scorers are the very ones of a model run. A missing
or incomplete answer is a parse failure of its call, counted in the log and listed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.util import Store

from ...attunebench import MODE_TASKS
from ...data.codebook import load_codebook
from ...data.load import load_conversations
from ...data.split import split
from ...providers.answers import Answers, AnswersError, problems_with_data, read_answers
from ...score.conversation import EVALUATED_CALLS
from ...solve.store import read_walk


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
            return [f"{self.model}: the replay did not succeed ({reason}); log {log.location}"]
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


def check_files(
    paths: Sequence[str | Path], data: str | Path, codebook: str | None
) -> tuple[list[Answers], list[str]]:
    """Every file read and checked against the data; the problems of all of them, one line each."""
    book = load_codebook(codebook)
    visible = {
        c.conversation.conversationId: split(c.conversation)[0]
        for c in load_conversations(data, book).conversations
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
        first = first_of.setdefault(answers.annotator, answers.path)
        if first != answers.path:
            problems.append(
                f"{answers.path}: annotator: found {answers.annotator}, as in {first}; expected "
                "one file per annotator (each is one run of its model)"
            )
        found.append(answers)
    return found, problems


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


def replay(
    answers: Answers, data: str | Path, codebook: str | None, log_dir: str | None
) -> Imported:
    """One answer file through the task of its mode, on the conversations it answers."""
    source = str(Path(data).resolve())
    book = str(Path(codebook).resolve()) if codebook else None
    # Logged under the same task name as a model run of its mode.
    task = MODE_TASKS[answers.mode](data=source, codebook=book, shuffle_seed=answers.shuffle_seed)
    log = eval(
        task,
        model=answers.model,
        model_args={"answers": str(Path(answers.path).resolve()), "data": source, "codebook": book},
        sample_id=answers.ids,
        log_dir=log_dir,
        display="none",
    )[0]
    return Imported(answers.model, log, _failures(log))
