"""Inspect's registry of the suite (the `inspect_ai` entry point): the main task's tasks, scorers
and baselines, then each instrument's tasks, scorers and planted models. An instrument with a
task, a scorer or a model provider joins here."""

# ruff: noqa: F401
from .attunebench import attunebench, default, omniscient, verbose, verbose_omniscient
from .instruments.contamination import contamination, contamination_scorer, memorizer
from .instruments.human import human_replay
from .instruments.profile import profile, profile_scorer
from .instruments.stability import stability_scorer
from .providers._baselines import attunebench_baselines
from .score import (
    binary_scorer,
    composite_scorer,
    conversation_wide_scorer,
    draft_rejudge,
    draft_scorer,
    emotion_scorer,
    pairwise_scorer,
)
