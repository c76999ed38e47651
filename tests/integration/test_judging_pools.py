"""Pools to judge, built with the factories, and the selectors that read them.

The builders here are shared by the other test_judging_* files and the browser tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from assessment.models import Assignment
from assessment.selectors.judging import item_page
from assessment.selectors.progress import (
    assignments_with_progress,
    item_statuses,
    next_unjudged_item_id,
)
from assessment.services.judging import HitVerdict, item_submit
from collection.models import RetrievalTask, Topic
from pooling.models import Hit, PoolItem
from tests.factories import (
    AssignmentFactory,
    FormulaFactory,
    HitFactory,
    PoolItemFactory,
    PostFactory,
    RetrievalTaskFactory,
    RunFactory,
    ThreadFactory,
    TopicFactory,
    UserFactory,
)

# Marks that must never reach an assessor: the pool's runs and votes.
SECRET_RUN_TAG = "SecretRunTagXYZ"
SECRET_TEAM = "SecretTeamQRS"

ANSWER_BODY = (
    '<p>Square both sides: <span class="math-container" id="{fid}">$x^2 \\geq 0$</span> '
    "holds since <em>squares</em> are nonnegative.</p>"
)


@dataclass
class Pool:
    topic: Topic
    items: list[PoolItem]
    hits: list[list[Hit]]


def answer_pool(*, items: int = 3, topic: Topic | None = None, prefix: int = 0) -> Pool:
    """An answer-task topic whose items are answer posts (one hit each), a run behind them."""
    topic = topic or TopicFactory.create(
        task=RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    )
    run = RunFactory.create(
        task=topic.task, tag=SECRET_RUN_TAG, team__name=f"{SECRET_TEAM}{topic.pk}"
    )
    pool_items, hits = [], []
    for i in range(items):
        thread = ThreadFactory.create(title=f"Question thread {i}")
        PostFactory.create(
            id=thread.id, thread=thread, kind=1, body="<p>The thread's question.</p>"
        )
        post = PostFactory.create(
            thread=thread, body=ANSWER_BODY.format(fid=prefix + 800000 + i), score=4242
        )
        item = PoolItemFactory.create(
            topic=topic, post_id=post.pk, key=str(post.pk), display_order=items - i
        )
        item.contributions.create(run=run, rank=i + 1)
        hits.append([HitFactory.create(item=item, post_id=post.pk, vote=0.987654)])
        pool_items.append(item)
    pool_items.sort(key=lambda item: item.display_order)
    hits.sort(key=lambda hs: hs[0].item.display_order)
    return Pool(topic=topic, items=pool_items, hits=hits)


def formula_pool(*, items: int = 2, instances: int = 3) -> Pool:
    """A formula-task topic: each item a visual id with `instances` formula instances."""
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.FORMULA)
    topic = TopicFactory.create(
        task=task,
        number="B.9",
        formula_id="q_6",
        latex="\\|A\\|_2=\\sqrt{\\rho(A^TA)}",
        title='Norms <span class="math-container" id="q_1">$\\infty$</span> of matrices',
        question=(
            '<p>Show <span class="math-container" id="q_6">$\\|A\\|_2=\\sqrt{\\rho(A^TA)}$'
            "</span> for every matrix.</p>"
        ),
    )
    pool_items, hits = [], []
    for i in range(items):
        item = PoolItemFactory.create(
            topic=topic, post_id=None, key=f"v{i}", visual_id=f"v{i}", display_order=i
        )
        item_hits = []
        for j in range(instances):
            post = PostFactory.create(
                body=(
                    f"<p>Answer {i}.{j}: we use "
                    f'<span class="math-container" id="{{fid}}">$\\sqrt{{\\rho(A^TA)}}$</span>'
                    ' and also <span class="math-container" id="1">$a+b$</span>.</p>'
                )
            )
            formula = FormulaFactory.create(
                post=post, latex="\\sqrt{\\rho(A^TA)}", visual_id=f"v{i}"
            )
            post.body = post.body.replace("{fid}", str(formula.pk))
            post.save(update_fields=["body"])
            item_hits.append(
                HitFactory.create(
                    item=item,
                    post_id=post.pk,
                    formula_id=formula.pk,
                    position=j,
                    vote=1.0 / (j + 1),
                )
            )
        pool_items.append(item)
        hits.append(item_hits)
    return Pool(topic=topic, items=pool_items, hits=hits)


def assign(pool: Pool, username: str = "alice", **kwargs: object) -> Assignment:
    return AssignmentFactory.create(
        topic=pool.topic, assessor=UserFactory.create(username=username), **kwargs
    )


@pytest.mark.django_db
def test_progress_counts_hits_and_continues_at_first_unjudged_when_partly_judged() -> None:
    pool = answer_pool(items=3)
    assignment = assign(pool)
    item_submit(
        assignment=assignment,
        item=pool.items[0],
        assessor=assignment.assessor,
        verdicts=[HitVerdict(hit_id=pool.hits[0][0].pk, grade=3)],
    )
    [progress] = assignments_with_progress(assignment.assessor)
    assert (progress.judged, progress.total, progress.percent) == (1, 3, 33)
    assert progress.continue_item_id == pool.items[1].pk


@pytest.mark.django_db
def test_progress_lists_only_own_active_assignments_when_others_exist() -> None:
    pool = answer_pool(items=2)
    mine = assign(pool, "alice")
    assign(answer_pool(items=1), "bob")
    AssignmentFactory.create(topic=answer_pool(items=1).topic, assessor=mine.assessor)
    revoked = AssignmentFactory.create(
        topic=answer_pool(items=1).topic, assessor=mine.assessor, purpose="dual"
    )
    revoked.revoked_at = revoked.created_at
    revoked.save()
    listed = [p.assignment.pk for p in assignments_with_progress(mine.assessor)]
    assert mine.pk in listed
    assert revoked.pk not in listed
    assert len(listed) == 2


@pytest.mark.parametrize(
    ("judged_positions", "current", "expected"),
    [
        ((), 0, 1),  # the next one after the current
        ((1,), 0, 2),
        ((1, 2), 0, 0),  # wraps round to the current item if only it is left
        ((0, 1, 2), 1, None),  # everything judged
        ((2,), 1, 0),  # wraps round past the end
    ],
)
@pytest.mark.django_db
def test_next_unjudged_follows_display_order_when_items_judged(
    judged_positions: tuple[int, ...], current: int, expected: int | None
) -> None:
    pool = answer_pool(items=3)
    assignment = assign(pool)
    for position in judged_positions:
        item_submit(
            assignment=assignment,
            item=pool.items[position],
            assessor=assignment.assessor,
            verdicts=[HitVerdict(hit_id=pool.hits[position][0].pk, grade=1)],
        )
    found = next_unjudged_item_id(item_statuses(assignment), pool.items[current].pk)
    assert found == (pool.items[expected].pk if expected is not None else None)


@pytest.mark.django_db
def test_item_page_highlights_candidate_and_query_formula_when_formula_task() -> None:
    pool = formula_pool(items=1, instances=3)
    assignment = assign(pool)
    page = item_page(assignment, pool.items[0].pk)
    assert page is not None
    assert len(page.hits) == 3
    for hit_view, hit in zip(page.hits, pool.hits[0], strict=True):
        assert f'class="math-container hit-formula" id="{hit.formula_id}"' in hit_view.body_html
        assert 'class="math-container" id="1"' in hit_view.body_html  # others not highlighted
    assert 'class="math-container hit-formula" id="q_6"' in page.topic_question_html
    assert page.query_latex == pool.topic.latex


@pytest.mark.django_db
def test_item_page_is_none_when_item_of_another_topic() -> None:
    assignment = assign(answer_pool(items=1))
    other = answer_pool(items=1)
    assert item_page(assignment, other.items[0].pk) is None


@pytest.mark.django_db
def test_topic_thread_is_linked_only_when_its_question_is_in_the_collection() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    pool.topic.thread_id = 99999999  # ARQMath topics: from a later year, not in the collection
    pool.topic.save()
    page = item_page(assignment, pool.items[0].pk)
    assert page is not None
    assert page.topic_thread_href == ""
    question = PostFactory.create(kind=1)
    pool.topic.thread_id = question.pk
    pool.topic.save()
    assignment.refresh_from_db()
    page = item_page(assignment, pool.items[0].pk)
    assert page is not None
    assert page.topic_thread_href == f"/threads/{question.thread_id}/#post-{question.pk}"
