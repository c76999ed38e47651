"""How adjudication changed the agreement, with the pure kappa functions of
assessment/core/agreement.py on the task's scale.

Before: Cohen's kappa between the assessors of each topic over the hits they both graded
((G+1)-way, and binary at the task's relevance level), every pair's shared hits pooled.
After: each assessor's kappa with the final grades — the organizer's decision where there is
one, else the grade every assessor gave. Undecided disputes have no final grade yet and are
left out of "after" (the page says how many); flags are left out of both, as in every kappa.
Until a dispute of a topic (or of the task, for the whole) is decided there is nothing to
compare: the final grades are then the grades the assessors agreed on, and each assessor's
kappa with them would read as a perfect 1 (``compared`` is False; the page says so instead).

Counts have one home each: shared hits are ``assessment.core.agreement.shared_hits`` (as on the
agreement page), disputes and undecided ones ``dispute_counts`` (as in the page's list).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from assessment.core.agreement import (
    Agreement,
    cohen_kappa,
    cohen_kappa_binary,
    kappa_of_pairs,
    shared_hits,
    shared_pairs,
)
from assessment.core.agreement_tables import binary_pairs
from assessment.selectors.adjudication.disputes import (
    Dispute,
    DisputeCounts,
    SharedJudgments,
    dispute_counts,
)
from assessment.selectors.guidelines import CurrentGuidelines

__all__ = ["AgreementChange", "AssessorAgreement", "agreement_changes"]


@dataclass(frozen=True)
class AssessorAgreement:
    """One assessor's kappa with the final grades, over the hits both have a grade for."""

    assessor: str
    purposes: str  # "official", "dual", or "official, dual" over several topics
    kappa: Agreement
    kappa_binary: Agreement


@dataclass(frozen=True)
class AgreementChange:
    """Kappa between the assessors before adjudication and each one's with the final grades,
    for one topic ("" for the whole task)."""

    topic: str
    shared: int  # hits two or more assessors graded (shared_hits)
    counts: DisputeCounts  # disputes, and how many are decided
    before: Agreement
    before_binary: Agreement
    assessors: tuple[AssessorAgreement, ...]

    @property
    def undecided(self) -> int:
        return self.counts.undecided

    @property
    def compared(self) -> bool:
        """Whether a decision gives the final grades something to compare: before one, the
        assessors would only be compared with the grades they agreed on."""
        return self.counts.decided > 0


def _final_grades(shared: SharedJudgments) -> dict[int, int]:
    """hit -> final grade: the decision where there is one, else the grade every assessor
    gave. Undecided disputes have none yet (nor has a hit that everyone flagged)."""
    final = {
        hit: grade
        for topic in shared.ratings.values()
        for rating in topic.values()
        for hit, grade in rating.items()
    }
    for dispute in shared.disputes:
        if dispute.decision is not None:
            final[dispute.hit_id] = dispute.decision.grade
        else:
            final.pop(dispute.hit_id, None)
    return final


def _change(
    topic: str,
    ratings: dict[int, dict[int, int]],
    final: dict[int, int],
    shared: SharedJudgments,
    counts: DisputeCounts,
    guidelines: CurrentGuidelines,
) -> AgreementChange:
    categories, level = guidelines.scale.values, guidelines.relevance_level
    people = sorted(ratings, key=lambda a: shared.assessors[a][0])
    pairs = [
        pair
        for i, first in enumerate(people)
        for second in people[i + 1 :]
        for pair in shared_pairs(ratings[first], ratings[second])
    ]

    def purposes(assessor: int) -> str:
        return ", ".join(sorted(shared.assessors[assessor][1], key=lambda p: p != "official"))

    return AgreementChange(
        topic=topic,
        shared=len(shared_hits(ratings)),
        counts=counts,
        before=kappa_of_pairs(pairs, categories=categories),
        before_binary=kappa_of_pairs(binary_pairs(pairs, level), categories=(0, 1)),
        assessors=tuple(
            AssessorAgreement(
                assessor=shared.assessors[a][0],
                purposes=purposes(a),
                kappa=cohen_kappa(ratings[a], final, categories=categories),
                kappa_binary=cohen_kappa_binary(ratings[a], final, relevant_from=level),
            )
            for a in people
        ),
    )


def agreement_changes(
    shared: SharedJudgments, guidelines: CurrentGuidelines
) -> tuple[list[AgreementChange], AgreementChange]:
    """Per topic (in page order) and over the whole task (every topic's ratings pooled)."""
    final = _final_grades(shared)
    by_topic: dict[int, list[Dispute]] = defaultdict(list)
    for dispute in shared.disputes:
        by_topic[dispute.topic_id].append(dispute)
    changes = []
    overall: dict[int, dict[int, int]] = defaultdict(dict)
    # Every topic with shared judgments, graded or not: its disputes count in the total.
    for topic_id in sorted(shared.topics):
        ratings = shared.ratings.get(topic_id, {})
        for assessor, rating in ratings.items():
            overall[assessor].update(rating)
        number = shared.topics[topic_id]
        counts = dispute_counts(by_topic[topic_id])
        changes.append(_change(number, ratings, final, shared, counts, guidelines))
    total = _change("", dict(overall), final, shared, dispute_counts(shared.disputes), guidelines)
    return changes, total
