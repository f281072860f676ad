"""From Inspect logs to numbers: reading runs, the Composite, the analyses, and the report in
each of its forms (terminal, Markdown, CSV, JSON, HTML, figures)."""
