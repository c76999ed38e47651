"""The factories build valid rows that satisfy the database's constraints."""

import pytest

from tests.factories import JudgmentFactory

pytestmark = pytest.mark.django_db


def test_judgment_factory_links_hit_to_assigned_topic_when_built() -> None:
    judgment = JudgmentFactory.create()
    assert judgment.hit.item.topic == judgment.assignment.topic
    assert judgment.assessor == judgment.assignment.assessor
