"""The organizer dashboard: pages, numbers, exports, query counts, and who may see it."""

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from assessment.models import Assignment, Judgment
from assessment.selectors.agreement import task_agreement, training_rounds_agreement
from assessment.selectors.dashboard import task_dashboard
from assessment.services.assignments import assignments_create, dual_assignments_create
from assessment.services.training import training_round_create
from demo.training import demo_training_and_dual
from tests.factories import (
    ContributionFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

# Page -> most queries it may make (session and user included), whatever the campaign's size.
MAX_QUERIES = {
    "assessment:organize_task": 17,
    "assessment:organize_assignments": 15,
    "assessment:organize_training": 13,  # + the machine judges for gold, the training archives
    "assessment:organize_agreement": 11,
    "assessment:organize_adjudication": 10,
    "assessment:organize_export_judgments": 5,
    "assessment:organize_export_agreement": 11,
}
PAGES = list(MAX_QUERIES)


def scene(topics: int = 4, hits: int = 6):  # type: ignore[no-untyped-def]
    """A task with pools, three assessors, official judgments and dual-assessed topics."""
    task = RetrievalTaskFactory.create()
    RunFactory.create(task=task)
    people = [UserFactory.create(username=f"assessor{i}") for i in range(3)]
    created = []
    for n in range(topics):
        topic = TopicFactory.create(task=task)
        for _ in range(hits):
            HitFactory.create(item=PoolItemFactory.create(topic=topic))
        created.append(topic)
        assignments_create(topics=[topic], assessor=people[n % 3], created_by=None)
    dual_assignments_create(task=task, assessors=people, created_by=None, topics=created[:2])
    for assignment in Assignment.objects.filter(topic__task=task).select_related("topic"):
        for i, hit in enumerate(
            HitFactory._meta.model.objects.filter(item__topic=assignment.topic)
        ):
            dual = assignment.purpose == Assignment.Purpose.DUAL
            grade = (i + (1 if dual and i % 3 == 0 else 0)) % 4
            JudgmentFactory.create(
                assignment=assignment,
                hit=hit,
                assessor=assignment.assessor,
                grade=grade,
                active_seconds=2.0 if assignment.assessor == people[0] else 30.0,
            )
    return task, people, created


@pytest.fixture
def organizer(client):  # type: ignore[no-untyped-def]
    client.force_login(UserFactory.create(username="boss", is_staff=True))
    return client


def test_dashboard_counts_progress_and_flags_fast_assessor_when_judging_is_under_way() -> None:
    task, _people, topics = scene()
    board = task_dashboard(task=task)
    assert board.runs == {"primary": 1}
    assert board.pool_hits == 24
    assert board.judged == 24
    by_name = {a.name: a for a in board.assessors}
    # assessor0 judges at 2 s a hit: a median under 5 s puts them on the list.
    assert [a.name for a in board.to_look_at] == ["assessor0"]
    assert by_name["assessor0"].median_seconds == pytest.approx(2.0)
    assert by_name["assessor1"].median_seconds == pytest.approx(30.0)
    first = next(t for t in board.topics if t.topic_id == topics[0].pk)
    assert first.grades == [2, 2, 1, 1]
    assert sum(n for _, n in board.histogram) == Judgment.objects.count()


def test_topic_is_at_risk_when_fewer_than_two_items_are_high_or_medium() -> None:
    task = RetrievalTaskFactory.create()
    topic = TopicFactory.create(task=task)
    [assignment] = assignments_create(
        topics=[topic], assessor=UserFactory.create(), created_by=None
    )
    for grade in (3, 0, 1, 0):
        hit = HitFactory.create(item=PoolItemFactory.create(topic=topic))
        JudgmentFactory.create(assignment=assignment, hit=hit, grade=grade)
    [progress] = task_dashboard(task=task).topics
    assert progress.at_risk
    hit = HitFactory.create(item=PoolItemFactory.create(topic=topic))
    JudgmentFactory.create(assignment=assignment, hit=hit, grade=2)
    [progress] = task_dashboard(task=task).topics
    assert not progress.at_risk


def test_agreement_reflects_a_new_judgment_at_once_when_dual_assessor_changes_grade() -> None:
    task, _people, _topics = scene()
    before = task_agreement(task=task)
    dual = Judgment.objects.filter(assignment__purpose=Assignment.Purpose.DUAL).first()
    assert dual is not None
    dual.grade = (dual.grade + 2) % 4  # type: ignore[operator]
    dual.save()
    after = task_agreement(task=task)
    assert [p.kappa.value for p in after.pairs] != [p.kappa.value for p in before.pairs]


def test_moved_topic_judgments_count_for_who_made_them_when_agreement_is_computed() -> None:
    task, _people, _topics = scene()
    table = task_agreement(task=task)
    pairs = {(table.name(p.first), table.name(p.second)): p.shared for p in table.pairs}
    assert sum(pairs.values()) == 12  # two dual-assessed topics of 6 hits


@pytest.mark.parametrize("name", PAGES)
def test_page_renders_with_bounded_queries_when_organizer_opens_it(
    organizer, django_assert_max_num_queries, name
) -> None:
    task, people, topics = scene(topics=6)
    training_round_create(
        task=task,
        name="Round 1",
        topics=topics[:2],
        assessors=people,
        created_by=None,
        qrels={(t.number, i.key): i.pk % 4 for t in topics[:2] for i in t.pool_items.all()},
    )
    with django_assert_max_num_queries(MAX_QUERIES[name]):
        response = organizer.get(reverse(name, args=[task.pk]))
        body = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.status_code == 200
    assert body


def test_index_lists_every_task_with_bounded_queries_when_many_campaigns(
    organizer, django_assert_max_num_queries
) -> None:
    for _ in range(4):
        scene(topics=2, hits=2)
    with django_assert_max_num_queries(10):
        response = organizer.get(reverse("assessment:organize"))
    assert response.status_code == 200
    assert response.content.count(b"Answer retrieval") == 4


@pytest.mark.parametrize("name", PAGES)
def test_assessor_gets_403_when_opening_organizer_pages(client, name) -> None:
    task, people, _topics = scene(topics=1, hits=1)
    client.force_login(people[0])
    assert client.get(reverse(name, args=[task.pk])).status_code == 403
    assert client.get(reverse("assessment:organize")).status_code == 403


def test_anonymous_is_sent_to_login_when_opening_the_dashboard(client) -> None:
    response = client.get(reverse("assessment:organize"))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_judgments_csv_has_one_row_per_judgment_with_purpose_when_exported(organizer) -> None:
    task, _people, _topics = scene()
    response = organizer.get(reverse("assessment:organize_export_judgments", args=[task.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == Judgment.objects.count() == 36
    assert {r["purpose"] for r in rows} == {"official", "dual"}
    assert {r["assessor"] for r in rows} == {"assessor0", "assessor1", "assessor2"}
    assert all(r["grade"] in {"0", "1", "2", "3"} for r in rows)


def test_agreement_csv_lists_pairs_and_means_when_exported(organizer) -> None:
    task, _people, topics = scene()
    response = organizer.get(reverse("assessment:organize_export_agreement", args=[task.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    scopes = {r["scope"] for r in rows}
    assert {"task", "task mean", "task alpha ordinal"} <= scopes
    assert {f"task topic {t.number}" for t in topics[:2]} <= scopes
    table = task_agreement(task=task)
    first = next(r for r in rows if r["scope"] == "task")
    assert float(first["kappa_4way"]) == pytest.approx(table.pairs[0].kappa.value, abs=1e-4)


def test_balance_from_the_page_assigns_every_open_topic_when_posted(organizer) -> None:
    task = RetrievalTaskFactory.create()
    for _ in range(4):
        topic = TopicFactory.create(task=task)
        HitFactory.create(item=PoolItemFactory.create(topic=topic))
    a, b = UserFactory.create(), UserFactory.create()
    url = reverse("assessment:organize_assignments", args=[task.pk])
    response = organizer.post(url, {"action": "balance", "assessors": [a.pk, b.pk]})
    assert response.status_code == 302
    counts = sorted(
        Assignment.objects.filter(topic__task=task).values_list("assessor_id", flat=True)
    )
    assert counts == sorted([a.pk, a.pk, b.pk, b.pk])


def test_assign_page_answers_400_and_stores_nothing_when_topic_is_taken(organizer) -> None:
    task, people, topics = scene(topics=1, hits=1)
    url = reverse("assessment:organize_assignments", args=[task.pk])
    response = organizer.post(
        url, {"action": "assign", "topics": [topics[0].pk], "assessor": people[1].pk}
    )
    assert response.status_code == 400
    assert b"already assigned" in response.content


def test_progress_chart_groups_judgments_by_day_when_they_span_days() -> None:
    task, _people, _topics = scene(topics=1, hits=4)
    earlier = timezone.now() - timedelta(days=2)
    first = Judgment.objects.order_by("id").first()
    assert first is not None
    Judgment.objects.filter(pk=first.pk).update(created_at=earlier)
    progress = task_dashboard(task=task).progress
    assert [n for _, n in progress] == [1, Judgment.objects.count()]


def test_demo_step_leaves_finished_rounds_and_dual_topics_when_pools_exist() -> None:
    task = RetrievalTaskFactory.create(pool_seed=3)
    run = RunFactory.create(task=task)
    for _ in range(5):
        topic = TopicFactory.create(task=task)
        for rank in range(1, 31):
            item = PoolItemFactory.create(topic=topic)
            HitFactory.create(item=item)
            ContributionFactory.create(item=item, run=run, rank=rank)
    for name in ("alice", "bob"):
        UserFactory.create(username=name)
    summary = demo_training_and_dual(task.campaign)
    assert "2 training rounds" in summary
    rounds = training_rounds_agreement(task=task)
    assert [r.name for r, _ in rounds] == ["Training round 1", "Training round 2"]
    for _, table in rounds:
        assert len(table.means) == 6  # alice, bob and four simulated colleagues
        assert all(m.mean_kappa.value is not None for m in table.means)
    assert Assignment.objects.filter(topic__task=task, purpose="dual").count() == 2
    assert task_agreement(task=task).pairs
    assert demo_training_and_dual(task.campaign) == "training rounds exist already"


def test_topic_is_not_at_risk_when_nobody_has_judged_it_yet() -> None:
    task = RetrievalTaskFactory.create()
    topic = TopicFactory.create(task=task)
    HitFactory.create(item=PoolItemFactory.create(topic=topic))
    [progress] = task_dashboard(task=task).topics
    assert progress.hits == 1
    assert not progress.at_risk


def test_progress_chart_goes_by_the_hour_when_judging_spans_less_than_two_days() -> None:
    task, _people, _topics = scene(topics=1, hits=4)
    first = Judgment.objects.order_by("id").first()
    assert first is not None
    Judgment.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=5))
    progress = task_dashboard(task=task).progress
    assert [n for _, n in progress] == [1, Judgment.objects.count()]
    assert all(label.endswith(":00") for label, _ in progress)


def test_agreement_is_also_given_per_topic_when_several_topics_are_dual_assessed() -> None:
    task, _people, topics = scene(topics=4)
    table = task_agreement(task=task)
    per_topic = {topic: pair for topic, _, _, pair in table.topic_rows}
    assert set(per_topic) == {topics[0].number, topics[1].number}
    assert all(pair.shared == 6 for pair in per_topic.values())
    assert sum(p.shared for p in table.pairs) == sum(p.shared for p in per_topic.values())
