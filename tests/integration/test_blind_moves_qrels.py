"""After a blind move, qrels, progress, the dashboard and agreement count the
judgments the documented precedence says (docs/agreement.md "Moving a topic"): the whole line
when continued, only the new line when started over, each judgment for its author."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment
from assessment.selectors.agreement import task_agreement
from assessment.selectors.dashboard import task_dashboard
from assessment.selectors.progress import assignments_with_progress
from assessment.services.assignments import assignment_revoke
from assessment.services.judging import HitVerdict, item_submit
from evaluation.services import QrelsExportError
from tests.factories import UserFactory
from tests.integration.blind_moves import (
    CONTINUE,
    START_OVER,
    alice_history,
    export,
    grade,
    judged_by_alice,
    move_over_rest,
    rows,
)
from tests.integration.test_judging_pools import answer_pool, assign, formula_pool

pytestmark = pytest.mark.django_db


def test_qrels_count_the_whole_line_when_topic_moved_and_continued() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)  # hit 0: High; hit 1: a flag (unjudged in Task 1 qrels)
    new = Assignment.objects.get(pk=move_over_rest(old, CONTINUE)["id"])
    grade(new, pool, 2, 2)
    third = Assignment.objects.get(pk=move_over_rest(new, CONTINUE, to="carol")["id"])
    grade(third, pool, 3, 0)
    assert rows(pool, export(pool)) == [
        (0, 3),
        (2, 2),
        (3, 0),
    ]
    [progress] = assignments_with_progress(third.assessor)
    assert (progress.judged, progress.total, progress.flagged) == (4, 4, 0)
    assert progress.is_done


def test_qrels_take_only_the_new_line_when_topic_started_over() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    new = Assignment.objects.get(pk=move_over_rest(old, START_OVER)["id"])
    with pytest.raises(QrelsExportError, match="no judged items"):
        export(pool)  # Alice's work no longer counts
    grade(new, pool, 1, 1)
    grade(new, pool, 2, 2)
    assert rows(pool, export(pool)) == [(1, 1), (2, 2)]
    # A later continue-move carries Bob's line on, not Alice's.
    third = Assignment.objects.get(pk=move_over_rest(new, CONTINUE, to="carol")["id"])
    grade(third, pool, 0, 0)
    assert rows(pool, export(pool)) == [
        (0, 0),
        (1, 1),
        (2, 2),
    ]


def test_qrels_rank_the_moved_official_line_above_dual_when_both_judged() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    dual = assign(pool, "dan", purpose=Assignment.Purpose.DUAL)
    grade(dual, pool, 0, 0)  # the official line says High
    grade(dual, pool, 3, 1)  # nobody official judged it
    move_over_rest(old, CONTINUE)
    assert rows(pool, export(pool)) == [(0, 3), (3, 1)]


def test_revoking_without_a_move_takes_the_judgments_out_of_qrels_when_revoked() -> None:
    pool = answer_pool(items=2)
    old = judged_by_alice(pool)
    assignment_revoke(assignment=old)
    with pytest.raises(QrelsExportError):
        export(pool)
    assert len(alice_history(old)) == 2  # still stored and attributed


@pytest.mark.parametrize(
    ("handover", "topic_judged", "grades"),
    [
        (CONTINUE, 4, [0, 1, 1, 1]),  # N L M H counts: Alice's High and flag, Bob's Low and Medium
        (START_OVER, 2, [0, 1, 1, 0]),  # Bob's Low and Medium only
    ],
)
def test_dashboard_counts_each_hit_once_for_the_current_line_when_topic_moved(
    handover: str, topic_judged: int, grades: list[int]
) -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    new = Assignment.objects.get(pk=move_over_rest(old, handover)["id"])
    grade(new, pool, 2, 1)
    grade(new, pool, 3, 2)
    board = task_dashboard(task=pool.topic.task)
    [topic] = board.topics
    assert (topic.judged, topic.grades, topic.assessor) == (topic_judged, grades, "bob")
    people = {p.name: p for p in board.assessors}
    assert (people["bob"].judged, people["bob"].judgments) == (topic_judged, 2)
    assert (people["alice"].judged, people["alice"].judgments) == (0, 2)
    assert people["alice"].assigned_hits == 0


def test_agreement_pairs_stay_by_author_when_a_started_over_topic_is_judged_again() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    grade(old, pool, 2, 2)
    new = Assignment.objects.get(pk=move_over_rest(old, START_OVER)["id"])
    grade(new, pool, 0, 3)
    grade(new, pool, 2, 0)
    table = task_agreement(task=pool.topic.task)
    [pair] = table.pairs
    assert {table.name(pair.first), table.name(pair.second)} == {"alice", "bob"}
    assert pair.shared == 2


def test_admin_cannot_change_an_assignments_assessor_in_place_when_editing() -> None:
    old = judged_by_alice(answer_pool(items=2))
    bob = UserFactory.create(username="bob")
    admin = Client()
    admin.force_login(UserFactory.create(username="root", is_staff=True, is_superuser=True))
    url = reverse("admin:assessment_assignment_change", args=[old.pk])
    assert 'name="assessor"' not in admin.get(url).content.decode()
    admin.post(url, {"assessor": bob.pk, "topic": old.topic_id, "purpose": "official"})
    old.refresh_from_db()
    assert old.assessor.username == "alice"


@pytest.mark.parametrize(("handover", "done"), [(CONTINUE, 1), (START_OVER, 0)])
def test_dashboard_counts_formulae_done_as_qrels_do_when_topic_moved(
    handover: str, done: int
) -> None:
    pool = formula_pool(items=1, instances=2)
    old = assign(pool, "alice")
    item_submit(
        assignment=old,
        item=pool.items[0],
        assessor=old.assessor,
        verdicts=[HitVerdict(hit_id=hit.pk, grade=2) for hit in pool.hits[0]],
    )
    move_over_rest(old, handover)
    [topic] = task_dashboard(task=pool.topic.task).topics
    assert (topic.judged_items, topic.items) == (done, 1)  # formulae, as the hit counts say
    assert topic.judged == 2 * done
