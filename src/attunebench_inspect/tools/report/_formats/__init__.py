"""The report's formats: each lays out the same tables (or, as JSON, the same report object)."""

from .comma_separated import to_csv
from .json_document import to_json
from .markdown import to_markdown
from .terminal import to_terminal

__all__ = ["to_csv", "to_json", "to_markdown", "to_terminal"]
