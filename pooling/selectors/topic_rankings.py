"""Each pooled run's whole ranking of one topic, kept in memory between an adaptive pool's asks.

An assessor asking for the next item of an adaptive budgeted pool needs every pooled run's
first few documents for the topic (its prefix, ``ranks_needed``; whole runs during
``hybrid``'s fused start) and, for the item chosen, the rank at which each run retrieved it.
Read from the database, both mean ranking every row the runs have for the topic, on every
ask, though the rows do not change from one ask to the next. Here they are read once per
topic and kept: the next ask cuts the prefixes from memory and looks the ranks up. So is
what is computed from them alone: ``hybrid``'s fused head (``fusion_head``), which sums a
weight for every row of every run.

What is kept can only go stale with the rows, and rows change only with a run's ``version``
(a replacement bumps it in the transaction that stores the new rows) or with the runs pooled
(a run withdrawn or accepted, a new upload): the key holds every pooled run's id and version,
and the task's collection, so any of these reads the rows anew. A document the collection
loses while its ranking is kept is the one change the key cannot see: the caller finds it
when the strategy chooses it and reads again (``topic_rankings_forget``). Judgments are never
kept here: each ask reads them (``assessment.services.priority``), and nothing kept depends on
them. Run names are read on each ask too (a rename changes no row, but the order the strategy
lists the runs in). A few topics are kept per process (``KEPT_DOCNOS``), the least recently
asked go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import connection

from pooling.core.algorithms.strategies import fusion_head
from pooling.core.algorithms.strategies.priority import ranked_docnos
from pooling.models import RunRow
from pooling.selectors.pool_inputs import PooledRuns
from pooling.selectors.strategy_inputs import (
    ITEM_COLUMN,
    ITEM_FILTER,
    StrategyRuns,
    poolable,
    run_names,
)

__all__ = [
    "KEPT_DOCNOS",
    "KeptRankings",
    "TopicRankings",
    "topic_rankings",
    "topic_rankings_forget",
]

# Ranked docnos kept over every topic (TREC-COVID round 1's 56 runs x 1,000 rows are ~56,000
# a topic, a few MB): about a dozen topics of that size per process.
KEPT_DOCNOS = 750_000

# (topic id, task kind, collection id, ((run id, version), ...)).
_Key = tuple[int, str, int | None, tuple[tuple[int, int], ...]]


@dataclass
class _Kept:
    """One topic's rankings: run id -> every docno in trec_eval's order, the docnos that
    cannot be pooled, and fused heads by (start, run ids in the order the strategy lists
    them)."""

    ranked: dict[int, list[str]]
    unpoolable: frozenset[str]
    heads: dict[tuple[int, tuple[int, ...]], list[str]] = field(default_factory=dict)
    walked: dict[int, list[str]] = field(default_factory=dict)  # run id -> poolable docnos

    @property
    def size(self) -> int:
        return sum(len(docs) for docs in self.ranked.values())

    def poolable(self, run_id: int) -> list[str]:
        """The run's docnos the strategy may choose: the ones that cannot be pooled walked
        past, as if the run had not retrieved them."""
        docs = self.ranked[run_id]
        if not self.unpoolable:
            return docs
        if run_id not in self.walked:
            self.walked[run_id] = [doc for doc in docs if doc not in self.unpoolable]
        return self.walked[run_id]


_kept: OrderedDict[_Key, _Kept] = OrderedDict()
_kept_size = 0
_lock = threading.Lock()


@dataclass(frozen=True)
class TopicRankings:
    """What an ask reads: ``cut`` each run's first ``depth`` docnos that can be pooled (what
    the strategy chooses from), ``whole`` every docno as submitted (the ranks of the chosen
    item, ``StrategyRuns.contributions``), and ``head`` hybrid's fused head of the poolable
    rankings when it was asked for."""

    cut: StrategyRuns
    whole: StrategyRuns
    head: list[str] | None = None


@dataclass(frozen=True)
class KeptRankings:
    """One topic's kept rankings, with the pooled runs' names as this ask read them."""

    key: _Key
    number: str
    kept: _Kept
    names: dict[int, str]

    def at(self, depth: int | None = None, fusion_start: int | None = None) -> TopicRankings:
        """Each run's first ``depth`` docnos that can be pooled (None: all) and every docno,
        and with ``fusion_start`` hybrid's fused head of that length (fused on the first ask
        for it, then kept)."""
        names, kept = self.names, self.kept
        order = sorted(kept.ranked, key=lambda pk: names[pk])  # as strategy_runs lists them
        lists = {pk: kept.poolable(pk) for pk in order}
        whole = StrategyRuns({self.number: {names[pk]: kept.ranked[pk] for pk in order}})
        # Whole lists are handed over as kept, not copied: the strategies only read them.
        cut = StrategyRuns(
            {
                self.number: {
                    names[pk]: lists[pk] if depth is None else lists[pk][:depth] for pk in order
                }
            }
        )
        whole.run_ids = cut.run_ids = {name: pk for pk, name in names.items()}
        if fusion_start is None:
            return TopicRankings(cut, whole)
        # The strategy lists the runs by name (``adaptive_strategy``), and the fused sums
        # follow that order to the last bit: a head is kept per order.
        head_key = (fusion_start, tuple(order))
        with _lock:
            head = kept.heads.get(head_key)
        if head is None:
            head = fusion_head([lists[pk] for pk in order], fusion_start)
            with _lock:
                kept.heads[head_key] = head
        return TopicRankings(cut, whole, head)


def _read(run_ids: Sequence[int], topic_id: int, kind: str, collection_id: int | None) -> _Kept:
    """The runs' docnos for the topic in trec_eval's order, as ``strategy_runs`` ranks them,
    and those that cannot be pooled (one query; runs without rows for the topic are left
    out)."""
    runs_in = ", ".join(["%s"] * len(run_ids))
    condition, condition_params = poolable(kind, collection_id)
    sql = (
        f"SELECT run_id, score, {ITEM_COLUMN[kind]}, {condition} "  # noqa: S608
        f"FROM {RunRow._meta.db_table} "
        f"WHERE run_id IN ({runs_in}) AND topic_id = %s AND {ITEM_FILTER[kind]}"
    )
    rows: dict[int, list[tuple[float, str]]] = defaultdict(list)
    shared: dict[str, str] = {}  # one string per docno, however many runs retrieved it
    unpoolable: set[str] = set()
    with connection.cursor() as cursor:
        cursor.execute(sql, [*condition_params, *run_ids, topic_id])
        for run_id, score, docno, can_pool in cursor.fetchall():
            rows[run_id].append((score, shared.setdefault(docno, docno)))
            if not can_pool:
                unpoolable.add(docno)
    ranked = {run_id: ranked_docnos(run_rows) for run_id, run_rows in rows.items()}
    return _Kept(ranked, frozenset(unpoolable))


def _keep(key: _Key, kept: _Kept) -> None:
    global _kept_size
    size = kept.size
    with _lock:
        if key in _kept or size > KEPT_DOCNOS:
            return
        _kept[key] = kept
        _kept_size += size
        while _kept_size > KEPT_DOCNOS:
            _old, dropped = _kept.popitem(last=False)
            _kept_size -= dropped.size


def topic_rankings(
    runs: PooledRuns,
    topic: tuple[int, str],
    *,
    kind: str,
    collection_id: int | None,
    known: KeptRankings | None = None,
) -> KeptRankings:
    """The pooled runs' rankings of ``topic`` ((pk, number)), as ``strategy_runs`` ranks them:
    read from the database on the topic's first ask and whenever a pooled run or the task's
    collection changed since, else kept. ``known``: what an earlier call of this ask gave
    (read before the pool lock), returned as it is while ``runs`` are still the same."""
    run_ids = [spec.run_id for spec in runs.specs]
    versions = {entry["run"]: entry.get("version", 0) for entry in runs.described}
    key: _Key = (
        topic[0],
        kind,
        collection_id,
        tuple(sorted((pk, versions.get(pk, 0)) for pk in run_ids)),
    )
    if known is not None and known.key == key:
        return known
    with _lock:
        kept = _kept.get(key)
        if kept is not None:
            _kept.move_to_end(key)
    if kept is None:
        kept = _read(run_ids, topic[0], kind, collection_id) if run_ids else _Kept({}, frozenset())
        _keep(key, kept)
    names = run_names(run_ids) if run_ids else {}
    return KeptRankings(key, topic[1], kept, names)


def topic_rankings_forget(topic_id: int | None = None) -> None:
    """Drop the kept rankings of ``topic_id`` (a document its collection lost since they were
    read), or every kept ranking (between tests, whose databases reuse ids)."""
    global _kept_size
    with _lock:
        for key in [k for k in _kept if topic_id is None or k[0] == topic_id]:
            _kept_size -= _kept.pop(key).size
