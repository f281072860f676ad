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
from .instruments.contamination import contamination_scorer
from .instruments.contamination._memorizer import memorizer
from .instruments.human._replay import human_replay
from .instruments.profile._scorer import profile_scorer
from .providers._baselines import attunebench_baselines
from .score import (
    binary_scorer,
    composite_scorer,
    conversation_wide_scorer,
    draft_rejudge,
    draft_scorer,
    emotion_scorer,
    pairwise_scorer,
    stability_scorer,
)
