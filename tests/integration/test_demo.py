"""``manage.py demo`` on PostgreSQL: two whole synthetic campaigns, idempotent, ready to click.

(The same command on SQLite, as ``make demo`` runs it: test_demo_sqlite.py.)"""

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from assessment.models import Assignment, Judgment, JudgmentRevision, MachineJudge
from collection.models import Campaign, Comment, Document, Formula, Post, Thread, Topic
from demo.arqmath_campaign import CAMPAIGN
from demo.people import USERS
from demo.trec_campaign import TREC_CAMPAIGN, TREC_COLLECTION
from evaluation.models import EvaluationResult
from pooling.models import PoolBuild, PoolItem, Run, RunRow, Team

pytestmark = pytest.mark.django_db


def _demo(tmp_path: Path, *extra: str) -> str:
    out = StringIO()
    sizes = ("--threads", "60", "--topics", "4", "--documents", "80")
    call_command("demo", "--dir", str(tmp_path), *sizes, *extra, stdout=out)
    return out.getvalue()


def test_demo_builds_collection_topics_runs_and_users_when_run_on_an_empty_database(
    tmp_path: Path,
) -> None:
    output = _demo(tmp_path)
    assert Thread.objects.count() == 60
    assert Post.objects.filter(kind=Post.Kind.ANSWER).count() >= 60
    assert Comment.objects.exists()
    assert Formula.objects.values("visual_id").distinct().count() < Formula.objects.count()
    campaign = Campaign.objects.get(name=CAMPAIGN)
    assert sorted(campaign.tasks.values_list("kind", flat=True)) == ["answer", "formula"]
    assert Topic.objects.filter(task__campaign=campaign, task__kind="answer").count() == 4
    formula_topics = Topic.objects.filter(task__campaign=campaign, task__kind="formula")
    assert all(t.formula_id.startswith("q_") and t.latex for t in formula_topics)
    runs = Run.objects.filter(task__campaign=campaign)
    assert runs.count() == 18
    assert runs.filter(is_baseline=True).exists()
    assert runs.filter(role="primary").values("team").distinct().count() == 4
    assert RunRow.objects.filter(run__task__kind="formula").exclude(formula_id=None).exists()
    assert set(Team.objects.get(name="Lemma").members.values_list("username", flat=True)) == {
        "carol"
    }
    for username, password, role, _team in USERS:
        user = authenticate(username=username, password=password)
        assert user is not None
        assert user.is_staff == (role == "organizer")
        assert f"{username} " in output
        assert password in output
    assert "http://127.0.0.1:8000" in output


def test_demo_leaves_the_demo_alone_when_run_twice(tmp_path: Path) -> None:
    _demo(tmp_path)
    posts = Post.objects.count()
    output = _demo(tmp_path)
    assert "exists already" in output
    assert Post.objects.count() == posts
    assert Run.objects.filter(task__campaign__name=CAMPAIGN).count() == 18


# Committed like a real run: the importer alters tables, which PostgreSQL refuses while the
# reset's deletes still have deferred foreign-key checks pending in one enclosing transaction.
@pytest.mark.django_db(transaction=True)
def test_demo_rebuilds_the_same_campaign_when_reset(tmp_path: Path) -> None:
    _demo(tmp_path)
    counts = (Post, Formula, RunRow, Document, Judgment)
    before = [model.objects.count() for model in counts]
    _demo(tmp_path, "--reset")
    after = [model.objects.count() for model in counts]
    assert after == before
    assert Campaign.objects.filter(name=CAMPAIGN).count() == 1


def test_demo_thread_page_renders_formulas_for_mathjax_when_an_assessor_opens_it(
    tmp_path: Path, client, django_assert_max_num_queries
) -> None:
    _demo(tmp_path)
    client.login(username="alice", password="alice-demo")
    thread = Thread.objects.order_by("id").first()
    assert thread is not None
    with django_assert_max_num_queries(8):
        response = client.get(f"/threads/{thread.id}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('class="math-container"') >= 3
    assert "vendor/mathjax/tex-chtml.js" in html


def test_demo_judgments_went_through_the_judging_service_when_built(tmp_path: Path) -> None:
    _demo(tmp_path)
    judgments = Judgment.objects.filter(assignment__topic__task__campaign__name=CAMPAIGN)
    assert judgments.count() > 100
    # The service keeps one revision per stored value and stamps the scale's rules: grades
    # within 0-3, and a comment with every flag.
    assert JudgmentRevision.objects.filter(judgment__in=judgments, number=1).count() == (
        judgments.count()
    )
    assert not judgments.filter(grade__gt=3).exists()
    assert not judgments.exclude(flag="").filter(comment="").exists()
    days = {moment.date() for moment in judgments.values_list("created_at", flat=True)}
    assert len(days) >= 3  # dated back over the last days, for the progress chart


def test_demo_builds_the_trec_style_campaign_when_issue_13_commands_exist(
    tmp_path: Path,
) -> None:
    _demo(tmp_path)
    documents = Document.objects.filter(collection__name=TREC_COLLECTION)
    assert documents.count() == 80
    assert documents.filter(body_format="html").exists()
    task = Campaign.objects.get(name=TREC_CAMPAIGN).tasks.get()
    assert task.kind == "document"
    assert task.collection is not None
    assert task.collection.name == TREC_COLLECTION
    topics = list(task.topics.order_by("number"))
    assert [t.number for t in topics] == ["401", "402", "403", "404"]
    assert all(t.description and "not relevant" in t.narrative for t in topics)
    runs = Run.objects.filter(task=task)
    assert runs.values("team").distinct().count() == 3
    assert runs.count() == 5
    assert PoolItem.objects.filter(topic__task=task, document__isnull=False).exists()
    held = Assignment.objects.filter(topic__task=task, purpose="official")
    assert set(held.values_list("assessor__username", flat=True)) >= {"alice", "bob"}
    assert Assignment.objects.filter(topic__task=task, purpose="dual").exists()
    human = Judgment.objects.filter(hit__item__topic__task=task, assessor__machine_judge=None)
    assert human.exists()
    assert not human.filter(grade__gt=2).exists()  # the task's own 0-2 scale
    assert not human.filter(guidelines_version=None).exists()  # stamped by the service
    judge = MachineJudge.objects.get(task=task, name="llm-demo")
    assert Judgment.objects.filter(assessor=judge.account).exists()
    results = EvaluationResult.objects.filter(run__task=task)
    assert results.count() == 5
    assert all(r.measures.get("ndcg_cut_10") is not None for r in results)
    # A budgeted pool (MM-NS, 15 a topic) judged in priority order: each topic's items were
    # first judged in the order the strategy added them, and never more than the budget.
    build = PoolBuild.objects.filter(task=task).latest("pk")
    assert build.parameters["strategy"]["name"] == "mm-ns:0.5"
    for topic in topics:
        items = list(
            PoolItem.objects.filter(topic=topic)
            .order_by("display_order")
            .values_list("pk", flat=True)
        )
        assert 1 <= len(items) <= 15
        first_judged = []
        for item_id in (
            human.filter(hit__item__topic=topic, assignment__purpose="official")
            .order_by("pk")
            .values_list("hit__item_id", flat=True)
        ):
            if item_id not in first_judged:
                first_judged.append(item_id)
        assert first_judged == items[: len(first_judged)]
