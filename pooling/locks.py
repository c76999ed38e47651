"""The one lock order of pool writes and judging.

A pool rebuild deletes the items and hits nobody has judged; a submit inserts judgments of
hits. Without a common lock a rebuild could read "unjudged", a submit judge that hit, and the
rebuild then delete it (a ProtectedError or an IntegrityError for the organizer), or the
submit insert a judgment of a hit the rebuild has just deleted (a 500 for the assessor).

Every transaction that writes a topic's pool rows (PoolItem, Hit, Contribution) or judgments
takes its locks in this order:

1. the topic's pool lock, ``topic_pools_lock`` (a PostgreSQL transaction-level advisory lock
   per topic id), taking several topics in ascending id order;
2. then row locks: the assignment (``SELECT … FOR UPDATE``), then pool items, hits and
   judgments (by the writes themselves).

Pool builds (``pooling.services.pool_writes``, per chunk of topics) and judging submits
(``assessment.services.judging``) both start with step 1, so for one topic they run one after
the other: a build sees every judgment committed before it and never removes a judged hit,
and a submit sees the pool as the build left it. Nothing waits for a topic lock while holding
a row lock, so the order cannot deadlock.

SQLite (the embedded demo) has no advisory locks and lets one writer at a time hold the
database anyway: there the lock is a no-op.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

__all__ = ["TOPIC_POOL_LOCK_CLASS", "topic_pools_lock"]

# The first key of PostgreSQL's two-key advisory locks: which kind of object is locked. The
# two-int key space is apart from the single-bigint one, so other locks cannot collide.
TOPIC_POOL_LOCK_CLASS = 0x5153  # "QS"


def topic_pools_lock(*, topic_ids: Iterable[int]) -> None:
    """Take the pool lock of each topic, in ascending id order, until the transaction ends.

    Call it inside ``transaction.atomic()`` before any other lock or write of the topics'
    pools or judgments (see the module docstring for the order).
    """
    if connection.vendor != "postgresql":
        return
    if not connection.in_atomic_block:
        raise RuntimeError("topic_pools_lock must be called inside transaction.atomic()")
    with connection.cursor() as cursor:
        # One statement per topic: the order of the locks is the order of the statements.
        for topic_id in sorted(set(topic_ids)):
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s, %s::integer)",
                [TOPIC_POOL_LOCK_CLASS, topic_id],
            )
