"""Budgeted pools of document and answer tasks: what a build with a strategy writes
(docs/pooling.md, "Budgeted pools in the app").

- A static strategy (depth, rrf, rbp) writes its whole pool at build time, each item's display
  order its place in the strategy's judging order, so assessors, who get items in display
  order, judge in priority order.
- An adaptive strategy (mtf, mm, mm-ns, hybrid) cannot know its pool before the judgments: a build
  writes only its first document of each empty topic, and judging adds each next one as an
  assessor asks for it (``pooling.services.priority_items``).
- Either way, a rebuild keeps every judged item that a pooled run still retrieves, and an
  adaptive rebuild with the same strategy keeps the items already handed out (an assessor may
  be judging one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pooling.core.algorithms import PlannedItem
from pooling.core.algorithms.strategies.priority import (
    PoolStrategy,
    adaptive_next,
    static_order,
)
from pooling.selectors.pool_inputs import PooledRuns, StoredPool, document_ids
from pooling.selectors.strategy_inputs import StrategyRuns, strategy_runs


@dataclass
class TopicPriority:
    """One topic of a budgeted build: the documents to add, in judging order."""

    number: str
    runs: StrategyRuns
    order: list[str]  # static: the pool in judging order; adaptive: its first document
    keep_unjudged: bool  # adaptive, same strategy: items handed out stay
    document_ids: dict[str, int] = field(default_factory=dict)
    adaptive: bool = False
    kind: str = "document"  # answer items are posts: their key is the post id

    def complete(self, plan: dict[str, PlannedItem], stored: StoredPool) -> None:
        """Add to ``plan`` the stored items to keep and the documents to add."""
        judged = stored.judged_items()
        kept = [
            key
            for key, (pk, _order, _orphan) in stored.items.items()
            if pk in judged or self.keep_unjudged
        ]
        wanted = list(kept)
        if not self.adaptive or not kept:
            wanted += self.order
        for key in wanted:
            if key in plan:
                continue
            contributions = self.runs.contributions(self.number, key)
            if not contributions:
                continue  # no pooled run retrieves it: orphaned if judged, else removed
            if self.kind == "answer":
                plan[key] = PlannedItem(key, contributions, post_id=int(key))
            else:
                plan[key] = PlannedItem(key, contributions, document_id=self.document_ids.get(key))

    def display_orders(self, existing: Mapping[str, int], keys: Iterable[str]) -> dict[str, int]:
        """Display orders for the new ``keys``: after every stored item, in judging order."""
        rank = {key: place for place, key in enumerate(self.order)}
        new = sorted(
            (key for key in keys if key not in existing), key=lambda k: (rank.get(k, len(rank)), k)
        )
        start = max(existing.values(), default=0) + 1
        return {key: start + offset for offset, key in enumerate(new)}


class StrategyMissingDocuments(Exception):
    """A document a strategy chose is no longer in the task's collection."""


def strategy_priorities(
    *,
    kind: str,
    collection_id: int | None,
    spec: PoolStrategy,
    runs: PooledRuns,
    topics: Sequence[tuple[int, str]],
    previous: Mapping[int, str | None],
) -> dict[int, TopicPriority]:
    """Per topic (pk), what a build with ``spec`` adds; ``previous`` gives the strategy label
    each topic's stored pool was built with (None: none, or the task's rules)."""
    found = strategy_runs([spec.run_id for spec in runs.specs], topics, kind)
    if spec.adaptive:
        orders = {
            number: [doc] if (doc := adaptive_next(spec, number, found.ranked[number], [])) else []
            for _pk, number in topics
        }
    else:
        orders = {number: [] for _pk, number in topics}
        for number, doc in static_order(spec, found.ranked):
            orders[number].append(doc)
    docnos = {doc for docs in orders.values() for doc in docs} if kind == "document" else set()
    ids = document_ids(collection_id, docnos) if collection_id and docnos else {}
    missing = sorted(docnos - ids.keys())
    if missing:
        raise StrategyMissingDocuments(
            f"runs name documents the task's collection no longer holds ({', '.join(missing[:5])}"
            f"{f' and {len(missing) - 5} more' if len(missing) > 5 else ''}); re-import the "
            "collection or the runs"
        )
    return {
        pk: TopicPriority(
            number=number,
            runs=found,
            order=orders[number],
            keep_unjudged=spec.adaptive and previous.get(pk) == spec.label,
            document_ids=ids,
            adaptive=spec.adaptive,
            kind=kind,
        )
        for pk, number in topics
    }
