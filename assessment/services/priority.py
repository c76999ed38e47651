"""The next item of an adaptive budgeted pool, chosen when an assessor asks for it.

Under the topic's pool lock (pooling/locks.py, the lock every build and submit takes first):
an item handed out and not yet judged in this assignment's line comes first; otherwise the
strategy chooses from every judgment of the topic so far, whoever made it, and the pool grows
by that item (pooling.services.priority_items). Under a task budget the topic must also be
within its share, which follows every topic's judgments (``strategies.allocation``): a topic
finding relevant documents gets more of the budget, and a topic past its share takes the
budget no other topic could use now (none judged, or their runs exhausted). Two assessors
asking at once are served one after the other, and the second gets the item the first
caused, never a second new one.
Nothing here reads or shows a run, rank or score: the assessor sees an item, as ever.
"""

from __future__ import annotations

from django.db import transaction

from assessment.models import Assignment
from assessment.selectors.priority import grows_pool, task_judging, topic_judgments_in_order
from assessment.selectors.progress import item_statuses
from collection.models import Topic
from pooling.locks import topic_pools_lock
from pooling.selectors.strategy_inputs import topic_strategy
from pooling.services.priority_items import pool_next_item_add, pool_next_item_prepare


def priority_next_item(*, assignment: Assignment) -> int | None:
    """The item the assignment judges next in its topic's priority order (added to the pool
    if need be); None when the budget is spent, the runs hold nothing more, or the
    assignment covers only chosen items (a scope, a training round) and has judged them."""
    topic = assignment.topic
    before, _build = topic_strategy(topic.pk)
    rankings = None
    if before is not None and grows_pool(assignment):
        # The runs' rankings are read (on a topic's first ask, every row) before the lock,
        # which does not guard them: nobody else's ask or submit waits for the read.
        rankings = pool_next_item_prepare(topic=topic, spec=before)
    locked = [topic.pk]
    if before is not None and before.scope == "task":
        # Topics sharing a task budget take their items one at a time, or two could both
        # take the budget's last judgment.
        locked = list(Topic.objects.filter(task_id=topic.task_id).values_list("pk", flat=True))
    with transaction.atomic():
        topic_pools_lock(topic_ids=locked)
        pending = next((s.item_id for s in item_statuses(assignment) if s.judged < s.hits), None)
        if pending is not None:
            return pending
        spec, build = topic_strategy(topic.pk)
        if spec is None or not spec.adaptive or not grows_pool(assignment):
            return None
        judged = topic_judgments_in_order(topic.pk, topic.task.relevance_level)
        item = pool_next_item_add(
            topic=topic,
            spec=spec,
            build=build,
            judged=judged,
            judging=task_judging(topic, spec),
            rankings=rankings,
        )
        return None if item is None else item.pk
