"""The metric catalog: the one declaration of every metric of the main task (`MetricSpec`): its
name, how a person reads it, and the pure function of one turn's or the post-conversation call's
inputs that computes it (pure: no Inspect). Everything that names a metric of the main task reads
this tuple (ARCHITECTURE.md, 'Adding a metric'), the Composite's pillars too (`pillars`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..solve._schemas import BRANCHES, JUDGE_CRITERIA
from . import _metrics as metrics
from ._inputs import BINARY_VIEWS, BinaryView, PostInputs, TurnInputs
from ._metric_spec import REJUDGE_PREFIX, Family, Group, MetricSpec, Pillar

POOLED_STATS = ("precision", "recall", "f1", "mcc")


def _binary(view: BinaryView) -> MetricSpec:
    """The observer-phrased views are canonical Composite inputs, the HP-facing ones diagnostic."""
    behaviour = "observed" if view.startswith("om") else "preferred"
    facing = view.endswith("hp_facing")
    who = view.split("_")[0]
    return MetricSpec(
        f"binary_{who}_accuracy" + ("_hp_facing" if facing else ""),
        f"Binary {who.upper()}" + (" (HP-facing)" if facing else ""),
        "binary",
        "turn",
        "diagnostic" if facing else "canonical",
        f"share of the turn's binary questions where the predicted *{behaviour}* behaviour "
        f"equals the participant's label ({'HP-facing' if facing else 'observer'} phrasing)",
        "a label of `na` is excluded; a predicted `na` (or no answer) against yes/no is wrong; "
        "NaN for a turn whose every label is `na`; parse failure = every question wrong",
        pillar=None if facing else "evaluation",
        turn=lambda t: t.counts(view).accuracy,
    )


def _pooled(view: BinaryView, stat: str) -> MetricSpec:
    return MetricSpec(
        pooled_name(view, stat),
        f"Binary {view.split('_')[0].upper()}{' HP-facing' if 'facing' in view else ''} "
        f"{stat if stat != 'mcc' else 'MCC'} (pooled)",
        "binary",
        "run",
        "pooled" if view in ("om", "hp") else "diagnostic",
        f'{stat} with "yes" positive over every judgement of the run ({view} view): '
        "TP/FP/FN/TN summed over conversations",
        "predicted `na` counts as not-yes; "
        + (
            "0 where the predictions or the labels are all one class (a constant has no "
            "correlation: scikit-learn's matthews_corrcoef); NaN without judgements"
            if stat == "mcc"
            else "NaN where a denominator is 0"
        ),
        low=-1.0 if stat == "mcc" else 0.0,
    )


def pooled_name(view: BinaryView, stat: str) -> str:
    return f"binary_{view}_{stat}"


def _draft(criterion: str) -> MetricSpec:
    overall = criterion == "overall"
    return MetricSpec(
        "draft_judge" if overall else f"draft_judge_{criterion}",
        "Draft Judge" if overall else f"Draft Judge: {criterion.replace('_', ' ')}",
        "draft",
        "turn",
        "alongside" if overall else "diagnostic",
        f"the judge's *{criterion.replace('_', ' ')}* rating (1-7) of the evaluated model's draft "
        "against the participant's own edited response, as (r - 1)/6; with a judge panel "
        "(roles `judge`, `judge_2`, ...) r is the mean of its judges' ratings",
        "absent without a judge role; NaN where no judge's answer parsed (counted in "
        "`judge_parse_failures`); an empty draft = 0",
        turn=lambda t: t.rating(criterion),
    )


def _branch(branch: str) -> MetricSpec:
    return MetricSpec(
        f"four_branch_{branch}",
        f"Four-Branch: {branch}",
        "conversation_wide",
        "conversation",
        "diagnostic",
        f"1 - |error|/6 on the participant's *{branch}* rating (1-7)",
        "parse failure = 0",
        conversation=lambda p: _branches(p)[branch],
    )


def _branches(p: PostInputs) -> dict[str, float]:
    return metrics.four_branch(p.predicted(lambda a: a.four_branch), p.truth.four_branch)


def _alignment(t: TurnInputs) -> float:
    counts = t.alignment()
    return counts.accuracy if counts is not None else metrics.NAN


_W = metrics.COMPOSITE_WEIGHTS
_LOWEST_COMPOSITE = 100 * _W["holistic"] * (-1 / 3) / (_W["emotion"] + _W["holistic"])
"""H's lowest value is -1/3 (PANAS Baseline-Adjusted at -1); E is always defined (>= 0), Q may be
undefined, and then only E and H share the weight."""

_MAIN: tuple[MetricSpec, ...] = (
    # --- the Composite and its pillars (per conversation, from the pillar inputs below) ---
    MetricSpec(
        "composite", "Composite", "composite", "conversation", "headline",
        "100 x (0.24 E + 0.49 Q + 0.27 H) per conversation, weights renormalised over the "
        "pillars that are defined; the run value is the mean over conversations",
        "a pillar that is undefined for a conversation (Q when every binary label is `na` and "
        "there is no comparison) is left out and the other weights renormalised; so the lowest "
        "value, H = -1/3 with E = 0, is 100 x 0.27 x (-1/3) / 0.51 where Q is undefined",
        low=_LOWEST_COMPOSITE, high=100.0,
    ),
    MetricSpec(
        "emotion_pillar", "Emotion pillar (E)", "composite", "conversation", "pillar",
        "½ `emotion_f1` + ½ `emotion_va`",
    ),
    MetricSpec(
        "evaluation_pillar", "Evaluation pillar (Q)", "composite", "conversation", "pillar",
        "mean(`binary_om_accuracy`, `binary_hp_accuracy`, `pairwise_accuracy`) over those defined",
        "NaN when none is defined",
    ),
    MetricSpec(
        "holistic_pillar", "Holistic pillar (H)", "composite", "conversation", "pillar",
        "mean(`panas_baseline_adjusted`, `four_branch`, mean(`q1_goals`, `q2_clarity`, `q3_fit`, "
        "`q3_follow_up` where asked))",
        low=-1 / 3,
    ),
    MetricSpec(
        "parse_failure_rate", "Parse failures", "composite", "conversation", "operational",
        "failed calls of the evaluated model (draft, emotion, binary HP-facing, pairwise, post) "
        "over all its calls",
        higher_is_better=False,
    ),
    # --- emotion -------------------------------------------------------------------------------
    MetricSpec(
        "emotion_f1", "Emotion F1", "emotion", "turn", "canonical",
        "F1 between predicted and labelled mood-shift emotions (PANAS-20 names, "
        "case-insensitive): 2·|P∩G| / (|P|+|G|)",
        "both empty = 1; exactly one empty = 0; parse failure = 0",
        pillar="emotion", turn=lambda t: metrics.emotion_f1(t.mood, t.gold_mood),
    ),
    MetricSpec(
        "emotion_va", "Emotion VA", "emotion", "turn", "canonical",
        "Hungarian matching (maximum total similarity) of predicted to labelled emotions over the "
        "20x20 valence-arousal similarity matrix; matched similarity / max(|P|, |G|)",
        "both empty = 1; one empty = 0; parse failure = 0",
        pillar="emotion", turn=lambda t: metrics.emotion_va(t.mood, t.gold_mood),
    ),
    MetricSpec(
        "emotion_intensity_mae", "Emotion Intensity MAE", "emotion", "turn", "diagnostic",
        "mean |intensity difference| over the emotions both predicted and labelled",
        "NaN when none is shared or on parse failure",
        higher_is_better=False, high=6.0,
        turn=lambda t: metrics.emotion_intensity_mae(t.mood, t.gold_mood),
    ),
    MetricSpec(
        "emotion_hit_rate", "Emotion Hit Rate", "emotion", "turn", "diagnostic",
        "recall of the labelled emotions: |P∩G| / |G|",
        "NaN on a neutral turn (G empty); parse failure = 0",
        turn=lambda t: metrics.emotion_hit_rate(t.mood, t.gold_mood),
    ),
    # --- binary --------------------------------------------------------------------------------
    *(_binary(view) for view in BINARY_VIEWS),
    *(_pooled(view, stat) for view in BINARY_VIEWS for stat in POOLED_STATS),
    # --- pairwise ------------------------------------------------------------------------------
    MetricSpec(
        "pairwise_accuracy", "Pairwise Accuracy", "pairwise", "turn", "canonical",
        "share of the turn's comparisons (general + the selected questions, x 3 pairs) where the "
        "evaluated model chose the participant's winner",
        "NaN for a turn without comparisons; parse failure = every comparison wrong",
        pillar="evaluation", turn=lambda t: metrics.pairwise_accuracy(t.winners, t.gold_winners),
    ),
    MetricSpec(
        "kendall_tau", "Kendall τ", "pairwise", "turn", "alongside",
        "Kendall τ-b between the rankings of the three responses implied by win counts (model vs "
        "participant), per pairwise question; the turn value is the mean over its questions",
        "undefined (skipped, counted in `tau_undefined`) when either ranking is all ties; parse "
        "failure = undefined",
        low=-1.0, turn=lambda t: metrics.nanmean(metrics.kendall_tau(t.winners, t.gold_winners)),
    ),
    # --- draft (only with a judge) ------------------------------------------------------------
    *(_draft(c) for c in JUDGE_CRITERIA),
    MetricSpec(
        "draft_binary_alignment", "Draft Binary Alignment", "draft", "turn", "diagnostic",
        "share of the turn's binary questions where the judge's answer about the *draft* equals "
        "the participant's preferred behaviour; with a judge panel, the panel's most frequent "
        "answer (a tie goes to the earliest judge role among the tied answers)",
        "absent without a judge; `na` preferences excluded; an empty draft = wrong",
        turn=_alignment,
    ),
    MetricSpec(
        "response_similarity", "Response Similarity", "similarity", "turn", "informational",
        "cosine similarity of all-MiniLM-L6-v2 sentence embeddings between the draft and the "
        "participant's edited response (needs the `similarity` extra)",
        "absent without the extra; an empty draft = 0",
        low=-1.0,
    ),
    # --- conversation-wide ------------------------------------------------------------------
    MetricSpec(
        "panas_baseline_adjusted", "PANAS Baseline-Adjusted", "conversation_wide", "conversation",
        "canonical",
        "1 - MAE(prediction, post) / MAE(pre, post) over the 20 PANAS items, clamped to [-1, 1]",
        "when pre = post the naive MAE is floored at 1/20 (one item off by one); parse "
        "failure = -1",
        pillar="holistic", low=-1.0,
        conversation=lambda p: metrics.panas_baseline_adjusted(
            p.predicted(lambda a: a.post_panas), p.truth.pre_panas, p.truth.post_panas
        ),
    ),
    MetricSpec(
        "panas_normalized", "PANAS Normalized", "conversation_wide", "conversation", "diagnostic",
        "1 - MAE/60 over the positive and negative affect totals (10-70 each, derived from items)",
        "parse failure = 0",
        conversation=lambda p: metrics.panas_normalized(
            p.predicted(lambda a: a.post_panas), p.truth.post_panas
        ),
    ),
    MetricSpec(
        "panas_item_normalized", "PANAS Item Normalized", "conversation_wide", "conversation",
        "diagnostic", "1 - item MAE/6 over the 20 items", "parse failure = 0",
        conversation=lambda p: metrics.panas_item_normalized(
            p.predicted(lambda a: a.post_panas), p.truth.post_panas
        ),
    ),
    MetricSpec(
        "q1_goals", "Q1 Goals", "conversation_wide", "conversation", "canonical",
        "Jaccard |intersection| / |union| of the selected Q1 options",
        "both empty = 1; parse failure = 0",
        pillar="holistic_questions",
        conversation=lambda p: metrics.jaccard(
            p.predicted(lambda a: a.q1_looking_for), p.truth.q1_looking_for
        ),
    ),
    MetricSpec(
        "q2_clarity", "Q2 Clarity", "conversation_wide", "conversation", "canonical",
        "exact match of the Q2 option", "parse failure = 0",
        pillar="holistic_questions",
        conversation=lambda p: metrics.exact(
            p.predicted(lambda a: a.q2_emotion_clarity), p.truth.q2_emotion_clarity
        ),
    ),
    MetricSpec(
        "q3_fit", "Q3 Fit", "conversation_wide", "conversation", "canonical",
        "ordinal similarity 1 - |rank difference|/(options - 1) of Q3 (codebook option order, "
        "worst to best)",
        "parse failure = 0",
        pillar="holistic_questions",
        conversation=lambda p: metrics.ordinal(
            p.predicted(lambda a: a.q3_model_fit), p.truth.q3_model_fit, p.q3_options
        ),
    ),
    MetricSpec(
        "q3_exact", "Q3 Exact", "conversation_wide", "conversation", "diagnostic",
        "exact match of Q3", "parse failure = 0",
        conversation=lambda p: metrics.exact(
            p.predicted(lambda a: a.q3_model_fit), p.truth.q3_model_fit
        ),
    ),
    MetricSpec(
        "q3_follow_up", "Q3 Follow-up", "conversation_wide", "conversation", "canonical",
        "set overlap with fuzzy matching between what the model says felt off (codebook options "
        "and entries in its own words, split at semicolons) and the participant's answers: P and "
        "G are the distinct entries after normalisation (lower case, commas as spaces, "
        "whitespace collapsed; a repeated entry counts once), two entries are matchable when "
        "their difflib ratio is ≥ 0.8, and M is the size of a maximum one-to-one matching (each "
        "entry matched at most once); M / (|P| + |G| - M), so 0-1",
        "NaN when the participant gave no follow-up (not asked); nothing predicted = 0; blank "
        "entries are left out",
        pillar="holistic_questions",
        conversation=lambda p: metrics.fuzzy_overlap(p.follow_up(), p.truth.q3_follow_up),
    ),
    MetricSpec(
        "four_branch", "Four-Branch", "conversation_wide", "conversation", "canonical",
        "1 - MAE/6 over perceiving, facilitating, understanding and managing (1-7)",
        "parse failure = 0",
        pillar="holistic",
        conversation=lambda p: _branches(p)["overall"],
    ),
    *(_branch(b) for b in BRANCHES),
)  # fmt: skip


def _rejudged(spec: MetricSpec) -> MetricSpec:
    return MetricSpec(
        REJUDGE_PREFIX + spec.name,
        f"{spec.label} (rejudged)",
        "rejudge",
        spec.level,
        spec.group,
        f"as `{spec.name}`, from a later judge's ratings of the stored drafts "
        "(`inspect score ... draft_rejudge`)",
        spec.edge_cases,
        turn=spec.turn,
    )


CATALOG: tuple[MetricSpec, ...] = (
    *_MAIN,
    *(_rejudged(s) for s in _MAIN if s.family == "draft"),
)
BY_NAME: dict[str, MetricSpec] = {s.name: s for s in CATALOG}
if len(BY_NAME) != len(CATALOG):  # pragma: no cover - a catalog edit error, caught at import
    raise RuntimeError("duplicate metric names in the catalog")


def spec(name: str) -> MetricSpec:
    """The catalog entry of a metric; KeyError names the known ones."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(BY_NAME)}") from None


POOLED_VIEWS = tuple(v for v in BINARY_VIEWS if spec(pooled_name(v, "f1")).group == "pooled")
"""The binary views whose pooled precision, recall, F1 and MCC are run-level metrics."""


def label(name: str) -> str:
    """How a person reads a metric name (the name itself where it is not a metric)."""
    found = BY_NAME.get(name)
    return found.label if found is not None else name


def of_family(family: Family) -> tuple[MetricSpec, ...]:
    return tuple(s for s in CATALOG if s.family == family)


def in_groups(*groups: Group) -> tuple[MetricSpec, ...]:
    return tuple(s for s in CATALOG if s.group in groups)


def names(specs: Sequence[MetricSpec]) -> tuple[str, ...]:
    return tuple(s.name for s in specs)


PILLAR_NAMES = names(in_groups("pillar"))
COMPOSITE_INPUTS = names(in_groups("canonical"))
"""The paper-canonical Composite inputs."""
REPORTED = names(in_groups("canonical", "alongside"))
"""The metrics a report's leaderboard shows by default."""
DIAGNOSTIC = names(tuple(s for s in in_groups("diagnostic", "informational") if s.level != "run"))
TURN_CANONICAL = names(tuple(s for s in in_groups("canonical") if s.level == "turn"))
"""Turn-level canonical metrics: what turn drift and subgroup views follow."""


def _members(pillar: Pillar, values: Mapping[str, float]) -> list[float]:
    return [values[s.name] for s in CATALOG if s.pillar == pillar]


def pillars(values: Mapping[str, float]) -> dict[str, float]:
    """The three pillars of one conversation from its canonical metric values; NaN (not
    applicable) inputs left out of their mean."""
    questions = metrics.nanmean(_members("holistic_questions", values))
    return {
        "emotion_pillar": metrics.nanmean(_members("emotion", values)),
        "evaluation_pillar": metrics.nanmean(_members("evaluation", values)),
        "holistic_pillar": metrics.nanmean([*_members("holistic", values), questions]),
    }
