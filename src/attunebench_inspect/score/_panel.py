"""The judge panel's answer about a draft, from its judges' answers: the mean rating and the
plurality answer (Verga et al. 2024). The draft metrics read it; the stability instrument
measures how far the judges agree. Pure: no Inspect."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..solve._predictions import JudgeVerdict

NAN = float("nan")
RATING_DOMAIN = (1, 2, 3, 4, 5, 6, 7)
ANSWER_DOMAIN = ("yes", "no", "na")


def panel_rating(ratings: Sequence[float | None]) -> float:
    """The panel's rating of one draft: the mean of its judges' ratings (None: that judge's
    answer failed to parse, left out); NaN when no judge rated it. The mean of a jury's scores
    (Verga et al. 2024, "Replacing judges with juries") keeps the 1-7 scale of one judge."""
    given = [r for r in ratings if r is not None]
    return sum(given) / len(given) if given else NAN


@dataclass(frozen=True)
class PanelAnswer:
    answer: str | None
    """The most frequent answer; None when no judge answered."""
    tied: bool
    """Whether several answers shared the top count (the earliest-listed judge's then won)."""


def panel_answer(answers: Sequence[str | None]) -> PanelAnswer:
    """The panel's yes/no/na answer about one draft: the most frequent answer, None answers
    (parse failures) left out; a tie goes to the earliest-listed judge among the tied answers,
    so a panel of one is that judge (docs/stability.md, 'Do the judges agree? (judge panel)')."""
    given = [a for a in answers if a is not None]
    if not given:
        return PanelAnswer(None, False)
    counts = Counter(given)
    top = max(counts.values())
    leaders = {a for a, c in counts.items() if c == top}
    first = next(a for a in given if a in leaders)
    return PanelAnswer(first, len(leaders) > 1)


def panel_verdict(verdicts: Sequence[JudgeVerdict | None]) -> JudgeVerdict | None:
    """The panel's answer about one draft from its judges' (in panel order; None where a
    judge's answer could not be used): per criterion `panel_rating`, per binary question
    `panel_answer`; None when no judge's answer could be used."""
    given = [v for v in verdicts if v is not None]
    if not given:
        return None
    criteria = dict.fromkeys(c for v in given for c in v.ratings)
    questions = dict.fromkeys(q for v in given for q in v.binary)
    answers = {q: panel_answer([v.binary.get(q) for v in given]).answer for q in questions}
    return JudgeVerdict(
        {c: panel_rating([v.ratings.get(c) for v in given]) for c in criteria},
        {q: a for q, a in answers.items() if a is not None},
    )
