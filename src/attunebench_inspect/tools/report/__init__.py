"""From Inspect logs to numbers: reading runs, the Composite, bootstrap statistics."""
