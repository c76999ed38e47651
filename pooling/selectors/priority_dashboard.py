"""The organizer's view of a budgeted pool: per topic, judgments spent of the budget and
relevant documents found (docs/pooling.md, "Budgeted pools in the app").

Judgments live in the assessment app, which imports this one: they are counted here through
the reverse relation of hits, by name, so the dependency stays one-way. A pool item counts as
judged once an official or dual assessor judged it, and as relevant once one of them gave it
at least the task's relevance level.

Each topic's relevant documents still unjudged are estimated from the pooled runs' first
ESTIMATE_DEPTH documents and the judgments so far (``strategies.estimate``: bands of the
fused ranking, each with its judged share of relevant documents); relevant documents no run
ranks that high are not counted. A few queries whatever the pool's size: the counts, the
judged items, the runs' prefixes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q

from collection.models import RetrievalTask, Topic
from kernel.core.ordering import natural_key
from pooling.core.algorithms.strategies.estimate import unjudged_relevant_estimate
from pooling.core.algorithms.strategies.priority import PoolStrategy
from pooling.models import PoolItem
from pooling.selectors.pool_inputs import pooled_runs
from pooling.selectors.strategy_inputs import current_strategy, strategy_runs

# How deep each pooled run is read for the estimate of relevant documents still unjudged.
ESTIMATE_DEPTH = 100

_PEOPLE = Q(hits__judgments__assignment__purpose__in=("official", "dual"))


@dataclass(frozen=True)
class TopicSpend:
    number: str
    items: int  # handed out or built: what the budget paid for so far
    judged: int
    relevant: int
    budget: int | None  # per-topic budgets only
    unjudged_estimate: float | None = None  # relevant documents still unjudged (estimate)

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.budget) if self.budget else 0


@dataclass(frozen=True)
class PrioritySpend:
    strategy: PoolStrategy
    topics: list[TopicSpend] = field(default_factory=list)

    @property
    def budget(self) -> int:
        """The whole task's budget (a per-topic budget times the topics)."""
        if self.strategy.scope == "task":
            return self.strategy.budget
        return self.strategy.budget * len(self.topics)

    @property
    def judged(self) -> int:
        return sum(t.judged for t in self.topics)

    @property
    def relevant(self) -> int:
        return sum(t.relevant for t in self.topics)

    @property
    def items(self) -> int:
        return sum(t.items for t in self.topics)

    @property
    def unjudged_estimate(self) -> float | None:
        found = [t.unjudged_estimate for t in self.topics if t.unjudged_estimate is not None]
        return sum(found) if found else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy.as_dict(),
            "budget": self.budget,
            "judged": self.judged,
            "relevant": self.relevant,
            "relevant_unjudged_estimate": _rounded(self.unjudged_estimate),
            "topics": [
                {
                    "topic": t.number,
                    "items": t.items,
                    "judged": t.judged,
                    "relevant": t.relevant,
                    "budget": t.budget,
                    "relevant_unjudged_estimate": _rounded(t.unjudged_estimate),
                }
                for t in self.topics
            ],
        }


def priority_spend(task: RetrievalTask) -> PrioritySpend | None:
    """Per topic of a budgeted pool, what was spent and found; None: not a budgeted pool."""
    strategy = current_strategy(task.pk)
    if strategy is None:
        return None
    level = task.relevance_level
    rows = (
        PoolItem.objects.filter(topic__task=task)
        .order_by()
        .values("topic_id")
        .annotate(
            n=Count("pk", distinct=True),
            judged=Count("pk", distinct=True, filter=_PEOPLE),
            relevant=Count(
                "pk", distinct=True, filter=_PEOPLE & Q(hits__judgments__grade__gte=level)
            ),
        )
    )
    counts = {
        row["topic_id"]: {name: row[name] for name in ("n", "judged", "relevant")} for row in rows
    }
    none = {"n": 0, "judged": 0, "relevant": 0}
    per_topic = strategy.budget if strategy.scope == "topic" else None
    topics = sorted(
        Topic.objects.filter(task=task).values_list("id", "number"), key=lambda t: natural_key(t[1])
    )
    estimates = _unjudged_estimates(task, topics)
    return PrioritySpend(
        strategy,
        [
            TopicSpend(
                number,
                counts.get(pk, none)["n"],
                counts.get(pk, none)["judged"],
                counts.get(pk, none)["relevant"],
                per_topic,
                estimates.get(number),
            )
            for pk, number in topics
        ],
    )


def _unjudged_estimates(task: RetrievalTask, topics: list[tuple[int, str]]) -> dict[str, float]:
    """Topic number -> its estimate of relevant documents still unjudged (see the module doc);
    a topic no pooled run retrieved for has none."""
    run_ids = [spec.run_id for spec in pooled_runs(task).specs]
    if not run_ids or not topics:
        return {}
    runs = strategy_runs(run_ids, topics, task.kind, depth=ESTIMATE_DEPTH)
    level = task.relevance_level
    judged_rows = (
        PoolItem.objects.filter(topic__task=task)
        .order_by()
        .values("topic__number", "key")
        .annotate(
            judged=Count("pk", filter=_PEOPLE),
            relevant=Count("pk", filter=_PEOPLE & Q(hits__judgments__grade__gte=level)),
        )
    )
    judged: dict[str, dict[str, bool]] = {}
    for row in judged_rows:
        if row["judged"]:
            judged.setdefault(row["topic__number"], {})[row["key"]] = row["relevant"] > 0
    return {
        number: unjudged_relevant_estimate(ranked, judged.get(number, {}))
        for number, ranked in runs.ranked.items()
        if ranked
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)
