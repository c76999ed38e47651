"""The organizer's adjudication page: one dispute at a time, with its neighbours, the next
undecided one, counts per topic and the change in agreement.

Three queries for the task (guidelines are the caller's, judgments, decisions) and four for
the dispute on show (its topic, its hit, the post, the threads its HTML links to), whatever
the campaign's size. The panes are rendered by the judging page's own selectors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from assessment.selectors.adjudication.agreement import AgreementChange, agreement_changes
from assessment.selectors.adjudication.disputes import (
    Dispute,
    DisputeCounts,
    DisputeFilter,
    dispute_counts,
    task_disputes,
)
from assessment.selectors.guidelines import CurrentGuidelines
from assessment.selectors.judging import HitView, TopicView, hit_views, topic_view
from collection.core.query_terms import query_terms
from collection.models import RetrievalTask, Topic
from pooling.models import Hit, PoolItem

__all__ = [
    "AdjudicationPage",
    "DisputeContent",
    "TopicCount",
    "adjudication_page",
    "next_undecided_id",
]


@dataclass(frozen=True)
class TopicCount:
    """A topic's disputes (at the filter's grade gap) and how many are decided."""

    topic: str
    disputes: int
    decided: int

    @property
    def undecided(self) -> int:
        return self.disputes - self.decided


@dataclass(frozen=True)
class DisputeContent:
    """What the two panes show: the topic, and the disputed hit's post (with the candidate
    formula highlighted in formula tasks) or document (with the query terms to highlight)."""

    topic: Topic
    topic_view: TopicView
    item: PoolItem
    hit: HitView
    is_formula: bool
    is_document: bool = False
    query_terms: list[str] = field(default_factory=list)


@dataclass
class AdjudicationPage:
    filter: DisputeFilter
    disputes: list[Dispute]  # the ones the filter shows, in page order
    current: Dispute | None
    position: int | None  # 1-based within ``disputes``; None when the filter hides it
    previous_id: int | None
    next_id: int | None
    next_undecided_id: int | None
    topics: list[TopicCount]
    content: DisputeContent | None
    changes: list[AgreementChange]
    overall: AgreementChange
    counts: dict[str, int] = field(default_factory=dict)  # state -> disputes at topic and gap
    total: DisputeCounts = field(default_factory=DisputeCounts)  # every dispute of the task


def _content(dispute: Dispute) -> DisputeContent:
    topic = Topic.objects.select_related("task").get(pk=dispute.topic_id)
    hit = Hit.objects.select_related("item").get(pk=dispute.hit_id)
    [view], thread_of = hit_views([hit], topic)
    is_document = topic.task.kind == RetrievalTask.Kind.DOCUMENT
    return DisputeContent(
        topic=topic,
        topic_view=topic_view(topic, thread_of),
        item=hit.item,
        hit=view,
        is_formula=topic.task.kind == RetrievalTask.Kind.FORMULA,
        is_document=is_document,
        query_terms=query_terms(topic.title) if is_document else [],
    )


def _neighbours(
    disputes: Sequence[Dispute], current: Dispute, wanted: DisputeFilter
) -> tuple[int | None, int | None, int | None]:
    """The shown disputes just before and after ``current`` in page order (whether or not the
    filter shows ``current`` itself), and the next undecided one at the filter's topic and
    grade gap, after ``current`` and then from the start."""
    before = [d for d in disputes if d.order < current.order and wanted.shows(d)]
    after = (d for d in disputes if d.order > current.order and wanted.shows(d))
    undecided = [d for d in disputes if wanted.matches(d) and not d.decided and d is not current]
    following = next((d for d in undecided if d.order > current.order), None)
    if following is None and undecided:
        following = undecided[0]
    return (
        before[-1].hit_id if before else None,
        next((d.hit_id for d in after), None),
        following.hit_id if following else None,
    )


def next_undecided_id(
    *, task: RetrievalTask, wanted: DisputeFilter, after_hit_id: int
) -> int | None:
    """The undecided dispute after ``after_hit_id`` at the filter's topic and grade gap
    (wrapping around), or None when every one is decided: where a save moves on to."""
    disputes = task_disputes(task=task).disputes
    current = next((d for d in disputes if d.hit_id == after_hit_id), None)
    if current is None:
        return None
    return _neighbours(disputes, current, wanted)[2]


def _topic_counts(disputes: Iterable[Dispute], min_difference: int) -> list[TopicCount]:
    by_topic: dict[str, list[Dispute]] = {}
    for dispute in disputes:
        if dispute.difference >= min_difference:
            by_topic.setdefault(dispute.topic, []).append(dispute)
    return [
        TopicCount(topic, counts.disputes, counts.decided)
        for topic, counts in ((t, dispute_counts(ds)) for t, ds in by_topic.items())
    ]


def adjudication_page(
    *,
    task: RetrievalTask,
    guidelines: CurrentGuidelines,
    wanted: DisputeFilter,
    hit_id: int | None = None,
) -> AdjudicationPage | None:
    """The dispute ``hit_id`` (else the first the filter shows) with everything around it;
    None when ``hit_id`` is not a dispute of the task."""
    shared = task_disputes(task=task)
    disputes = shared.disputes
    shown = [d for d in disputes if wanted.shows(d)]
    if hit_id is None:
        current = shown[0] if shown else None
    else:
        current = next((d for d in disputes if d.hit_id == hit_id), None)
        if current is None:
            return None
    previous_id, next_id, undecided_id = (
        _neighbours(disputes, current, wanted) if current else (None, None, None)
    )
    if current is None:  # nothing shown: still offer the next undecided one, if any
        undecided_id = next(
            (d.hit_id for d in disputes if wanted.matches(d) and not d.decided), None
        )
    matching_counts = dispute_counts(d for d in disputes if wanted.matches(d))
    changes, overall = agreement_changes(shared, guidelines)
    return AdjudicationPage(
        filter=wanted,
        disputes=shown,
        current=current,
        position=shown.index(current) + 1 if current in shown else None,
        previous_id=previous_id,
        next_id=next_id,
        next_undecided_id=undecided_id,
        topics=_topic_counts(disputes, wanted.min_difference),
        content=_content(current) if current else None,
        changes=changes,
        overall=overall,
        counts={
            "undecided": matching_counts.undecided,
            "decided": matching_counts.decided,
            "all": matching_counts.disputes,
        },
        total=overall.counts,
    )
