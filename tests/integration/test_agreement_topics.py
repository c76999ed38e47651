"""Task agreement: the pooled kappa beside ARQMath-2's mean over the topics where both
assessors found some relevant hit, checked against scikit-learn topic by topic."""

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from assessment.models import Assignment
from assessment.selectors.agreement import task_agreement
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
]

# Per topic, the (official, dual) grades of its shared hits.
GRADES = {
    "A.1": [(3, 3), (0, 1), (2, 2), (1, 1), (0, 0)],  # kappa defined
    "A.2": [(2, 2), (2, 2), (2, 2)],  # both always said M: no variation
    "A.3": [(3, 0)],  # one shared hit, and only ann found it relevant
    "A.4": [(3, 2), (0, 0), (1, 3), (2, 2)],  # defined, binary too
    "A.5": [(2, 1), (0, 0), (1, 0)],  # defined, but bob found nothing relevant: not meaningful
}
MEANINGFUL = ("A.1", "A.4")  # both found H or M, and kappa is defined


def dual_assessed_task():  # type: ignore[no-untyped-def]
    task = RetrievalTaskFactory.create()
    ann, bob = UserFactory.create(username="ann"), UserFactory.create(username="bob")
    for number, pairs in GRADES.items():
        topic = TopicFactory.create(task=task, number=number)
        official = AssignmentFactory.create(topic=topic, assessor=ann)
        dual = AssignmentFactory.create(topic=topic, assessor=bob, purpose=Assignment.Purpose.DUAL)
        for a, b in pairs:
            hit = HitFactory.create(item=PoolItemFactory.create(topic=topic))
            JudgmentFactory.create(assignment=official, hit=hit, grade=a)
            JudgmentFactory.create(assignment=dual, hit=hit, grade=b)
    return task


def sklearn_kappa(pairs: list[tuple[int, int]], binary: bool) -> float:
    if binary:
        pairs = [(int(a >= 2), int(b >= 2)) for a, b in pairs]
    a, b = zip(*pairs, strict=True)
    with np.errstate(all="ignore"):
        return float(cohen_kappa_score(a, b, labels=[0, 1] if binary else [0, 1, 2, 3]))


def test_mean_over_topics_matches_sklearn_and_lists_topics_left_out_when_not_meaningful() -> None:
    table = task_agreement(task=dual_assessed_task())
    four = table.topic_mean
    assert four.mean.value == pytest.approx(
        np.mean([sklearn_kappa(GRADES[t], binary=False) for t in MEANINGFUL])
    )
    assert four.mean.n == 2
    not_both = "not both assessors found a relevant hit"
    assert four.left_out == [("A.2", "no variation"), ("A.3", not_both), ("A.5", not_both)]
    binary = table.topic_mean_binary
    values = [sklearn_kappa(GRADES[t], binary=True) for t in MEANINGFUL]
    assert binary.mean.value == pytest.approx(np.mean(values))
    assert binary.mean.n == 2  # A.5's binary kappa (0) is not averaged in
    everything = [pair for pairs in GRADES.values() for pair in pairs]
    assert table.pooled is not None
    assert table.pooled[0].value == pytest.approx(sklearn_kappa(everything, binary=False))
    assert table.pooled[1].value == pytest.approx(sklearn_kappa(everything, binary=True))


def test_agreement_page_shows_pooled_and_mean_over_topics_with_topics_left_out() -> None:
    task = dual_assessed_task()
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    html = client.get(reverse("assessment:organize_agreement", args=[task.pk])).content.decode()
    assert "Mean over topics" in html
    assert "ARQMath-2" in html
    assert "A.2 (no variation)" in html
    assert "A.3 (not both assessors found a relevant hit)" in html
