"""Publishing a RAG task's nugget scores: a frozen snapshot (figures checked against the
measures computed by hand) that labels changed later do not move, each team seeing only its
own runs and only while published, every publication and withdrawal recorded; and the scores
page's significance table against the exact sign-flip test."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from nuggets.models import NuggetPublicationEvent, NuggetScoreSnapshot
from nuggets.services.adjudication import nugget_adjudication_decide
from nuggets.services.publication import (
    NuggetPublicationError,
    nugget_scores_publish,
    nugget_scores_withdraw,
)
from tests.factories.collection import RetrievalTaskFactory, UserFactory
from tests.integration.nugget_disputes import N, disputed_task
from tests.integration.test_nugget_adjudication import expected_scores
from tests.unit.test_nugget_significance import exact_sign_flip_p

pytestmark = pytest.mark.django_db


def test_published_scores_are_frozen_and_each_team_sees_its_own_runs_while_published(
    django_assert_max_num_queries,
) -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    member = UserFactory.create(username="carol")
    data.teams["runB"].members.add(member)
    url = f"/nuggets/tasks/{data.task.pk}/published/"
    carol = Client()
    carol.force_login(member)
    assert carol.get(url).status_code == 403  # nothing published yet
    organizer = Client()
    organizer.force_login(boss)
    assert organizer.post(url, {"action": "publish"}).status_code == 302
    snapshot = NuggetScoreSnapshot.objects.get()
    expected = expected_scores({})
    frozen = {row["run"]: row for row in snapshot.scores["runs"]}
    assert set(frozen) == {"runA", "runB", "runC"}
    for run, figures in expected.items():
        assert frozen[run]["measures"] == pytest.approx(figures["measures"])
        for topic, measures in figures["per_topic"].items():
            assert frozen[run]["per_topic"][topic] == pytest.approx(measures)

    # An adjudication afterwards changes the live scores, not the published ones.
    nugget_adjudication_decide(
        task=data.task,
        answer_id=data.answers[("runB", "1")].pk,
        finals={data.nuggets["1"][0].pk: N},
        decided_by=boss,
    )
    with django_assert_max_num_queries(8):
        page = carol.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "runB" in text
    assert "runA" not in text
    assert "runC" not in text
    assert f"{expected['runB']['measures']['all']:.4f}" in text
    changed = expected_scores({("runB", "1", 0): N})["runB"]["measures"]["all"]
    assert f"{changed:.4f}" not in text
    assert carol.post(url, {"action": "withdraw"}).status_code == 403  # organizers only

    assert organizer.post(url, {"action": "withdraw"}).status_code == 302
    assert carol.get(url).status_code == 403
    assert "Withdrawn" in organizer.get(url).content.decode()
    # Publishing again freezes the scores as they are now.
    assert organizer.post(url, {"action": "publish"}).status_code == 302
    assert f"{changed:.4f}" in carol.get(url).content.decode()
    events = list(
        NuggetPublicationEvent.objects.order_by("at", "id").values_list(
            "action", "by_name", "snapshot_id"
        )
    )
    latest = NuggetScoreSnapshot.objects.latest("pk").pk
    assert events == [
        ("publish", "boss", snapshot.pk),
        ("withdraw", "boss", snapshot.pk),
        ("publish", "boss", latest),
    ]
    assert NuggetScoreSnapshot.objects.get(pk=snapshot.pk).scores == snapshot.scores


def test_publication_is_refused_for_tasks_it_cannot_stand_for_and_the_command_records_it() -> None:
    data = disputed_task()
    with pytest.raises(NuggetPublicationError, match="are not published"):
        nugget_scores_withdraw(task=data.task, by=None)
    other = RetrievalTaskFactory.create()
    with pytest.raises(NuggetPublicationError, match="is not a RAG task"):
        nugget_scores_publish(task=other, by=None)
    empty = RetrievalTaskFactory.create(kind="rag", collection=data.task.collection)
    with pytest.raises(NuggetPublicationError, match="has no run"):
        nugget_scores_publish(task=empty, by=None)
    assert not NuggetScoreSnapshot.objects.exists()
    UserFactory.create(username="boss", is_staff=True)
    out = StringIO()
    names = ["--campaign", data.task.campaign.name, "--task", data.task.name]
    call_command("publish_nugget_scores", *names, "--by", "boss", stdout=out)
    assert "3 runs over 2 topics" in out.getvalue()
    call_command("publish_nugget_scores", *names, "--withdraw", stdout=out)
    with pytest.raises(CommandError, match="are not published"):
        call_command("publish_nugget_scores", *names, "--withdraw")
    with pytest.raises(CommandError, match="no organizer"):
        call_command("publish_nugget_scores", *names, "--by", "alice")
    assert [e.by_name for e in NuggetPublicationEvent.objects.order_by("at", "id")] == [
        "boss",
        "command line",
    ]


def test_the_scores_page_tests_every_pair_of_runs_as_the_exact_sign_flip_test_says() -> None:
    data = disputed_task()
    client = Client()
    client.force_login(UserFactory.create(username="boss", is_staff=True))
    page = client.get(f"/nuggets/tasks/{data.task.pk}/scores/?measure=vital")
    assert page.status_code == 200
    tests = {(t.a, t.b): t for t in page.context["tests"]}
    assert set(tests) == {("runA", "runB"), ("runA", "runC"), ("runB", "runC")}
    expected = expected_scores({})
    for (a, b), test in tests.items():
        per_a = [expected[a]["per_topic"].get(t, {}).get("vital", 0.0) for t in ("1", "2")]
        per_b = [expected[b]["per_topic"].get(t, {}).get("vital", 0.0) for t in ("1", "2")]
        assert test.mean_difference == pytest.approx((sum(per_a) - sum(per_b)) / 2)
        # Two topics: four sign patterns, so 10,000 trials land within a few hundredths.
        assert test.randomization_p == pytest.approx(exact_sign_flip_p(per_a, per_b), abs=0.03)
    assert 'id="significance-table"' in page.content.decode()
    ignored = client.get(f"/nuggets/tasks/{data.task.pk}/scores/?measure=recall")
    assert ignored.context["measure"] == "all"
