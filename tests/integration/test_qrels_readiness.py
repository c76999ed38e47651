"""Qrels readiness before export, "export anyway", and incomplete qrels said wherever results
are shown."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.services import (
    QrelsIncompleteError,
    evaluation_job_run,
    qrels_export,
    results_publish,
)
from tests.factories import HitFactory, PoolItemFactory, UserFactory
from tests.integration.evaluation_data import JudgedTask, judged_answer_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def unjudged() -> JudgedTask:
    """The judged task plus two pool items nobody judged yet: A.2's 203 and 204."""
    data = judged_answer_task()
    for order, post in enumerate((203, 204), start=50):
        item = PoolItemFactory.create(
            topic=data.topics["A.2"], post_id=post, key=str(post), display_order=order
        )
        HitFactory.create(item=item, post_id=post)
    return data


def staff_client() -> Client:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    return client


def test_qrels_page_shows_readiness_per_topic_when_items_are_unjudged(
    unjudged: JudgedTask, django_assert_max_num_queries: object
) -> None:
    client = staff_client()
    with django_assert_max_num_queries(11):  # type: ignore[operator]  # +1: the judge that counts
        page = client.get(reverse("evaluation:qrels", args=[unjudged.task.pk]))
    readiness = page.context["readiness"]
    rows = {
        t.topic: (t.items, t.judged, t.flagged, t.unjudged, t.relevant) for t in readiness.topics
    }
    # A.1: 101 H, 102 N, 103 M (adjudicated), 104 flagged, 105 M (dual); A.2: 201 M, 202 H.
    assert rows == {"A.1": (5, 4, 1, 0, 3), "A.2": (4, 2, 0, 2, 2)}
    assert readiness.min_relevant == 2  # the task's setting, ARQMath's default
    html = page.content.decode()
    assert "2 unjudged in 1 of 2 topics" in html
    assert "Export anyway" in html
    assert "topics need at least 2 relevant items (grade ≥ 2)" in html


def test_page_refuses_incomplete_export_naming_topics_then_exports_anyway_when_ticked(
    unjudged: JudgedTask,
) -> None:
    client = staff_client()
    url = reverse("evaluation:qrels", args=[unjudged.task.pk])
    form = {"action": "export", "level": "item", "use_dual": "on"}
    refused = client.post(url, form)
    assert refused.status_code == 200
    assert "2 unjudged items in 1 topic (A.2: 2)" in refused.content.decode()
    assert not QrelsVersion.objects.exists()
    assert client.post(url, {**form, "allow_incomplete": "on"}).status_code == 302
    version = QrelsVersion.objects.get()
    assert (version.pool_items, version.judged_items, version.unjudged_items) == (9, 7, 2)
    assert (version.pool_topics, version.complete_topics) == (2, 1)
    assert version.unjudged_topics == [{"topic": "A.2", "unjudged": 2}]
    assert version.policy["min_relevant"] == 2


def test_min_relevant_is_the_tasks_setting_by_default_and_zero_turns_it_off() -> None:
    data = judged_answer_task()
    data.task.min_relevant = 3
    data.task.save()
    assert [d["topic"] for d in qrels_export(task=data.task).dropped_topics] == ["A.2"]
    out = io.StringIO()
    err = io.StringIO()
    name = data.task.campaign.name
    call_command("export_qrels", "--campaign", name, "--task", "answer", stdout=out, stderr=err)
    assert "dropped A.2: 2 H+M-relevant items, fewer than 3" in err.getvalue()
    call_command(
        "export_qrels", "--campaign", name, "--task", "answer", "--min-relevant", "0", stdout=out
    )
    assert QrelsVersion.objects.latest("id").topic_count == 2
    client = APIClient()
    client.force_authenticate(UserFactory.create(is_staff=True))
    response = client.post("/api/qrels/", {"task": data.task.pk}, format="json")
    assert response.json()["policy"]["min_relevant"] == 3


def test_cli_and_rest_refuse_incomplete_export_unless_asked_explicitly(
    unjudged: JudgedTask,
) -> None:
    name = unjudged.task.campaign.name
    with pytest.raises(CommandError, match=r"2 unjudged items in 1 topic \(A.2: 2\).*--allow"):
        call_command("export_qrels", "--campaign", name, "--task", "answer")
    err = io.StringIO()
    call_command(
        "export_qrels",
        *("--campaign", name, "--task", "answer", "--allow-incomplete"),
        stdout=io.StringIO(),
        stderr=err,
    )
    assert "INCOMPLETE: 2 of 9 pool items unjudged" in err.getvalue()
    client = APIClient()
    client.force_authenticate(UserFactory.create(is_staff=True))
    refused = client.post("/api/qrels/", {"task": unjudged.task.pk, "label": "rest"}, format="json")
    assert refused.status_code == 400
    assert refused.json()["unjudged"] == {"A.2": 2}
    created = client.post(
        "/api/qrels/",
        {"task": unjudged.task.pk, "label": "rest", "min_relevant": 0, "allow_incomplete": True},
        format="json",
    )
    assert created.status_code == 201
    assert created.json()["unjudged_items"] == 2
    readiness = client.get(f"/api/qrels/readiness/{unjudged.task.pk}/?min_relevant=3").json()
    assert (readiness["complete"], readiness["unjudged"], readiness["min_relevant"]) == (
        False,
        2,
        3,
    )
    assert [t["dropped"] != "" for t in readiness["topics"]] == [False, True]


def test_results_on_incomplete_qrels_say_so_on_pages_and_in_every_export(
    unjudged: JudgedTask,
) -> None:
    with pytest.raises(QrelsIncompleteError):
        qrels_export(task=unjudged.task)
    qrels = qrels_export(task=unjudged.task, allow_incomplete=True)
    evaluation_job_run(job=EvaluationJob.objects.create(task=unjudged.task, qrels=qrels))
    results_publish(task=unjudged.task, qrels=qrels, by=None)
    participant = Client()
    user = UserFactory.create()
    unjudged.beta.team.members.add(user)
    participant.force_login(user)
    note = "Incomplete qrels: 2 of 9 pool items were unjudged"
    for client in (staff_client(), participant):
        page = client.get(reverse("evaluation:results", args=[unjudged.task.pk]))
        assert note in page.content.decode()
        url = reverse("evaluation:results-download", args=[unjudged.task.pk, "csv"])
        assert client.get(url).content.decode().splitlines()[1].endswith(",all,False")
    staff = staff_client()
    latex = staff.get(reverse("evaluation:results-download", args=[unjudged.task.pk, "latex"]))
    assert note in latex.content.decode()
    body = staff.get(reverse("evaluation:results-download", args=[unjudged.task.pk, "json"]))
    assert {(r["qrels_complete"], r["qrels_unjudged"]) for r in json.loads(body.content)} == {
        (False, 2)
    }
    api = APIClient()
    api.force_authenticate(user)
    assert [r["qrels_complete"] for r in api.get("/api/results/").json()["results"]] == [False]


def test_incomplete_note_says_how_the_task_scores_unjudged_results(
    unjudged: JudgedTask,
) -> None:
    url = reverse("evaluation:results", args=[unjudged.task.pk])
    qrels = qrels_export(task=unjudged.task, allow_incomplete=True)
    evaluation_job_run(job=EvaluationJob.objects.create(task=unjudged.task, qrels=qrels))
    # ARQMath's prime measures (the answer kind's defaults) drop unjudged posts: trec_eval -J.
    assert "were exported; unjudged results are left out before scoring." in (
        staff_client().get(url).content.decode()
    )
    unjudged.task.official_measures = ["map", "P(rel=2,judged_only=True)@10"]
    unjudged.task.save()
    evaluation_job_run(job=EvaluationJob.objects.create(task=unjudged.task, qrels=qrels))
    expected = (
        "P(rel=2,judged_only=True)@10 leave unjudged results out; "
        "the other measures count them as not relevant"
    )
    assert expected in staff_client().get(url).content.decode()
    latex = staff_client().get(
        reverse("evaluation:results-download", args=[unjudged.task.pk, "latex"])
    )
    assert expected in latex.content.decode()
    unjudged.task.official_measures = ["map", "ndcg_cut_10"]
    unjudged.task.save()
    assert "unjudged results count as not relevant (as in trec_eval)." in (
        staff_client().get(url).content.decode()
    )
