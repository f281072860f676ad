"""A profile-task run as a `RunTable`: its metrics, the participant's facts, diagnoses named."""

from __future__ import annotations

from collections import defaultdict

from ...score._metrics import nanmean
from ...tools.report._log_fields import SampleRow
from ...tools.report._logs import Run, score_values
from ...tools.report._run_table import SUBGROUP_KEYS, Conversation, RunTable
from ._fields import PROFILE_OPTIONS_KEY
from ._scorer import PREDICTED_DIAGNOSES, PROFILE_SCORER, REPORTED_DIAGNOSES

PROFILE_TASK = "profile"
"""How reports name the profile task where the main task names its mode."""
NAMED = "named_diagnoses"
"""The fact holding, per scored epoch, the diagnoses the model named (None: a parse failure)."""
PLACED = "reported_diagnoses"
"""The fact holding the diagnoses the participant reported, as options (absent from old logs)."""


def is_profile_run(run: Run) -> bool:
    return PROFILE_OPTIONS_KEY in (run.header.eval.metadata or {})


def _diagnoses(summary: SampleRow, key: str) -> list[str] | None:
    score = (summary.scores or {})[PROFILE_SCORER]
    found = (score.metadata or {}).get(key)
    return list(found) if isinstance(found, list) else None


def profile_table(run: Run) -> RunTable:
    samples = run.samples
    scored = [s for s in samples if s.scores and PROFILE_SCORER in s.scores]
    epochs: dict[str, list[SampleRow]] = defaultdict(list)
    for summary in scored:
        epochs[str(summary.id)].append(summary)
    conversations = {}
    for sample_id, values in score_values(scored, PROFILE_SCORER).items():
        rows = epochs[sample_id]
        conversations[sample_id] = Conversation(
            id=sample_id,
            values={k: nanmean([v[k] for v in values if k in v]) for k in values[0]},
            turns=[],
            facts={
                **{k: rows[0].metadata.get(k) for k in SUBGROUP_KEYS},
                NAMED: [_diagnoses(r, PREDICTED_DIAGNOSES) for r in rows],
                PLACED: _diagnoses(rows[0], REPORTED_DIAGNOSES),
            },
            tokens={},
            seconds=nanmean([r.total_time for r in rows if r.total_time is not None]),
        )
    errors = {
        str(s.id): (s.error or "not scored").splitlines()[0]
        for s in samples
        if str(s.id) not in conversations
    }
    return RunTable(
        model=run.model,
        mode=PROFILE_TASK,
        task=run.task,
        location=run.location,
        conversations=conversations,
        errors=errors,
    )
