"""The profile task's prompts: the profile is the label, so no field of it reaches the model, and a
conversation's prompts are the same whoever's profile it is."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.model import GenerateConfig

from attunebench_inspect import profile
from tests.canaries import (
    PROFILE_SECRETS,
    profile_planted,
)
from tests.spy import Spy


def _schema(config: GenerateConfig) -> str:
    assert config.response_schema is not None
    return config.response_schema.model_dump_json()


def _profile_prompts(raws: list[dict[str, Any]], folder: Path) -> list[list[str]]:
    """Every profile-task call's messages and response schema, in conversation order of `raws`;
    every sample must be scored."""
    folder.mkdir()
    for i, raw in enumerate(raws):
        (folder / f"c{i}.json").write_text(json.dumps(raw), encoding="utf-8")
    spy = Spy()
    log = eval(
        profile(data=str(folder)),
        model=spy.model("em"),
        display="none",
        log_dir=str(folder / "logs"),
    )[0]
    assert log.status == "success" and len(spy.calls) == len(raws)
    assert log.samples is not None and all("profile_scorer" in s.scores for s in log.samples)
    first = [raw["turns"][0]["userMessage"] for raw in raws]
    by_conversation = {
        next(i for i, m in enumerate(first) if m in call[1].text): (call, config)
        for call, config in zip(spy.calls, spy.configs, strict=True)
    }
    return [
        [
            *(m.text for m in by_conversation[i][0]),
            _schema(by_conversation[i][1]),
        ]
        for i in range(len(raws))
    ]


def test_no_profile_reaches_the_profile_model(tmp_path: Path, bundled_files: list[Path]) -> None:
    raws = [json.loads(f.read_text(encoding="utf-8")) for f in bundled_files[:2]]
    planted, other = _profile_prompts([profile_planted(raws[0]), raws[1]], tmp_path / "p")
    canaries = [*PROFILE_SECRETS, "CANARY"]
    for request in (planted, other):
        # Not in the messages, not in the response schema: a label is never an option.
        assert not any(canary in part for part in request for canary in canaries)
    # The question and the schema are the vocabulary's, whoever answers them.
    assert planted[2:] == other[2:]


def test_profile_task_prompts_do_not_depend_on_whose_profile(
    tmp_path: Path, bundled_files: list[Path]
) -> None:
    raws = [json.loads(f.read_text(encoding="utf-8")) for f in bundled_files[:3]]
    original = _profile_prompts(raws, tmp_path / "original")
    # Every conversation gets another participant's profile (the dataset's option lists are
    # unchanged), with every computed score moved within its range.
    swapped = copy.deepcopy(raws)
    for i, raw in enumerate(swapped):
        raw["participant_profile"] = copy.deepcopy(raws[(i + 1) % 3]["participant_profile"])
        scores = raw["participant_profile"]["computed_scores"]
        for key in scores:
            scores[key] = 4 if key.startswith("promis") and not key.endswith("_t") else 5
    assert _profile_prompts(swapped, tmp_path / "swapped") == original
