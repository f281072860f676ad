"""Third-party labels (issue 30): the human-baseline page's answer files read as a second ground
truth, model logs scored again against it, and the reviewer's falsification test of the paper's
separability finding (docs/third-party.md).

`labels` reads answer files as label sets, `consensus` pools several annotators, `rescore` scores
a stored walk against both label sets through the scorers' own `score_conversation`, `analysis`
holds the statistics (agreement, self-specific gain, the rank-correlation test), `study` reads a
report's logs and answer files into them (the report's "Third-party labels" section,
`third_party_df`), and `power` is the simulation that sizes a study.
"""
