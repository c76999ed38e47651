"""demo_assign: the demo assessors get official topics of both tasks, once."""

from __future__ import annotations

import pytest

from assessment.models import Assignment
from collection.models import RetrievalTask
from demo.assignments import TOPICS_EACH, demo_assign
from tests.factories import AssignmentFactory, CampaignFactory, RetrievalTaskFactory, UserFactory
from tests.integration.test_judging_pools import answer_pool

pytestmark = pytest.mark.django_db


def test_demo_assessors_get_topics_of_each_task_once_when_run_twice() -> None:
    campaign = CampaignFactory.create()
    answer = RetrievalTaskFactory.create(campaign=campaign, kind=RetrievalTask.Kind.ANSWER)
    formula = RetrievalTaskFactory.create(campaign=campaign, kind=RetrievalTask.Kind.FORMULA)
    pools = [answer_pool(items=2, topic=None) for _ in range(5)]
    for pool in pools:
        pool.topic.task = answer
        pool.topic.save()
    formula_pools = [answer_pool(items=1) for _ in range(5)]
    for pool in formula_pools:
        pool.topic.task = formula
        pool.topic.save()
    alice, bob = UserFactory.create(username="alice"), UserFactory.create(username="bob")
    AssignmentFactory.create(topic=pools[0].topic, assessor=UserFactory.create(username="carl"))

    assert "8 new official assignments" in demo_assign(campaign)
    for person in (alice, bob):
        for task in (answer, formula):
            held = Assignment.objects.filter(assessor=person, topic__task=task, purpose="official")
            assert held.count() == TOPICS_EACH
    assert not Assignment.objects.filter(topic=pools[0].topic, assessor__in=[alice, bob]).exists()
    assert "0 new official assignments" in demo_assign(campaign)
