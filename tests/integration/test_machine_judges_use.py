"""Machine judges at work: one more assessor in the agreement tables (kappa
checked with scikit-learn on the same pairs), the gold of a training round, and official qrels
only when the organizer lets it count."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from assessment.models import Assignment, GoldGrade, Judgment, MachineJudge
from assessment.selectors.agreement import task_agreement, training_rounds_agreement
from assessment.services.machine_judges import machine_judge_counts_in_qrels
from assessment.services.training import TrainingError, training_round_create
from collection.models import RetrievalTask
from evaluation.services import qrels_export, qrels_policy
from evaluation.services.qrels import QrelsIncompleteError
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.integration.machine_judge_data import (
    JUDGE_GRADES,
    import_judge,
    jsonl,
    judged_task_with_open_item,
)

pytestmark = pytest.mark.django_db

GRADES = (0, 1, 2, 3)


def graded_task(rng: random.Random):  # type: ignore[no-untyped-def]
    """Two topics of 16 answers: an official assessor grades all (two flags), a dual assessor
    topic A.1, a machine judge every hit. Returns the task, the people, and hit -> grades."""
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    official, dual = UserFactory.create(username="olga"), UserFactory.create(username="dan")
    people: dict[str, dict[int, int]] = {"olga": {}, "dan": {}}
    machine: list[tuple[str, str, int, str]] = []
    for number in ("A.1", "A.2"):
        topic = TopicFactory.create(task=task, number=number)
        mine = AssignmentFactory.create(topic=topic, assessor=official)
        second = (
            AssignmentFactory.create(topic=topic, assessor=dual, purpose="dual")
            if number == "A.1"
            else None
        )
        for n in range(16):
            hit = HitFactory.create(item=PoolItemFactory.create(topic=topic, display_order=n))
            truth = rng.choice(GRADES)
            noisy = truth if rng.random() < 0.6 else rng.choice(GRADES)
            machine.append((number, hit.item.key, noisy, ""))
            if n < 2:  # a flag is not a grade: left out of kappa
                JudgmentFactory.create(
                    assignment=mine, hit=hit, grade=None, flag="dont_know", comment="?"
                )
            else:
                JudgmentFactory.create(assignment=mine, hit=hit, grade=truth)
                people["olga"][hit.pk] = truth
            if second is not None:
                grade = truth if rng.random() < 0.7 else rng.choice(GRADES)
                JudgmentFactory.create(assignment=second, hit=hit, grade=grade)
                people["dan"][hit.pk] = grade
    return task, people, machine


def machine_grades(judge: MachineJudge) -> dict[int, int]:
    rows = Judgment.objects.filter(assessor=judge.account).values_list("hit_id", "grade")
    return {hit: grade for hit, grade in rows if grade is not None}


def sklearn_pair(a: dict[int, int], b: dict[int, int], hits: set[int] | None = None):  # type: ignore[no-untyped-def]
    shared = sorted(a.keys() & b.keys() & (hits if hits is not None else a.keys()))
    x, y = [a[h] for h in shared], [b[h] for h in shared]
    return (
        cohen_kappa_score(x, y),
        cohen_kappa_score([int(v >= 2) for v in x], [int(v >= 2) for v in y]),
        cohen_kappa_score(x, y, weights="linear", labels=list(GRADES)),
        cohen_kappa_score(x, y, weights="quadratic", labels=list(GRADES)),
        len(shared),
    )


def test_machine_judge_is_one_more_assessor_when_agreement_is_computed(tmp_path: Path) -> None:
    rng = random.Random(13)
    task, people, machine = graded_task(rng)
    judge, _ = import_judge(task, tmp_path, jsonl(machine), name="oracle")
    grades = machine_grades(judge)
    table = task_agreement(task=task)
    by_names = {(first, second): pair for first, second, pair, _ in table.pair_rows}
    label = "machine: oracle"
    assert set(by_names) == {("olga", "dan"), ("olga", label), ("dan", label)}
    for person in ("olga", "dan"):
        pair = by_names[(person, label)]
        kappa, binary, linear, quadratic, shared = sklearn_pair(people[person], grades)
        assert pair.shared == shared
        assert pair.kappa.value == pytest.approx(kappa, abs=1e-12)
        assert pair.kappa_binary.value == pytest.approx(binary, abs=1e-12)
        assert pair.kappa_linear.value == pytest.approx(linear, abs=1e-12)
        assert pair.kappa_quadratic.value == pytest.approx(quadratic, abs=1e-12)
    # Per topic: the machine against each human on that topic's hits alone.
    topic_hits = {
        number: set(
            Judgment.objects.filter(
                assessor=judge.account, hit__item__topic__number=number
            ).values_list("hit_id", flat=True)
        )
        for number in ("A.1", "A.2")
    }
    rows = {(topic, first, second): p for topic, first, second, p in table.topic_rows}
    assert set(rows) == {
        ("A.1", "olga", "dan"),
        ("A.1", "olga", label),
        ("A.1", "dan", label),
        ("A.2", "olga", label),
    }
    for topic, person in (("A.1", "olga"), ("A.1", "dan"), ("A.2", "olga")):
        kappa, binary, *_ = sklearn_pair(people[person], grades, topic_hits[topic])
        assert rows[(topic, person, label)].kappa.value == pytest.approx(kappa, abs=1e-12)
        assert rows[(topic, person, label)].kappa_binary.value == pytest.approx(binary, abs=1e-12)
    means = {table.name(m.assessor): m for m in table.means}
    assert means[label].partners == 2
    # People only: the machine judge leaves every figure.
    people_only = task_agreement(task=task, machine_judges=False)
    assert [(a, b) for a, b, _, _ in people_only.pair_rows] == [("olga", "dan")]
    assert people_only.pair_rows[0][2] == by_names[("olga", "dan")]


def test_agreement_page_api_and_export_name_the_machine_judge_when_it_takes_part(
    tmp_path: Path,
) -> None:
    task, _, machine = graded_task(random.Random(5))
    import_judge(task, tmp_path, jsonl(machine), name="oracle")
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = client.get(reverse("assessment:organize_agreement", args=[task.pk]))
    html = page.content.decode()
    assert "olga · machine: oracle" in html
    assert "People only" in html
    chart = page.context["charts"][page.context["task_chart_index"]]
    assert "machine: oracle" in chart["assessors"]
    alone = client.get(reverse("assessment:organize_agreement", args=[task.pk]), {"machines": "0"})
    assert "olga · machine: oracle" not in alone.content.decode()
    api = client.get(reverse("assessment_api:organize-agreement", args=[task.pk])).json()
    assert api["machine_judges"] == ["machine: oracle"]
    assert ["olga", "machine: oracle"] in [p["assessors"] for p in api["pairs"]]
    export = b"".join(
        client.get(reverse("assessment:organize_export_agreement", args=[task.pk]))
    ).decode()
    assert "task,olga,machine: oracle," in export
    assert "task topic A.2,olga,machine: oracle," in export


def test_training_round_takes_gold_from_machine_grades_when_chosen(tmp_path: Path) -> None:
    task, _, machine = graded_task(random.Random(7))
    judge, _ = import_judge(task, tmp_path, jsonl(machine), name="oracle")
    grades = machine_grades(judge)
    topic = task.topics.get(number="A.2")
    trainee = UserFactory.create(username="tina")
    training_round = training_round_create(
        task=task,
        name="Round M",
        topics=[topic],
        assessors=[trainee],
        created_by=None,
        gold_source="machine",
        machine_judge=judge,
        items_per_topic=8,
        seed=3,
    )
    assert training_round.machine_judge == judge
    gold = dict(
        GoldGrade.objects.filter(training_round=training_round).values_list("hit_id", "grade")
    )
    assert len(gold) == 8
    assert gold == {hit: grades[hit] for hit in gold}
    # Sampled across the judge's grades: every grade it gave in the topic shows.
    in_topic = {grades[h.pk] for h in topic.pool_items.all() for h in h.hits.all()}
    assert set(gold.values()) == in_topic
    # The trainee judges the round; agreement with the gold is sklearn's kappa on those pairs.
    rng = random.Random(1)
    assignment = Assignment.objects.get(training_round=training_round, assessor=trainee)
    theirs = {}
    for hit_id in gold:
        theirs[hit_id] = gold[hit_id] if rng.random() < 0.6 else rng.choice(GRADES)
        JudgmentFactory.create(assignment=assignment, hit_id=hit_id, grade=theirs[hit_id])
    [(_, table)] = training_rounds_agreement(task=task)
    [row] = table.gold
    kappa, binary, *_ = sklearn_pair(theirs, gold)
    assert row.kappa.value == pytest.approx(kappa, abs=1e-12)
    assert row.kappa_binary.value == pytest.approx(binary, abs=1e-12)
    # The round's gold stays as created when the judge is imported again with other grades.
    flipped = [(t, p, 3 - g, r) for t, p, g, r in machine]
    import_judge(task, tmp_path, jsonl(flipped), name="oracle", file_name="v2.jsonl")
    again = dict(
        GoldGrade.objects.filter(training_round=training_round).values_list("hit_id", "grade")
    )
    assert again == gold


def test_training_round_is_refused_when_the_machine_gold_is_missing_or_wrong(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    other = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    stranger, _ = import_judge(other, tmp_path, "A.1 0 1 1\n", name="elsewhere")
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES[:2]), name="partial")
    person = UserFactory.create()

    def attempt(**changes: Any) -> None:
        options: dict[str, Any] = {
            "assessors": [person],
            "gold_source": "machine",
            "machine_judge": judge,
            **changes,
        }
        training_round_create(
            task=data.task,
            name="R",
            topics=[data.topics["A.2"]],
            created_by=None,
            items_per_topic=2,
            **options,
        )

    needs = "gold from a machine judge needs one of this task's machine judges"
    with pytest.raises(TrainingError, match=needs):
        attempt(machine_judge=None)
    with pytest.raises(TrainingError, match=needs):
        attempt(machine_judge=stranger)
    with pytest.raises(TrainingError, match="the machine judge has not graded"):
        attempt()  # it graded nothing of A.2
    with pytest.raises(TrainingError, match="partial is a machine judge: it cannot judge"):
        attempt(assessors=[judge.account], gold_source="qrels", qrels={("A.2", "201"): 1})


def test_training_page_creates_a_round_with_machine_gold_when_the_form_names_a_judge(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name="oracle")
    trainee = UserFactory.create()
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_training", args=[data.task.pk])
    page = client.get(url)
    assert f'<option value="{judge.pk}">machine: oracle</option>' in page.content.decode()
    response = client.post(
        url,
        {
            "name": "From the machine",
            "topics": [data.topics["A.2"].pk],
            "assessors": [trainee.pk],
            "gold_source": "machine",
            "machine_judge": judge.pk,
            "items_per_topic": "3",
        },
    )
    assert response.status_code == 302
    created = judge.task.training_rounds.get(name="From the machine")
    assert created.machine_judge == judge
    assert GoldGrade.objects.filter(training_round=created).count() == 3
    listed = client.get(url).content.decode()
    assert "gold from a machine judge (oracle)" in listed


# --- qrels ------------------------------------------------------------------------------------


def export(task, **options):  # type: ignore[no-untyped-def]
    use_dual = options.pop("use_dual", True)
    return qrels_export(
        task=task,
        policy=qrels_policy(task=task, use_dual=use_dual, min_relevant=0),
        allow_incomplete=True,
        **options,
    )


def rows(version) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """(topic, id, grade) of each line of a qrels version."""
    found = []
    for line in version.content.splitlines():
        topic, _, doc, grade = line.split("\t")
        found.append((topic, doc, grade))
    return found


def test_qrels_are_byte_identical_when_no_machine_judge_counts(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    before = export(data.task)
    import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name="oracle")
    after = export(data.task)
    assert after.pk == before.pk
    assert after.content == before.content
    assert after.checksum == before.checksum
    assert "machine_judge" not in after.policy
    assert after.policy["precedence"] == ["adjudicated", "official", "dual"]
    with pytest.raises(QrelsIncompleteError):  # A.2 203 is still unjudged by people
        qrels_export(task=data.task, policy=qrels_policy(task=data.task, min_relevant=0))


def test_machine_grades_fill_only_hits_no_person_decides_when_the_judge_counts(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    people = rows(export(data.task))
    # A.1: 101 H official, 102 N official, 103 adjudicated M, 104 flagged (no row), 105 dual M;
    # A.2: 201 M, 202 H official, 203 judged by nobody.
    assert people == [
        ("A.1", "101", "3"),
        ("A.1", "102", "0"),
        ("A.1", "103", "2"),
        ("A.1", "105", "2"),
        ("A.2", "201", "2"),
        ("A.2", "202", "3"),
    ]
    grades = [(t, p, 1 if p != "105" else 0, "") for t, p, _, _ in JUDGE_GRADES]
    judge, _ = import_judge(data.task, tmp_path, jsonl(grades), counts_in_qrels=True)
    version = export(data.task)
    # Every person's judgment (and the flag on 104) wins; the judge fills 203 alone.
    assert rows(version) == [*people, ("A.2", "203", "1")]
    assert version.policy["precedence"] == ["adjudicated", "official", "dual", "machine"]
    assert version.policy["machine_judge"] == "oracle"
    assert version.unjudged_items == 0
    # Without dual assessments, the judge also decides 105 (judged by the dual assessor only).
    no_dual = export(data.task, use_dual=False)
    assert ("A.1", "105", "0") in rows(no_dual)
    assert ("A.1", "102", "0") in rows(no_dual)
    # Switched off, the qrels are the people's again, byte for byte.
    machine_judge_counts_in_qrels(judge=judge, counts=False)
    assert (
        export(data.task).content
        == qrels_export(
            task=data.task,
            policy=qrels_policy(task=data.task, min_relevant=0),
            allow_incomplete=True,
        ).content
    )
    assert rows(export(data.task)) == people


def test_qrels_page_says_which_judge_counts_when_one_does(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), counts_in_qrels=True)
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    html = client.get(reverse("evaluation:qrels", args=[data.task.pk])).content.decode()
    assert "dual \N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK} machine judge" in html
    assert "\N{LEFT DOUBLE QUOTATION MARK}oracle\N{RIGHT DOUBLE QUOTATION MARK}" in html
    assert "Every pool item is judged" in html
