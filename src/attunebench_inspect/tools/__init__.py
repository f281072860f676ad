"""The tools around the evaluation: they read its logs (`report`, `analysis`), prepare its runs
(`estimate`, `human`) and give them a command line (`cli`). Each imports the eval; the eval
imports none of them (tests/test_architecture.py)."""
