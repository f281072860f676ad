"""The experimental profile task, `attunebench_inspect/profile` (docs/profile.md)."""

# inspect-evals-lint: ignore-file[IEFS002] -- an instrument's task is in its folder

from __future__ import annotations

from dataclasses import replace
from typing import Any

from inspect_ai import Task, task

from ..._parameters import TASK_VERSION, check, load, no_unknown, told
from ...data._problems import DataError
from ...data._source import BUNDLED
from ._fields import PROFILE_OPTIONS_KEY, check_profiles, profile_dataset
from ._scorer import PROFILE_HEADLINE, profile_scorer
from ._solver import profile_solver, vocabulary_problems
from ._vocabulary import load_vocabulary, vocabulary_warnings


@task
def profile(
    data: str = BUNDLED,
    codebook: str | None = None,
    vocabulary: str | None = None,
    skip_invalid: bool = False,
    **unknown: Any,
) -> Task:
    """Experimental: predict the participant's profile (demographics, diagnoses, computed scores,
    topic attitude) from the whole conversation, in one call (docs/profile.md).

    Args:
        data: a data set root, a conversation folder, a JSON file or a JSONL file (default:
            bundled, the bundled synthetic set).
        codebook: annotation codebook JSON (default: a data set root's own, else the bundled
            codebook).
        vocabulary: the answer options of the profile fields, JSON shaped as the bundled
            dataset/profile_vocabulary.json (default: that file).
        skip_invalid: run without invalid conversations (listed in the task metadata) instead
            of stopping with the list of problems."""
    with told():
        no_unknown(unknown, ("data", "codebook", "vocabulary", "skip_invalid"))
        check("vocabulary", vocabulary, (str, type(None)), "a path")
        words = load_vocabulary(vocabulary)
        unusable = vocabulary_problems(words)
        if unusable:
            raise DataError(unusable)
        loaded = load(data, codebook, skip_invalid)
        loaded = replace(loaded, result=check_profiles(loaded.result, skip_invalid))
        conversations = loaded.result.conversations
        warnings = [
            *words.warnings,
            *(w for c in conversations for w in vocabulary_warnings(c, words)),
        ]
        options = words.options()
        return Task(
            dataset=profile_dataset(conversations, name=loaded.dataset_name),
            solver=profile_solver(options),
            scorer=profile_scorer(words.dump()),
            headline_metric=PROFILE_HEADLINE,
            version=TASK_VERSION,
            continue_on_fail=True,
            metadata={
                **loaded.metadata(warnings),
                "profile_vocabulary": words.path,
                "profile_vocabulary_sha256": words.sha256,
                PROFILE_OPTIONS_KEY: options,
            },
        )
