"""Warnings that do not block storage: ranks not in score order, topics without rows."""

from __future__ import annotations

import operator
from itertools import groupby

from kernel.core.ordering import natural_key
from pooling.core.formats.model import ParsedRun, RunContext


def warn_about_order_and_missing_topics(run: ParsedRun, context: RunContext) -> None:
    """Evaluation ranks by score (trec_eval), not by the rank column: a file whose ranks
    disagree with its scores is probably not what the team meant, so say so once per topic."""
    c = run.columns
    seen: set[str] = set()
    warned: set[str] = set()
    scattered: set[str] = set()  # topics whose rows are not in one stretch of the file
    start = 0
    for topic, group in groupby(c.topic):
        stop = start + sum(1 for _ in group)
        if topic in seen:
            scattered.add(topic)
        else:
            seen.add(topic)
            rows = (c.rank[start:stop], c.score[start:stop], c.line[start:stop])
            if _warn_if_unordered(run, topic, *rows):
                warned.add(topic)
        start = stop
    if scattered - warned:
        _check_scattered(run, scattered - warned)
    if context.topics is not None:
        for topic in sorted(context.topics - seen, key=natural_key):
            run.warn(None, "topic", f"topic {topic} has no rows")


def _warn_if_unordered(
    run: ParsedRun, topic: str, ranks: list[int], scores: list[float], lines: list[int]
) -> bool:
    """Warn (once) if a higher rank has a higher score; True when it did."""
    if not all(map(operator.lt, ranks, ranks[1:])):
        order = sorted(range(len(ranks)), key=ranks.__getitem__)
        ranks = [ranks[i] for i in order]
        scores = [scores[i] for i in order]
        lines = [lines[i] for i in order]
    if not any(map(operator.gt, scores[1:], scores)):  # the usual case, checked at C speed
        return False
    at = next(i for i in range(1, len(scores)) if scores[i] > scores[i - 1])
    run.warn(
        lines[at],
        "score",
        f"topic {topic}: rank {ranks[at]} scores higher than rank {ranks[at - 1]}; "
        "evaluation ranks by score",
    )
    return True


def _check_scattered(run: ParsedRun, topics: set[str]) -> None:
    c = run.columns
    rows: dict[str, tuple[list[int], list[float], list[int]]] = {}
    for topic, rank, score, line in zip(c.topic, c.rank, c.score, c.line, strict=True):
        if topic in topics:
            ranks, scores, lines = rows.setdefault(topic, ([], [], []))
            ranks.append(rank)
            scores.append(score)
            lines.append(line)
    for topic, (ranks, scores, lines) in rows.items():
        _warn_if_unordered(run, topic, ranks, scores, lines)
