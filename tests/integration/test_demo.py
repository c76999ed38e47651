"""``manage.py demo`` on PostgreSQL: a whole synthetic campaign, idempotent, ready to click."""

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from collection.models import Campaign, Comment, Formula, Post, Thread, Topic
from demo.arqmath_campaign import CAMPAIGN
from demo.people import USERS
from pooling.models import Run, RunRow, Team

pytestmark = pytest.mark.django_db


def _demo(tmp_path: Path, *extra: str) -> str:
    out = StringIO()
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "60", "--topics", "4", *extra, stdout=out
    )
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
    assert Run.objects.count() == 18


# Committed like a real run: the importer alters tables, which PostgreSQL refuses while the
# reset's deletes still have deferred foreign-key checks pending in one enclosing transaction.
@pytest.mark.django_db(transaction=True)
def test_demo_rebuilds_the_same_campaign_when_reset(tmp_path: Path) -> None:
    _demo(tmp_path)
    before = (Post.objects.count(), Formula.objects.count(), RunRow.objects.count())
    _demo(tmp_path, "--reset")
    after = (Post.objects.count(), Formula.objects.count(), RunRow.objects.count())
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
