"""How ready a task's judgments are for a qrels export: pure, no Django.

Per topic: pool items, how many are judged (every hit has a counting grade), flagged (every hit
has a counting judgment, none a grade: "system failure" / "do not know"), unjudged (some hit
has no counting judgment yet), the H+M items so far, and whether the minimum-relevant rule
would drop the topic. "Counting" is the qrels' own choice (``counting_judgments``), so this
page and the export never disagree about what is judged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from evaluation.core.qrels import JudgmentRecord, QrelsEntry, drop_sparse_topics, natural_key
from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL, MAX_GRADE

SHOWN_TOPICS = 10  # topics named in a refusal before "and N more"


@dataclass(frozen=True, slots=True)
class PoolHit:
    """One judged unit of the pool, keyed like a JudgmentRecord (topic, item, hit)."""

    topic: str
    item: str
    hit: str


@dataclass(frozen=True, slots=True)
class TopicReadiness:
    topic: str
    items: int
    judged: int
    flagged: int
    unjudged: int
    relevant: int  # items of grade >= the task's relevance level so far (ARQMath: H+M)
    dropped: str = ""  # why the minimum-relevant rule would drop the topic; "" when kept

    @property
    def complete(self) -> bool:
        return self.unjudged == 0


@dataclass(frozen=True, slots=True)
class QrelsReadiness:
    topics: tuple[TopicReadiness, ...]
    min_relevant: int | None

    @property
    def items(self) -> int:
        return sum(t.items for t in self.topics)

    @property
    def judged(self) -> int:
        return sum(t.judged for t in self.topics)

    @property
    def flagged(self) -> int:
        return sum(t.flagged for t in self.topics)

    @property
    def unjudged(self) -> int:
        return sum(t.unjudged for t in self.topics)

    @property
    def complete(self) -> bool:
        return self.unjudged == 0

    @property
    def complete_topics(self) -> int:
        return sum(1 for t in self.topics if t.complete)

    @property
    def incomplete_topics(self) -> list[TopicReadiness]:
        return [t for t in self.topics if not t.complete]

    @property
    def dropped_topics(self) -> list[TopicReadiness]:
        return [t for t in self.topics if t.dropped]

    def unjudged_summary(self) -> str:
        """ "5 unjudged items in 2 topics (A.1: 3, A.7: 2)", for refusals and notices."""
        incomplete = self.incomplete_topics
        listed = ", ".join(f"{t.topic}: {t.unjudged}" for t in incomplete[:SHOWN_TOPICS])
        more = (
            f", and {len(incomplete) - SHOWN_TOPICS} more" if len(incomplete) > SHOWN_TOPICS else ""
        )
        return (
            f"{_count(self.unjudged, 'unjudged item')} in {_count(len(incomplete), 'topic')} "
            f"({listed}{more})"
        )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def qrels_readiness(
    hits: Iterable[PoolHit],
    chosen: Mapping[tuple[str, str, str], JudgmentRecord],
    *,
    min_relevant: int | None,
    relevant_from: int = ARQMATH_RELEVANCE_LEVEL,
) -> QrelsReadiness:
    """Readiness of every pool topic from its hits and the judgment that counts for each.

    ``chosen`` is ``counting_judgments(records, policy.precedence)``. An item is H+M when its
    highest counting grade is H or M, as its qrels row would be."""
    items: dict[str, dict[str, list[JudgmentRecord | None]]] = defaultdict(dict)
    for hit in hits:
        record = chosen.get((hit.topic, hit.item, hit.hit))
        items[hit.topic].setdefault(hit.item, []).append(record)
    counts: dict[str, list[int]] = {}  # topic -> [judged, flagged, unjudged]
    best: list[QrelsEntry] = []  # each item's highest counting grade so far
    for topic in sorted(items, key=natural_key):
        tally = counts[topic] = [0, 0, 0]
        for item, records in items[topic].items():
            grades = [r.grade for r in records if r is not None and r.grade is not None]
            if grades:
                best.append(QrelsEntry(topic, item, max(grades)))
            tally[2 if None in records else 0 if grades else 1] += 1
    relevant: dict[str, int] = defaultdict(int)
    for entry in best:
        if relevant_from <= entry.grade <= MAX_GRADE:
            relevant[entry.topic] += 1
    reasons: dict[str, str] = {}
    if min_relevant:
        _, dropped = drop_sparse_topics(best, items, min_relevant, relevant_from=relevant_from)
        reasons = {d.topic: d.reason for d in dropped}
    return QrelsReadiness(
        tuple(
            TopicReadiness(
                topic,
                len(items[topic]),
                judged=judged,
                flagged=flagged,
                unjudged=unjudged,
                relevant=relevant[topic],
                dropped=reasons.get(topic, ""),
            )
            for topic, (judged, flagged, unjudged) in counts.items()
        ),
        min_relevant or None,
    )
