"""Pool statistics and exports cached per build.

A task's pools change only when a build writes them, so what the pool page, the statistics
JSON and the TSV exports show is cached under a key holding the task, the latest build of its
campaign (id and finish time: a rebuilt database reusing ids does not match old entries) and a
digest of the campaign's runs as the figures label them (tag, team, role, flags, version), so
the next build — or an organizer's edit of a run — makes a new key. Nothing is cached while a
build of the campaign is queued or running: its half-written pools are read fresh.

The cache is Django's (Redis in production, failing soft: kernel/cache.py), so a miss, an
eviction or a Redis outage simply recomputes. After each build the worker fills it
(`pool_cache_warm`, queued by pooling.tasks), so the first organizer to open a pool page or
download an export after a build does not wait for the full-size figures (1 to 4 s uncached).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator

from django.core.cache import cache
from django.db.models import Exists, F, Subquery

from collection.models import RetrievalTask
from pooling.models import PoolBuild, PoolItem, Run
from pooling.selectors.pool_export import EXPORT_KINDS, pool_export_lines
from pooling.selectors.pool_inputs import pooled_task
from pooling.selectors.pools import PoolStats, pool_stats

CACHE_SECONDS = 7 * 24 * 3600  # a key is dead once the next build finishes; this bounds Redis
_ACTIVE = (PoolBuild.Status.PENDING, PoolBuild.Status.RUNNING)
# What the figures and exports show of a run: an edit of any of these changes the key.
_RUN_FIELDS = (
    *("id", "tag", "team__name", "role", "status", "version"),
    *("is_baseline", "pool_as_primary", "depth_override"),
)
_CHUNK = 1 << 16  # characters per piece of a cached export sent to the client


def pool_cache_key(task: RetrievalTask, name: str) -> str | None:
    """The key of ``name`` (figures or an export) of ``task``'s pools; None: do not cache.

    One query: the campaign's runs, each with the latest build's id and finish time and
    whether a build is under way (the same on every row)."""
    target = pooled_task(task)
    campaigns = {task.campaign_id, target.campaign_id}
    builds = PoolBuild.objects.filter(task__campaign_id__in=campaigns)
    items = PoolItem.objects.filter(topic__task_id=target.pk)
    rows = list(
        Run.objects.filter(task__campaign_id__in=campaigns)
        .order_by("id")
        .annotate(
            last_build=Subquery(builds.order_by("-id").values("id")[:1]),
            last_finished=Subquery(
                builds.order_by(F("finished_at").desc(nulls_last=True)).values("finished_at")[:1]
            ),
            # An adaptive budgeted pool grows between builds, an item at a time as judging
            # asks for it (pooling.services.priority_items): its newest item is in the key.
            last_item=Subquery(items.order_by("-id").values("id")[:1]),
            building=Exists(builds.filter(status__in=_ACTIVE)),
        )
        .values_list(*_RUN_FIELDS, "last_build", "last_finished", "last_item", "building")
    )
    if not rows or rows[0][-4] is None or rows[0][-1]:
        return None  # no runs or no build yet (nothing to cache), or a build under way
    digest = hashlib.sha256(repr([row[: len(_RUN_FIELDS)] for row in rows]).encode())
    last, finished, last_item = rows[0][-4], rows[0][-3], rows[0][-2]
    stamp = finished.isoformat() if finished else ""
    return f"pools:{name}:{task.pk}:{last}:{stamp}:{last_item}:{digest.hexdigest()[:32]}"


def cached_pool_stats(task: RetrievalTask) -> PoolStats:
    """``pool_stats(task)``, from the cache when the pools did not change since."""
    key = pool_cache_key(task, "stats")
    if key is None:
        return pool_stats(task)
    stats = cache.get(key)
    if not isinstance(stats, PoolStats):
        stats = pool_stats(task)
        cache.set(key, stats, CACHE_SECONDS)
    return stats


def cached_pool_export(task: RetrievalTask, kind: str) -> Iterator[str]:
    """``pool_export_lines(task, kind)``, from the cache when the pools did not change since.

    A miss streams the lines as they are read and caches the whole text (compressed: TSV
    shrinks three- to eightfold) once the last line was sent; a download cut short caches
    nothing."""
    key = pool_cache_key(task, f"export-{kind}")
    if key is None:
        return _batched(pool_export_lines(task, kind))
    packed = cache.get(key)
    if isinstance(packed, bytes):
        return _pieces(zlib.decompress(packed).decode())
    return _caching(_batched(pool_export_lines(task, kind)), key)


def _pieces(text: str) -> Iterator[str]:
    for start in range(0, len(text), _CHUNK):
        yield text[start : start + _CHUNK]


def _batched(lines: Iterator[str]) -> Iterator[str]:
    """The lines joined into pieces of about ``_CHUNK`` characters. The server writes each
    piece to the socket: a line at a time, at full size 18,000 to 45,000 writes, took gunicorn
    as long again as reading the pool."""
    piece: list[str] = []
    size = 0
    for line in lines:
        piece.append(line)
        size += len(line)
        if size >= _CHUNK:
            yield "".join(piece)
            piece, size = [], 0
    if piece:
        yield "".join(piece)


def _caching(pieces: Iterator[str], key: str) -> Iterator[str]:
    sent: list[str] = []
    for piece in pieces:
        sent.append(piece)
        yield piece
    # Level 1: at full size a sixth of level 6's time (15 ms against 90 ms for 2 MB, spent on
    # every miss) for entries about a third larger.
    cache.set(key, zlib.compress("".join(sent).encode(), 1), CACHE_SECONDS)


def pool_cache_warm(task: RetrievalTask) -> int:
    """Compute and cache the figures and both exports of every task of ``task``'s campaign
    that has pools (a build changes the key of all of them); the number of entries written."""
    written = 0
    for other in RetrievalTask.objects.filter(campaign_id=task.campaign_id).order_by("id"):
        if pool_cache_key(other, "stats") is None:
            continue  # no build yet, or one under way: nothing to keep
        if not isinstance(cache.get(pool_cache_key(other, "stats")), PoolStats):
            cached_pool_stats(other)
            written += 1
        for kind in EXPORT_KINDS:
            key = pool_cache_key(other, f"export-{kind}")
            if key is not None and not isinstance(cache.get(key), bytes):
                for _line in cached_pool_export(other, kind):
                    pass
                written += 1
    return written
