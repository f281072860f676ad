"""What the catalog says of a metric (`MetricSpec`), and the vocabulary it says it in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, get_args

from ._chance_levels import measured
from ._inputs import PostInputs, TurnInputs

Family = Literal[
    "composite", "emotion", "binary", "pairwise", "draft", "rejudge", "conversation_wide",
    "similarity", "stability",
]  # fmt: skip
FAMILIES: tuple[Family, ...] = get_args(Family)
Level = Literal["turn", "conversation", "run"]
Group = Literal[
    "headline", "pillar", "canonical", "alongside", "pooled", "diagnostic", "informational",
    "operational", "stability",
]  # fmt: skip
"""How seed 003 groups a metric (scorers/METRICS.md); `stability`: the figures the stability
instrument writes into the main task's log (instruments/stability/_catalog.py), beside the
Composite and never in it."""
RUN_LEVEL_GROUPS: tuple[Group, ...] = tuple(
    g for g in get_args(Group) if g not in ("diagnostic", "informational")
)
"""Groups with a run-level metric in the log header (and the end-of-run results panel); the
diagnostic and informational ones stay in every sample's `Score.value` and reach reports through
`--diagnostics`."""

Pillar = Literal["emotion", "evaluation", "holistic", "holistic_questions"]
"""The Composite's pillars."""
REJUDGE_PREFIX = "rejudge_"
"""The names of the rejudge family: a draft metric's name after it (`inspect score` with
`draft_rejudge` writes them beside the original judge's)."""


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
    expected: float | None = None
    """Where neither end of the range is best: the value that is (a share a content-blind
    chooser gives)."""
    turn: Callable[[TurnInputs], float] | None = field(default=None, repr=False)
    """Per-turn value; the conversation value is the mean over the turns where it is defined."""
    conversation: Callable[[PostInputs], float] | None = field(default=None, repr=False)

    @property
    def chance(self) -> float | None:
        """Measured: the mean on the bundled set for attunebench/random (`chance_levels.json`)."""
        return measured(self.name)[0]

    @property
    def majority(self) -> float | None:
        """Measured the same way for attunebench/majority."""
        return measured(self.name)[1]

    @property
    def run_level(self) -> bool:
        return self.group in RUN_LEVEL_GROUPS

    @property
    def computed(self) -> bool:
        """Computed per conversation by `score_conversation` (vs. by its own scorer or the run)."""
        return self.turn is not None or self.conversation is not None
