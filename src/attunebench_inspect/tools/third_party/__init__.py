"""Third-party labels (issue 30): the human-baseline page's answer files read as a second ground
truth, model logs scored again against it, and the reviewer's falsification test of the paper's
separability finding (docs/third-party.md).

`labels` reads answer files as label sets, `consensus` pools several annotators, `rescore` scores
stored call records against them through the catalog's own functions, `analysis` holds the
statistics (agreement, self-specific gain, the rank-correlation test) and `power` the simulation
that sizes a study.
"""
