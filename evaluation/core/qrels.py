"""Qrels files and qrels built from judgments: pure, no Django.

A qrels file has four columns ``topic 0 id grade`` separated by tabs or spaces (TREC's format,
as the ARQMath organizers publish it), read and written by ``kernel.core.qrels``. Grades are
0-3 (N, L, M, H) in ARQMath, 0..G (G <= 4) for a task with its own scale; ARQMath-3's Task 3
file also uses 5 for "system failure" and 6 for "do not know".

Rules (docs/evaluation.md):
- Task 1 rows are answer post ids; Task 2 rows are visual ids with the max grade over the
  item's judged instances (plus an instance-level file of formula ids); Task 3 rows are
  generated-answer ids; document tasks' rows are docnos (a document item's key).
- Flags are unjudged in Task 1/2 and document tasks (no row) and grade 0 in Task 3.
- Which judgment of a hit counts: adjudicated > official > dual (the order is configurable;
  leaving ``dual`` out ignores dual assessments). "Official" and "dual" are the judgments of
  the current assignment's line of moves; the caller selects them (docs/agreement.md,
  "Moving a topic"). A machine judge the organizer lets count comes last,
  ``machine``: its grade fills only the hits no person's judgment decides.
- Optional filter: drop topics with fewer than ``min_relevant`` relevant items, relevant
  meaning grade >= the task's relevance level (ARQMath: 2, H+M).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kernel.core.grades import (
    ARQMATH_RELEVANCE_LEVEL,
    GRADE_DONT_KNOW,
    GRADE_SYSTEM_FAILURE,
    MAX_GRADE,
)
from kernel.core.ordering import natural_key as natural_key

# The file format has one home, shared with the training rounds' gold files; re-exported here.
from kernel.core.qrels import QrelsEntry as QrelsEntry
from kernel.core.qrels import QrelsFormatError as QrelsFormatError
from kernel.core.qrels import qrels_format as qrels_format
from kernel.core.qrels import qrels_parse as qrels_parse
from kernel.core.qrels import qrels_read_path as qrels_read_path

TaskKind = Literal["answer", "formula", "openqa", "document"]

FLAG_GRADES = {"system_failure": GRADE_SYSTEM_FAILURE, "dont_know": GRADE_DONT_KNOW}

JudgmentSource = Literal["adjudicated", "official", "dual", "machine"]
DEFAULT_PRECEDENCE: tuple[JudgmentSource, ...] = ("adjudicated", "official", "dual")
MACHINE: JudgmentSource = "machine"  # after every person's judgment, when a judge counts


def qrels_sorted(entries: Iterable[QrelsEntry]) -> list[QrelsEntry]:
    """Deterministic export order: topic, then id, both in natural order."""
    return sorted(entries, key=lambda e: (natural_key(e.topic), natural_key(e.doc)))


def qrels_checksum(text: str) -> str:
    """SHA-256 of the exported text, recorded with each frozen qrels version."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def qrels_grades(entries: Iterable[QrelsEntry], *, kind: TaskKind) -> dict[str, dict[str, int]]:
    """topic -> id -> grade, as the measures need it.

    Task 3 flag codes (5, 6) become grade 0; in Task 1/2 a flag code is unjudged (left out),
    which is how a qrels file with flags still evaluates by the published rules. A document
    task's grades are trec_eval's: any integer, kept as it is. A negative grade ("in the pool,
    not judged", trec_eval's reading) is kept for every kind: the measures treat it as
    trec_eval does (``evaluation.core.measures.is_judged``).
    """
    grades: dict[str, dict[str, int]] = {}
    for entry in entries:
        grade = entry.grade
        if grade > MAX_GRADE and kind != "document":
            if kind != "openqa":
                continue
            grade = 0
        grades.setdefault(entry.topic, {})[entry.doc] = grade
    return grades


# --- qrels from judgments -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JudgmentRecord:
    """A judgment reduced to plain data.

    ``item`` is the qrels id (post id, visual id, answer id); ``hit`` the judged unit inside it
    (the same id in Task 1/3, the formula instance id in Task 2). ``grade`` is None when
    ``flag`` is set. Among several records of the same source for a hit, the first wins: the
    caller passes the most recent first.
    """

    topic: str
    item: str
    hit: str
    source: JudgmentSource
    grade: int | None = None
    flag: str = ""


@dataclass(frozen=True, slots=True)
class QrelsPolicy:
    precedence: tuple[JudgmentSource, ...] = DEFAULT_PRECEDENCE
    min_relevant: int | None = None
    relevant_from: int = ARQMATH_RELEVANCE_LEVEL  # the task's relevance level, for min_relevant
    machine_judge: str = ""  # the judge whose grades ``machine`` in precedence stands for

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {
            "precedence": list(self.precedence),
            "min_relevant": self.min_relevant,
        }
        if self.relevant_from != ARQMATH_RELEVANCE_LEVEL:  # ARQMath's level goes unsaid, as before
            found["relevant_from"] = self.relevant_from
        if self.machine_judge and MACHINE in self.precedence:
            found["machine_judge"] = self.machine_judge
        return found


@dataclass(frozen=True, slots=True)
class DroppedTopic:
    topic: str
    relevant: int
    reason: str


@dataclass(slots=True)
class QrelsBuild:
    """The result of building qrels: item-level rows, instance rows (Task 2), dropped topics."""

    entries: list[QrelsEntry]
    instance_entries: list[QrelsEntry] = field(default_factory=list)
    dropped: list[DroppedTopic] = field(default_factory=list)
    flagged: int = 0  # hits whose counting judgment is a flag

    @property
    def topics(self) -> list[str]:
        return sorted({e.topic for e in self.entries}, key=natural_key)


def counting_judgments(
    records: Iterable[JudgmentRecord], precedence: Sequence[JudgmentSource]
) -> dict[tuple[str, str, str], JudgmentRecord]:
    """For each (topic, item, hit), the judgment that counts under ``precedence``."""
    rank = {source: i for i, source in enumerate(precedence)}
    chosen: dict[tuple[str, str, str], JudgmentRecord] = {}
    for record in records:
        if record.source not in rank:
            continue
        key = (record.topic, record.item, record.hit)
        current = chosen.get(key)
        if current is None or rank[record.source] < rank[current.source]:
            chosen[key] = record
    return chosen


def qrels_from_judgments(
    records: Iterable[JudgmentRecord], *, kind: TaskKind, policy: QrelsPolicy | None = None
) -> QrelsBuild:
    """Build qrels by the ARQMath rules (see the module docstring)."""
    policy = policy or QrelsPolicy()
    chosen = counting_judgments(records, policy.precedence)
    item_grades: dict[tuple[str, str], int] = {}
    instances: list[QrelsEntry] = []
    judged_topics: set[str] = set()
    flagged = 0
    for (topic, item, hit), record in chosen.items():
        judged_topics.add(topic)
        grade = record.grade
        if grade is None:
            flagged += 1
            if kind != "openqa":
                continue  # flags are unjudged in Task 1/2
            grade = 0
        if kind == "formula":
            instances.append(QrelsEntry(topic, hit, grade))
        key = (topic, item)
        item_grades[key] = max(grade, item_grades.get(key, -1))
    entries = qrels_sorted(QrelsEntry(t, i, g) for (t, i), g in item_grades.items())
    dropped: list[DroppedTopic] = []
    if policy.min_relevant is not None:
        entries, dropped = drop_sparse_topics(
            entries, judged_topics, policy.min_relevant, relevant_from=policy.relevant_from
        )
        kept = {e.topic for e in entries}
        instances = [e for e in instances if e.topic in kept]
    return QrelsBuild(entries, qrels_sorted(instances), dropped, flagged)


def drop_sparse_topics(
    entries: list[QrelsEntry],
    judged_topics: Iterable[str],
    min_relevant: int,
    *,
    relevant_from: int = ARQMATH_RELEVANCE_LEVEL,
) -> tuple[list[QrelsEntry], list[DroppedTopic]]:
    """Drop topics with fewer than ``min_relevant`` items of grade >= ``relevant_from``
    (ARQMath kept topics with >= 2 H+M items)."""
    relevant: dict[str, int] = dict.fromkeys(judged_topics, 0)
    for entry in entries:
        relevant.setdefault(entry.topic, 0)
        if relevant_from <= entry.grade <= MAX_GRADE:
            relevant[entry.topic] += 1
    kind = (
        "H+M-relevant"
        if relevant_from == ARQMATH_RELEVANCE_LEVEL
        else f"relevant (≥ {relevant_from})"
    )
    dropped = [
        DroppedTopic(
            topic,
            count,
            f"{count} {kind} item{'s' if count != 1 else ''}, fewer than {min_relevant}",
        )
        for topic, count in sorted(relevant.items(), key=lambda tc: natural_key(tc[0]))
        if count < min_relevant
    ]
    gone = {d.topic for d in dropped}
    return [e for e in entries if e.topic not in gone], dropped


def qrels_without(
    grades: Mapping[str, Mapping[str, int]], removed: Mapping[str, set[str]]
) -> dict[str, dict[str, int]]:
    """A copy of ``grades`` without the ids in ``removed`` (topic -> ids): leave-one-team-out."""
    return {
        topic: {doc: g for doc, g in docs.items() if doc not in removed.get(topic, set())}
        for topic, docs in grades.items()
    }
