"""The pooling rules of docs/pooling.md as plain functions over plain ranked lists (no Django).

Randomness always comes from an injected ``random.Random``; ``item_rng`` derives one per pool
item so that a choice never depends on which other items or runs a build happened to see.
"""

import random

from pooling.core.algorithms.answer import (
    AnswerRow,
    DocumentRow,
    answer_pool,
    in_rank_order,
    pooled_posts,
)
from pooling.core.algorithms.display import display_orders
from pooling.core.algorithms.formula import (
    Candidate,
    FormulaPool,
    FormulaRow,
    formula_pool,
    pooled_formula_rows,
)
from pooling.core.algorithms.instances import select_by_thread, select_by_vote, select_instances
from pooling.core.algorithms.openqa import GeneratedAnswer, answer_key, openqa_pool
from pooling.core.algorithms.plan import (
    PlannedItem,
    plan_answer_topic,
    plan_document_topic,
    plan_formula_topic,
)
from pooling.core.algorithms.settings import PoolSettings, RunSpec, answer_depth, formula_k


def topic_rng(seed: int, topic: str) -> random.Random:
    """The RNG of a topic's display order (string seeds hash deterministically)."""
    return random.Random(f"{seed}|{topic}")  # noqa: S311 - a shuffle, not a secret


def item_rng(seed: int, topic: str, key: str) -> random.Random:
    """The RNG of one pool item's instance choice."""
    return random.Random(f"{seed}|{topic}|{key}")  # noqa: S311 - a shuffle, not a secret


__all__ = [
    "AnswerRow",
    "Candidate",
    "DocumentRow",
    "FormulaPool",
    "FormulaRow",
    "GeneratedAnswer",
    "PlannedItem",
    "PoolSettings",
    "RunSpec",
    "answer_depth",
    "answer_key",
    "answer_pool",
    "display_orders",
    "formula_k",
    "formula_pool",
    "in_rank_order",
    "item_rng",
    "openqa_pool",
    "plan_answer_topic",
    "plan_document_topic",
    "plan_formula_topic",
    "pooled_formula_rows",
    "pooled_posts",
    "select_by_thread",
    "select_by_vote",
    "select_instances",
    "topic_rng",
]
