"""Everything the `inspect_ai` entry point registers: tasks, scorers, model providers."""

# ruff: noqa: F401
from .attunebench import (
    attunebench,
    contamination,
    default,
    omniscient,
    profile,
    verbose,
    verbose_omniscient,
)
from .probes.contamination import contamination_scorer
from .providers.baselines import attunebench_baselines
from .providers.memorizer import memorizer
from .providers.replay import human_replay
from .score import (
    binary_scorer,
    composite_scorer,
    conversation_wide_scorer,
    draft_rejudge,
    draft_scorer,
    emotion_scorer,
    pairwise_scorer,
)
from .score.profile_scorer import profile_scorer
