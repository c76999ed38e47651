"""What an assessor sees of one pool item: the judging page and its state. Blind by design.

Nothing here loads a vote, a run, a contribution, a score or the value of another
assignment's judgment, so no page built from these objects can leak them (docs/judging.md, "Blind").
After a continue-move the only thing read of an earlier assessor's judgment is that it
exists: the hit shows as "judged by a previous assessor". Every function runs a
fixed number of queries whatever the pool size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import (
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Length, Substr

from assessment.models import Assignment, Judgment
from assessment.selectors.handover import previous_judgments
from assessment.selectors.progress import (
    ItemStatus,
    Progress,
    assignment_from_ids,
    assignment_ids,
    item_statuses,
    next_unjudged_item_id,
    progress_of,
)
from assessment.selectors.taken_out import items_in_reach_of
from collection.core.document_html import DISPLAY_MAX_CHARS, DocumentDisplay, document_display
from collection.core.post_html import clean_post_html, linked_post_ids, thread_url
from collection.core.query_terms import query_terms
from collection.models import Document, Formula, Post, RetrievalTask, Topic
from kernel.prepared import prepared_rows
from pooling.models import Hit, PoolItem

__all__ = [
    "JUDGMENT_SHOWN",
    "HitView",
    "ItemPage",
    "TopicView",
    "hit_views",
    "item_page",
    "own_hits",
    "own_judgment",
    "topic_view",
]


# The fields of the assessor's own judgment a page shows (never anyone else's).
JUDGMENT_SHOWN = ("grade", "flag", "comment", "answers", "revision", "updated_at")


@dataclass
class HitView:
    hit_id: int
    position: int
    post_id: int | None
    thread_id: int | None
    post_is_question: bool
    thread_title_html: str
    body_html: str
    formula_latex: str
    formula_in: str  # where the candidate formula is: title | question | answer | comment
    comment_html: str
    document: DocumentDisplay | None = None  # document items: title, sanitized body, cut
    docno: str = ""
    grade: int | None = None
    flag: str = ""
    comment: str = ""
    answers: dict[str, bool] = field(default_factory=dict)  # the extra questions' answers
    revision: int = 0
    updated_at: object = None
    previous: bool = False  # judged by a previous assessor: nothing to do, nothing shown
    # Of an item taken out of the scope, a hit this assignment never judged: not to judge.
    taken_out: bool = False
    suggestion: int | None = None  # assisted mode: the suggesting machine judge's grade
    error: str = ""  # set by a view re-showing a refused submit
    hid: str = field(init=False)  # the id as text: rendered many times per page

    def __post_init__(self) -> None:
        self.hid = str(self.hit_id)

    @property
    def thread_href(self) -> str:
        """The thread view of this post (collection posts only), opened in a new tab."""
        if self.thread_id is None or self.post_id is None:
            return ""
        return thread_url(self.thread_id, self.post_id)

    @property
    def choice(self) -> str:
        """The value of the hit's radio group: "3".."0", a flag, or "" when unjudged."""
        return str(self.grade) if self.grade is not None else self.flag


@dataclass
class ItemPage:
    assignment: Assignment
    item: PoolItem
    kind: str
    topic_thread_href: str
    topic_title_html: str
    topic_question_html: str
    query_latex: str
    hits: list[HitView]
    position: int
    item_count: int
    judged_hits: int
    total_hits: int
    previous_item_id: int | None
    next_item_id: int | None
    next_unjudged_item_id: int | None
    statuses: list[ItemStatus] = field(repr=False, default_factory=list)
    query_terms: list[str] = field(default_factory=list)  # document items: highlighted
    # Taken out of the assignment's scope after it was judged: its own judgments stay open to
    # revise (assessment/selectors/taken_out.py); it has no place among the scope's items.
    taken_out: bool = False

    @property
    def is_document(self) -> bool:
        return self.kind == RetrievalTask.Kind.DOCUMENT

    @property
    def percent(self) -> int:
        return round(100 * self.judged_hits / self.total_hits) if self.total_hits else 0

    @property
    def open_hits(self) -> list[HitView]:
        """The hits this assessor judges (not the ones a previous assessor judged, nor, on an
        item taken out of the scope, the ones this assessor never judged)."""
        return [hit for hit in self.hits if not (hit.previous or hit.taken_out)]

    @property
    def progress(self) -> Progress:
        """The topic's progress in the task's units (formulae and posts, or answers)."""
        return progress_of(self.statuses, self.kind)


def _previous_exists(assignment: Assignment) -> Exists | Value:
    """Per hit: was it judged by a previous assessor of the assignment's line?"""
    previous = previous_judgments(assignment)
    if previous is None:
        return Value(False)
    return Exists(Judgment.objects.filter(previous, hit=OuterRef("pk")))


def _thread_of(htmls: Iterable[str], also: Iterable[int] = ()) -> dict[int, int]:
    """Threads of every collection post the given HTML links to (and of ``also``), one query."""
    linked: set[int] = set(also)
    for html in htmls:
        linked |= linked_post_ids(html)
    if not linked:
        return {}
    return dict(Post.objects.filter(pk__in=linked).values_list("pk", "thread_id"))


# The fields of the pool item a judging page shows.
_ITEM_FIELDS = ("key", "post_id", "visual_id", "answer", "display_order")


def _suggested_grade() -> Subquery:
    """The grade the task's suggesting machine judge gave the hit (assisted mode), in the
    hits' own query: a page in blind mode costs nothing more."""
    return Subquery(
        Judgment.objects.filter(
            hit_id=OuterRef("pk"),
            assignment__purpose=Assignment.Purpose.MACHINE,
            assessor__machine_judge__suggests=True,
            grade__isnull=False,
        ).values("grade")[:1]
    )


def own_hits(assignment: Assignment, items: QuerySet[PoolItem]) -> QuerySet[Hit]:
    """The hits of ``items`` (of the assignment's topic) in page order, with their item, this
    assignment's own judgment of each (``mine_<field>`` for each of ``JUDGMENT_SHOWN``) and
    whether a previous assessor of its line judged it (``by_previous``, never the grade).
    The only judgments a judging page or the assessor's REST endpoints read."""
    return (
        Hit.objects.filter(item__in=items)
        .select_related("item")
        .only(
            "pk",
            "item_id",
            "post_id",
            "formula_id",
            "document_id",
            "position",
            "item__topic_id",
            *(f"item__{name}" for name in _ITEM_FIELDS),
        )
        .annotate(
            mine=FilteredRelation("judgments", condition=Q(judgments__assignment=assignment)),
            **{f"mine_{name}": F(f"mine__{name}") for name in JUDGMENT_SHOWN},
            by_previous=_previous_exists(assignment),
            suggested=_suggested_grade(),
        )
        .order_by("item__display_order", "position", "pk")
    )


def own_judgment(hit: Hit) -> dict[str, Any]:
    """The assignment's own judgment of a hit read by ``own_hits``: grade, flag, comment,
    answers to the extra questions, revision (0 when not judged) and when it last changed."""
    mine: dict[str, Any] = {name: getattr(hit, f"mine_{name}", None) for name in JUDGMENT_SHOWN}
    judged = mine["revision"] is not None
    return {
        "grade": mine["grade"],
        "flag": mine["flag"] if judged else "",
        "comment": mine["comment"] if judged else "",
        "answers": (mine["answers"] or {}) if judged else {},
        "revision": mine["revision"] if judged else 0,
        "updated_at": mine["updated_at"],
    }


def _item_hits(item_id: int, **ids: Any) -> QuerySet[Hit]:
    """The item's hits with their item and this assignment's judgments of them, from ids only
    (kernel.prepared)."""
    assignment = assignment_from_ids(**ids)
    return own_hits(assignment, items_in_reach_of(assignment).filter(pk=item_id))


def item_page(assignment: Assignment, item_id: int) -> ItemPage | None:
    """Everything the judging page shows for one pool item, or None if not in the topic.

    A constant number of queries (hits with their item and judgments, posts, formulas, item
    statuses, linked threads) whatever the pool size. The first is built once per shape
    (kernel.prepared): every judging page asks it.
    """
    topic = assignment.topic
    # The item, its hits and this assignment's judgments of them in one query.
    hits: list[Hit] = prepared_rows(Hit, _item_hits, item_id=item_id, **assignment_ids(assignment))
    item_obj: PoolItem | None
    if hits:
        item_obj = hits[0].item
    else:  # an item without hits still has a page, saying so
        item_obj = (
            items_in_reach_of(assignment).filter(pk=item_id).only("topic_id", *_ITEM_FIELDS).first()
        )
        if item_obj is None:
            return None
    statuses = item_statuses(assignment)
    views, thread_of = hit_views(hits, topic)
    suggested = {hit.pk: getattr(hit, "suggested", None) for hit in hits}
    for view in views:
        if not view.previous:
            view.suggestion = suggested.get(view.hit_id)
    return _assemble(assignment, item_obj, views, statuses, thread_of)


def _shown_posts(post_ids: list[int]) -> QuerySet[Post]:
    """The posts of an item's hits as the pane shows them (kernel.prepared: every page)."""
    return (
        Post.objects.filter(pk__in=post_ids)
        .select_related("thread")
        .only("pk", "kind", "body", "thread__id", "thread__title")
    )


def hit_views(hits: Sequence[Hit], topic: Topic) -> tuple[list[HitView], dict[int, int]]:
    """The posts, candidate formulas and comments of ``hits`` (of one item of ``topic``) as
    pages show them: sanitized, the candidate formula highlighted, collection links made
    thread links; or, for document hits, their documents (``collection.core.document_html``).
    Also the threads of every linked post and of the topic's own question. At most three
    queries (posts and formulas, or documents; threads). A hit read without an assignment's
    annotations shows no judgment (the adjudication page shows every assessor's beside it
    instead)."""
    post_ids = sorted({h.post_id for h in hits if h.post_id})
    posts = {p.pk: p for p in prepared_rows(Post, _shown_posts, post_ids=post_ids)}
    formula_ids = [h.formula_id for h in hits if h.formula_id is not None]
    formulas = (
        {
            f.pk: f
            for f in Formula.objects.filter(pk__in=formula_ids)
            .select_related("comment")
            .only("pk", "latex", "location", "comment__id", "comment__text")
        }
        if formula_ids
        else {}
    )
    thread_titles = [p.thread.title for p in posts.values() if p.kind == Post.Kind.QUESTION]
    htmls = [topic.title, topic.question, *(p.body for p in posts.values()), *thread_titles]
    htmls += [f.comment.text for f in formulas.values() if f.comment is not None]
    # A topic's own question is usually not in the collection (ARQMath took topics from later
    # years); when it is, its thread gets a link like any post's.
    thread_of = _thread_of(htmls, also=[topic.thread_id] if topic.thread_id else [])
    documents = _documents(hits)
    views = [_hit_view(h, posts, formulas, thread_of) for h in hits]
    for hit, view in zip(hits, views, strict=True):
        document = documents.get(hit.document_id) if hit.document_id else None
        if document is not None:
            view.docno, view.document = document
    return views, thread_of


def _documents(hits: Sequence[Hit]) -> dict[int, tuple[str, DocumentDisplay]]:
    """The documents of document hits as the pane shows them (one query, none without any).
    Only the first ``DISPLAY_MAX_CHARS`` characters of a body leave the database."""
    ids = {h.document_id for h in hits if h.document_id}
    if not ids:
        return {}
    rows = (
        Document.objects.filter(pk__in=ids)
        .annotate(head=Substr("body", 1, DISPLAY_MAX_CHARS), length=Length("body"))
        .values_list("pk", "docno", "title", "head", "length", "body_format")
    )
    return {
        pk: (
            docno,
            document_display(title=title, body=head, body_format=body_format, total_chars=length),
        )
        for pk, docno, title, head, length, body_format in rows
    }


@dataclass(frozen=True)
class TopicView:
    """A topic as the judging pages show it: sanitized title and question (the query formula
    highlighted in formula tasks), the query formula, and its own thread when in the collection."""

    title_html: str
    question_html: str
    query_latex: str
    thread_href: str


def topic_view(topic: Topic, thread_of: dict[int, int]) -> TopicView:
    """``topic`` rendered with the threads ``hit_views`` found (no query)."""
    formula_task = topic.task.kind == RetrievalTask.Kind.FORMULA
    highlight = topic.formula_id if formula_task and topic.formula_id else None
    return TopicView(
        title_html=clean_post_html(topic.title, thread_of=thread_of),
        question_html=clean_post_html(
            topic.question, thread_of=thread_of, highlight_formula_id=highlight
        ),
        query_latex=topic.latex if formula_task else "",
        thread_href=(
            thread_url(thread_of[topic.thread_id], topic.thread_id)
            if topic.thread_id in thread_of
            else ""
        ),
    )


def _hit_view(
    hit: Hit,
    posts: dict[int, Post],
    formulas: dict[int, Formula],
    thread_of: dict[int, int],
) -> HitView:
    post = posts.get(hit.post_id) if hit.post_id else None
    formula = formulas.get(hit.formula_id) if hit.formula_id is not None else None
    highlight = str(hit.formula_id) if hit.formula_id is not None else None
    is_question = post is not None and post.kind == Post.Kind.QUESTION

    def clean(html: str) -> str:
        return clean_post_html(html, thread_of=thread_of, highlight_formula_id=highlight)

    mine = own_judgment(hit)
    return HitView(
        hit_id=hit.pk,
        position=hit.position,
        post_id=post.pk if post else hit.post_id,
        thread_id=post.thread.pk if post else None,
        post_is_question=is_question,
        thread_title_html=clean(post.thread.title) if post and is_question else "",
        body_html=clean(post.body) if post else "",
        formula_latex=formula.latex if formula else "",
        formula_in=formula.location if formula else "",
        comment_html=clean(formula.comment.text) if formula and formula.comment else "",
        **mine,
        previous=bool(getattr(hit, "by_previous", False)),
    )


def _assemble(
    assignment: Assignment,
    item: PoolItem,
    hits: list[HitView],
    statuses: list[ItemStatus],
    thread_of: dict[int, int],
) -> ItemPage:
    index = next((i for i, s in enumerate(statuses) if s.item_id == item.pk), None)
    shown = topic_view(assignment.topic, thread_of)
    if index is None:  # taken out of the scope, judged: only its own judgments to revise
        for hit in hits:
            hit.taken_out = not hit.previous and hit.revision == 0
        return ItemPage(
            **_page_common(assignment, item, hits, statuses, shown),
            position=0,
            previous_item_id=None,
            next_item_id=None,
            next_unjudged_item_id=next_unjudged_item_id(statuses, None),
            taken_out=True,
        )
    return ItemPage(
        **_page_common(assignment, item, hits, statuses, shown),
        position=index + 1,
        previous_item_id=statuses[index - 1].item_id if index > 0 else None,
        next_item_id=statuses[index + 1].item_id if index + 1 < len(statuses) else None,
        next_unjudged_item_id=next_unjudged_item_id(statuses, item.pk),
    )


def _page_common(
    assignment: Assignment,
    item: PoolItem,
    hits: list[HitView],
    statuses: list[ItemStatus],
    shown: TopicView,
) -> dict[str, Any]:
    """What an item's page shows whatever its place among the assignment's items."""
    topic = assignment.topic
    return {
        "assignment": assignment,
        "item": item,
        "kind": topic.task.kind,
        "topic_thread_href": shown.thread_href,
        "topic_title_html": shown.title_html,
        "topic_question_html": shown.question_html,
        "query_latex": shown.query_latex,
        "hits": hits,
        "item_count": len(statuses),
        "judged_hits": sum(s.judged for s in statuses),
        "total_hits": sum(s.hits for s in statuses),
        "statuses": statuses,
        "query_terms": (
            query_terms(topic.title) if topic.task.kind == RetrievalTask.Kind.DOCUMENT else []
        ),
    }
