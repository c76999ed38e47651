"""Each pooled run's whole ranking of one topic, kept in memory between an adaptive pool's asks.

An assessor asking for the next item of an adaptive budgeted pool needs every pooled run's
first few documents for the topic (its prefix, ``ranks_needed``; whole runs during
``hybrid``'s fused start) and, for the item chosen, the rank at which each run retrieved it.
Read from the database, both mean ranking every row the runs have for the topic, on every
ask, though the rows do not change from one ask to the next. Here they are read once per
topic and kept: the next ask cuts the prefixes from memory and looks the ranks up.

What is kept can only go stale with the rows, and rows change only with a run's ``version``
(a replacement bumps it in the transaction that stores the new rows) or with the runs pooled
(a run withdrawn or accepted, a new upload): the key holds every pooled run's id and version,
so any of these reads the rows anew. Judgments are never kept here: each ask reads them
(``assessment.services.priority``). Run names are read on each ask too (a rename changes no
row). A few topics are kept per process (``KEPT_DOCNOS``), the least recently asked go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Sequence

from django.db import connection

from pooling.core.algorithms.strategies.priority import ranked_docnos
from pooling.models import RunRow
from pooling.selectors.pool_inputs import PooledRuns
from pooling.selectors.strategy_inputs import ITEM_COLUMN, ITEM_FILTER, StrategyRuns, run_names

__all__ = ["KEPT_DOCNOS", "topic_rankings", "topic_rankings_forget"]

# Ranked docnos kept over every topic (TREC-COVID round 1's 56 runs x 1,000 rows are ~56,000
# a topic, a few MB): about a dozen topics of that size per process.
KEPT_DOCNOS = 750_000

# (topic id, task kind, ((run id, version), ...)) -> run id -> its docnos in trec_eval's order.
_Key = tuple[int, str, tuple[tuple[int, int], ...]]
_kept: OrderedDict[_Key, dict[int, list[str]]] = OrderedDict()
_kept_size = 0
_lock = threading.Lock()


def _read(run_ids: Sequence[int], topic_id: int, kind: str) -> dict[int, list[str]]:
    """Run id -> its docnos for the topic in trec_eval's order, as ``strategy_runs`` ranks
    them (one query; runs without rows for the topic are left out)."""
    runs_in = ", ".join(["%s"] * len(run_ids))
    sql = (
        f"SELECT run_id, score, {ITEM_COLUMN[kind]} FROM {RunRow._meta.db_table} "  # noqa: S608
        f"WHERE run_id IN ({runs_in}) AND topic_id = %s AND {ITEM_FILTER[kind]}"
    )
    rows: dict[int, list[tuple[float, str]]] = defaultdict(list)
    shared: dict[str, str] = {}  # one string per docno, however many runs retrieved it
    with connection.cursor() as cursor:
        cursor.execute(sql, [*run_ids, topic_id])
        for run_id, score, docno in cursor.fetchall():
            rows[run_id].append((score, shared.setdefault(docno, docno)))
    return {run_id: ranked_docnos(run_rows) for run_id, run_rows in rows.items()}


def _keep(key: _Key, ranked: dict[int, list[str]]) -> None:
    global _kept_size
    size = sum(len(docs) for docs in ranked.values())
    with _lock:
        if key in _kept or size > KEPT_DOCNOS:
            return
        _kept[key] = ranked
        _kept_size += size
        while _kept_size > KEPT_DOCNOS:
            _old, dropped = _kept.popitem(last=False)
            _kept_size -= sum(len(docs) for docs in dropped.values())


def topic_rankings(
    runs: PooledRuns, topic: tuple[int, str], kind: str, depth: int | None = None
) -> tuple[StrategyRuns, StrategyRuns]:
    """The pooled runs' rankings of ``topic`` ((pk, number)) as ``strategy_runs`` gives them:
    each run's first ``depth`` docnos (None: whole), and whole (for the chosen item's ranks,
    ``StrategyRuns.contributions``). Read from the database on the topic's first ask and
    whenever a pooled run changed since."""
    run_ids = [spec.run_id for spec in runs.specs]
    versions = {entry["run"]: entry.get("version", 0) for entry in runs.described}
    key: _Key = (topic[0], kind, tuple(sorted((pk, versions.get(pk, 0)) for pk in run_ids)))
    with _lock:
        ranked = _kept.get(key)
        if ranked is not None:
            _kept.move_to_end(key)
    if ranked is None:
        ranked = _read(run_ids, topic[0], kind) if run_ids else {}
        _keep(key, ranked)
    names = run_names(run_ids) if run_ids else {}
    order = sorted(ranked, key=lambda pk: names[pk])  # as strategy_runs lists them
    whole = StrategyRuns({topic[1]: {names[pk]: ranked[pk] for pk in order}})
    cut = StrategyRuns({topic[1]: {names[pk]: ranked[pk][:depth] for pk in order}})
    whole.run_ids = cut.run_ids = {name: pk for pk, name in names.items()}
    return cut, whole


def topic_rankings_forget() -> None:
    """Drop every kept ranking (between tests, whose databases reuse ids)."""
    global _kept_size
    with _lock:
        _kept.clear()
        _kept_size = 0
