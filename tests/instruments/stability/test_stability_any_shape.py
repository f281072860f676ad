"""No crash on any data set the loader accepts: every pure function of the stability instrument,
on inputs of every shape (no conversation, one, one turn, one epoch, 200 and more, every epoch
count, parse failures), gives a verdict in its declared set or "cannot decide: <reason>", and
the log's figures hold at every point of a run (Inspect recomputes them after each sample)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attunebench_inspect import build_report
from attunebench_inspect._util.verdict import is_abstention
from attunebench_inspect.data._split import comparison_key
from attunebench_inspect.instruments import stability as s
from attunebench_inspect.instruments.stability._log_figures import log_metrics
from attunebench_inspect.instruments.stability._power import pilot_abstention
from attunebench_inspect.instruments.stability._record import StabilityRecord
from attunebench_inspect.instruments.stability._rules import (
    MIN_CLUSTERS,
    MIN_PILOT_CONVERSATIONS,
    READINGS,
)
from attunebench_inspect.score._panel import ANSWER_DOMAIN, RATING_DOMAIN
from attunebench_inspect.solve._predictions import JudgeVerdict
from attunebench_inspect.solve._solver import pairwise_labels
from tests.runs import PANEL, run_main

SOURCES = ("original", "alternate", "human")
PAIRS = [(a, b) for i, a in enumerate(SOURCES) for b in SOURCES[i + 1 :]]
SHAPES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = 200  # bootstrap resamples: the verdict's set is checked, not its value


def _declared(verdict: str, name: str) -> bool:
    return verdict in READINGS[name] or is_abstention(verdict)


@st.composite
def runs(draw: st.DrawFn) -> list[StabilityRecord]:
    """The records of a run of any shape: conversations, turns, epochs, parse failures (a call
    that chose nothing), judges (none to three, some answers missing) and Composites (some
    undefined)."""
    conversations = draw(st.sampled_from([0, 1, 2, 3, 11, 210]))
    epochs = draw(st.integers(1, 4))
    judges = [f"judge{'' if j == 0 else f'_{j + 1}'}" for j in range(draw(st.integers(0, 3)))]
    seed = draw(st.integers(0, 2**16))
    failing = draw(st.sampled_from([0.0, 0.3, 1.0]))
    rng = random.Random(seed)
    records = []
    for c in range(conversations):
        turns = rng.randint(1, 3)
        for epoch in range(1, epochs + 1):
            composite = math.nan if rng.random() < 0.1 else rng.uniform(0, 100)
            record = StabilityRecord(f"c{c:03d}", epoch, composite, dict.fromkeys(judges, "m"))
            for turn in range(1, turns + 1):
                shown = list(pairwise_labels(0, f"c{c}", turn, epoch).values())
                chosen = {
                    comparison_key("general", *pair): rng.choice(pair)  # type: ignore[arg-type]
                    for pair in rng.sample(PAIRS, rng.randint(1, 3))
                    if rng.random() >= failing
                }
                record.choices.extend(s.pair_choices(f"c{c:03d}", epoch, turn, shown, chosen))
                record.verdicts[turn] = {
                    role: JudgeVerdict({"overall": float(rng.randint(1, 7))}, {"B1": "yes"})
                    for role in judges
                    if rng.random() >= failing
                }
                record.drafts[turn] = rng.choice(["same", f"d{turn}{c}"])
            records.append(record)
    return records


@SHAPES
@given(runs())
def test_every_figure_of_the_log_at_every_point_of_a_run(records: list[StabilityRecord]) -> None:
    """Inspect recomputes the scorer's metric after each sample: the records so far, whatever
    they hold, give finite figures or none."""
    for end in sorted({0, 1, len(records) // 2, len(records)}):
        figures = log_metrics(records[:end])
        assert all(math.isfinite(v) for v in figures.values()), figures


@SHAPES
@given(runs())
def test_position_verdicts_on_any_run(records: list[StabilityRecord]) -> None:
    choices = [c for r in records for c in r.choices]
    bias = s.position_bias(choices, resamples=FEW)
    consistency = s.position_consistency(choices, resamples=FEW)
    assert _declared(bias.verdict, "position_bias"), bias.verdict
    assert _declared(consistency.verdict, "position_consistency"), consistency.verdict
    if len({r.conversation for r in records}) < MIN_CLUSTERS:
        assert is_abstention(consistency.verdict)


@SHAPES
@given(runs())
def test_reruns_and_ranks_on_any_run(records: list[StabilityRecord]) -> None:
    composites: dict[str, list[float]] = {}
    for r in records:
        composites.setdefault(r.conversation, []).append(r.composite)
    retest = s.retest_reliability(composites)
    band = retest.reading.split(" ")[0]
    assert is_abstention(retest.reading) or band in READINGS["test_retest"], retest.reading
    shifted = {c: [x + 3 for x in v] for c, v in composites.items()}
    found = s.rank_stability({"a": composites, "b": shifted}, resamples=FEW)
    for i, j in ((0, 1), (1, 0)):
        assert _declared(found.verdict(i, j), "rank_stability"), found.verdict(i, j)
    if found.shared < MIN_CLUSTERS:
        assert not found.settled().any()


@SHAPES
@given(runs())
def test_the_panel_on_any_run(records: list[StabilityRecord]) -> None:
    from attunebench_inspect.instruments.stability._agreement import panel_data
    from attunebench_inspect.instruments.stability._log_figures import (
        draft_digests,
        judged_drafts,
    )

    roles = list(dict.fromkeys(role for r in records for role in r.judges))
    data = panel_data(roles, judged_drafts(records), draft_digests(records))
    clusters = data.clusters(data.drafts)
    for rows in data.ratings.values():
        found = s.judge_agreement(rows, "ordinal", RATING_DOMAIN, clusters=clusters, resamples=FEW)
        assert _declared(found.reading, "judge_agreement"), found.reading
        for row in rows:
            profile = s.judge_profile(row, data.digests)
            assert _declared(profile.verdict, "judge_collapse"), profile.verdict
    answers = s.judge_agreement(
        data.answers,
        "nominal",
        ANSWER_DOMAIN,
        clusters=data.clusters(data.answer_drafts),
        resamples=FEW,
    )
    assert _declared(answers.reading, "judge_agreement"), answers.reading


@SHAPES
@given(
    st.integers(0, 30),
    st.integers(1, 3),
    st.sampled_from([0.0, 1.0, 4.0]),
    st.sampled_from([0.0, 3.0]),
)
def test_a_pilot_of_any_shape(
    conversations: int, epochs: int, between: float, rerun: float
) -> None:
    rng = np.random.default_rng(conversations * 10 + epochs)
    level = rng.normal(50, between, conversations)
    a = {f"c{i}": list(x + rng.normal(0, rerun, epochs)) for i, x in enumerate(level)}
    b = {c: [x - 2 for x in v] for c, v in a.items()}
    reason = pilot_abstention(a, b)
    if conversations < MIN_PILOT_CONVERSATIONS or epochs < 2 or (between, rerun) == (0, 0):
        assert reason is not None and is_abstention(reason)
    if reason is None:
        rows = s.plan(2.0, s.variances_from_pilot(a, b), max_epochs=2)
        assert all(r.conversations is None or r.conversations >= 2 for r in rows)


def test_a_run_of_one_conversation_of_one_turn_ends_in_success_and_abstains(
    conversation_raw: dict[str, object], tmp_path: Path
) -> None:
    """Through Inspect (which computes the stability metric after every sample) and the
    report: one conversation of one turn, two epochs, a panel of two judges."""
    raw = dict(conversation_raw)
    raw["turns"] = list(raw["turns"])[:1]  # type: ignore[call-overload]
    data = tmp_path / "data"
    data.mkdir()
    (data / "one.json").write_text(json.dumps(raw), encoding="utf-8")
    run_main(data, "attunebench/random", model_roles=PANEL, epochs=2)
    [run] = build_report([tmp_path / "logs"], resamples=FEW).stability
    said = [
        run.position_bias.verdict,
        run.position_consistency.verdict,
        run.test_retest.reading,
        *(a.agreement.reading for a in run.judge_agreement),
        *(j.profile.verdict for j in run.judge_leniency),
    ]
    assert said and all(is_abstention(v) for v in said), said
