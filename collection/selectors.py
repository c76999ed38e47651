"""Reads of the collection: a thread with its posts, and the threads posts link to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Prefetch

from collection.core.post_html import clean_post_html, linked_post_ids
from collection.models import Comment, Post, RetrievalTask, Thread, Topic


@dataclass(frozen=True)
class CommentView:
    id: int
    text: str  # plain text as in Comments.xml; the template escapes it
    score: int
    created_at: datetime | None


@dataclass(frozen=True)
class PostView:
    id: int
    is_question: bool
    score: int
    created_at: datetime | None
    body_html: str  # sanitized by clean_post_html: safe to mark safe
    is_accepted: bool = False
    comments: list[CommentView] = field(default_factory=list)


@dataclass(frozen=True)
class ThreadDetail:
    id: int
    title_html: str  # titles carry formula spans in ARQMath: sanitized like bodies
    tags: list[str]
    question: PostView | None  # None only if the dump had a thread without its question row
    answers: list[PostView]


class ThreadNotFound(LookupError):
    """No thread with that id in the collection."""


def thread_of_linked_posts(bodies: Iterable[str]) -> dict[int, int]:
    """Post id -> thread id for every collection post the given post bodies link to.

    One query whatever the number of bodies: collect the ids of all links first
    (``linked_post_ids``), then resolve them together. Pass the result as ``thread_of`` to
    ``clean_post_html`` for each body; ids not in the collection are simply absent, so their
    links come out inert. The judging page calls this with the bodies it shows.
    """
    wanted: set[int] = set()
    for body in bodies:
        wanted |= linked_post_ids(body)
    if not wanted:
        return {}
    return dict(Post.objects.filter(id__in=wanted).values_list("id", "thread_id"))


def thread_detail(thread_id: int, *, highlight_formula_id: str | None = None) -> ThreadDetail:
    """A whole thread for the thread view: question, answers (best score first), comments.

    ``highlight_formula_id`` marks that formula instance (class ``hit-formula``), so a thread
    opened from a formula judging page shows the candidate formula where it stands.

    Four queries whatever the thread's size: the thread, its posts, their comments, and the
    threads of the posts their bodies link to. Bodies come back sanitized (docs/judging.md: post
    HTML is untrusted; links to collection posts lead to their thread here).
    """
    try:
        thread = Thread.objects.get(id=thread_id)
    except Thread.DoesNotExist as missing:
        raise ThreadNotFound(thread_id) from missing
    posts = list(
        Post.objects.filter(thread_id=thread_id)
        .only("id", "kind", "score", "created_at", "body", "thread_id")
        .prefetch_related(
            Prefetch("comments", queryset=Comment.objects.order_by("created_at", "id"))
        )
        .order_by("kind", "-score", "id")
    )
    thread_of = thread_of_linked_posts(post.body for post in posts)
    views = [
        _post_view(post, thread_of, highlight_formula_id, post.id == thread.accepted_answer_id)
        for post in posts
    ]
    # Stack Exchange's order: the accepted answer first, then by score.
    views.sort(key=lambda view: (not view.is_question, not view.is_accepted))
    question = next((view for view in views if view.is_question), None)
    return ThreadDetail(
        id=thread.id,
        title_html=clean_post_html(thread.title, thread_of={}),
        tags=list(thread.tags or []),
        question=question,
        answers=[view for view in views if not view.is_question],
    )


def _post_view(
    post: Post, thread_of: dict[int, int], highlight: str | None, is_accepted: bool
) -> PostView:
    return PostView(
        id=post.id,
        is_question=post.kind == Post.Kind.QUESTION,
        is_accepted=is_accepted,
        score=post.score,
        created_at=post.created_at,
        body_html=clean_post_html(post.body, thread_of=thread_of, highlight_formula_id=highlight),
        comments=[
            CommentView(id=c.id, text=c.text, score=c.score, created_at=c.created_at)
            for c in post.comments.all()
        ],
    )


CATEGORIES_KEY = "categories"  # a topic's categories, in Topic.metadata


def topic_categories_of(task: RetrievalTask) -> dict[str, dict[str, str]]:
    """Topic number -> its categories, for the task's topics that have any."""
    rows = Topic.objects.filter(task=task, metadata__has_key=CATEGORIES_KEY).values_list(
        "number", "metadata"
    )
    return {number: dict(metadata[CATEGORIES_KEY]) for number, metadata in rows}


def answer_task_of(task: RetrievalTask) -> RetrievalTask | None:
    """The answer task an open-QA task's answers are pooled and judged in, and whose official
    topics its means are over: its own link, else its campaign's only answer task (None when
    the campaign has none, or several and the link is not set)."""
    if task.kind != RetrievalTask.Kind.OPENQA:
        return None
    if task.answer_task_id:
        return task.answer_task
    answers = list(
        RetrievalTask.objects.select_related("campaign").filter(
            campaign_id=task.campaign_id, kind=RetrievalTask.Kind.ANSWER
        )[:2]
    )
    return answers[0] if len(answers) == 1 else None
