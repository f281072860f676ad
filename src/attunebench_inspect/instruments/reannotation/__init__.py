"""Re-annotation by third parties (docs/third-party.md): the human-baseline page's answer files,
filled in by people who did not hold the conversations, read as a second set of labels; every run
scored again against them; agreement, self-specific gain, and the reviewer's falsification test
of the paper's separability finding (seed 002: "re-annotating the same 200 conversations with
independent third-party judges").

`_labels` reads answer files as label sets, `_consensus` pools several annotators, `_rescore`
scores a stored walk against both label sets through the scorers' own `score_conversation`,
`_analysis` holds the statistics (agreement, self-specific gain, the rank-correlation test),
`_study` reads a report's logs and answer files into them (the report's "Third-party labels"
section, `_section.py`; `reannotation_df`), and `_power` is the simulation that sizes a study.
"""

DOC = "docs/third-party.md"

__all__ = ["DOC"]
