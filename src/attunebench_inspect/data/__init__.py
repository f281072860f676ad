"""The conversation data layer: schema, codebook, loading, the visible/ground-truth split."""

from ._codebook import Codebook, load_codebook
from ._load import LoadResult, load_conversations, read_conversations
from ._problems import DataError, DataProblem
from ._schema import Conversation
from ._split import GroundTruth, VisibleConversation, split

__all__ = [
    "Codebook",
    "Conversation",
    "DataError",
    "DataProblem",
    "GroundTruth",
    "LoadResult",
    "VisibleConversation",
    "load_codebook",
    "load_conversations",
    "read_conversations",
    "split",
]
