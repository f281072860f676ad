"""The metric catalog: the one declaration of every AttuneBench metric.

Each entry says what a metric is called (its key in `Score.value`, in logs and in reports), how a
person reads it (label, group, direction, range, pillar), where it is computed (its family's
scorer, per turn or per conversation) and how (`turn` or `conversation`: a pure function of one
turn's or the post-conversation call's inputs). The scorers, their run-level metrics, the
conformance vectors, the report's tables and figures, scorers/METRICS.md's tables and the tests
all read this tuple; nothing else lists metric names.

Pure arithmetic and declarations: nothing here calls Inspect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from .. import text_match as tm
from ..data.profile import BY_FIELD, PROFILE_FIELDS, ProfileField
from ..solve.schemas import BRANCHES, JUDGE_CRITERIA
from . import metrics as m
from . import profile as pm
from .profile import ProfileInputs

Family = Literal[
    "composite", "emotion", "binary", "pairwise", "draft", "rejudge", "conversation_wide",
    "similarity", "profile",
]  # fmt: skip
FAMILIES: tuple[Family, ...] = get_args(Family)
Level = Literal["turn", "conversation", "run"]
Group = Literal[
    "headline", "pillar", "canonical", "alongside", "pooled", "diagnostic", "informational",
    "operational", "profile_headline", "profile_part", "profile_field", "profile_operational",
]  # fmt: skip
"""How seed 003 groups a metric: the Composite and its pillars; the paper-canonical Composite
inputs; "reported alongside but not in the Composite"; the pooled view of binary accuracy;
diagnostic-only and informational variants; and operational counts of the run itself. The
profile task (`profile` family) has groups of its own: its composite, its four parts, the
fields, and its parse failures; its scorer logs every one of them in its own log header."""
RUN_LEVEL_GROUPS: tuple[Group, ...] = (
    "headline",
    "pillar",
    "canonical",
    "alongside",
    "pooled",
    "operational",
)
"""Groups with a run-level metric in the log header (and the end-of-run results panel); the
others stay in every sample's `Score.value` and reach reports through `--diagnostics`."""

Pillar = Literal[
    "emotion", "evaluation", "holistic", "holistic_questions", "demographics", "scores"
]
"""The main Composite's pillars; and the profile parts whose fields the catalog lists
(`demographics`, `scores`)."""
BinaryView = Literal["om", "hp", "om_hp_facing", "hp_hp_facing"]
BINARY_VIEWS: tuple[BinaryView, ...] = get_args(BinaryView)
REJUDGE_PREFIX = "rejudge_"
UNPLACED_LABELS = "profile_unplaced_labels"
"""The count, in a profile score, of the participant's labels the vocabulary could not place."""
POOLED_STATS = ("precision", "recall", "f1", "mcc")


# --- the inputs a metric is a function of -------------------------------------------------------


@dataclass(frozen=True)
class TurnInputs:
    """Everything one turn's metrics read: the evaluated model's parsed answers (None where the
    call failed to parse) and the participant's labels."""

    mood: dict[str, int] | None = None
    gold_mood: dict[str, int] = field(default_factory=dict)
    binary: dict[BinaryView, dict[str, str] | None] = field(default_factory=dict)
    """Predicted answers per view: observed/preferred from the observer-phrased call (om, hp)
    and from the HP-facing call (om_hp_facing, hp_hp_facing)."""
    gold_observed: dict[str, str] = field(default_factory=dict)
    gold_preferred: dict[str, str] = field(default_factory=dict)
    winners: dict[str, str] | None = None
    """comparison key -> the source the model chose."""
    gold_winners: dict[str, str] = field(default_factory=dict)
    judged: bool = False
    """Whether a judge rated this turn's draft (False: the draft metrics do not apply)."""
    judge: dict[str, Any] | None = None
    """The judge's parsed answer ({"ratings", "binary"}); None if it failed to parse or the
    draft was unusable."""
    draft_ok: bool = True

    def counts(self, view: BinaryView) -> m.BinaryCounts:
        gold = self.gold_observed if view.startswith("om") else self.gold_preferred
        return m.binary_counts(self.binary.get(view), gold)

    def rating(self, criterion: str) -> float:
        if not self.judged:
            return m.NAN
        if not self.draft_ok:  # an unusable draft is wrong on every criterion
            return 0.0
        return m.rating_score(self.judge["ratings"][criterion]) if self.judge else m.NAN

    def alignment(self) -> m.BinaryCounts | None:
        if not self.judged or (self.draft_ok and self.judge is None):
            return None
        answers = self.judge["binary"] if self.draft_ok and self.judge else None
        return m.binary_counts(answers, self.gold_preferred)


@dataclass(frozen=True)
class PostInputs:
    """The post-conversation call's parsed answer (None if it failed) and the labels."""

    post: dict[str, Any] | None
    pre_panas: dict[str, int]
    post_panas: dict[str, int]
    q1_looking_for: list[str]
    q2_emotion_clarity: str
    q3_model_fit: str
    q3_follow_up: list[str]
    four_branch: dict[str, int]
    q3_options: Sequence[str]

    def get(self, key: str) -> Any:
        return self.post.get(key) if self.post is not None else None

    def follow_up(self) -> list[str] | None:
        """The predicted follow-up: options chosen plus entries in the participant's words."""
        if self.post is None:
            return None
        chosen = [o for o, on in (self.post.get("q3_follow_up") or {}).items() if on]
        return chosen + tm.entries(self.post.get("q3_follow_up_own_words") or "")


# --- the catalog --------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricSpec:
    name: str
    label: str
    family: Family
    level: Level
    group: Group
    definition: str
    edge_cases: str = ""
    higher_is_better: bool = True
    pillar: Pillar | None = None
    low: float = 0.0
    high: float = 1.0
    turn: Callable[[TurnInputs], float] | None = field(default=None, repr=False)
    """Per-turn value; the conversation value is the mean over the turns where it is defined."""
    conversation: Callable[[PostInputs], float] | None = field(default=None, repr=False)
    profile: Callable[[ProfileInputs], float] | None = field(default=None, repr=False)
    """The profile task's metrics: a function of the profile call's answer and the profile."""

    @property
    def chance(self) -> float | None:
        """Measured: the mean on the bundled synthetic set for attunebench/random (`MEASURED`,
        `PROFILE_MEASURED`)."""
        return _measured(self.name)[0]

    @property
    def majority(self) -> float | None:
        """Measured the same way for attunebench/majority."""
        return _measured(self.name)[1]

    @property
    def run_level(self) -> bool:
        return self.group in RUN_LEVEL_GROUPS

    @property
    def computed(self) -> bool:
        """Computed per conversation by `score_conversation`, or `score_profile` for the profile
        family (vs. by its own scorer or the run)."""
        return self.turn is not None or self.conversation is not None or self.profile is not None

    def is_better(self, a: float, b: float) -> bool:
        return a > b if self.higher_is_better else a < b


def _binary(view: BinaryView, label: str, group: Group, pillar: Pillar | None) -> MetricSpec:
    behaviour = "observed" if view.startswith("om") else "preferred"
    phrasing = "HP-facing" if view.endswith("hp_facing") else "observer"
    name = {
        "om": "binary_om_accuracy",
        "hp": "binary_hp_accuracy",
        "om_hp_facing": "binary_om_accuracy_hp_facing",
        "hp_hp_facing": "binary_hp_accuracy_hp_facing",
    }[view]
    return MetricSpec(
        name,
        label,
        "binary",
        "turn",
        group,
        f"share of the turn's binary questions where the predicted *{behaviour}* behaviour "
        f"equals the participant's label ({phrasing} phrasing)",
        "a label of `na` is excluded; a predicted `na` (or no answer) against yes/no is wrong; "
        "NaN for a turn whose every label is `na`; parse failure = every question wrong",
        pillar=pillar,
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
        "predicted `na` counts as not-yes; NaN where a denominator is 0",
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
        "against the participant's own edited response, as (r - 1)/6",
        "absent without a judge role; NaN where the judge's answer failed to parse (counted in "
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
        conversation=lambda p: m.four_branch(p.get("four_branch"), p.four_branch)[branch],
    )


def _alignment(t: TurnInputs) -> float:
    counts = t.alignment()
    return counts.accuracy if counts is not None else m.NAN


# --- the profile task ---------------------------------------------------------------------------

_PROFILE_MISSING = "NaN where the participant's profile does not give it; parse failure = 0"
_PLACED = (
    "NaN where the participant's profile does not give it, or gives a label the profile "
    "vocabulary cannot place; parse failure = 0"
)
_VOCABULARY = (
    "the options are the profile vocabulary's, the participant's label scored as the option it "
    "is, is an alias of, or is uniquely close to (docs/profile.md)"
)
_ORDER = {
    "age_range": "ranked in the vocabulary's order, lowest first (bundled: 18-24 < 25-34 < ... "
    "< 65+)",
    "education": "ranked in the vocabulary's order, lowest first (bundled: six levels, less "
    "than high school < high school < some college or vocational training < bachelor's < "
    "master's < doctorate)",
}


def _profile_choice(f: ProfileField) -> MetricSpec:
    attitude = f.section == "attitude"
    return MetricSpec(
        f"profile_{f.name}",
        f"Profile: {f.label}",
        "profile",
        "conversation",
        "profile_part" if attitude else "profile_field",
        f"exact match of the {f.label}; {_VOCABULARY}",
        _PLACED,
        pillar=None if attitude or f.name in _ORDER else "demographics",
        profile=lambda p: pm.choice_exact(p.answer(f.name), p.truth[f.name]),
    )


def _profile_ordinal(f: ProfileField) -> MetricSpec:
    return MetricSpec(
        f"profile_{f.name}_ordinal",
        f"Profile: {f.label} (ordinal)",
        "profile",
        "conversation",
        "profile_field",
        f"ordinal similarity 1 - |rank difference|/(options - 1) of the {f.label}, "
        f"{_ORDER[f.name]}",
        _PLACED,
        pillar="demographics",
        profile=lambda p: pm.choice_ordinal(p.answer(f.name), p.truth[f.name], p.orders[f.name]),
    )


def _profile_score(f: ProfileField) -> MetricSpec:
    return MetricSpec(
        f"profile_{f.name}",
        f"Profile: {f.label}",
        "profile",
        "conversation",
        "profile_field",
        f"1 - |error| / {f.high - f.low} on the {f.label} (range {f.low}-{f.high}, {f.source}: "
        f"{f.about})",
        _PROFILE_MISSING,
        pillar="scores",
        profile=lambda p: pm.score_accuracy(p.answer(f.name), p.truth[f.name], f.low, f.high),
    )


def _profile_part(pillar: Pillar, p: ProfileInputs) -> float:
    return m.nanmean([s.profile(p) for s in CATALOG if s.pillar == pillar and s.profile])


def _profile_composite(p: ProfileInputs) -> float:
    parts = [s.profile(p) for s in CATALOG if s.group == "profile_part" and s.profile]
    return pm.profile_composite(parts)


def _profile_metrics() -> tuple[MetricSpec, ...]:
    fields = PROFILE_FIELDS
    work, diagnoses = BY_FIELD["work_edu_background"], BY_FIELD["diagnoses"]
    return (
        MetricSpec(
            "profile_composite", "Profile composite", "profile", "conversation",
            "profile_headline",
            "100 x the mean of the four parts, equal weights: `profile_demographics`, "
            "`profile_diagnoses`, `profile_scores` and `profile_conversation_topic_attitude`; "
            "the run value is the mean over conversations",
            "a part the profile does not give is left out and the others reweighted; parse "
            "failure = 0",
            high=100.0, profile=_profile_composite,
        ),
        MetricSpec(
            "profile_demographics", "Profile: demographics", "profile", "conversation",
            "profile_part",
            "mean of the demographic fields the profile gives: country, education (ordinal), "
            "gender, age range (ordinal), English proficiency and work or education background",
            "a field the profile does not give is left out; parse failure = 0",
            profile=lambda p: _profile_part("demographics", p),
        ),
        MetricSpec(
            "profile_diagnoses", "Profile: diagnoses", "profile", "conversation", "profile_part",
            f"Jaccard |intersection| / |union| of the {diagnoses.label} named and reported; "
            f"{_VOCABULARY}",
            '"None of the above" is the empty set: naming none for a participant with none = 1; '
            "NaN where a reported diagnosis cannot be placed in the vocabulary; parse failure = 0",
            profile=lambda p: pm.diagnoses_overlap(
                p.answer(diagnoses.name), p.truth[diagnoses.name]
            ),
        ),
        MetricSpec(
            "profile_scores", "Profile: computed scores", "profile", "conversation",
            "profile_part",
            "mean of the computed-score fields the profile gives (WHO-5, ASRS-6, AQ-10, PROMIS "
            "anxiety, depression and sleep, the five TIPI scales), each 1 - |error| / its range",
            "a score the profile does not give is left out; parse failure = 0",
            profile=lambda p: _profile_part("scores", p),
        ),
        *(_profile_choice(f) for f in fields if f.section == "attitude"),
        MetricSpec(
            "profile_parse_failure_rate", "Profile parse failures", "profile", "conversation",
            "profile_operational",
            "1 where the profile call's answer failed to parse after the repair round, else 0",
            higher_is_better=False, profile=lambda p: float(p.prediction is None),
        ),
        *(
            spec
            for f in fields
            if f.section == "demographics" and f.kind == "choice"
            for spec in (
                (_profile_choice(f), _profile_ordinal(f)) if f.name in _ORDER
                else (_profile_choice(f),)
            )
        ),
        MetricSpec(
            f"profile_{work.name}", f"Profile: {work.label}", "profile", "conversation",
            "profile_field",
            f"fuzzy set overlap, as `q3_follow_up`, between the areas of the {work.label} the "
            "model names in its own words (split at semicolons; no fixed vocabulary) and the "
            "participant's entries: M / (|P| + |G| - M)",
            "NaN where the profile gives no entry; nothing named or parse failure = 0",
            pillar="demographics",
            profile=lambda p: pm.background_overlap(p.answer(work.name), p.truth[work.name]),
        ),
        *(_profile_score(f) for f in fields if f.kind == "score"),
    )  # fmt: skip


_W = m.COMPOSITE_WEIGHTS
_LOWEST_COMPOSITE = 100 * _W["holistic"] * (-1 / 3) / (_W["emotion"] + _W["holistic"])
"""H's lowest value is -1/3 (PANAS Baseline-Adjusted at -1); E is always defined (>= 0), Q may be
undefined, and then only E and H share the weight."""

CATALOG: tuple[MetricSpec, ...] = (
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
        pillar="emotion", turn=lambda t: m.emotion_f1(t.mood, t.gold_mood),
    ),
    MetricSpec(
        "emotion_va", "Emotion VA", "emotion", "turn", "canonical",
        "Hungarian matching (maximum total similarity) of predicted to labelled emotions over the "
        "20x20 valence-arousal similarity matrix; matched similarity / max(|P|, |G|)",
        "both empty = 1; one empty = 0; parse failure = 0",
        pillar="emotion", turn=lambda t: m.emotion_va(t.mood, t.gold_mood),
    ),
    MetricSpec(
        "emotion_intensity_mae", "Emotion Intensity MAE", "emotion", "turn", "diagnostic",
        "mean |intensity difference| over the emotions both predicted and labelled",
        "NaN when none is shared or on parse failure",
        higher_is_better=False, high=6.0,
        turn=lambda t: m.emotion_intensity_mae(t.mood, t.gold_mood),
    ),
    MetricSpec(
        "emotion_hit_rate", "Emotion Hit Rate", "emotion", "turn", "diagnostic",
        "recall of the labelled emotions: |P∩G| / |G|",
        "NaN on a neutral turn (G empty); parse failure = 0",
        turn=lambda t: m.emotion_hit_rate(t.mood, t.gold_mood),
    ),
    # --- binary --------------------------------------------------------------------------------
    _binary("om", "Binary OM", "canonical", "evaluation"),
    _binary("hp", "Binary HP", "canonical", "evaluation"),
    _binary("om_hp_facing", "Binary OM (HP-facing)", "diagnostic", None),
    _binary("hp_hp_facing", "Binary HP (HP-facing)", "diagnostic", None),
    *(_pooled(view, stat) for view in BINARY_VIEWS for stat in POOLED_STATS),
    # --- pairwise ------------------------------------------------------------------------------
    MetricSpec(
        "pairwise_accuracy", "Pairwise Accuracy", "pairwise", "turn", "canonical",
        "share of the turn's comparisons (general + the selected questions, x 3 pairs) where the "
        "evaluated model chose the participant's winner",
        "NaN for a turn without comparisons; parse failure = every comparison wrong",
        pillar="evaluation", turn=lambda t: m.pairwise_accuracy(t.winners, t.gold_winners),
    ),
    MetricSpec(
        "kendall_tau", "Kendall τ", "pairwise", "turn", "alongside",
        "Kendall τ-b between the rankings of the three responses implied by win counts (model vs "
        "participant), per pairwise question; the turn value is the mean over its questions",
        "undefined (skipped, counted in `tau_undefined`) when either ranking is all ties; parse "
        "failure = undefined",
        low=-1.0, turn=lambda t: m.nanmean(m.kendall_tau(t.winners, t.gold_winners)),
    ),
    # --- draft (only with a judge) ------------------------------------------------------------
    *(_draft(c) for c in JUDGE_CRITERIA),
    MetricSpec(
        "draft_binary_alignment", "Draft Binary Alignment", "draft", "turn", "diagnostic",
        "share of the turn's binary questions where the judge's answer about the *draft* equals "
        "the participant's preferred behaviour",
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
        conversation=lambda p: m.panas_baseline_adjusted(
            p.get("post_panas"), p.pre_panas, p.post_panas
        ),
    ),
    MetricSpec(
        "panas_normalized", "PANAS Normalized", "conversation_wide", "conversation", "diagnostic",
        "1 - MAE/60 over the positive and negative affect totals (10-70 each, derived from items)",
        "parse failure = 0",
        conversation=lambda p: m.panas_normalized(p.get("post_panas"), p.post_panas),
    ),
    MetricSpec(
        "panas_item_normalized", "PANAS Item Normalized", "conversation_wide", "conversation",
        "diagnostic", "1 - item MAE/6 over the 20 items", "parse failure = 0",
        conversation=lambda p: m.panas_item_normalized(p.get("post_panas"), p.post_panas),
    ),
    MetricSpec(
        "q1_goals", "Q1 Goals", "conversation_wide", "conversation", "canonical",
        "Jaccard |intersection| / |union| of the selected Q1 options",
        "both empty = 1; parse failure = 0",
        pillar="holistic_questions",
        conversation=lambda p: m.jaccard(m.selected(p.get("q1_looking_for")), p.q1_looking_for),
    ),
    MetricSpec(
        "q2_clarity", "Q2 Clarity", "conversation_wide", "conversation", "canonical",
        "exact match of the Q2 option", "parse failure = 0",
        pillar="holistic_questions",
        conversation=lambda p: m.exact(p.get("q2_emotion_clarity"), p.q2_emotion_clarity),
    ),
    MetricSpec(
        "q3_fit", "Q3 Fit", "conversation_wide", "conversation", "canonical",
        "ordinal similarity 1 - |rank difference|/(options - 1) of Q3 (codebook option order, "
        "worst to best)",
        "parse failure = 0",
        pillar="holistic_questions",
        conversation=lambda p: m.ordinal(p.get("q3_model_fit"), p.q3_model_fit, p.q3_options),
    ),
    MetricSpec(
        "q3_exact", "Q3 Exact", "conversation_wide", "conversation", "diagnostic",
        "exact match of Q3", "parse failure = 0",
        conversation=lambda p: m.exact(p.get("q3_model_fit"), p.q3_model_fit),
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
        conversation=lambda p: m.fuzzy_overlap(p.follow_up(), p.q3_follow_up),
    ),
    MetricSpec(
        "four_branch", "Four-Branch", "conversation_wide", "conversation", "canonical",
        "1 - MAE/6 over perceiving, facilitating, understanding and managing (1-7)",
        "parse failure = 0",
        pillar="holistic",
        conversation=lambda p: m.four_branch(p.get("four_branch"), p.four_branch)["overall"],
    ),
    *(_branch(b) for b in BRANCHES),
    # --- the profile task ---------------------------------------------------------------------
    *_profile_metrics(),
)  # fmt: skip


MEASURED: dict[str, tuple[float | None, float | None]] = {
    "composite": (21.54, 40.41),
    "emotion_pillar": (0.132, 0.188),
    "evaluation_pillar": (0.362, 0.667),
    "holistic_pillar": (0.024, 0.119),
    "parse_failure_rate": (0.000, 0.000),
    "emotion_f1": (0.119, 0.188),
    "emotion_va": (0.144, 0.188),
    "emotion_intensity_mae": (1.806, None),
    "emotion_hit_rate": (0.490, 0.000),
    "binary_om_accuracy": (0.305, 0.795),
    "binary_hp_accuracy": (0.290, 0.666),
    "binary_om_accuracy_hp_facing": (0.366, 0.795),
    "binary_hp_accuracy_hp_facing": (0.331, 0.666),
    "pairwise_accuracy": (0.491, 0.541),
    "kendall_tau": (-0.006, 0.082),
    "panas_baseline_adjusted": (-0.922, -0.681),
    "panas_normalized": (0.769, 0.792),
    "panas_item_normalized": (0.645, 0.754),
    "q1_goals": (0.309, 0.000),
    "q2_clarity": (0.240, 0.480),
    "q3_fit": (0.507, 0.493),
    "q3_exact": (0.240, 0.200),
    "q3_follow_up": (0.283, 0.000),
    "four_branch": (0.647, 0.765),
    "four_branch_perceiving": (0.700, 0.767),
    "four_branch_facilitating": (0.587, 0.793),
    "four_branch_understanding": (0.667, 0.753),
    "four_branch_managing": (0.633, 0.747),
}
"""(attunebench/random, attunebench/majority): each metric's mean over the bundled synthetic set,
default mode, seed 0 (None: NaN there). Measured, not assumed, and checked by
tests/test_catalog.py against fresh runs; properties of the synthetic set, not of AttuneBench."""

PROFILE_MEASURED: dict[str, tuple[float | None, float | None]] = {
    "profile_composite": (29.75, 48.68),
    "profile_demographics": (0.316, 0.380),
    "profile_diagnoses": (0.079, 0.480),
    "profile_scores": (0.675, 0.807),
    "profile_conversation_topic_attitude": (0.120, 0.280),
    "profile_parse_failure_rate": (0.000, 0.000),
    "profile_country": (0.000, 0.000),
    "profile_education": (0.160, 0.000),
    "profile_education_ordinal": (0.656, 0.408),
    "profile_gender": (0.360, 0.480),
    "profile_age_range": (0.160, 0.120),
    "profile_age_range_ordinal": (0.600, 0.672),
    "profile_english_proficiency": (0.280, 0.720),
    "profile_work_edu_background": (0.000, 0.000),
    "profile_who_5": (0.707, 0.864),
    "profile_asrs_6": (0.680, 0.780),
    "profile_aq_10": (0.768, 0.816),
    "profile_promis_anxiety": (0.627, 0.807),
    "profile_promis_depression": (0.667, 0.748),
    "profile_promis_sleep": (0.715, 0.865),
    "profile_tipi_extraversion": (0.690, 0.847),
    "profile_tipi_agreeableness": (0.637, 0.790),
    "profile_tipi_conscientiousness": (0.620, 0.747),
    "profile_tipi_stability": (0.687, 0.813),
    "profile_tipi_openness": (0.630, 0.803),
}
"""The same for the profile task (`attunebench_inspect/profile` on the bundled set), checked by
tests/test_profile.py."""


def _measured(name: str) -> tuple[float | None, float | None]:
    return MEASURED.get(name) or PROFILE_MEASURED.get(name) or (None, None)


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


CATALOG = (*CATALOG, *(_rejudged(s) for s in CATALOG if s.family == "draft"))
BY_NAME: dict[str, MetricSpec] = {s.name: s for s in CATALOG}
if len(BY_NAME) != len(CATALOG):  # pragma: no cover - a catalog edit error, caught at import
    raise RuntimeError("duplicate metric names in the catalog")


def spec(name: str) -> MetricSpec:
    """The catalog entry of a metric; KeyError names the known ones."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(BY_NAME)}") from None


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
    """The three pillars of one conversation from its canonical metric values (NaN inputs, i.e.
    not applicable, are left out of their pillar's mean)."""
    questions = m.nanmean(_members("holistic_questions", values))
    return {
        "emotion_pillar": m.nanmean(_members("emotion", values)),
        "evaluation_pillar": m.nanmean(_members("evaluation", values)),
        "holistic_pillar": m.nanmean([*_members("holistic", values), questions]),
    }


COUNT_FIELDS = ("n", "correct", "tp", "fp", "fn", "tn")
COUNTS: dict[str, str] = {
    **{
        f"{view}_{count}": f"binary judgements ({view} view): {count}"
        for view in BINARY_VIEWS
        for count in COUNT_FIELDS
    },
    "tau_defined": "Kendall τ values that were defined",
    "tau_undefined": "Kendall τ values skipped (a ranking with all ties, or a parse failure)",
    "judge_parse_failures": "judge answers that failed to parse",
    REJUDGE_PREFIX + "judge_parse_failures": "the later judge's answers that failed to parse",
    "calls": "calls of the evaluated model",
    "parse_failures": "calls of the evaluated model whose answer failed to parse",
    "repaired": "calls whose answer parsed after the repair round",
    UNPLACED_LABELS: "the count of the participant's labels that the profile vocabulary cannot "
    "place (their fields are not scored)",
}
"""Per-conversation counts kept beside the metrics in `Score.value` (the pooled metrics, the
report's operations table and its profile table are computed from them)."""
