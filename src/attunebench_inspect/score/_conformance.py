"""Conformance vectors: metric cases in the data format's terms, as
scorers/conformance/README.md writes them, each computed by its metric's catalog entry
(`_catalog.py`) from inputs built by its family's reader below: a new metric needs its catalog
entry and its cases, nothing here."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._util.files import MAX_CONFIG_BYTES, FileProblem, read_capped
from ..data._codebook import cached_codebook
from ..data._split import GroundTruth, comparison_key
from ..solve._predictions import JudgeVerdict, PostPredictions
from . import _metrics as metrics
from ._catalog import COMPOSITE_INPUTS, POOLED_STATS, pillars, pooled_name, spec
from ._inputs import BINARY_VIEWS, PostInputs, TurnInputs

DEFAULT_TOLERANCE = 1e-6
_POOLED = {pooled_name(v, s): (v, s) for v in BINARY_VIEWS for s in POOLED_STATS}


def _tags(tags: Sequence[Mapping[str, Any]] | None) -> dict[str, int] | None:
    if tags is None:
        return None
    return {str(t["emotion"]).lower(): int(t["intensity"]) for t in tags}


def _binary(judgements: Sequence[Mapping[str, str]] | None, field: str) -> dict[str, str] | None:
    if judgements is None:
        return None
    return {j["questionId"]: j[field] for j in judgements}


def _winners(comparisons: Sequence[Mapping[str, str]] | None) -> dict[str, str] | None:
    if comparisons is None:
        return None
    return {
        comparison_key(c["questionId"], c["responseA"], c["responseB"]): (  # type: ignore[arg-type]
            c["responseA"] if c["winner"] == "A" else c["responseB"]
        )
        for c in comparisons
    }


def turn_case(family: str, case: Mapping[str, Any]) -> TurnInputs:
    """One turn's inputs from a case of a turn-level metric of `family`."""
    pred, truth = case.get("prediction"), case.get("truth")
    if family == "emotion":
        return TurnInputs(mood=_tags(pred), gold_mood=_tags(truth) or {})
    if family == "pairwise":
        return TurnInputs(winners=_winners(pred), gold_winners=_winners(truth) or {})
    observed = _binary(truth, "observedBehavior") or {}
    preferred = _binary(truth, "preferredBehavior") or {}
    if family == "binary":
        answer = {"om": "observedBehavior", "hp": "preferredBehavior"}
        views = {v: _binary(pred, answer[v.split("_")[0]]) for v in BINARY_VIEWS}
        return TurnInputs(binary=views, gold_observed=observed, gold_preferred=preferred)
    if family in ("draft", "rejudge"):
        return TurnInputs(
            gold_observed=observed,
            gold_preferred=preferred,
            judged=True,
            judge=JudgeVerdict.from_answer(pred) if pred is not None else None,
            draft_ok=bool(case.get("draft_ok", True)),
        )
    raise ValueError(f"no turn-level metrics in family {family!r}")


_UNASKED_POST: dict[str, Any] = {
    "post_panas": {},
    "q1_looking_for": {},
    "q2_emotion_clarity": "",
    "q3_model_fit": "",
    "q3_follow_up": {},
    "four_branch": {},
}
"""A case's answer gives only the fields its metric reads; the others are these."""


def post_case(case: Mapping[str, Any]) -> PostInputs:
    """The post-conversation inputs from a conversation-level case."""
    truth: Mapping[str, Any] = case.get("truth") or {}
    answer = case.get("prediction")
    return PostInputs(
        post=PostPredictions.from_answer({**_UNASKED_POST, **answer})
        if answer is not None
        else None,
        # Built as the case gives them, unchecked: a case names only the labels its metric reads.
        truth=GroundTruth.model_construct(
            conversation_id="",
            om_model="",
            turns=[],
            pre_panas=truth.get("prePanas", {}),
            post_panas=truth.get("postPanas", {}),
            q1_looking_for=truth.get("q1_lookingFor", []),
            q2_emotion_clarity=truth.get("q2_emotionClarity", ""),
            q3_model_fit=truth.get("q3_modelFit", ""),
            q3_follow_up=truth.get("q3_followUp_whatFeltOff", []),
            four_branch=truth.get("fourBranchScores", {}),
        ),
        q3_options=cached_codebook(None).q3_options,
    )


def compute(metric: str, case: Mapping[str, Any]) -> float:
    """The value the code gives a case of `metric`."""
    entry = spec(metric)
    if "turns" in case:
        return metrics.nanmean([compute(metric, turn) for turn in case["turns"]])
    if entry.turn is not None:
        return entry.turn(turn_case(entry.family, case))
    if entry.conversation is not None:
        return entry.conversation(post_case(case))
    if metric in _POOLED:
        view, stat = _POOLED[metric]
        counts = turn_case("binary", case).counts(view)
        return metrics.pooled_binary(counts.tp, counts.fp, counts.fn, counts.tn)[stat]
    if metric == "parse_failure_rate":
        return metrics.parse_failure_rate(case["prediction"])
    if entry.family == "composite":
        values = {k: metrics.NAN if v is None else float(v) for k, v in case["prediction"].items()}
        inputs = {s: values.get(s, metrics.NAN) for s in COMPOSITE_INPUTS}
        parts = pillars(inputs)
        return metrics.composite(*parts.values()) if metric == "composite" else parts[metric]
    raise ValueError(f"metric {metric!r} has no conformance computation")


def _agrees(expected: float, actual: float, tolerance: float) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    return abs(expected - actual) <= tolerance


def _show(value: float) -> str:
    return "NaN" if math.isnan(value) else f"{value:.6f}"


def bundled_case_files() -> list[Path]:
    from .._util.bundled import bundled_dataset_dir

    folder = bundled_dataset_dir().parent / "scorers" / "conformance"
    return sorted(folder.glob("*.json"))


Compute = Callable[[str, Mapping[str, Any]], float]
"""The value the code gives a case of a metric (`compute`; an instrument's own metrics have
theirs, e.g. instruments/profile/_conformance.py)."""


def check_case(
    source: str, case: Mapping[str, Any], compute: Compute = compute
) -> tuple[bool, str]:
    """(passed, one report line) for one case."""
    name, metric = str(case.get("name", "?")), str(case.get("metric", "?"))
    expected = metrics.NAN if case.get("expected") is None else float(case["expected"])
    tolerance = float(case.get("tolerance", DEFAULT_TOLERANCE))
    try:
        actual = float(compute(metric, case))
        ok, got = _agrees(expected, actual, tolerance), _show(actual)
    except Exception as ex:  # a malformed case is a failing case, reported with its reason
        ok, got = False, f"{type(ex).__name__}: {ex}"
    verdict = "PASS" if ok else "FAIL"
    return ok, f"{verdict} {source} :: {name} [{metric}] expected {_show(expected)}, got {got}"


def run_cases(files: Sequence[Path], compute: Compute = compute) -> tuple[int, int, list[str]]:
    """(passed, failed, report lines) over every case of every file."""
    passed = failed = 0
    lines: list[str] = []
    for file in files:
        try:
            cases = json.loads(read_capped(file, MAX_CONFIG_BYTES))["cases"]
        except (ValueError, KeyError, TypeError) as ex:
            found = f"{type(ex).__name__} ({ex})"
            raise FileProblem(file, found, 'a JSON object with a "cases" list') from None
        for case in cases:
            ok, line = check_case(file.name, case, compute)
            passed += ok
            failed += not ok
            lines.append(line)
    return passed, failed, lines
