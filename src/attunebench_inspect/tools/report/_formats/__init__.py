"""The report's formats: each lays out the same tables (or, as JSON, the same report object)."""

from .plain import csv_text, json_text, markdown_text
from .terminal import terminal_text

__all__ = ["csv_text", "json_text", "markdown_text", "terminal_text"]
