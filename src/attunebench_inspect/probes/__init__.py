"""Validity instruments that run beside the benchmark (DESIGN.md, "Validity instruments")."""
