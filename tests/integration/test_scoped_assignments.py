"""Scoped assignments as the organizer runs them: progress counts the scope only (dashboard,
overview, assignments page and REST), and items can be taken out of a scope without losing a
judgment, from the page and over REST, by two organizers at once, while the assessor has the
item open.

The story: an answer task with topic T1 (six answers) and T2 (four). T1's official assignment is
carol's, scoped to three of its answers (as a drawn human sample sends them); T2's is bob's, the
whole topic. carol has judged two of her three, bob one of his four. Every figure below is
counted by hand from that.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.models import Assignment, AssignmentItem, Judgment
from assessment.selectors.agreement import task_agreement
from assessment.selectors.dashboard import task_dashboard
from assessment.selectors.overview import campaign_overview
from assessment.selectors.progress import assignments_with_progress
from assessment.services.assignments import assignment_move, scope_items_remove
from assessment.services.assignments.scoped import items_route
from assessment.services.judging import HitVerdict, item_submit
from collection.models import RetrievalTask
from evaluation.core.qrels import QrelsPolicy
from evaluation.services.qrels import qrels_export
from tests.factories import AssignmentFactory, TopicFactory, UserFactory
from tests.integration.test_judging_pools import Pool, answer_pool, formula_pool

pytestmark = pytest.mark.django_db


@dataclass
class Story:
    task: RetrievalTask
    t1: Pool
    t2: Pool
    carol: User
    bob: User
    scoped: Assignment
    whole: Assignment
    organizer: APIClient


def _judge(assignment: Assignment, pool: Pool, index: int, grade: int = 2) -> None:
    item_submit(
        assignment=assignment,
        item=pool.items[index],
        assessor=assignment.assessor,
        verdicts=[HitVerdict(hit_id=hit.pk, grade=grade) for hit in pool.hits[index]],
    )


def _story() -> Story:
    t1 = answer_pool(items=6)
    task = t1.topic.task
    t2 = answer_pool(items=4, topic=TopicFactory.create(task=task, number="T2"), prefix=100)
    carol, bob = UserFactory.create(username="carol"), UserFactory.create(username="bob")
    routed = items_route(
        items={t1.topic.pk: [item.pk for item in t1.items[:3]]}, assessors=[carol], created_by=None
    )
    [scoped] = routed.created
    whole = AssignmentFactory.create(topic=t2.topic, assessor=bob)
    _judge(scoped, t1, 0, grade=3)
    _judge(scoped, t1, 1, grade=1)
    _judge(whole, t2, 0, grade=2)
    organizer = APIClient()
    organizer.force_authenticate(UserFactory.create(is_staff=True))
    return Story(task, t1, t2, carol, bob, scoped, whole, organizer)


def _scope_url(assignment: Assignment) -> str:
    return reverse("assessment_api:organize-assignment-scope", args=[assignment.pk])


def _keys(assignment: Assignment) -> set[str]:
    return set(
        AssignmentItem.objects.filter(assignment=assignment).values_list("item__key", flat=True)
    )


def test_dashboard_counts_the_scope_not_the_topic_when_the_official_assignment_is_scoped() -> None:
    story = _story()
    board = task_dashboard(task=story.task)
    topics = {t.topic_id: t for t in board.topics}
    t1, t2 = topics[story.t1.topic.pk], topics[story.t2.topic.pk]
    # T1: 2 of carol's 3 answers (the whole topic would say 2 of 6); T2: 1 of 4.
    assert (t1.judged, t1.hits, t1.scoped, str(t1.progress)) == (2, 3, True, "2 of 3 answers")
    assert (t2.judged, t2.hits, t2.scoped, str(t2.progress)) == (1, 4, False, "1 of 4 answers")
    # The task: 3 judged of 3 + 4 to judge; the pool itself still has 10 hits.
    assert (board.pool_hits, board.to_judge, str(board.completion)) == (10, 7, "3 of 7 answers")
    assert board.percent == pytest.approx(100 * 3 / 7)
    people = {p.name: p for p in board.assessors}
    assert (people["carol"].judged, people["carol"].assigned_hits) == (2, 3)
    assert (people["bob"].judged, people["bob"].assigned_hits) == (1, 4)
    # Relevance so far still counts every judgment of the topic (grades 3 and 1).
    assert t1.grades == [0, 1, 0, 1]


def test_overview_page_and_rest_count_the_scope_when_an_assignment_is_scoped() -> None:
    story = _story()
    [summary] = [s for _, tasks in campaign_overview() for s in tasks if s.task == story.task]
    assert (summary.hits, str(summary.progress)) == (10, "3 of 7 answers")
    assert summary.percent == pytest.approx(100 * 3 / 7)

    url = reverse("assessment_api:organize-assignments", args=[story.task.pk])
    rows = {r["assessor"]: r for r in story.organizer.get(url).json()}
    assert (rows["carol"]["judged"], rows["carol"]["hits"], rows["carol"]["scoped"]) == (2, 3, True)
    assert (rows["bob"]["judged"], rows["bob"]["hits"], rows["bob"]["scoped"]) == (1, 4, False)

    page = Client()
    page.force_login(UserFactory.create(is_staff=True))
    text = page.get(reverse("assessment:organize_assignments", args=[story.task.pk])).content
    assert b"<small>2 / 3</small>" in text
    assert b"<small>1 / 4</small>" in text
    assert reverse("assessment:organize_scope", args=[story.scoped.pk]).encode() in text
    task_page = page.get(reverse("assessment:organize_task", args=[story.task.pk])).content
    assert b"<b>3</b> of 7 answers judged" in task_page
    assert b"<b>2</b> of 3 answers judged" in task_page
    assert b"chosen items" in task_page


def test_formula_topic_counts_scoped_formulae_and_posts_when_the_assignment_is_scoped() -> None:
    pool = formula_pool(items=3, instances=2)  # 3 formulae, 2 posts each
    carol = UserFactory.create(username="carol")
    [scoped] = items_route(
        items={pool.topic.pk: [pool.items[0].pk, pool.items[1].pk]},
        assessors=[carol],
        created_by=None,
    ).created
    _judge(scoped, pool, 0)  # both posts of formula 0
    item_submit(  # one post of formula 1
        assignment=scoped,
        item=pool.items[1],
        assessor=carol,
        verdicts=[HitVerdict(hit_id=pool.hits[1][0].pk, grade=0)],
    )
    [topic] = task_dashboard(task=pool.topic.task).topics
    # The whole topic would be "1 of 3 formulae · 3 of 6 posts".
    assert str(topic.progress) == "1 of 2 formulae · 3 of 4 posts"
    [summary] = [s for _, ts in campaign_overview() for s in ts if s.task == pool.topic.task]
    assert str(summary.progress) == "1 of 2 formulae · 3 of 4 posts"
    # Formula 0 taken out, judged: its posts stay judged but leave the scope's progress.
    scope_items_remove(assignment=scoped, item_ids=[pool.items[0].pk])
    [topic] = task_dashboard(task=pool.topic.task).topics
    assert str(topic.progress) == "0 of 1 formula · 1 of 2 posts"
    assert Judgment.objects.filter(assignment=scoped).count() == 3


def test_removing_items_keeps_every_judgment_and_the_judged_item_stays_in_qrels() -> None:
    story = _story()
    judged, open_item = story.t1.items[1], story.t1.items[2]
    answer = story.organizer.post(
        _scope_url(story.scoped), {"items": [judged.pk, open_item.pk]}, format="json"
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["removed"], body["judged_kept"], body["already_out"], body["left"]) == (2, 1, 0, 1)
    assert "their judgments are kept" in body["message"]
    assert [i["key"] for i in body["scope"]["items"]] == [story.t1.items[0].key]
    assert _keys(story.scoped) == {story.t1.items[0].key}
    # Both of carol's judgments are still there; the removed one still counts toward qrels.
    assert Judgment.objects.filter(assignment=story.scoped).count() == 2
    # No minimum-relevant rule: this small story has one relevant answer per topic.
    qrels = qrels_export(task=story.task, policy=QrelsPolicy(), allow_incomplete=True)
    rows = {(p[0], p[2], p[3]) for p in (line.split() for line in qrels.content.splitlines())}
    assert (story.t1.topic.number, judged.key, "1") in rows
    # carol's progress and the dashboard now count her scope of one item, judged.
    [mine] = assignments_with_progress(story.carol)
    assert (mine.judged, mine.total) == (1, 1)
    t1 = next(t for t in task_dashboard(task=story.task).topics if t.topic_id == story.t1.topic.pk)
    assert (t1.judged, t1.hits) == (1, 1)
    # carol no longer gets the items: neither listed nor judgeable (404, nothing stored).
    assessor = APIClient()
    assessor.force_authenticate(story.carol)
    listed = assessor.get(reverse("assessment_api:assignment-items", args=[story.scoped.pk]))
    assert [i["id"] for i in listed.json()["results"]] == [story.t1.items[0].pk]
    refused = assessor.post(
        reverse("assessment_api:item-judgments", args=[story.scoped.pk, open_item.pk]),
        {"judgments": [{"hit": story.t1.hits[2][0].pk, "grade": 3}]},
        format="json",
    )
    assert refused.status_code == 404
    assert not Judgment.objects.filter(hit=story.t1.hits[2][0]).exists()


def test_a_removed_judged_item_still_counts_in_agreement_when_a_dual_assessor_judged_it() -> None:
    story = _story()
    dual = AssignmentFactory.create(
        topic=story.t1.topic, assessor=UserFactory.create(username="dan"), purpose="dual"
    )
    _judge(dual, story.t1, 1, grade=1)  # the same answer carol graded 1
    before = task_agreement(task=story.task)
    scope_items_remove(assignment=story.scoped, item_ids=[story.t1.items[1].pk])
    after = task_agreement(task=story.task)
    pairs = [(after.name(p.first), after.name(p.second), p.shared) for p in after.pairs]
    assert pairs == [("carol", "dan", 1)]
    assert [p.kappa.n for p in after.pairs] == [p.kappa.n for p in before.pairs] == [1]


def test_after_a_move_the_scope_counts_the_earlier_assessors_judgments_still_in_it() -> None:
    story = _story()
    dave = UserFactory.create(username="dave")
    moved = assignment_move(assignment=story.scoped, assessor=dave, moved_by=None).assignment
    _judge(moved, story.t1, 2, grade=0)  # dave judges the third; carol judged the first two
    scope_items_remove(assignment=moved, item_ids=[story.t1.items[0].pk])  # carol's, judged
    board = task_dashboard(task=story.task)
    t1 = next(t for t in board.topics if t.topic_id == story.t1.topic.pk)
    # The scope: carol's second and dave's third, both judged (by the line); 1 + 2 of 2 + 4.
    assert (t1.judged, t1.hits, t1.assessor) == (2, 2, "dave")
    assert str(board.completion) == "3 of 6 answers"
    people = {p.name: p for p in board.assessors}
    assert (people["dave"].judged, people["dave"].assigned_hits) == (2, 2)
    [summary] = [s for _, tasks in campaign_overview() for s in tasks if s.task == story.task]
    assert str(summary.progress) == "3 of 6 answers"
    [mine] = assignments_with_progress(dave)
    assert (mine.judged, mine.total) == (2, 2)


def test_taking_out_every_unjudged_item_from_the_page_says_what_happens() -> None:
    story = _story()
    page = Client()
    page.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_scope", args=[story.scoped.pk])
    shown = page.get(url).content.decode()
    assert "Judgments are never deleted" in shown
    assert "Take out the 1 unjudged item" in shown
    done = page.post(url, {"unjudged": "on"}, follow=True).content.decode()
    assert "Took 1 item out of the scope; 2 left to the assessor." in done
    assert _keys(story.scoped) == {story.t1.items[0].key, story.t1.items[1].key}
    # Nothing ticked: a clear 400, nothing removed.
    empty = page.post(url, {})
    assert empty.status_code == 400
    assert "Tick the items to take out" in empty.content.decode()
    # An item of another topic: refused by the form, naming nothing stored.
    foreign = page.post(url, {"items": [story.t2.items[0].pk]})
    assert foreign.status_code == 400
    assert _keys(story.scoped) == {story.t1.items[0].key, story.t1.items[1].key}
    # An assessor may not open the page.
    page.force_login(story.carol)
    assert page.get(url).status_code == 403


def test_a_scope_emptied_by_the_organizer_shows_as_closed_everywhere_judgments_kept() -> None:
    story = _story()
    carol_page, carol_api = Client(), APIClient()
    carol_page.force_login(story.carol)
    carol_api.force_authenticate(story.carol)
    # Two items left after one is taken out: still an ordinary assignment, not closed.
    story.organizer.post(_scope_url(story.scoped), {"unjudged": True}, format="json")
    rows = carol_api.get(reverse("assessment_api:assignment-list")).json()["results"]
    assert [(r["total_hits"], r["closed"]) for r in rows] == [(2, False)]
    # Every item out: two of them judged (their judgments stay).
    items = [item.pk for item in story.t1.items[:2]]
    taken = story.organizer.post(_scope_url(story.scoped), {"items": items}, format="json").json()
    assert (taken["removed"], taken["judged_kept"], taken["left"]) == (2, 2, 0)
    assert taken["scope"]["closed"] is True
    assert taken["scope"]["items"] == []
    assert Judgment.objects.filter(assignment=story.scoped).count() == 2

    # The assessor: a closed card with its sentence, never "Pool not built yet" nor a bar
    # of 0 of 0; the item list says the same; over REST, closed with nothing to continue at.
    home = carol_page.get(reverse("assessment:home")).content.decode()
    assert 'class="assignment-card is-closed"' in home
    assert "the organizer took every item out of this assignment" in home
    assert "Pool not built yet" not in home
    assert "0 of 0" not in home
    assert "Start →" not in home
    assert "Continue →" not in home
    items_page = carol_page.get(reverse("assessment:items", args=[story.scoped.pk]))
    assert "the organizer took every item out of this assignment" in items_page.content.decode()
    [row] = carol_api.get(reverse("assessment_api:assignment-list")).json()["results"]
    assert (row["closed"], row["total_hits"], row["continue_item"]) == (True, 0, None)
    [progress] = assignments_with_progress(story.carol)
    assert progress.is_closed
    assert not progress.is_done

    # The organizer: closed on the assignments page and REST, the task page and the scope page;
    # bob's whole-topic assignment is not.
    url = reverse("assessment_api:organize-assignments", args=[story.task.pk])
    closed = {r["assessor"]: r["closed"] for r in story.organizer.get(url).json()}
    assert closed == {"carol": True, "bob": False}
    page = Client()
    page.force_login(UserFactory.create(is_staff=True))
    assignments = page.get(reverse("assessment:organize_assignments", args=[story.task.pk]))
    assert assignments.content.decode().count("closed, every item taken out") == 1
    task_page = page.get(reverse("assessment:organize_task", args=[story.task.pk])).content
    assert b'title="Every item was taken out of the scope' in task_page
    scope_page = page.get(reverse("assessment:organize_scope", args=[story.scoped.pk]))
    assert "carol sees the assignment as closed" in scope_page.content.decode()
    # Items routed to the scope again open it again: closed is the scope's state, not a flag.
    items_route(items={story.t1.topic.pk: items[:1]}, assessors=[story.carol], created_by=None)
    [again] = carol_api.get(reverse("assessment_api:assignment-list")).json()["results"]
    assert (again["closed"], again["total_hits"]) == (False, 1)


def test_rest_refuses_bad_removals_with_their_reason_and_removes_nothing() -> None:
    story = _story()
    url = _scope_url(story.scoped)
    assert story.organizer.post(url, {}, format="json").status_code == 400
    foreign = story.organizer.post(url, {"items": [story.t2.items[0].pk]}, format="json")
    assert foreign.status_code == 400
    assert foreign.json()["problems"] == [
        f"pool item {story.t2.items[0].pk} is not an item of topic {story.t1.topic.number}"
    ]
    assert len(_keys(story.scoped)) == 3
    # A whole-topic assignment has no scope page (404), and the service says why.
    assert story.organizer.get(_scope_url(story.whole)).status_code == 404
    with pytest.raises(Exception, match="covers its whole topic"):
        scope_items_remove(assignment=story.whole, unjudged=True)
    # An assessor is refused.
    assessor = APIClient()
    assessor.force_authenticate(story.carol)
    assert assessor.post(url, {"unjudged": True}, format="json").status_code == 403
    assert len(_keys(story.scoped)) == 3


def test_judging_page_open_on_a_removed_item_saves_nothing_when_the_assessor_submits() -> None:
    story = _story()
    open_item, hit = story.t1.items[2], story.t1.hits[2][0]
    assessor = Client()
    assessor.force_login(story.carol)
    page_url = reverse("assessment:judge", args=[story.scoped.pk, open_item.pk])
    assert assessor.get(page_url).status_code == 200  # the page is open...
    removed = story.organizer.post(_scope_url(story.scoped), {"unjudged": True}, format="json")
    assert removed.json()["removed"] == 1  # ...when the organizer takes the item out
    # The page's form (no JavaScript) and its script's REST call both answer 404.
    posted = assessor.post(page_url, {f"choice-{hit.pk}": "2", "opened_at": "1"})
    assert posted.status_code == 404
    api = APIClient()
    api.force_authenticate(story.carol)
    scripted = api.post(
        reverse("assessment_api:item-judgments", args=[story.scoped.pk, open_item.pk]),
        {"judgments": [{"hit": hit.pk, "grade": 2}]},
        format="json",
    )
    assert scripted.status_code == 404
    assert not Judgment.objects.filter(hit=hit).exists()
    assert assessor.get(page_url).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_two_organizers_removing_at_once_take_each_item_out_once() -> None:
    story = _story()
    items = [item.pk for item in story.t1.items[:3]]
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []
    removed: list[int] = []

    def remove(asked: list[int], unjudged: bool) -> None:
        try:
            barrier.wait()
            done = scope_items_remove(assignment=story.scoped, item_ids=asked, unjudged=unjudged)
            removed.append(done.removed)
        except BaseException as error:  # reported below, in the test thread
            errors.append(error)
        finally:
            connection.close()

    asks = [(items[1:], False), (items[2:], True), (items, False), ([], True)]
    threads = [threading.Thread(target=remove, args=ask) for ask in asks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(removed) == 3  # every item once, whoever came first
    assert not AssignmentItem.objects.filter(assignment=story.scoped).exists()
    assert Judgment.objects.filter(assignment=story.scoped).count() == 2


def test_scope_page_and_endpoint_run_bounded_queries_when_the_scope_is_large(
    django_assert_max_num_queries,
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=40)
    [scoped] = items_route(
        items={pool.topic.pk: [item.pk for item in pool.items]},
        assessors=[UserFactory.create(username="carol")],
        created_by=None,
    ).created
    page = Client()
    page.force_login(UserFactory.create(is_staff=True))
    api = APIClient()
    api.force_authenticate(UserFactory.create(is_staff=True))
    with django_assert_max_num_queries(12):
        shown = page.get(reverse("assessment:organize_scope", args=[scoped.pk]))
    assert shown.content.decode().count('name="items"') == 40
    with django_assert_max_num_queries(6):
        listed = api.get(_scope_url(scoped))
    assert len(listed.json()["items"]) == 40
