"""An item taken out of a scope after its assessor judged it stays theirs to correct.

The story (test_scoped_assignments.py's): carol's scoped assignment of topic T1 covers three
of its six answers; she graded the first 3 and the second 1; the third is unjudged. The
organizer takes the second and the third out. Her judgment of the second still counts toward
qrels, so she may revise it (a new revision, kept as every change is) from the item list, the
page and over REST; the third, never judged by her, stays refused (404, nothing stored). Her
progress keeps counting only the scope left: one answer, judged. Every figure is counted by
hand from that story.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.models import Judgment, JudgmentRevision
from assessment.selectors.progress import assignments_with_progress
from assessment.services.assignments import scope_items_remove
from assessment.services.assignments.scoped import items_route
from assessment.services.judging import HitVerdict, item_submit
from evaluation.core.qrels import QrelsPolicy
from evaluation.services.qrels import qrels_export
from tests.factories import UserFactory
from tests.integration.test_judging_pools import formula_pool
from tests.integration.test_scoped_assignments import _story

pytestmark = pytest.mark.django_db


def _judgments_url(assignment_id: int, item_id: int) -> str:
    return reverse("assessment_api:item-judgments", args=[assignment_id, item_id])


def _qrels_rows(task) -> set[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    qrels = qrels_export(task=task, policy=QrelsPolicy(), allow_incomplete=True)
    return {(p[0], p[2], p[3]) for p in (line.split() for line in qrels.content.splitlines())}


def test_assessor_revises_a_judged_item_taken_out_over_rest_when_new_judgments_are_refused() -> (
    None
):
    story = _story()
    judged, unjudged = story.t1.items[1], story.t1.items[2]
    judged_hit, unjudged_hit = story.t1.hits[1][0], story.t1.hits[2][0]
    scope_items_remove(assignment=story.scoped, item_ids=[judged.pk, unjudged.pk])
    carol = APIClient()
    carol.force_authenticate(story.carol)

    # She can read her judgment of the item taken out, as she left it...
    read = carol.get(_judgments_url(story.scoped.pk, judged.pk))
    assert read.status_code == 200, read.content
    assert [(j["hit"], j["grade"], j["revision"]) for j in read.json()["judgments"]] == [
        (judged_hit.pk, 1, 1)
    ]
    # ...and correct it: stored as revision 2, the first kept.
    revised = carol.post(
        _judgments_url(story.scoped.pk, judged.pk),
        {"judgments": [{"hit": judged_hit.pk, "grade": 2, "comment": "on second thought"}]},
        format="json",
    )
    assert revised.status_code == 200, revised.content
    body = revised.json()
    assert [(j["grade"], j["revision"]) for j in body["judgments"]] == [(2, 2)]
    # The counts answered are the scope's as it is now: one answer, judged.
    assert (body["judged_hits"], body["total_hits"]) == (1, 1)
    mine = Judgment.objects.get(assignment=story.scoped, hit=judged_hit)
    assert (mine.grade, mine.revision, mine.comment) == (2, 2, "on second thought")
    history = JudgmentRevision.objects.filter(judgment=mine).order_by("number")
    assert [(r.number, r.grade) for r in history] == [(1, 1), (2, 2)]
    # The revision is what qrels now hold for that answer.
    assert (story.t1.topic.number, judged.key, "2") in _qrels_rows(story.task)
    # Progress still counts only the scope left (the removed item stays out of it).
    [progress] = assignments_with_progress(story.carol)
    assert (progress.judged, progress.total) == (1, 1)

    # The item she never judged: no page, no reading, no new judgment (nothing stored).
    assert carol.get(_judgments_url(story.scoped.pk, unjudged.pk)).status_code == 404
    refused = carol.post(
        _judgments_url(story.scoped.pk, unjudged.pk),
        {"judgments": [{"hit": unjudged_hit.pk, "grade": 3}]},
        format="json",
    )
    assert refused.status_code == 404
    assert not Judgment.objects.filter(hit=unjudged_hit).exists()
    # REST's one-item view opens the revisable item, not the other.
    item_url = reverse("assessment_api:assignment-item", args=[story.scoped.pk, judged.pk])
    detail = carol.get(item_url)
    assert detail.status_code == 200, detail.content
    shown = detail.json()
    assert [h["grade"] for h in shown["hits"]] == [2]
    assert (shown["taken_out"], shown["position"]) == (True, None)
    kept_url = reverse(
        "assessment_api:assignment-item", args=[story.scoped.pk, story.t1.items[0].pk]
    )
    kept = carol.get(kept_url).json()  # an item still in the scope: in its place
    assert (kept["taken_out"], kept["position"]) == (False, 1)
    other_url = reverse("assessment_api:assignment-item", args=[story.scoped.pk, unjudged.pk])
    assert carol.get(other_url).status_code == 404


def test_only_its_own_assessor_revises_a_taken_out_item_when_another_assessor_tries() -> None:
    story = _story()
    judged, judged_hit = story.t1.items[1], story.t1.hits[1][0]
    scope_items_remove(assignment=story.scoped, item_ids=[judged.pk])
    # bob has a whole-topic assignment of T2 only: carol's assignment is not his.
    bob = APIClient()
    bob.force_authenticate(story.bob)
    sent = bob.post(
        _judgments_url(story.scoped.pk, judged.pk),
        {"judgments": [{"hit": judged_hit.pk, "grade": 0}]},
        format="json",
    )
    assert sent.status_code == 404
    assert Judgment.objects.get(hit=judged_hit).grade == 1


def test_item_list_and_page_reach_a_judged_item_taken_out_to_revise_it_without_script() -> None:
    story = _story()
    judged, unjudged = story.t1.items[1], story.t1.items[2]
    judged_hit = story.t1.hits[1][0]
    scope_items_remove(assignment=story.scoped, item_ids=[judged.pk, unjudged.pk])
    carol = Client()
    carol.force_login(story.carol)

    listed = carol.get(reverse("assessment:items", args=[story.scoped.pk])).content.decode()
    judged_url = reverse("assessment:judge", args=[story.scoped.pk, judged.pk])
    unjudged_url = reverse("assessment:judge", args=[story.scoped.pk, unjudged.pk])
    # The scope counts one answer; the taken-out one is listed apart, with its page.
    assert "<b>1</b> of 1 answer judged" in listed
    assert "Taken out of your assignment" in listed
    assert "1 answer you judged" in listed
    assert f'href="{judged_url}"' in listed
    assert unjudged_url not in listed

    page = carol.get(judged_url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "data-taken-out" in html
    assert "Your judgment is kept and still counts in the results: you can correct it here." in html
    assert "Answer <b data-position>\u2013</b> of 1" in html
    assert f'name="choice-{judged_hit.pk}" value="1" checked' in html
    # The one never judged (a Next link drawn before it went): a 404 with the way back.
    gone = carol.get(unjudged_url)
    assert gone.status_code == 404
    assert "This item is not yours to judge" in gone.content.decode()
    items_url = reverse("assessment:items", args=[story.scoped.pk])
    assert f'href="{items_url}">Back to your items</a>' in gone.content.decode()
    # An id that is no item of the topic stays a 404.
    other = reverse("assessment:judge", args=[story.scoped.pk, story.t1.items[-1].pk + 10_000])
    assert carol.get(other).status_code == 404

    # The no-script form stores the revision and goes back to the item list.
    posted = carol.post(judged_url, {f"choice-{judged_hit.pk}": "0", "opened_at": "1"})
    assert posted.status_code == 302
    assert posted["Location"] == reverse("assessment:items", args=[story.scoped.pk])
    mine = Judgment.objects.get(assignment=story.scoped, hit=judged_hit)
    assert (mine.grade, mine.revision) == (0, 2)
    assert carol.post(unjudged_url, {f"choice-{story.t1.hits[2][0].pk}": "2"}).status_code == 404
    assert not Judgment.objects.filter(hit=story.t1.hits[2][0]).exists()


def test_of_a_formula_taken_out_only_the_posts_already_judged_can_change_when_one_is_open() -> None:
    pool = formula_pool(items=2, instances=2)  # 2 formulae, 2 posts each
    carol = UserFactory.create(username="carol")
    [scoped] = items_route(
        items={pool.topic.pk: [item.pk for item in pool.items]}, assessors=[carol], created_by=None
    ).created
    judged_post, open_post = pool.hits[0]
    item_submit(
        assignment=scoped,
        item=pool.items[0],
        assessor=carol,
        verdicts=[HitVerdict(hit_id=judged_post.pk, grade=1)],
    )
    scope_items_remove(assignment=scoped, item_ids=[pool.items[0].pk])
    api = APIClient()
    api.force_authenticate(carol)
    url = _judgments_url(scoped.pk, pool.items[0].pk)
    # The post she never judged is not hers to judge now, alone or with the judged one.
    for sent in ([open_post], [judged_post, open_post]):
        verdicts = [{"hit": hit.pk, "grade": 3} for hit in sent]
        assert api.post(url, {"judgments": verdicts}, format="json").status_code == 404
    assert Judgment.objects.get(hit=judged_post).grade == 1
    assert not Judgment.objects.filter(hit=open_post).exists()
    # The judged post alone: revised.
    revised = api.post(url, {"judgments": [{"hit": judged_post.pk, "grade": 3}]}, format="json")
    assert revised.status_code == 200, revised.content
    assert Judgment.objects.get(hit=judged_post).revision == 2
    # Her page shows the judged post open to revise and the other as taken out, no control.
    page = Client()
    page.force_login(carol)
    html = page.get(reverse("assessment:judge", args=[scoped.pk, pool.items[0].pk])).content
    text = html.decode()
    assert f'name="choice-{judged_post.pk}"' in text
    assert f'data-taken-out-hit="{open_post.pk}"' in text
    assert f'name="choice-{open_post.pk}"' not in text
    assert "1 post to judge" in text
