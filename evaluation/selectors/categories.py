"""Results by topic category, for the results page (``evaluation/core/categories.py``)."""

from __future__ import annotations

from collection.models import RetrievalTask
from collection.selectors import topic_categories_of
from evaluation.core.categories import CategorySubset, category_subsets
from evaluation.models import QrelsVersion
from kernel.core.qrels import qrels_parse


def results_by_category(
    task: RetrievalTask, qrels: QrelsVersion, rows: list[dict], measure: str
) -> list[CategorySubset]:
    """Each run's mean of ``measure`` per topic category (empty when no topic has one)."""
    categories = topic_categories_of(task)
    if not categories or not rows:
        return []
    topics = {entry.topic for entry in qrels_parse(qrels.content)}
    return category_subsets(rows, categories, topics, measure)
