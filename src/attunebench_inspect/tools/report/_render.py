"""The report as tables, and the tables as terminal text, Markdown, CSV or JSON."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..._suite.report import Report
from ..._util.bootstrap import Interval
from ...instruments.contamination._report import NOT_PROBED, ContaminationRow
from ...instruments.reannotation._analysis import COEFFICIENT, RULE, TASK_LABELS, Agreement
from ...instruments.reannotation._study import ModeStudy
from ...instruments.stability import RULES, Icc
from ...instruments.stability._report import RunStability
from ...providers import is_human
from ...score._catalog import BY_NAME, label
from ...solve._modes import PRIMARY
from ._analyses import FEW_CONVERSATIONS, PHRASING_EFFECTS, PROFILE_SUMMARY, Drift, HumanComparison

Cell = str | float | int | None


@dataclass(frozen=True)
class Table:
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    note: str = ""
    empty: str = ""
    """Why the table may have no rows."""

    @property
    def unsaid(self) -> str:
        """The one line that replaces a table with nothing to say ("" for a table with rows):
        printed instead of empty headers."""
        return "" if self.rows else self.empty


def number(value: float, digits: int = 3) -> str:
    """`value` with `digits` decimals, "-" where missing; a value that rounds to 0 is "0.0", not
    "-0.0"."""
    if math.isnan(value):
        return "-"
    return f"{round(value, digits) + 0.0:.{digits}f}"


def _ci(value: Interval, digits: int = 3) -> str:
    if math.isnan(value.estimate):
        return "-"
    low, high = number(value.low, digits), number(value.high, digits)
    return f"{number(value.estimate, digits)} [{low}, {high}]"


_CATALOG_RANK = {name: i for i, name in enumerate(BY_NAME)}


def catalog_order(names: set[str]) -> list[str]:
    """Metric names in the catalog's order (Composite inputs by pillar), unknown names last."""
    return sorted(names, key=lambda n: (_CATALOG_RANK.get(n, len(_CATALOG_RANK)), n))


def models_besides_chance(report: Report) -> dict[str, int]:
    """Per mode, how many models besides the chance baseline (what pairs and ranks are over)."""
    counts = {r.mode: 0 for r in report.leaderboard}
    counts.update({c.mode: len(c.models) for c in report.capability})
    return counts


def shown_drift(report: Report) -> list[Drift]:
    """Turn drift rows worth showing: a mode's pooled "all models" rows only where they pool two
    or more models (with one they repeat its rows)."""
    ranked = {(r.model, r.mode) for r in report.leaderboard}
    pooled = {mode for mode, n in models_besides_chance(report).items() if n >= 2}
    return [d for d in report.drift if (d.model, d.mode) in ranked or d.mode in pooled]


def _unsaid(title: str, why: str) -> Table:
    return Table(title, [], [], empty=why)


def _too_few(wanted: int, have: int) -> str:
    return f"Needs {wanted} models besides chance in this mode; the logs have {have}."


def _no_pairs(report: Report) -> str:
    have = ", ".join(f"{mode}: {n}" for mode, n in models_besides_chance(report).items())
    return f"No model pairs: a pair needs two models besides chance in a mode ({have})."


def _no_mode_deltas(report: Report) -> str:
    modes = sorted({r.mode for r in report.leaderboard})
    if len(modes) < 2:
        return f"No mode deltas: the logs have one mode ({', '.join(modes)}); run another."
    return "No mode deltas: no model was run in the default mode and in another mode."


_PILLARS = ("emotion_pillar", "evaluation_pillar", "holistic_pillar")


def _at_version(report: Report, joint: str = ", ") -> str:
    return f"{joint}task version {report.task_version}" if report.task_version else ""


def _versions(report: Report) -> str:
    """Which task versions the logs hold, where they hold more than the one reported."""
    if len(report.versions) < 2:
        return ""
    others = ", ".join(
        f"{v} ({n} run{'s' * (n > 1)})"
        for v, n in report.versions.items()
        if v != report.task_version
    )
    return (
        f" Only task version {report.task_version} is ranked; the logs also hold {others}, "
        "listed as skipped (scores of different task versions are not comparable)."
    )


def _verdicts(report: Report) -> dict[str, str]:
    """Each probed model's contamination verdict, by the name the leaderboard gives it."""
    return {c.model: c.contamination.verdict for c in report.contamination}


def _leaderboard(report: Report) -> list[Table]:
    # The contamination verdict sits beside the Composite wherever a model was probed, so that
    # no reader sees one without the other (DESIGN.md, "Validity instruments").
    verdicts = _verdicts(report)
    beside = ["contamination"] if verdicts else []
    board = Table(
        f"Leaderboard{_at_version(report)}: Composite and pillars "
        "(95% bootstrap CI over conversations)",
        ["mode", "model", "conversations", *map(label, ("composite", *_PILLARS)), *beside],
        [
            [
                r.mode,
                r.model,
                r.composite.n,
                _ci(r.composite, 2),
                *(_ci(r.metrics[p]) if p in r.metrics else "-" for p in _PILLARS),
                *([verdicts.get(r.model, NOT_PROBED)] if verdicts else []),
            ]
            for r in report.leaderboard
        ],
        "'chance' is the attunebench/random baseline."
        + (" Contamination: the probe's verdict (below)." if verdicts else "")
        + _few_runs(report)
        + _versions(report),
    )
    per_mode = []
    for mode in sorted({r.mode for r in report.leaderboard}):
        rows = [r for r in report.leaderboard if r.mode == mode]
        names = catalog_order({m for r in rows for m in r.metrics if m not in _PILLARS})
        per_mode.append(
            Table(
                f"Metrics ({mode}{_at_version(report, ', ')}), 95% bootstrap CI",
                ["metric", *(r.model for r in rows)],
                [
                    [label(m), *(_ci(r.metrics[m]) if m in r.metrics else "-" for r in rows)]
                    for m in names
                ],
            )
        )
    return [board, *per_mode]


def _composites(row: ContaminationRow) -> str:
    return "; ".join(f"{mode} {_ci(c, 2)}" for mode, c in sorted(row.composite.items())) or "-"


def _contamination(report: Report) -> list[Table]:
    """Has the model seen these conversations? The probe's verdict per model, beside its
    Composite (docs/contamination.md)."""
    rows = report.contamination
    rules = sorted({c.contamination.rule for c in rows if c.contamination.rule})
    empty = [
        f"{r.model} ({r.contamination.empty_completions})"
        for r in rows
        if r.contamination.empty_completions
    ]
    return [
        Table(
            "Contamination: has the model seen these conversations?",
            [
                "model",
                "verdict",
                "Composite [95% CI] by mode",
                "ROUGE-L guided / general",
                "difference [95% CI]",
                "permutation p",
                "exact / near-exact",
                "recalled (longest run)",
                "texts (conversations)",
                "seed",
            ],
            [
                [
                    r.model,
                    c.verdict,
                    _composites(r),
                    f"{number(c.guided_rouge_l)} / {number(c.general_rouge_l)}",
                    _ci(c.difference),
                    number(c.p_value, 4),
                    f"{c.exact} / {c.near_exact}",
                    f"{c.recalled} ({c.longest_recall})",
                    f"{c.instances} ({c.conversations})",
                    "-" if c.seed is None else c.seed,
                ]
                for r in rows
                for c in (r.contamination,)
            ],
            "The verdict sits beside the Composite, never inside it: a suspected model may score "
            "by recall as well as attunement; not suspected is not proof that it never saw the "
            "data (docs/contamination.md). Guided: the instruction names the data set; general: "
            "the same text, nothing named; difference: guided minus general; exact and "
            "near-exact: guided completions; recalled: completions (guided or general) "
            "that write out a run of another published text of the conversation that the "
            "prompt did not show, with the longest run in words."
            + (f" Empty completions (scored as no overlap): {', '.join(empty)}." if empty else "")
            + (" Over every text each probe ran: --where does not apply." if report.where else "")
            + " Rule: "
            + (" | ".join(rules) or "-"),
            empty="No contamination probe among the logs: `inspect eval "
            "attunebench_inspect/contamination --model MODEL` checks whether a model has seen "
            "the conversations (docs/contamination.md).",
        )
    ]


def _distinguishability(report: Report) -> list[Table]:
    counts: list[list[Cell]] = [
        [mode, label(metric), f"{d} of {n}"]
        for mode, per in report.distinguished.items()
        for metric, (d, n) in per.items()
    ]
    return [
        Table(
            "Distinguishability: model pairs whose paired 95% CI excludes 0",
            ["mode", "metric", "distinguished pairs"],
            counts,
            empty=_no_pairs(report),
        ),
        Table(
            "Paired differences (model A - model B, shared conversations)",
            ["mode", "metric", "model A", "model B", "difference [95% CI]", "distinguished"],
            [
                [
                    p.mode,
                    label(p.metric),
                    p.model_a,
                    p.model_b,
                    _ci(p.difference),
                    "yes" if p.distinguished else "no",
                ]
                for p in report.distinguishability
            ],
            empty=_no_pairs(report),
        ),
    ]


def _perspective_and_drift(report: Report) -> list[Table]:
    return [
        Table(
            "Perspective gap (percentage points) and phrasing effect",
            ["mode", "model", "comparison", "difference pp [95% CI]", "paired t-test p"],
            [
                [g.mode, g.model, g.label, _ci(g.points, 1), number(g.p_value, 4)]
                for g in report.perspective
            ],
            "OM - HP > 0: the model reads what the original model did better than what the "
            "participant wanted.",
        ),
        Table(
            "Turn drift: per-turn metrics by conversation third",
            ["mode", "model", "metric", "early", "middle", "late", "turns"],
            [
                [
                    d.mode,
                    d.model,
                    label(d.metric),
                    *(number(x) for x in d.thirds),
                    "/".join(map(str, d.turns)),
                ]
                for d in shown_drift(report)
            ],
        ),
    ]


def _stability(report: Report) -> list[Table]:
    """Does the score hold still? Position and phrasing, reruns, the judge panel, ranks."""
    runs = report.stability
    if not runs:
        return []
    return [
        _position(runs),
        _position_shares(runs),
        _content(runs),
        _reruns(runs),
        *_judge_tables(report),
        *_rank_tables(report),
    ]


def _position(runs: list[RunStability]) -> Table:
    """Where the pairwise choices fall: the earlier-shown share and its test."""
    return Table(
        "Stability: does the answer follow the content? Where the pairwise choices fall",
        ["mode", "model", "choices", "earlier-shown share [95% CI]", "chi-square p", "verdict"],
        [
            [
                r.mode,
                r.model,
                r.position_bias.choices,
                _ci(r.position_bias.earlier),
                number(r.position_bias.chi2_p, 4),
                _read(r, r.position_bias.verdict),
            ]
            for r in runs
        ],
        f"{_sentence(RULES['position_bias'])}. By display position: the next table and the "
        "figures.",
    )


def _position_shares(runs: list[RunStability]) -> Table:
    """Each display position's share of the choices."""
    return Table(
        "Stability: pairwise choices by display position (95% bootstrap CI over conversations)",
        ["mode", "model", "position", "share of choices", "expected if blind to position"],
        [
            [r.mode, r.model, s.position, _ci(s.share), number(s.expected)]
            for r in runs
            for s in r.position_bias.positions
        ],
        empty="No pairwise choice in these logs (logs of task version 3-A carry none).",
    )


def _content(runs: list[RunStability]) -> Table:
    """The same choice in another order, the same answer in another phrasing."""
    return Table(
        "Stability: does the answer follow the content? The same choice in another order, the "
        "same answer in another phrasing",
        [
            "mode",
            "model",
            "epochs",
            "swaps",
            "consistency [95% CI]",
            "chance",
            "verdict",
            *(
                f"{effect.split(':')[0]} phrasing effect, pp [95% CI]"
                for effect in PHRASING_EFFECTS
            ),
        ],
        [
            [
                r.mode,
                r.model,
                r.epochs,
                r.position_consistency.swaps,
                _ci(r.position_consistency.consistency),
                number(r.position_consistency.chance),
                _read(r, r.position_consistency.verdict),
                *(_ci(g.points, 1) for g in r.phrasing_effect),
            ]
            for r in runs
        ],
        f"Consistency: {RULES['position_consistency']}. Chance: the consistency of a chooser "
        "blind to content with the model's own position shares (1/2 for a coin, 0 for one that "
        "always picks the earlier reply). Phrasing effect: the binary answers asked in two "
        "phrasings, observer - HP-facing accuracy in percentage points: an answer that follows "
        "the content does not move with the wording, as a choice that follows the content does "
        "not move with the order.",
    )


def _reruns(runs: list[RunStability]) -> Table:
    """Test-retest of the per-conversation Composite, for runs of two or more epochs."""
    several = [r for r in runs if r.epochs >= 2]
    return Table(
        "Stability: reruns, test-retest of the per-conversation Composite across epochs",
        [
            "mode",
            "model",
            "epochs",
            "complete conversations",
            "ICC(A,1) [95% CI]",
            "reading",
            "run Composite per epoch",
            "SD across epochs",
        ],
        [
            [
                r.mode,
                r.model,
                r.epochs,
                r.test_retest.conversations,
                _icc(r.test_retest.icc),
                r.test_retest.reading,
                ", ".join(number(x, 2) for x in r.test_retest.run_composites),
                number(r.test_retest.spread_sd, 2),
            ]
            for r in several
        ],
        RULES["test_retest"] + ".",
        empty="Every run has one epoch: run with --epochs 2 or more to measure reruns "
        "(docs/stability.md says how many).",
    )


def _read(run: RunStability, verdict: str) -> str:
    """A verdict, or why there is none: logs of task version 3-A keep no stability records."""
    return verdict if run.records else "no records (a log of task version 3-A)"


def _sentence(rule: str) -> str:
    return rule[:1].upper() + rule[1:]


def _icc(found: Icc | None) -> str:
    if found is None:
        return "-"
    return f"{number(found.value)} [{number(found.low)}, {number(found.high)}]"


def _self_judge(run: RunStability, role: str) -> str:
    relation = run.self_judge.get(role)
    if relation is None:
        return "-"
    return f"{relation.upper()}{' (allowed)' if run.self_judge_allowed else ''}"


def _judge_tables(report: Report) -> list[Table]:
    judged = [r for r in report.stability if r.judges]
    if not judged:
        return []
    agreement = Table(
        "Stability: judge panel agreement, Krippendorff's alpha (95% CI over conversations)",
        ["mode", "model", "judges", "rated", "units", "alpha [95% CI]", "reading"],
        [
            [r.mode, r.model, len(r.judges), a.item, a.agreement.drafts, _ci(a.agreement.alpha),
             a.agreement.reading]
            for r in judged
            for a in r.judge_agreement
        ],
        f"{_sentence(RULES['judge_agreement'])}. "
        f"{_sentence(RULES['panel'])}. Units: drafts rated by two judges or more (binary: one "
        "question about one draft).",
        empty="Every judged run has one judge: bind judge_2, judge_3, ... for a panel "
        "(docs/stability.md).",
    )  # fmt: skip
    leniency = Table(
        "Stability: each judge's leniency and collapse, beside the panel",
        ["mode", "model", "role", "judge", "criterion", "drafts", "mean rating", "panel mean",
         "modal share", "collapsed", "self-judging"],
        [
            [r.mode, r.model, j.role, j.model, j.criterion, j.profile.drafts,
             number(j.profile.mean, 2), number(j.panel_mean, 2), number(j.profile.modal_share),
             "-" if j.profile.collapsed is None else "yes" if j.profile.collapsed else "no",
             _self_judge(r, j.role)]
            for r in judged
            for j in r.judge_leniency
        ],
        _sentence(RULES["judge_collapse"])
        + ". Self-judging: a judge that is the evaluated model, or of its family from the same "
        "maker, may favour its own kind of writing (allowed: "
        "-T allow_self_judge=true).",
        empty="No judge answers in these logs (logs of task version 3-A carry none).",
    )  # fmt: skip
    selves = [(r, role) for r in judged for role in r.self_judge]
    marked = Table(
        "Stability: self-judging",
        ["mode", "model", "role", "judge", "relation"],
        [[r.mode, r.model, role, r.judges[role], _self_judge(r, role)] for r, role in selves],
        "The draft metrics of these runs are judged by the evaluated model or its family.",
    )
    return [agreement, leniency, *([marked] if selves else [])]


def _rank_tables(report: Report) -> list[Table]:
    result = []
    for ranks in report.rank_stability:
        pairs = [(i, j) for i in range(len(ranks.models)) for j in range(i + 1, len(ranks.models))]
        settled = sum(ranks.settled[i][j] for i, j in pairs)
        result.append(
            Table(
                f"Stability: rank stability ({ranks.mode}), {settled} of {len(pairs)} pairs "
                "settled",
                ["higher", "Composite", "lower", "Composite", "order holds in", "settled"],
                [
                    [
                        ranks.models[i],
                        number(ranks.estimates[i], 2),
                        ranks.models[j],
                        number(ranks.estimates[j], 2),
                        number(ranks.holds[i][j]),
                        "yes" if ranks.settled[i][j] else "no",
                    ]
                    for i, j in pairs
                ],
                f"{ranks.rule}; {ranks.resamples} replicates"
                + ("" if ranks.epochs_resampled else " (one epoch: conversations only)")
                + ".",
            )
        )
    return result


def _subgroups(report: Report) -> list[Table]:
    if not report.subgroups:
        return []
    return [
        Table(
            f"Subgroup: {report.compare} vs the rest",
            ["mode", "model", "metric", "subgroup", "rest", "difference [95% CI]"],
            [
                [
                    s.mode,
                    s.model,
                    label(s.metric),
                    f"{_ci(s.inside)} (n={s.inside.n})",
                    f"{_ci(s.rest)} (n={s.rest.n})",
                    _ci(s.difference),
                ]
                for s in report.subgroups
            ],
        )
    ]


def _capability_split(report: Report) -> list[Table]:
    return [t for mode in models_besides_chance(report) for t in _ranks(report, mode)]


def _mode_deltas(report: Report) -> list[Table]:
    return [
        Table(
            f"Mode deltas (mode - {PRIMARY}, shared conversations)",
            ["model", "mode", "metric", "delta", "conversations"],
            [
                [d.model, d.mode, label(d.metric), number(d.delta), d.conversations]
                for d in report.mode_deltas
            ],
            empty=_no_mode_deltas(report),
        )
    ]


def _operations(report: Report) -> list[Table]:
    operations = Table(
        "Operations: parse failures, errors, tokens and time",
        [
            "mode",
            "model",
            "conversations",
            "errored",
            label("parse_failure_rate"),
            "repaired calls",
            "judge parse failures",
            "input tokens/conv",
            "output tokens/conv",
            "cached tokens/conv",
            "seconds/conv",
            "wall seconds",
        ],
        [
            [
                o.mode,
                o.model,
                o.conversations,
                len(o.errored),
                number(o.parse_failure_rate),
                int(o.repaired_calls),
                int(o.judge_parse_failures),
                number(o.tokens_per_conversation.get("input", 0.0), 0),
                number(o.tokens_per_conversation.get("output", 0.0), 0),
                number(o.tokens_per_conversation.get("cache_read", 0.0), 0),
                number(o.seconds_per_conversation, 2),
                number(o.wall_seconds, 1),
            ]
            for o in report.operations
        ],
    )
    roles = Table(
        "Tokens by model role (whole run)",
        ["mode", "model", "role (or model without roles)", "input", "output", "cache read",
         "cache write"],
        [
            [o.mode, o.model, role, u["input"], u["output"], u["cache_read"], u["cache_write"]]
            for o in report.operations
            for role, u in o.tokens_by_role.items()
        ],
    )  # fmt: skip
    errored: list[list[Cell]] = [
        [o.model, o.mode, sid, reason]
        for o in report.operations
        for sid, reason in o.errored.items()
    ]
    errored += [["-", "-", s.location, s.reason] for s in report.skipped]
    failures = Table(
        "Errored conversations and skipped logs",
        ["model", "mode", "conversation / log", "reason"],
        errored,
    )
    return [operations, roles, *([failures] if errored else [])]


def _few_runs(report: Report) -> str:
    """The leaderboard's note on runs over few conversations (a human answers a few)."""
    few = [
        f"{r.model} ({r.mode}, {r.composite.n})"
        for r in report.leaderboard
        if r.composite.n < FEW_CONVERSATIONS
    ]
    if not few:
        return ""
    return (
        f" Fewer than {FEW_CONVERSATIONS} conversations, so wide intervals (compare such runs on "
        f"shared conversations): {', '.join(few)}."
    )


def _human_row(h: HumanComparison) -> list[Cell]:
    digits = 2 if h.metric == "composite" else 3
    few = h.conversations < FEW_CONVERSATIONS
    return [
        h.mode,
        h.human,
        h.model,
        f"{h.conversations} (few)" if few else h.conversations,
        label(h.metric),
        *(_ci(v, digits) for v in (h.human_value, h.model_value, h.difference)),
    ]


def _humans(report: Report) -> list[Table]:
    """Humans beside models, where the logs have a human run."""
    humans = sorted({r.model for r in report.runs if is_human(r.model)})
    if not humans:
        return []
    return [
        Table(
            "Humans beside models, on the conversations both answered (95% bootstrap CI)",
            [
                "mode",
                "human",
                "model",
                "conversations",
                "metric",
                "human",
                "model",
                "human - model",
            ],
            [_human_row(h) for h in report.human],
            "Every row is over the conversations both the person and the model answered; the "
            "difference is paired per conversation. (few): fewer than "
            f"{FEW_CONVERSATIONS} conversations, where the interval says more than the estimate.",
            empty=f"No model shares a conversation with {', '.join(humans)}: run the models on "
            "the conversations the people answered.",
        )
    ]


def _profile(report: Report) -> list[Table]:
    """The profile task, where the logs have a profile run."""
    if not report.profile:
        return []
    return [*_profile_scores(report), _profile_diagnoses(report), *_profile_capability(report)]


def _profile_scores(report: Report) -> list[Table]:
    parts = [*PROFILE_SUMMARY, "profile_parse_failure_rate"]
    fields = [
        m for m in catalog_order({m for r in report.profile for m in r.metrics}) if m not in parts
    ]
    return [
        Table(
            f"Profile prediction (experimental{_at_version(report)}): composite and parts "
            "(95% bootstrap CI over conversations)",
            ["model", "conversations", "errored", *map(label, parts), "unplaced labels"],
            [
                [
                    r.model,
                    r.conversations,
                    r.errored,
                    *(
                        _ci(r.metrics[m], 2 if m == "profile_composite" else 3)
                        if m in r.metrics
                        else "-"
                        for m in parts
                    ),
                    r.unplaced,
                ]
                for r in report.profile
            ],
            "What a model infers about a person from a conversation: a capability and a privacy "
            "risk, not a diagnostic tool (docs/profile.md). 'chance' is attunebench/random. "
            "Unplaced labels: the participants' labels the profile vocabulary could not place, "
            "whose fields are not scored (the log's data warnings name them).",
        ),
        Table(
            "Profile prediction: every field (95% bootstrap CI)",
            ["metric", *(r.model for r in report.profile)],
            [
                [label(m), *(_ci(r.metrics[m]) if m in r.metrics else "-" for r in report.profile)]
                for m in fields
            ],
        ),
    ]


def _profile_diagnoses(report: Report) -> Table:
    return Table(
        "Profile prediction: diagnoses named vs reported",
        [
            "model",
            "diagnosis",
            "participants with it",
            "base rate",
            "named in",
            "precision",
            "recall",
            "answers",
        ],
        [
            [
                d.model,
                d.diagnosis,
                d.participants,
                number(d.base_rate),
                number(d.named_rate),
                number(d.precision),
                number(d.recall),
                d.answers,
            ]
            for d in report.diagnosis_inference
        ],
        "Base rate: the share of answers whose participant reported the diagnosis; named in: "
        "the share of answers naming it (above the base rate: named more often than "
        "reported). Precision and recall of naming it. Parse failures are left out.",
        empty="No parsed profile answer.",
    )


def _profile_capability(report: Report) -> list[Table]:
    result = []
    for split in report.profile_capability:
        title = (
            "Spearman rank correlation across models: profile task vs main-task metrics "
            f"({split.mode})"
        )
        if len(split.models) < 3:
            result.append(
                _unsaid(
                    title,
                    "Needs 3 models besides chance run in the profile task and in this mode; the "
                    f"logs have {len(split.models)}.",
                )
            )
            continue
        result.append(
            Table(
                title,
                ["profile metric", *map(label, split.metrics)],
                [
                    [label(p), *(number(split.spearman[p][m], 2) for m in split.metrics)]
                    for p in split.profile_metrics
                ],
                f"Over {len(split.models)} models: {', '.join(split.models)}. '-' where "
                "undefined (a metric constant across models).",
            )
        )
    return result


_LABEL_FIELDS = {
    "mood_shift": "mood shift",
    "binary_observed": "observed behaviour (binary)",
    "binary_preferred": "preferred behaviour (binary)",
    "pairwise": "preferred reply (pairwise)",
    "post_panas": "post-conversation PANAS",
    "four_branch": "Four-Branch",
    "q1_looking_for": "Q1 looking for",
    "q2_emotion_clarity": "Q2 emotion clarity",
    "q3_model_fit": "Q3 model fit",
    "q3_follow_up": "Q3 follow-up",
}
_QUESTIONNAIRE = "questionnaire"


def _task(name: str | None) -> str:
    return TASK_LABELS.get(name, name) if name is not None else _QUESTIONNAIRE


def _third_party(report: Report) -> list[Table]:
    """Every run against third-party labels, where the report was given answer files."""
    study = report.third_party
    if study is None:
        return []
    sizes = ", ".join(f"{k}: {n}" for k, n in study.annotators_per_conversation.items()) or "none"
    result = [
        Table(
            "Third-party labels: annotators and conversations",
            ["annotator", "answer file", "conversations labelled", "own conversations (marked)"],
            [[a.annotator, a.file, a.conversations, a.self_ratings] for a in study.annotators],
            f"{study.labelled} of the {study.logged} conversations the report reads have "
            f"third-party labels (annotators per conversation, k: conversations: {sizes}); "
            f"{len(study.ties)} consensus tie(s). Binary labels from the page's "
            f"{study.phrasing.replace('_', '-')} phrasing. Not given by third-party labels: "
            f"{', '.join(map(label, study.not_covered))} (they need the participant's "
            "pre-conversation PANAS).",
            empty="No answer file gave a complete conversation the report reads: "
            f"{study.labelled} of the {study.logged} conversations have third-party labels.",
        )
    ]
    if study.notes:
        result.append(
            Table(
                "Third-party labels: conversations left out, and self-ratings",
                ["file: where: what"],
                [[line] for line in study.notes],
            )
        )
    if study.tied:
        result.append(
            Table(
                "Third-party labels: consensus ties, per conversation",
                ["conversation", "annotators", "mood shift", "binary", "pairwise", "questionnaire"],
                [[cid, *counts.values()] for cid, counts in study.tied.items()],
                "A split vote is no label: a binary judgement becomes na, a comparison or an "
                "emotion is left out, Q2 is not scored; a half-way median goes to the neighbour "
                "nearer the middle of its scale (docs/third-party.md). Every tie and how it was "
                "settled: the JSON report's third_party.ties.",
            )
        )
    if study.agreement:
        result.append(
            Table(
                "Third-party agreement with the participants, per task (95% bootstrap CI over "
                "conversations)",
                ["labels (task)", "rater", "n", "metric", "value", "kappa", "items"],
                [
                    [
                        f"{_LABEL_FIELDS.get(a.field, a.field)} ({_task(a.task)})",
                        a.rater,
                        a.value.n,
                        label(a.metric),
                        _ci(a.value),
                        _kappa(a),
                        a.items or "-",
                    ]
                    for a in sorted(study.agreement, key=_agreement_order)
                ],
                "How well an outsider reads the person, over n conversations: the rater's "
                "labels scored against the participant's with the model's metric (value), and "
                "chance-corrected where a "
                "chance level exists (kappa: Cohen's on categories; 'weighted': quadratic-"
                "weighted, on the 1-7 ratings and Q3's ordered options; items: what the kappa "
                "counts). The follow-up in one's own words has no fixed categories, so no kappa.",
            )
        )
    for mode in study.modes:
        result += _third_party_mode(mode)
    return result


def _kappa(row: Agreement) -> str:
    if row.coefficient is None:
        return "-"
    weighted = " weighted" if row.coefficient == COEFFICIENT["quadratic"] else ""
    return _ci(row.corrected) + weighted


def _agreement_order(row: Agreement) -> tuple[int, str]:
    return (list(_LABEL_FIELDS).index(row.field) if row.field in _LABEL_FIELDS else 99, row.rater)


def _third_party_mode(mode: ModeStudy) -> list[Table]:
    shared = f"{mode.conversations} shared conversations"
    excluded = "; ".join(f"{m}: {why}" for m, why in mode.excluded.items())
    left_out = f" Not ranked: {excluded}." if excluded else ""
    test = mode.test
    tables = [
        Table(
            f"Self vs third-party labels ({mode.mode}): per-task scores and the self-specific "
            f"gain ({shared}, paired 95% bootstrap CI)",
            ["model", "task", "conversations", "self labels", "third-party labels", "gain"],
            [
                [g.model, _task(g.task), g.gain.n, _ci(g.own), _ci(g.third), _ci(g.gain)]
                for g in mode.gains
            ],
            "Gain = score against the participants' own labels - score against the third "
            "parties' consensus, on the same conversations and items: > 0, the model reads these "
            "people better than an outsider's reading of the same conversation predicts. Judged "
            "response quality reads no label (the judge's reference is the participant's edited "
            f"reply): its gain is 0 by construction.{left_out}",
            empty=f"No evaluated model shares a conversation with the third-party labels in this "
            f"mode ({shared}).{left_out}",
        ),
        Table(
            f"The reviewer's test ({mode.mode}): do the task rankings converge under "
            "third-party labels?",
            ["verdict", "models", "shared conversations", "reading"],
            [[test.verdict, len(test.models), test.conversations, test.reading]],
            f"{RULE[0].upper()}{RULE[1:]}.",
        ),
    ]
    if not test.pairs:
        return tables
    names = [_task(t) for t in test.tasks]
    for side, title in (("own", "self labels"), ("third", "third-party labels")):
        cells = {p.tasks: getattr(p, side) for p in test.pairs}
        tables.append(
            Table(
                f"The reviewer's test ({mode.mode}): Spearman rho between the tasks' model "
                f"rankings under {title} (95% bootstrap CI, {len(test.models)} models, {shared})",
                ["task", *names],
                [
                    [
                        names[i],
                        *(
                            "1" if a == b else _ci(cells.get((a, b)) or cells[(b, a)], 2)
                            for b in test.tasks
                        ),
                    ]
                    for i, a in enumerate(test.tasks)
                ],
            )
        )
    tested = sum(1 for p in test.pairs if p.status != "not separable under self labels")
    tables.append(
        Table(
            f"The reviewer's test ({mode.mode}): each pair of tasks",
            [
                "tasks",
                "rho, self labels",
                "rho, third-party labels",
                "rise (third-party - self)",
                f"rise, CI at 1 - 0.05/{max(tested, 1)}",
                "status",
            ],
            [
                [
                    f"{_task(p.tasks[0])} / {_task(p.tasks[1])}",
                    _ci(p.own, 2),
                    _ci(p.third, 2),
                    _ci(p.change, 2),
                    _ci(p.change_corrected, 2),
                    p.status,
                ]
                for p in test.pairs
            ],
            "The intervals resample conversations (the same draws for both label sets): they say "
            "how sure the rankings of these models are, not how other models would rank.",
        )
    )
    return tables


def _ranks(report: Report, mode: str) -> list[Table]:
    """Capability split, Spearman matrix and win rates of one mode; each needs enough models
    besides chance, and says so where the logs have too few."""
    have = models_besides_chance(report)[mode]
    capability = f"Capability split ({mode}): rank per metric (1 = best)"
    spearman = f"Spearman rank correlation between metrics across models ({mode})"
    win_rate = (
        f"Pairwise win rate ({mode}): share of conversations where the row model's "
        f"{label('pairwise_accuracy')} beats the column model's"
    )
    split = next((c for c in report.capability if c.mode == mode), None)
    wins = next((w for w in report.win_rates if w.mode == mode), None)
    if split is None or wins is None or have < 2:
        return [
            _unsaid(capability, _too_few(2, have)),
            _unsaid(spearman, _too_few(3, have)),
            _unsaid(win_rate, _too_few(2, have)),
        ]
    negative = f" ({', '.join(split.negative_tau)})" if split.negative_tau else ""
    return [
        Table(
            capability,
            ["metric", "leader", *split.models],
            [
                [label(m), split.leaders[m], *(split.ranks[m][x] for x in split.models)]
                for m in split.metrics
            ],
            f"Models with negative mean {label('kendall_tau')}: {len(split.negative_tau)} of "
            f"{len(split.models)}{negative}",
        ),
        Table(
            spearman,
            ["metric", *map(label, split.metrics)],
            [
                [label(a), *(number(split.spearman[a][b], 2) for b in split.metrics)]
                for a in split.metrics
            ],
            "'-' where undefined (a metric constant across models).",
        )
        if have >= 3
        else _unsaid(spearman, _too_few(3, have)),
        Table(
            win_rate,
            ["model", *wins.models],
            [
                [a, *("" if a == b else number(wins.rates[a][b], 2) for b in wins.models)]
                for a in wins.models
            ],
        ),
    ]


def _text(cell: Cell) -> str:
    if cell is None:
        return "-"
    if isinstance(cell, float):
        return number(cell)
    return str(cell)


def to_terminal(report: Report) -> str:
    out = io.StringIO()
    for table in tables(report):
        if table.unsaid:
            out.write(f"\n{table.title}\n{table.unsaid}\n")
            continue
        cells = [table.columns, *([_text(c) for c in row] for row in table.rows)]
        widths = [max(len(r[i]) for r in cells) for i in range(len(table.columns))]
        out.write(f"\n{table.title}\n")
        for i, row in enumerate(cells):
            out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
            out.write("\n")
            if i == 0:
                out.write("  ".join("-" * w for w in widths) + "\n")
        if table.note:
            out.write(f"{table.note}\n")
    return out.getvalue()


def to_markdown(report: Report) -> str:
    parts = ["# AttuneBench report", ""]
    for table in tables(report):
        parts += [f"## {table.title}", ""]
        if table.unsaid:
            parts += [table.unsaid, ""]
            continue
        parts.append("| " + " | ".join(table.columns) + " |")
        parts.append("|" + "---|" * len(table.columns))
        parts += ["| " + " | ".join(_text(c) for c in row) + " |" for row in table.rows]
        parts += (["", table.note] if table.note else []) + [""]
    return "\n".join(parts)


def to_csv(report: Report) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # CSV is for data: a table with nothing to say has no rows to write.
    for table in (t for t in tables(report) if not t.unsaid):
        writer.writerow(["table", *table.columns])
        for row in table.rows:
            writer.writerow([table.title, *(_text(c) for c in row)])
        writer.writerow([])
    return out.getvalue()


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 6)
    return value


def to_json(report: Report) -> str:
    return json.dumps(_jsonable(report), indent=1, sort_keys=True) + "\n"


SECTIONS: tuple[Callable[[Report], list[Table]], ...] = (
    _leaderboard,
    _contamination,
    _humans,
    _distinguishability,
    _perspective_and_drift,
    _stability,
    _subgroups,
    _capability_split,
    _mode_deltas,
    _profile,
    _third_party,
    _operations,
)
"""The report's sections in the order they are shown; each gives its tables (none where it has
nothing to show)."""


def tables(report: Report) -> list[Table]:
    if not report.leaderboard:
        # No run of the main task: its analyses have no rows; only the other tasks' sections.
        return [*(_contamination(report) if report.contamination else []), *_profile(report)]
    return [table for section in SECTIONS for table in section(report)]
