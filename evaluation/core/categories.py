"""Results by topic category: each run's mean over the topics of one category value.

The ARQMath overviews break results down by the topics' type, difficulty and dependency
(``collection/core/formats/topic_categories.py``). A subset's mean follows the run's own
averaging convention: over every qrels topic of the subset, a topic the run left out scoring 0
(``all``), or over the subset's topics the run was evaluated on (``run``). Pure: no Django.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kernel.core.ordering import natural_key


@dataclass(frozen=True, slots=True)
class CategorySubset:
    """One value of one category and its qrels topics, and each run's mean over them."""

    category: str
    value: str
    topics: tuple[str, ...]
    means: tuple[float | None, ...]  # one per row, in the rows' order; None: no topic to average


def _mean(row: Mapping[str, Any], topics: Sequence[str], measure: str) -> float | None:
    per_topic: Mapping[str, Mapping[str, float]] = row.get("per_topic", {})
    if row.get("average") == "run":
        topics = [t for t in topics if t in per_topic]
    if not topics:
        return None
    return sum(per_topic.get(t, {}).get(measure, 0.0) for t in topics) / len(topics)


def category_subsets(
    rows: Sequence[Mapping[str, Any]],
    categories: Mapping[str, Mapping[str, str]],
    qrels_topics: Collection[str],
    measure: str,
) -> list[CategorySubset]:
    """For each category and value (in name, then natural value order), the qrels topics that
    have it and each row's mean of ``measure`` over them. Topics outside the qrels (dropped,
    or never judged) are in no subset."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for topic in sorted(qrels_topics, key=natural_key):
        for name, value in categories.get(topic, {}).items():
            groups[name, value].append(topic)
    return [
        CategorySubset(name, value, tuple(topics), tuple(_mean(r, topics, measure) for r in rows))
        for (name, value), topics in sorted(
            groups.items(), key=lambda g: (g[0][0], natural_key(g[0][1]))
        )
    ]
