"""`attunebench validate`: check a dataset without running a model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._util.text_match import FUZZY_THRESHOLD, matches
from ._codebook import Codebook
from ._load import LoadedConversation, read_conversations
from ._problems import DataProblem, shorten


@dataclass(frozen=True)
class ValidationSummary:
    files: int
    conversations: int
    valid_conversations: int
    turns: int
    mood_shift_tags: int
    binary_judgements: int
    pairwise_comparisons: int
    problems: list[DataProblem]
    warnings: list[DataProblem]
    ids: list[str]
    """The valid conversations' IDs, in data order (what `--sample-id` takes)."""

    def lines(self, data: str = "") -> list[str]:
        """Every problem and warning, then the counts (under `data`, the data set's line)."""
        return (
            [str(p) for p in self.problems]
            + [f"warning: {w}" for w in self.warnings]
            + ([data] if data else [])
            + [
                f"conversations: {self.conversations} ({self.valid_conversations} valid)",
                f"turns: {self.turns}",
                f"annotations: {self.mood_shift_tags} mood-shift tags, "
                f"{self.binary_judgements} binary judgements, "
                f"{self.pairwise_comparisons} pairwise comparisons, "
                f"{self.valid_conversations} post-PANAS, "
                f"{self.valid_conversations} conversation-wide sets",
                f"warnings: {len(self.warnings)}",
                f"problems: {len(self.problems)}",
            ]
        )


def follow_up_warnings(loaded: LoadedConversation, codebook: Codebook) -> list[DataProblem]:
    """A warning per follow-up entry that matches no codebook option the way Q3 Follow-up
    scoring matches them (`text_match`): participants may answer in their own words, and such an
    entry can only be matched by a prediction in similar words."""
    conv = loaded.conversation
    return [
        DataProblem(
            loaded.source,
            None,
            f"conversationWideQuestions.q3_followUp_whatFeltOff[{index}]",
            shorten(entry),
            f"close to a codebook follow-up option (similarity >= {FUZZY_THRESHOLD}); "
            "it is scored, and only a prediction in similar words can match it",
            conv.conversationId,
        )
        for index, entry in enumerate(conv.conversationWideQuestions.q3_followUp_whatFeltOff)
        if not any(matches(entry, option) for option in codebook.follow_up_options)
    ]


Check = Callable[[Sequence[LoadedConversation]], list[DataProblem]]
"""What a task other than the main one warns of in a data set (the profile task: labels its
vocabulary cannot place)."""


def validate_path(
    path: str | Path, codebook: Codebook, checks: Sequence[Check] = ()
) -> ValidationSummary:
    """Every problem and warning of a dataset: its format against the codebook, and `checks`'."""
    result = read_conversations(path, codebook)
    convs = [c.conversation for c in result.conversations]
    turns = [t for c in convs for t in c.turns]
    warnings = [w for c in result.conversations for w in follow_up_warnings(c, codebook)]
    warnings += [w for check in checks for w in check(result.conversations)]
    return ValidationSummary(
        files=len({p.source for p in result.problems} | {c.source for c in result.conversations}),
        conversations=result.records,
        valid_conversations=len(convs),
        turns=len(turns),
        mood_shift_tags=sum(len(t.moodShiftTags) for t in turns),
        binary_judgements=sum(len(t.annotations.binaryJudgements) for t in turns),
        pairwise_comparisons=sum(len(t.annotations.pairwiseComparisons) for t in turns),
        problems=result.problems,
        ids=[c.conversationId for c in convs],
        warnings=sorted([*result.warnings, *warnings], key=lambda w: w.source),
    )
