"""judgment_submit and item_submit: saving rules, idempotency, revisions, scope."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from assessment.models import Judgment, JudgmentRevision
from assessment.services.judging import (
    MAX_ACTIVE_SECONDS,
    HitVerdict,
    JudgingNotFound,
    JudgmentInvalid,
    item_submit,
    judgment_submit,
)
from tests.factories import UserFactory
from tests.integration.test_judging_pools import answer_pool, assign, formula_pool

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("grade", "flag", "comment", "stored"),
    [
        (3, "", "", (3, "")),
        (0, "", "", (0, "")),
        (2, "", "  a note ", (2, "")),
        (None, "dont_know", "not my field", (None, "dont_know")),
        (None, "system_failure", "formula missing", (None, "system_failure")),
    ],
)
def test_submit_stores_grade_or_flag_when_valid(
    grade: int | None, flag: str, comment: str, stored: tuple[int | None, str]
) -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    judgment = judgment_submit(
        assignment=assignment,
        hit=pool.hits[0][0],
        assessor=assignment.assessor,
        grade=grade,
        flag=flag,
        comment=comment,
    )
    judgment.refresh_from_db()
    assert (judgment.grade, judgment.flag) == stored
    assert judgment.comment == comment.strip()
    assert judgment.assessor == assignment.assessor


@pytest.mark.parametrize(
    ("grade", "flag", "comment", "message"),
    [
        (None, "", "", "choose one"),
        (2, "dont_know", "why", "choose one"),
        (4, "", "", "0, 1, 2 or 3"),
        (None, "dont_know", "", "needs a comment"),
        (None, "system_failure", "   ", "needs a comment"),
        (None, "bogus", "x", "unknown flag"),
    ],
)
def test_submit_refuses_and_stores_nothing_when_invalid(
    grade: int | None, flag: str, comment: str, message: str
) -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    with pytest.raises(JudgmentInvalid) as refused:
        judgment_submit(
            assignment=assignment,
            hit=pool.hits[0][0],
            assessor=assignment.assessor,
            grade=grade,
            flag=flag,
            comment=comment,
        )
    assert message in str(refused.value)
    assert not Judgment.objects.exists()


def test_database_refuses_flag_without_comment_when_service_bypassed() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(
            assignment=assignment,
            hit=pool.hits[0][0],
            assessor=assignment.assessor,
            flag="dont_know",
        )


def test_same_values_twice_store_one_judgment_and_one_revision_when_double_clicked() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    for _ in range(2):
        judgment_submit(
            assignment=assignment,
            hit=pool.hits[0][0],
            assessor=assignment.assessor,
            grade=2,
            active_seconds=10,
        )
    judgment = Judgment.objects.get()
    assert judgment.revision == 1
    assert JudgmentRevision.objects.count() == 1
    assert judgment.active_seconds == pytest.approx(20)


def test_retry_with_same_token_adds_no_time_when_request_repeated() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    for _ in range(3):
        judgment_submit(
            assignment=assignment,
            hit=pool.hits[0][0],
            assessor=assignment.assessor,
            grade=1,
            active_seconds=7,
            client_token="attempt-1",
        )
    judgment = Judgment.objects.get()
    assert (judgment.revision, judgment.active_seconds) == (1, pytest.approx(7))


def test_every_change_is_a_revision_when_judgment_revised() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    hit = pool.hits[0][0]
    values = [
        {"grade": 1},
        {"grade": 3},
        {"flag": "dont_know", "comment": "unsure"},
        {"grade": 3},
    ]
    for i, value in enumerate(values):
        judgment_submit(
            assignment=assignment,
            hit=hit,
            assessor=assignment.assessor,
            active_seconds=5,
            client_token=f"t{i}",
            **value,  # type: ignore[arg-type]
        )
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.flag, judgment.revision) == (3, "", 4)
    assert judgment.active_seconds == pytest.approx(20)
    history = list(
        JudgmentRevision.objects.filter(judgment=judgment).values_list(
            "number", "grade", "flag", "comment"
        )
    )
    assert history == [
        (1, 1, "", ""),
        (2, 3, "", ""),
        (3, None, "dont_know", "unsure"),
        (4, 3, "", ""),
    ]


def test_item_submit_stores_all_hits_when_formula_item() -> None:
    pool = formula_pool(items=1, instances=3)
    assignment = assign(pool)
    hits = pool.hits[0]
    stored = item_submit(
        assignment=assignment,
        item=pool.items[0],
        assessor=assignment.assessor,
        verdicts=[
            HitVerdict(hit_id=hits[0].pk, grade=3),
            HitVerdict(hit_id=hits[1].pk, grade=0),
            HitVerdict(hit_id=hits[2].pk, flag="dont_know", comment="cannot tell"),
        ],
        active_seconds=30,
    )
    assert [j.hit_id for j in stored] == [h.pk for h in hits]
    assert Judgment.objects.count() == 3
    assert sum(Judgment.objects.values_list("active_seconds", flat=True)) == pytest.approx(30)


def test_item_submit_stores_nothing_when_one_hit_invalid() -> None:
    pool = formula_pool(items=1, instances=3)
    assignment = assign(pool)
    hits = pool.hits[0]
    with pytest.raises(JudgmentInvalid) as refused:
        item_submit(
            assignment=assignment,
            item=pool.items[0],
            assessor=assignment.assessor,
            verdicts=[
                HitVerdict(hit_id=hits[0].pk, grade=3),
                HitVerdict(hit_id=hits[1].pk, flag="dont_know"),
            ],
        )
    assert list(refused.value.problems) == [hits[1].pk]
    assert not Judgment.objects.exists()


def test_active_seconds_are_capped_when_client_claims_too_much() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    judgment = judgment_submit(
        assignment=assignment,
        hit=pool.hits[0][0],
        assessor=assignment.assessor,
        grade=2,
        active_seconds=10**9,
    )
    assert judgment.active_seconds == MAX_ACTIVE_SECONDS
    with pytest.raises(JudgmentInvalid):
        judgment_submit(
            assignment=assignment,
            hit=pool.hits[0][0],
            assessor=assignment.assessor,
            grade=2,
            active_seconds=float("nan"),
        )


def test_submit_is_not_found_when_assignment_of_another_assessor() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    with pytest.raises(JudgingNotFound):
        judgment_submit(
            assignment=assignment,
            hit=pool.hits[0][0],
            assessor=UserFactory.create(username="mallory"),
            grade=3,
        )
    assert not Judgment.objects.exists()


def test_submit_is_not_found_when_assignment_revoked() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    assignment.revoked_at = timezone.now()
    assignment.save()
    with pytest.raises(JudgingNotFound):
        judgment_submit(
            assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=3
        )


def test_submit_is_not_found_when_hit_from_topic_not_assigned() -> None:
    mine = answer_pool(items=1)
    other = answer_pool(items=1)
    assignment = assign(mine)
    with pytest.raises(JudgingNotFound):
        judgment_submit(
            assignment=assignment, hit=other.hits[0][0], assessor=assignment.assessor, grade=3
        )
    with pytest.raises(JudgingNotFound):  # a crafted item/hit pair
        item_submit(
            assignment=assignment,
            item=mine.items[0],
            assessor=assignment.assessor,
            verdicts=[HitVerdict(hit_id=other.hits[0][0].pk, grade=3)],
        )
    assert not Judgment.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_submits_store_one_judgment_when_requests_race() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    hit = pool.hits[0][0]
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def submit(grade: int) -> None:
        try:
            barrier.wait()
            judgment_submit(
                assignment=assignment,
                hit=hit,
                assessor=assignment.assessor,
                grade=grade,
                active_seconds=1,
            )
        except BaseException as error:  # reported below, in the test thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(i % 2 + 2,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    judgment = Judgment.objects.get()
    assert judgment.active_seconds == pytest.approx(6)
    assert JudgmentRevision.objects.filter(judgment=judgment).count() == judgment.revision


def test_submit_is_refused_when_training_round_handed_in() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    assignment.submitted_at = timezone.now()
    assignment.save()
    with pytest.raises(JudgmentInvalid, match="handed in"):
        judgment_submit(
            assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=3
        )
    assert not Judgment.objects.exists()
