"""A training assignment covers only its round's items: progress, pages and submits agree."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment
from assessment.selectors.progress import assignments_with_progress, item_statuses
from assessment.services.judging import JudgingNotFound, judgment_submit
from tests.factories import TrainingRoundFactory
from tests.integration.test_judging_pools import answer_pool, assign

pytestmark = pytest.mark.django_db


def training_assignment(items: int = 6, in_round: tuple[int, ...] = (1, 4)):  # type: ignore[no-untyped-def]
    pool = answer_pool(items=items)
    training_round = TrainingRoundFactory.create(task=pool.topic.task)
    training_round.items.add(*(pool.items[i] for i in in_round))
    assignment = assign(
        pool, "alice", purpose=Assignment.Purpose.TRAINING, training_round=training_round
    )
    return pool, assignment


def test_training_progress_counts_only_round_items_when_the_pool_is_larger() -> None:
    pool, assignment = training_assignment()
    judgment_submit(
        assignment=assignment, hit=pool.hits[4][0], assessor=assignment.assessor, grade=1
    )
    [progress] = assignments_with_progress(assignment.assessor)
    assert (progress.judged, progress.total) == (1, 2)
    assert progress.continue_item_id == pool.items[1].pk
    assert [s.item_id for s in item_statuses(assignment)] == [pool.items[1].pk, pool.items[4].pk]


def test_item_outside_the_round_is_404_and_cannot_be_judged_when_training() -> None:
    pool, assignment = training_assignment()
    client = Client()
    client.force_login(assignment.assessor)
    outside = pool.items[0]
    url = reverse("assessment:judge", args=[assignment.pk, outside.pk])
    assert client.get(url).status_code == 404
    assert (
        client.get(reverse("assessment:judge", args=[assignment.pk, pool.items[1].pk])).status_code
        == 200
    )
    with pytest.raises(JudgingNotFound):
        judgment_submit(
            assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=2
        )
