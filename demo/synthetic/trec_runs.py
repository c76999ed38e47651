"""Synthetic TREC runs and a machine judge for the news collection (plain Python, seeded).

A system scores every document for a topic by a mix of its true grade and how often the
query's words occur in it, plus noise: the better the system (``quality`` near 1), the more
the true grade counts, so runs differ in quality as real ones do, and weak ones fall for
documents that only mention the subject. One system rounds its scores (tied scores, whose order
trec_eval decides by docno), one leaves its last topic out (a topic missing from a run).

The machine judge grades what the runs retrieved near the top, as an LLM judge would be asked
to: mostly the true grade, sometimes one off, with a one-line rationale.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from demo.synthetic.news import NewsDocument
from demo.synthetic.news_vocabulary import SUBJECTS

__all__ = [
    "JUDGE_AGREEMENT",
    "SYSTEMS",
    "JudgeLine",
    "RankedRow",
    "TrecSystem",
    "judge_lines",
    "rank_topic",
    "systems_of",
]

WORD = re.compile(r"[a-z0-9]+")
JUDGE_AGREEMENT = 0.85  # share of the machine judge's grades equal to the true grade


@dataclass(frozen=True)
class TrecSystem:
    team: str
    tag: str
    role: str  # primary | alternate
    quality: float  # 0 (word matching and noise) .. 1 (ranks by true relevance)
    tied_scores: bool = False  # scores rounded to 2 decimals
    skips_last_topic: bool = False


# Teams in order: ``teams=N`` takes the first N teams with all their runs.
SYSTEMS: tuple[TrecSystem, ...] = (
    TrecSystem("Northwind", "nw-neural", "primary", 0.72),
    TrecSystem("Northwind", "nw-bm25", "alternate", 0.45, tied_scores=True),
    TrecSystem("Hollis", "hollis-qe", "primary", 0.6),
    TrecSystem("Kestrel", "kestrel-lm", "primary", 0.5),
    TrecSystem("Kestrel", "kestrel-rm3", "alternate", 0.3, skips_last_topic=True),
    TrecSystem("Osprey", "osprey-splade", "primary", 0.66),
)


def systems_of(teams: int) -> list[TrecSystem]:
    """The runs of the first ``teams`` teams."""
    names = list(dict.fromkeys(system.team for system in SYSTEMS))
    if not 1 <= teams <= len(names):
        raise ValueError(f"teams must be 1 to {len(names)}, not {teams}")
    chosen = set(names[:teams])
    return [system for system in SYSTEMS if system.team in chosen]


@dataclass(frozen=True)
class RankedRow:
    docno: str
    rank: int
    score: float


def _words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def _matches(document: NewsDocument, query_words: frozenset[str]) -> int:
    return sum(1 for word in _words(f"{document.headline} {document.body}") if word in query_words)


def rank_topic(
    system: TrecSystem,
    subject: int,
    documents: Sequence[NewsDocument],
    *,
    seed: int,
    depth: int,
) -> list[RankedRow]:
    """The system's top ``depth`` documents for the topic about ``subject``, ranked."""
    rng = random.Random(f"run:{seed}:{system.tag}:{subject}")
    query = frozenset(_words(SUBJECTS[subject].query))
    quality = system.quality
    scored = []
    for document in documents:
        grade = document.grades.get(subject, 0)
        words = min(1.0, _matches(document, query) / 8)
        score = quality * grade / 2 + (1 - quality) * words / 2
        score += rng.gauss(0, 0.05 + 0.6 * (1 - quality))
        score = round(10 * score, 2 if system.tied_scores else 4) or 0.0  # never -0.0
        scored.append((score, document.docno))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [
        RankedRow(docno, rank, score) for rank, (score, docno) in enumerate(scored[:depth], start=1)
    ]


@dataclass(frozen=True)
class JudgeLine:
    topic: str
    docno: str
    grade: int
    rationale: str


def _rationale(document: NewsDocument, subject: int) -> str:
    query = SUBJECTS[subject].query
    grade = document.grades.get(subject, 0)
    main = max(document.grades, key=lambda s: document.grades[s])
    if grade == 2:
        return f"The article is mainly about {query}."
    if grade == 1 and main == subject:
        return f"A short report on {query}, with few details."
    if grade == 1:
        return f"One paragraph discusses {query}; the rest is about {SUBJECTS[main].query}."
    if SUBJECTS[subject].mention in document.body:
        return f"It mentions {SUBJECTS[subject].mention} only in passing."
    return f"It is about {SUBJECTS[main].query}, not {query}."


def judge_lines(
    pooled: dict[int, list[NewsDocument]], numbers: dict[int, str], *, seed: int
) -> list[JudgeLine]:
    """The machine judge's grades of ``pooled`` (subject -> documents), topic by topic."""
    rng = random.Random(f"judge:{seed}")
    lines = []
    for subject, documents in sorted(pooled.items()):
        for document in documents:
            truth = document.grades.get(subject, 0)
            grade = truth
            if rng.random() >= JUDGE_AGREEMENT:
                grade = min(2, max(0, truth + rng.choice((-1, 1)))) if truth else 1
            lines.append(
                JudgeLine(numbers[subject], document.docno, grade, _rationale(document, subject))
            )
    return lines
