"""Warnings that do not block storage: ranks not in score order, topics without rows."""

from __future__ import annotations

from itertools import pairwise

from pooling.formats.model import ParsedRun, RunContext


def warn_about_order_and_missing_topics(run: ParsedRun, context: RunContext) -> None:
    """Evaluation ranks by score (trec_eval), not by the rank column: a file whose ranks
    disagree with its scores is probably not what the team meant, so say so once per topic."""
    c = run.columns
    # topic -> (rank, score, line) of the previous row, while its rows come in rank order
    last: dict[str, tuple[int, float]] = {}
    unordered: dict[str, list[int]] = {}
    warned: set[str] = set()
    for i, (topic, rank, score) in enumerate(zip(c.topic, c.rank, c.score, strict=True)):
        previous = last.get(topic)
        last[topic] = (rank, score)
        if previous is None or topic in warned:
            continue
        if rank < previous[0]:  # rows not in rank order: sort this topic's rows at the end
            unordered.setdefault(topic, [])
        elif score > previous[1] and topic not in unordered:
            _warn(run, topic, c.line[i], rank, previous[0])
            warned.add(topic)
    if unordered:
        _check_sorted(run, set(unordered) - warned)
    if context.topics is not None:
        for topic in sorted(context.topics - set(last), key=_topic_order):
            run.warn(None, "topic", f"topic {topic} has no rows")


def _check_sorted(run: ParsedRun, topics: set[str]) -> None:
    c = run.columns
    rows: dict[str, list[int]] = {}
    for i, topic in enumerate(c.topic):
        if topic in topics:
            rows.setdefault(topic, []).append(i)
    for topic, indices in rows.items():
        indices.sort(key=lambda i: c.rank[i])
        for before, after in pairwise(indices):
            if c.score[after] > c.score[before]:
                _warn(run, topic, c.line[after], c.rank[after], c.rank[before])
                break


def _warn(run: ParsedRun, topic: str, line: int, rank: int, previous: int) -> None:
    run.warn(
        line,
        "score",
        f"topic {topic}: rank {rank} scores higher than rank {previous}; evaluation ranks by score",
    )


def _topic_order(number: str) -> tuple[str, int, str]:
    prefix, _, digits = number.rpartition(".")
    return (prefix, int(digits), number) if digits.isdigit() else (number, 0, number)
