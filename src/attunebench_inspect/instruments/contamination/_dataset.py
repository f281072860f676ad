"""The probe's data set: one sample per conversation, carrying its instances, and the method's
fixed parameters that every log of the probe records.

The task itself (`attunebench_inspect/contamination`) is in attunebench.py, beside the suite's
other tasks: it loads and checks the data as they do (`_parameters.py`), then builds this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import TypeAdapter

from ...data._load import LoadedConversation
from ...data._problems import DataProblem
from ...data._split import TurnTruth, VisibleConversation, split
from ._instances import MIN_TEXT_WORDS, SEGMENT_HIGH, SEGMENT_LOW, Instance, select
from ._labels import UNIFORM_GUESS
from ._layout import (
    CUT_KEY,
    LABEL_KEY,
    LAYOUT_INSTRUCTION,
    LAYOUT_MAX_TURNS,
    control_texts,
    layout_instances,
)
from ._likelihood import CANARY, CANARY_SKIP, decoy_ids, decoy_window
from ._likelihood_route import (
    CONTROL_KEY,
    LIKELIHOOD_KEY,
    SCORE_CONFIG,
    TEXT_ROUTES,
    LikelihoodPlan,
)
from ._recall import TEXT_FIELDS, published_texts
from ._rules import (
    ALPHA,
    CANARY_FLOOR,
    CONTROL_RULE,
    DECOY_RULE,
    DECOYS,
    ECHO_MIN_WORDS,
    EXACT_NEEDED,
    GUIDED,
    K_SHARE,
    LABELS_NEEDED,
    LABELS_RULE,
    LAYOUT,
    LAYOUT_RULE,
    LIKELIHOOD,
    LIKELIHOOD_METHOD,
    MIN_INSTANCES,
    MIN_TOKENS,
    NEAR_EXACT_NEEDED,
    NEAR_EXACT_ROUGE_L,
    OVERALL_RULE,
    RECALL_NEEDED,
    RECALL_RUN_WORDS,
    RULE,
)
from ._solver import (
    INSTANCES,
    INSTANCES_KEY,
    LAYOUT_INSTANCES,
    LAYOUT_KEY,
    LAYOUT_MAX_TOKENS,
    MAX_TOKENS,
    PUBLISHED_TEXTS,
    TEMPERATURE,
    TEXTS_KEY,
)

METHOD_KEY = "contamination_method"
"""Task metadata: the method's fixed parameters (`METHOD`); it also marks a log as the probe's."""
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
    "recall_texts": [*TEXT_FIELDS, "metadata.topic.text"],
    "recall_shown_run_words": ECHO_MIN_WORDS,
    "recall_run_words": RECALL_RUN_WORDS,
    "recall_needed": RECALL_NEEDED,
    "rule": RULE,
    "layout_cut": CUT_KEY,
    "layout_max_tokens": LAYOUT_MAX_TOKENS,
    "layout_instruction": LAYOUT_INSTRUCTION,
    "layout_max_turns": LAYOUT_MAX_TURNS,
    "layout_rule": LAYOUT_RULE,
    "layout_label_cut": LABEL_KEY,
    "labels_needed": LABELS_NEEDED,
    "labels_uniform_guess": UNIFORM_GUESS,
    "labels_rule": LABELS_RULE,
    "likelihood_statistic": LIKELIHOOD_METHOD,
    "likelihood_k_share": K_SHARE,
    "likelihood_min_tokens": MIN_TOKENS,
    "likelihood_decoys": DECOYS,
    "likelihood_canary": CANARY,
    "likelihood_canary_skip": CANARY_SKIP,
    "likelihood_canary_floor": CANARY_FLOOR,
    "likelihood_routes": list(TEXT_ROUTES),
    "likelihood_config": SCORE_CONFIG.model_dump(exclude_none=True),
    "likelihood_control_rule": CONTROL_RULE,
    "likelihood_decoy_rule": DECOY_RULE,
    "overall_rule": OVERALL_RULE,
}
"""The probe's fixed parameters, recorded in every log's task metadata: with the suite's task
version they say which method a verdict comes from."""
NOT_PROBED_KEY = "not_probed"
"""Task metadata: the texts too short to probe, one located line each."""
CONTROL_TEXTS_KEY = "contamination_control_texts"
"""Sample metadata: the texts of the layout probe's control conversation (layout.py)."""
LABELS_KEY = "contamination_labels"
"""Sample metadata: each turn's labels (`TurnTruth`), as JSON; the scorer's alone (no prompt
reads it), for the label cut's score (`_labels.py`)."""
_LABELS = TypeAdapter(list[TurnTruth])
METHODS_KEY = "methods"
"""Sample (and score) metadata: the methods the run chose."""


def labels_of(metadata: dict[str, object]) -> dict[int, TurnTruth]:
    """A sample's labels by turn number (none in a log written before the label cut)."""
    raw = metadata.get(LABELS_KEY)
    turns = _LABELS.validate_json(str(raw)) if raw is not None else []
    return {t.turn_number: t for t in turns}


@dataclass(frozen=True)
class ProbeData:
    dataset: MemoryDataset
    not_probed: list[DataProblem]


def probe_sample(
    conv: VisibleConversation,
    instances: list[Instance],
    methods: Sequence[str],
    seed: int,
    labels: Sequence[TurnTruth] = (),
    plan: LikelihoodPlan | None = None,
    control: bool = False,
) -> Sample:
    # What `inspect view` shows a reader of the sample list: the id column names the
    # conversation, so the input says what was asked of it.
    layout: dict[str, object] = (
        {
            LAYOUT_KEY: LAYOUT_INSTANCES.dump_json(layout_instances(conv, seed)).decode(),
            CONTROL_TEXTS_KEY: PUBLISHED_TEXTS.dump_json(control_texts(conv, seed)).decode(),
            LABELS_KEY: _LABELS.dump_json(list(labels)).decode(),
        }
        if LAYOUT in methods and not control
        else {}
    )
    return Sample(
        id=conv.conversation_id,
        input=(
            "a never-published control conversation: each of its texts scored for its "
            "likelihood (the likelihood method's control test)"
            if control
            else f"{len(instances)} published text(s) of this conversation (participant "
            f"messages and edited replies of {MIN_TEXT_WORDS} words or more), each shown in part "
            "and completed under a guided and a general instruction"
        ),
        target="the unseen rest of each text",
        metadata={
            INSTANCES_KEY: INSTANCES.dump_json(instances).decode(),
            TEXTS_KEY: PUBLISHED_TEXTS.dump_json(published_texts(conv)).decode(),
            "category": conv.topic.category,
            "turn_count": len(conv.turns),
            METHODS_KEY: list(methods),
            **layout,
            **({LIKELIHOOD_KEY: plan.model_dump()} if plan else {}),
            **({CONTROL_KEY: True} if control else {}),
        },
    )


def likelihood_plan(
    conv: VisibleConversation, methods: Sequence[str], seed: int, control_test: bool
) -> LikelihoodPlan | None:
    """A published conversation's plan: its decoy window and IDs where no control is given."""
    if LIKELIHOOD not in methods:
        return None
    if control_test:
        return LikelihoodPlan(control_test=True)
    real = conv.conversation_id
    return LikelihoodPlan(window=decoy_window(conv), decoy_ids=decoy_ids(real, seed))


def probe_data(
    conversations: Sequence[LoadedConversation],
    seed: int,
    name: str,
    methods: Sequence[str] = (GUIDED,),
    controls: Sequence[LoadedConversation] | None = None,
) -> ProbeData:
    """One sample per conversation with its instances cut for `seed` (a conversation with no text
    long enough to probe has none: the verdict then says it cannot decide); with `controls`
    (the likelihood method's never-published conversations), one sample each after them."""
    parts = [split(c.conversation) for c in conversations]
    visible = [(c.source, conv) for c, (conv, _) in zip(conversations, parts, strict=True)]
    selection = select(visible, seed)
    by_conversation: dict[str, list[Instance]] = {}
    for instance in selection.instances:
        by_conversation.setdefault(instance.conversation_id, []).append(instance)
    samples = [
        probe_sample(
            conv,
            by_conversation.get(conv.conversation_id, []) if GUIDED in methods else [],
            methods,
            seed,
            truth.turns,
            likelihood_plan(conv, methods, seed, controls is not None),
        )
        for conv, truth in parts
    ]
    samples += [
        probe_sample(
            split(c.conversation)[0],
            [],
            methods,
            seed,
            plan=LikelihoodPlan(control_test=True),
            control=True,
        )
        for c in controls or ()
    ]
    past = [
        DataProblem(
            c.source,
            LAYOUT_MAX_TURNS + 1,
            "turns",
            f"{len(conv.turns)} turns",
            f"at most {LAYOUT_MAX_TURNS} turns a conversation for the layout method (turns "
            f"{LAYOUT_MAX_TURNS + 1} on not probed)",
            conv.conversation_id,
        )
        for c, (conv, _) in zip(conversations, parts, strict=True)
        if LAYOUT in methods and len(conv.turns) > LAYOUT_MAX_TURNS
    ]
    return ProbeData(MemoryDataset(samples=samples, name=name), [*selection.not_probed, *past])
