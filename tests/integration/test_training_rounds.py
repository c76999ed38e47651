"""Training rounds: items, gold, assignments, submitting, feedback, round agreement."""

from typing import Any

import pytest
from django.urls import reverse

from assessment.models import Assignment, GoldGrade, TrainingRound
from assessment.selectors.agreement import training_feedback, training_rounds_agreement
from assessment.services.training import (
    TrainingError,
    gold_qrels_parse,
    training_round_create,
    training_round_submit,
)
from pooling.models import Hit
from tests.factories import (
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def pool(task, keys: int = 12):  # type: ignore[no-untyped-def]
    topic = TopicFactory.create(task=task)
    for _ in range(keys):
        HitFactory.create(item=PoolItemFactory.create(topic=topic))
    return topic


def qrels_for(topic, grades) -> dict[tuple[str, str], int]:  # type: ignore[no-untyped-def]
    items = list(topic.pool_items.order_by("id"))
    return {(topic.number, item.key): g for item, g in zip(items, grades, strict=False)}


def judge_round(training_round, assessor, grade_of) -> None:  # type: ignore[no-untyped-def]
    for assignment in Assignment.objects.filter(training_round=training_round, assessor=assessor):
        for item in training_round.items.filter(topic=assignment.topic):
            for hit in item.hits.all():
                JudgmentFactory.create(
                    assignment=assignment, hit=hit, assessor=assessor, grade=grade_of(hit)
                )


def test_gold_qrels_parse_reads_grades_and_skips_task3_flags_when_given_a_file() -> None:
    text = "A.1\t0\t55\t3\r\nA.1 0 56 0\nA.2\t0\td_1\t5\n\n"
    assert gold_qrels_parse(text) == {("A.1", "55"): 3, ("A.1", "56"): 0}


def test_gold_qrels_parse_reports_line_numbers_when_lines_are_malformed() -> None:
    with pytest.raises(TrainingError, match="line 2"):
        gold_qrels_parse("A.1 0 55 3\nA.1 0 56\n")


def test_round_samples_items_across_gold_grades_when_qrels_given() -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task)
    qrels = qrels_for(topic, [0, 0, 0, 0, 0, 0, 1, 1, 2, 3])  # 2 unjudged items left out
    people = [UserFactory.create(), UserFactory.create()]
    training_round = training_round_create(
        task=task,
        name="Round 1",
        topics=[topic],
        assessors=people,
        created_by=None,
        qrels=qrels,
        items_per_topic=4,
        seed=5,
    )
    grades = sorted(qrels[(topic.number, i.key)] for i in training_round.items.all())
    assert grades == [0, 1, 2, 3]
    assert GoldGrade.objects.filter(training_round=training_round).count() == 4
    assert training_round.assignments.count() == 2


def test_round_refuses_and_stores_nothing_when_a_chosen_item_has_no_gold() -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task, keys=3)
    items = list(topic.pool_items.all())
    with pytest.raises(TrainingError, match="no gold grade"):
        training_round_create(
            task=task,
            name="R",
            topics=[topic],
            assessors=[UserFactory.create()],
            created_by=None,
            qrels=qrels_for(topic, [2]),
            items=items,
        )
    assert not TrainingRound.objects.exists()
    assert not Assignment.objects.exists()


def test_submit_refuses_when_hits_are_left_unjudged() -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task, keys=4)
    ann = UserFactory.create()
    training_round = training_round_create(
        task=task,
        name="R",
        topics=[topic],
        assessors=[ann],
        created_by=None,
        qrels=qrels_for(topic, [0, 1, 2, 3]),
    )
    with pytest.raises(TrainingError, match="4 of 4 hits are not judged"):
        training_round_submit(training_round=training_round, assessor=ann)


def test_feedback_shows_gold_only_after_submit_when_organizer_allows_it() -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task, keys=4)
    ann = UserFactory.create()
    qrels = qrels_for(topic, [0, 1, 2, 3])
    training_round = training_round_create(
        task=task,
        name="R",
        topics=[topic],
        assessors=[ann],
        created_by=None,
        qrels=qrels,
        show_gold_after_submit=True,
    )
    judge_round(training_round, ann, lambda hit: 2)
    assert training_feedback(training_round=training_round, assessor=ann) is None
    training_round_submit(training_round=training_round, assessor=ann)
    rows = training_feedback(training_round=training_round, assessor=ann)
    assert rows is not None
    assert sorted((r.grade, r.gold) for r in rows) == [(2, 0), (2, 1), (2, 2), (2, 3)]
    training_round.show_gold_after_submit = False
    training_round.save()
    assert training_feedback(training_round=training_round, assessor=ann) is None


def test_expert_grades_become_gold_when_expert_submits() -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task, keys=4)
    expert, ann, bob = UserFactory.create(), UserFactory.create(), UserFactory.create()
    training_round = training_round_create(
        task=task,
        name="Expert round",
        topics=[topic],
        assessors=[ann, bob],
        created_by=None,
        gold_source=TrainingRound.GoldSource.EXPERT,
        expert=expert,
        items_per_topic=4,
    )
    assert training_round.assignments.count() == 3  # the expert judges too
    hits = sorted(Hit.objects.filter(item__topic=topic).values_list("pk", flat=True))
    expert_grade = {h: i % 4 for i, h in enumerate(hits)}
    judge_round(training_round, expert, lambda hit: expert_grade[hit.pk])
    judge_round(training_round, ann, lambda hit: expert_grade[hit.pk])  # perfect
    judge_round(training_round, bob, lambda hit: 3 - expert_grade[hit.pk])  # reversed
    training_round_submit(training_round=training_round, assessor=expert)
    assert dict(training_round.gold.values_list("hit_id", "grade")) == expert_grade

    [(_, table)] = training_rounds_agreement(task=task)
    gold = {g.assessor: g for g in table.gold}
    assert set(gold) == {ann.pk, bob.pk}
    assert gold[ann.pk].kappa.value == pytest.approx(1.0)
    reversed_kappa = gold[bob.pk].kappa.value
    assert reversed_kappa is not None
    assert reversed_kappa < 0
    assert [(p.first, p.second) for p in table.pairs] == [(ann.pk, bob.pk)]


def test_round_agreement_uses_bounded_queries_when_many_rounds(
    django_assert_max_num_queries,
) -> None:
    task = RetrievalTaskFactory.create()
    people = [UserFactory.create() for _ in range(3)]
    for n in range(3):
        topic = pool(task, keys=4)
        training_round = training_round_create(
            task=task,
            name=f"R{n}",
            topics=[topic],
            assessors=people,
            created_by=None,
            qrels=qrels_for(topic, [0, 1, 2, 3]),
        )
        for person in people:
            judge_round(training_round, person, lambda hit: hit.pk % 4)
    # Five: the rounds, judgments, gold grades, names and the task's grade scale.
    with django_assert_max_num_queries(5):
        result = training_rounds_agreement(task=task)
    assert len(result) == 3
    assert all(len(table.pairs) == 3 for _, table in result)


def test_round_page_is_404_when_assessor_is_not_in_the_round(client) -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task, keys=2)
    ann, outsider = UserFactory.create(), UserFactory.create()
    training_round = training_round_create(
        task=task,
        name="R",
        topics=[topic],
        assessors=[ann],
        created_by=None,
        qrels=qrels_for(topic, [0, 3]),
        show_gold_after_submit=True,
    )
    url = reverse("assessment:training_round", args=[training_round.pk])
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 404


def test_round_page_shows_gold_beside_own_grades_only_after_submitting(client) -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task, keys=2)
    ann = UserFactory.create()
    training_round = training_round_create(
        task=task,
        name="R",
        topics=[topic],
        assessors=[ann],
        created_by=None,
        qrels=qrels_for(topic, [0, 3]),
        show_gold_after_submit=True,
    )
    url = reverse("assessment:training_round", args=[training_round.pk])
    client.force_login(ann)
    assert b"feedback-table" not in client.get(url).content
    client.post(url)  # nothing judged yet: refused, still no gold
    assert b"feedback-table" not in client.get(url, follow=True).content
    judge_round(training_round, ann, lambda hit: 1)
    assert client.post(url).status_code == 302
    page = client.get(url)
    assert b"feedback-table" in page.content
    assert b"You handed this round in" in page.content


@pytest.mark.parametrize(
    ("path", "topics"),
    [("2020/task1-qrels.tsv", 77), ("2022/task2-qrels-visual-ids-v3.tsv", 76)],
)
def test_gold_qrels_parse_reads_every_row_when_given_real_arqmath_qrels(
    arqmath_data, path, topics
) -> None:
    text = (arqmath_data / "qrels" / path).read_text()
    gold = gold_qrels_parse(text)
    rows = [line.split() for line in text.splitlines() if line.strip()]
    assert len(gold) == len({(r[0], r[2]) for r in rows})
    assert len({topic for topic, _ in gold}) == topics
    assert set(gold.values()) == {0, 1, 2, 3}


def test_gold_qrels_parse_drops_task3_flags_when_given_real_task3_qrels(arqmath_data) -> None:
    text = (arqmath_data / "qrels" / "2022" / "task3-qrels.tsv").read_text()
    rows = [line.split() for line in text.splitlines() if line.strip()]
    gold = gold_qrels_parse(text)
    assert len(gold) == sum(int(r[3]) <= 3 for r in rows)
    assert len(gold) < len(rows)  # some answers were system failures or "do not know"


def test_round_refuses_a_duplicate_name_and_stores_nothing_more_when_created_twice() -> None:
    task = RetrievalTaskFactory.create()
    topic = pool(task, keys=2)
    ann = UserFactory.create()
    arguments: dict[str, Any] = {
        "task": task,
        "name": "Round 1",
        "topics": [topic],
        "assessors": [ann],
        "created_by": None,
        "qrels": qrels_for(topic, [0, 3]),
    }
    training_round_create(**arguments)
    with pytest.raises(TrainingError, match="exists already"):
        training_round_create(**{**arguments, "name": " Round 1 "})
    assert TrainingRound.objects.count() == 1
    assert Assignment.objects.count() == 1
