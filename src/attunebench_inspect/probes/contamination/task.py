"""The contamination probe as an Inspect task: `attunebench_inspect/contamination`.

It loads and checks the data exactly as the main task does (the same `data`, `codebook` and
`skip_invalid` parameters, the same one-line errors), makes one sample per conversation (so
`--limit` and `--sample-id` select conversations as in the main task), and runs on any model.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from ...data.split import VisibleConversation, split
from ...tasks import _check, _load, _no_unknown, _told
from .instances import MIN_TEXT_WORDS, SEGMENT_HIGH, SEGMENT_LOW, Instance, select
from .overlap import ECHO_MIN_WORDS, NEAR_EXACT_ROUGE_L
from .scorer import HEADLINE, contamination_scorer
from .solver import INSTANCES_KEY, MAX_TOKENS, TEMPERATURE, contamination_solver, instances_json
from .verdict import ALPHA, EXACT_NEEDED, MIN_INSTANCES, NEAR_EXACT_NEEDED, RULE

PROBE_VERSION = "1-A"
"""The probe's own version: the number changes when its prompts, instances or rule change (its
results stop being comparable), the letter when only its interface does."""
PARAMETERS = ("data", "codebook", "seed", "skip_invalid")

METHOD: dict[str, object] = {
    "method": "Golchin & Surdeanu, Time Travel in LLMs (ICLR 2024), adapted: docs/contamination.md",
    "segment_share": [SEGMENT_LOW, SEGMENT_HIGH],
    "min_text_words": MIN_TEXT_WORDS,
    "temperature": TEMPERATURE,
    "max_tokens": MAX_TOKENS,
    "echo_min_words": ECHO_MIN_WORDS,
    "near_exact_rouge_l": NEAR_EXACT_ROUGE_L,
    "exact_needed": EXACT_NEEDED,
    "near_exact_needed": NEAR_EXACT_NEEDED,
    "alpha": ALPHA,
    "min_instances": MIN_INSTANCES,
    "rule": RULE,
}
"""The probe's fixed parameters, recorded in every log's task metadata."""


def probe_sample(conv: VisibleConversation, instances: list[Instance]) -> Sample:
    return Sample(
        id=conv.conversation_id,
        input=(
            f"Contamination probe of AttuneBench conversation {conv.conversation_id}: "
            f"{len(instances)} published text(s), each completed under a guided and a general "
            "instruction"
        ),
        target="",
        metadata={
            INSTANCES_KEY: instances_json(instances),
            "category": conv.topic.category,
            "turn_count": len(conv.turns),
        },
    )


@task
def contamination(
    data: str | None = None,
    codebook: str | None = None,
    seed: int = 0,
    skip_invalid: bool = False,
    **unknown: Any,
) -> Task:
    """Has the model seen these conversations? Golchin & Surdeanu's guided-instruction probe
    (docs/contamination.md).

    Args:
        data: conversation folder, JSON file or JSONL file (default: the bundled synthetic set).
        codebook: annotation codebook JSON (default: the bundled codebook).
        seed: seed of the random length of each text's shown segment.
        skip_invalid: run without invalid conversations (listed in the task metadata) instead
            of stopping with the list of problems.
    """
    with _told():
        _no_unknown(unknown, PARAMETERS)
        _check("seed", seed, int, "an integer")
        loaded = _load(data, codebook, skip_invalid)
        visible = [(c.source, split(c.conversation)[0]) for c in loaded.result.conversations]
        selection = select(visible, seed, str(loaded.source))
        by_conversation: dict[str, list[Instance]] = {}
        for instance in selection.instances:
            by_conversation.setdefault(instance.conversation_id, []).append(instance)
        samples = [
            probe_sample(conv, by_conversation.get(conv.conversation_id, [])) for _, conv in visible
        ]
        return Task(
            dataset=MemoryDataset(samples=samples, name=loaded.source.name),
            solver=contamination_solver(),
            scorer=contamination_scorer(),
            headline_metric=HEADLINE,
            version=PROBE_VERSION,
            metadata={
                **loaded.metadata(),
                "seed": seed,
                "not_probed": [str(p) for p in selection.not_probed],
                "contamination_method": METHOD,
            },
        )
