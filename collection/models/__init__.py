"""The campaign, its tasks and topics, and the collections they are judged against.

Two kinds of collection coexist: the Math Stack Exchange collection (stackexchange.py) and
document collections (documents.py). Everything is imported from here.
"""

from collection.models.campaigns import (
    TOPIC_NUMBER_MAX_CHARS,
    Campaign,
    RetrievalTask,
    Topic,
    TopicFormula,
)
from collection.models.documents import (
    DOCNO_MAX_CHARS,
    Document,
    DocumentCollection,
    DocumentImport,
)
from collection.models.stackexchange import (
    CollectionImport,
    Comment,
    Formula,
    FormulaSlt,
    Post,
    Thread,
)

__all__ = [
    "DOCNO_MAX_CHARS",
    "TOPIC_NUMBER_MAX_CHARS",
    "Campaign",
    "CollectionImport",
    "Comment",
    "Document",
    "DocumentCollection",
    "DocumentImport",
    "Formula",
    "FormulaSlt",
    "Post",
    "RetrievalTask",
    "Thread",
    "Topic",
    "TopicFormula",
]
