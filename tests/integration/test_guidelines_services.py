"""A task's guidelines versions and scale through the services: saving,
judgments recording their version, the exact bound of grades and flags, adjudication, qrels,
agreement and the dashboard following the task's scale and relevance level."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError

from assessment.core.guidelines import GuidelinesInvalid, scale_as_json
from assessment.core.guidelines_defaults import default_guidelines
from assessment.models import Assignment, Judgment, TaskGuidelines
from assessment.selectors.agreement import task_agreement
from assessment.selectors.dashboard import task_dashboard
from assessment.selectors.guidelines import guidelines_current, guidelines_versions
from assessment.services.adjudication import AdjudicationError, adjudication_decide
from assessment.services.guidelines import guidelines_save
from assessment.services.judging import JudgmentInvalid, judgment_submit
from assessment.services.training import TrainingError, gold_qrels_parse
from collection.models import RetrievalTask
from evaluation.core.qrels import QrelsPolicy
from evaluation.services.qrels import qrels_export
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def binary_scale(flags: tuple[str, ...] = ("dont_know",)) -> dict[str, Any]:
    labels = {"system_failure": ("Broken", "f"), "dont_know": ("Unsure", "u")}
    return {
        "grades": [
            {"value": 1, "label": "Relevant", "keys": ["1", "r"], "definition": "It helps."},
            {"value": 0, "label": "Not relevant", "keys": ["0", "n"], "definition": "No help."},
        ],
        "flags": [
            {"code": code, "label": labels[code][0], "keys": [labels[code][1]], "definition": ""}
            for code in flags
        ],
    }


def zero_to_four() -> dict[str, Any]:
    scale = scale_as_json(default_guidelines("answer").scale)
    scale["grades"].insert(
        0, {"value": 4, "label": "Perfect", "keys": ["4", "p"], "definition": "All of it."}
    )
    return scale


def topic_with_hits(task: RetrievalTask | None = None, hits: int = 3):  # type: ignore[no-untyped-def]
    topic = TopicFactory.create(**({"task": task} if task else {}))
    made = [HitFactory.create(item=PoolItemFactory.create(topic=topic)) for _ in range(hits)]
    return topic, made


def test_saving_makes_consecutive_versions_and_keeps_old_ones_when_texts_change() -> None:
    topic, _hits = topic_with_hits()
    task = topic.task
    organizer = UserFactory.create(is_staff=True)
    assert guidelines_current(task=task).version == 0
    scale = scale_as_json(default_guidelines("answer").scale)
    scale["grades"][0]["definition"] = "Settles the question: $x^2$ and all."
    first = guidelines_save(
        task=task, instructions="Read *carefully*.", scale=scale, relevance_level=2,
        note="our wording", created_by=organizer,
    )  # fmt: skip
    scale["grades"][0]["label"] = "Highly relevant"
    second = guidelines_save(task=task, instructions="Read.", scale=scale, relevance_level=2)
    assert first is not None
    assert second is not None
    assert (first.version, second.version) == (1, 2)
    current = guidelines_current(task=task)
    assert current.version == 2
    assert current.scale.grade(3).label == "Highly relevant"  # type: ignore[union-attr]
    assert TaskGuidelines.objects.get(task=task, version=1).note == "our wording"
    again = guidelines_save(task=task, instructions="Read.", scale=scale, relevance_level=2)
    assert again == second  # nothing changed: no version 3


def test_nothing_is_stored_and_every_problem_is_listed_when_guidelines_are_invalid() -> None:
    task = TopicFactory.create().task
    scale = binary_scale()
    scale["grades"][0]["keys"] = ["j"]
    scale["grades"][1]["label"] = ""
    with pytest.raises(GuidelinesInvalid) as caught:
        guidelines_save(task=task, instructions="x", scale=scale, relevance_level=5)
    problems = caught.value.problems
    assert any("key 'j' is reserved" in p for p in problems)
    assert any("grade 0: the label is empty" in p for p in problems)
    assert any("relevance level" in p for p in problems)
    assert not TaskGuidelines.objects.exists()
    task.refresh_from_db()
    assert task.relevance_level == 2


def test_binary_scale_needs_level_1_and_stores_it_on_the_task_when_saved() -> None:
    task = TopicFactory.create().task
    with pytest.raises(GuidelinesInvalid, match="relevance level: 2"):
        guidelines_save(task=task, instructions="", scale=binary_scale(), relevance_level=2)
    saved = guidelines_save(task=task, instructions="", scale=binary_scale(), relevance_level=1)
    assert saved is not None
    task.refresh_from_db()
    assert task.relevance_level == 1


def test_each_judgment_records_the_version_it_was_made_under_when_guidelines_change() -> None:
    topic, hits = topic_with_hits()
    assignment = AssignmentFactory.create(topic=topic)
    who = assignment.assessor
    before = judgment_submit(assignment=assignment, hit=hits[0], assessor=who, grade=2)
    kept = judgment_submit(assignment=assignment, hit=hits[1], assessor=who, grade=1)
    scale = scale_as_json(default_guidelines("answer").scale)
    scale["grades"][1]["definition"] = "Real help, but not all of it."
    version = guidelines_save(task=topic.task, instructions="", scale=scale, relevance_level=2)
    after = judgment_submit(assignment=assignment, hit=hits[2], assessor=who, grade=3)
    changed = judgment_submit(assignment=assignment, hit=hits[0], assessor=who, grade=3)
    same = judgment_submit(assignment=assignment, hit=hits[1], assessor=who, grade=1)
    assert before.guidelines_version_id is None  # made under the built-in defaults
    assert before.pk == changed.pk
    assert Judgment.objects.get(pk=after.pk).guidelines_version == version
    assert Judgment.objects.get(pk=changed.pk).guidelines_version == version  # a new value
    assert Judgment.objects.get(pk=same.pk).guidelines_version is None  # value given before
    assert kept.pk == same.pk
    rows = {r.version: r.judgments for r in guidelines_versions(task=topic.task)}
    assert rows == {1: 2, 0: 1}


@pytest.mark.parametrize(
    ("grade", "flag", "comment", "message"),
    [
        (2, "", "", "a grade is 0 or 1"),
        (3, "", "", "a grade is 0 or 1"),
        (None, "system_failure", "broken", "this task has no System failure flag"),
        (None, "", "", "choose one of Relevant (1/r), Not relevant (0/n) or Unsure (u)"),
        (None, "dont_know", "", "Unsure needs a comment"),
    ],
)
def test_submit_is_refused_with_the_task_scale_when_grade_or_flag_is_not_in_it(
    grade: int | None, flag: str, comment: str, message: str
) -> None:
    topic, hits = topic_with_hits()
    guidelines_save(task=topic.task, instructions="", scale=binary_scale(), relevance_level=1)
    assignment = AssignmentFactory.create(topic=topic)
    with pytest.raises(JudgmentInvalid) as caught:
        judgment_submit(
            assignment=assignment,
            hit=hits[0],
            assessor=assignment.assessor,
            grade=grade,
            flag=flag,
            comment=comment,
        )
    assert message in str(caught.value)
    assert not Judgment.objects.exists()


def test_grade_4_is_stored_when_the_task_scale_is_0_to_4() -> None:
    topic, hits = topic_with_hits()
    guidelines_save(task=topic.task, instructions="", scale=zero_to_four(), relevance_level=3)
    assignment = AssignmentFactory.create(topic=topic)
    stored = judgment_submit(
        assignment=assignment, hit=hits[0], assessor=assignment.assessor, grade=4
    )
    assert Judgment.objects.get(pk=stored.pk).grade == 4
    other = TopicFactory.create()  # a task under the defaults: 0-3
    elsewhere = AssignmentFactory.create(topic=other)
    hit = HitFactory.create(item=PoolItemFactory.create(topic=other))
    with pytest.raises(JudgmentInvalid, match="a grade is 0, 1, 2 or 3"):
        judgment_submit(assignment=elsewhere, hit=hit, assessor=elsewhere.assessor, grade=4)


def test_database_refuses_a_grade_above_4_when_written_around_the_services() -> None:
    with pytest.raises(IntegrityError):
        JudgmentFactory.create(grade=5)


def test_adjudication_is_bounded_by_the_task_scale_when_deciding() -> None:
    topic, [hit] = topic_with_hits(hits=1)
    guidelines_save(task=topic.task, instructions="", scale=binary_scale(), relevance_level=1)
    for purpose in (Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL):
        JudgmentFactory.create(
            assignment=AssignmentFactory.create(topic=topic, purpose=purpose), hit=hit, grade=1
        )
    organizer = UserFactory.create(is_staff=True)
    with pytest.raises(AdjudicationError, match="a final grade is 0 or 1"):
        adjudication_decide(hit=hit, grade=2, decided_by=organizer)
    assert adjudication_decide(hit=hit, grade=1, decided_by=organizer).grade == 1


def test_qrels_min_relevant_counts_grade_at_least_the_task_level_when_exported() -> None:
    task = TopicFactory.create().task
    guidelines_save(task=task, instructions="", scale=binary_scale(), relevance_level=1)
    judged = []
    for grades in ((1, 1), (1, 0)):
        topic, hits = topic_with_hits(task=task, hits=2)
        assignment = AssignmentFactory.create(topic=topic)
        for hit, grade in zip(hits, grades, strict=True):
            judgment_submit(
                assignment=assignment, hit=hit, assessor=assignment.assessor, grade=grade
            )
        judged.append(topic)
    version = qrels_export(task=task, policy=QrelsPolicy(min_relevant=2))
    assert version.topic_count == 1
    assert version.dropped_topics[0]["topic"] == judged[1].number
    assert version.policy["relevant_from"] == 1


def test_agreement_is_two_way_with_binary_kappa_at_level_1_when_scale_is_binary() -> None:
    topic, hits = topic_with_hits(hits=4)
    guidelines_save(task=topic.task, instructions="", scale=binary_scale(), relevance_level=1)
    official = AssignmentFactory.create(topic=topic)
    dual = AssignmentFactory.create(topic=topic, purpose=Assignment.Purpose.DUAL)
    for assignment, grades in ((official, (1, 0, 1, 0)), (dual, (1, 0, 0, 0))):
        for hit, grade in zip(hits, grades, strict=True):
            judgment_submit(
                assignment=assignment, hit=hit, assessor=assignment.assessor, grade=grade
            )
    table = task_agreement(task=topic.task)
    assert table.scale.ways == 2
    assert table.scale.relevant_from == 1
    [pair] = table.pairs
    assert pair.kappa_binary.value == pytest.approx(0.5)
    assert pair.kappa.value == pytest.approx(0.5)


def test_dashboard_counts_relevant_at_the_task_level_and_survives_a_narrowed_scale() -> None:
    topic, hits = topic_with_hits(hits=3)
    assignment = AssignmentFactory.create(topic=topic)
    for hit, grade in zip(hits, (3, 1, 0), strict=True):
        judgment_submit(assignment=assignment, hit=hit, assessor=assignment.assessor, grade=grade)
    guidelines_save(task=topic.task, instructions="", scale=binary_scale(), relevance_level=1)
    topic.task.refresh_from_db()
    board = task_dashboard(task=topic.task)
    [row] = board.topics
    assert row.relevant == 2  # grades 3 and 1 are >= 1
    assert [value for value, _n, _css in row.distribution] == [1, 0]
    assert [abbr for abbr, _label, _css in board.legend] == ["R", "N"]


def test_gold_qrels_outside_the_task_scale_are_reported_when_uploaded() -> None:
    assert gold_qrels_parse("A.1 0 55 4\nA.1 0 56 5\n", top=4) == {("A.1", "55"): 4}
    with pytest.raises(TrainingError, match="line 1: grade 4 is not on this task's scale 0-3"):
        gold_qrels_parse("A.1 0 55 4\n")
