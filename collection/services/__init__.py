"""Writes of the collection app: importing topics and the collection (thin commands call these)."""

from collection.services.collection_import import (
    CollectionImportBusy,
    CollectionImportReport,
    FileOutcome,
    ImportProgress,
    collection_import,
)
from collection.services.topics_import import TopicsImportReport, topics_import

__all__ = [
    "CollectionImportBusy",
    "CollectionImportReport",
    "FileOutcome",
    "ImportProgress",
    "TopicsImportReport",
    "collection_import",
    "topics_import",
]
