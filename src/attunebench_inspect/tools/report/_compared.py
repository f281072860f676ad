"""Which runs a report compares, and what it says of them first.

A run's identity includes the conversations it covers, the data set its task recorded (by
digest) and the samples Inspect ran (after `--limit` and `--sample-id`), and its epochs: scores
over different conversations do not compare, and an estimate over 2 epochs is not the same
measurement as one over 1 (its per-conversation values are means, its interval narrower). So in
each task the report ranks only the runs over one conversation set and number of epochs, the
largest among the logs (the most conversations; then the set more runs cover, then the one with
the newest run), and sets every other run aside with why (docs/report.md, "Which runs are
compared").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from ..._util.bundled import bundled_dataset_dir
from ...data._codebook import load_codebook
from ...data._load import read_conversations
from ._log_fields import ConversationSet
from ._logs import Run, Skipped

MAIN_TASK = "main task"
"""How the report names the main task's runs, its modes together (mode deltas compare modes)."""
SYNTHETIC = "synthetic: not AttuneBench results"
"""What a report of the bundled set says first: its numbers are demo and test numbers."""
BUNDLED_NAME = "bundled synthetic set"
"""How a run on the bundled set names its data set (`_parameters.Loaded.dataset_name`)."""


@dataclass(frozen=True)
class Compared:
    """One task's runs in the report: over which conversations, and how many were set aside."""

    task: str
    """`main task` (its modes together, so that mode deltas compare like with like), or the
    task's own name (`profile`, `contamination`)."""
    data_set: str
    synthetic: bool
    """The bundled synthetic set: demo and test numbers, not AttuneBench results."""
    conversations: int
    epochs: int
    """How many times each conversation was run, in every run ranked."""
    runs: int
    set_aside: int
    reducer: str = "mean"
    """How the ranked runs' logs reduced epochs: the report ranks them by their mean."""


@cache
def _bundled_ids() -> frozenset[str]:
    folder = bundled_dataset_dir() / "conversations"
    return frozenset(
        c.conversation.conversationId
        for c in read_conversations(folder, load_codebook(None)).conversations
    )


def is_bundled(found: ConversationSet) -> bool:
    """Whether a run read conversations of the bundled synthetic set: by its name in the log, or
    by its conversations (a copy of some of them in a folder of one's own)."""
    return found.data_name.startswith(BUNDLED_NAME) or (
        bool(found.ids) and found.ids <= _bundled_ids()
    )


Identity = tuple[str, int, str]
"""What runs compared together share: their conversation set (its digest), epochs and reducer."""


def _choose(sets: dict[Identity, list[Run]]) -> Identity:
    """The set the report ranks: the most conversations, then the most runs, then the newest."""

    def weight(identity: Identity) -> tuple[int, int, str]:
        runs = sets[identity]
        newest = max(r.header.eval.created for r in runs)
        return (len(runs[0].header.conversations.ids), len(runs), newest)

    return max(sets, key=weight)


def _epochs(n: int) -> str:
    return f"{n} epoch{'s' * (n != 1)}"


def _why(run: Run, ranked: Run) -> str:
    found, chosen = run.header.conversations, ranked.header.conversations
    if found.data_sha256 != chosen.data_sha256:
        what = [f"over another data set ({found.data_name or found.data_sha256[:12]})"]
    elif found.ids < chosen.ids:
        what = [
            f"over {len(found.ids)} of the {len(chosen.ids)} conversations (--limit or --sample-id)"
        ]
    elif found.ids != chosen.ids:
        what = [f"over {len(found.ids)} other conversations of the data set"]
    else:
        what = []
    if run.epochs != ranked.epochs:
        what.append(f"of {_epochs(run.epochs)} (--epochs)")
    if run.reducer != ranked.reducer:
        what.append(f"logged by the {run.reducer} of its epochs (--epochs-reducer)")
    return (
        f"set aside: a run {' and '.join(what)}, not comparable with the runs ranked "
        f"({len(chosen.ids)} conversations, {_epochs(ranked.epochs)}; `attunebench report` on "
        "that log alone reports it)"
    )


def compared(
    runs: Sequence[Run], task_of: Callable[[Run], str | None]
) -> tuple[list[Run], list[Skipped], list[Compared]]:
    """The runs over each task's chosen conversation set, the others set aside (with why), and
    what each task compares. `task_of`: a run's task as the report groups them, None for a run
    compared on its own terms (a person's answers, on the conversations both answered)."""
    kept: list[Run] = []
    aside: list[Skipped] = []
    summary: list[Compared] = []
    by_task: dict[str, dict[Identity, list[Run]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        task = task_of(run)
        if task is None:
            kept.append(run)
        else:
            by_task[task][(run.header.conversations.digest, run.epochs, run.reducer)].append(run)
    for task, sets in by_task.items():
        ranked = sets.pop(_choose(sets))
        others = [r for group in sets.values() for r in group]
        kept += ranked
        aside += [Skipped.run(r, _why(r, ranked[0])) for r in others]
        found = ranked[0].header.conversations
        data_path = str((ranked[0].header.eval.metadata or {}).get("data", ""))
        summary.append(
            Compared(
                task,
                found.data_name or data_path,
                is_bundled(found),
                len(found.ids),
                ranked[0].epochs,
                len(ranked),
                len(others),
                ranked[0].reducer,
            )
        )
    kept.sort(key=lambda r: r.key)
    return kept, aside, summary
