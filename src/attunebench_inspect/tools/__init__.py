"""The kits the suite's tools are made of, below the instruments that use them: reading runs back
from their logs and laying out the report (`report`), and the bill of a run before it starts
(`estimate`). No tool imports an instrument: the suite puts them together (`_suite/`)."""
