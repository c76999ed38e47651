"""Publishing per task with the official qrels: service, pages, REST, CLI."""

import io
from dataclasses import dataclass

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import F
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from collection.models import RetrievalTask
from evaluation.models import EvaluationJob, PublicationEvent, QrelsVersion, TaskPublication
from evaluation.selectors import results_visible_to
from evaluation.services import (
    PublicationError,
    evaluation_job_run,
    qrels_export,
    qrels_import,
    results_publish,
    results_withdraw,
)
from pooling.models import Run
from tests.factories import (
    RetrievalTaskFactory,
    RunFactory,
    RunRowFactory,
    TopicFactory,
    UserFactory,
)
from tests.integration.evaluation_data import JudgedTask, judged_answer_task

pytestmark = pytest.mark.django_db


@dataclass
class Campaign:
    data: JudgedTask
    official: QrelsVersion  # exported from the judgments
    other: QrelsVersion  # an imported file that rates beta's run differently
    formula: RetrievalTask  # a second task of the campaign, evaluated, never published
    organizer: object
    participant: object  # a member of team Beta


def evaluate(task: RetrievalTask, qrels: QrelsVersion) -> EvaluationJob:
    return evaluation_job_run(job=EvaluationJob.objects.create(task=task, qrels=qrels, seed=1))


@pytest.fixture
def campaign() -> Campaign:
    data = judged_answer_task()
    official = qrels_export(task=data.task)
    other = qrels_import(task=data.task, text="A.1\t0\t105\t0\nA.1\t0\t101\t3\n", label="other")
    for qrels in (official, other):
        evaluate(data.task, qrels)
    formula = RetrievalTaskFactory.create(campaign=data.task.campaign, kind="formula")
    topic = TopicFactory.create(task=formula, number="B.1")
    run = RunFactory.create(task=formula, team=data.beta.team, tag="fbeta")
    RunRowFactory.create(run=run, topic=topic, post_id=None, formula_id=5, rank=1, score=1.0)
    evaluate(formula, qrels_import(task=formula, text="B.1\t0\t5\t3\n"))
    participant = UserFactory.create()
    data.beta.team.members.add(participant)
    organizer = UserFactory.create(is_staff=True, username="organizer")
    return Campaign(data, official, other, formula, organizer, participant)


def client_for(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_participant_sees_only_published_task_own_runs_on_official_qrels_when_published(
    campaign: Campaign,
) -> None:
    data = campaign.data
    results_publish(task=data.task, qrels=campaign.official, by=campaign.organizer)
    client = client_for(campaign.participant)
    index = client.get(reverse("evaluation:index"))
    assert [t.pk for t in index.context["tasks"]] == [data.task.pk]  # not the formula task
    url = reverse("evaluation:results", args=[data.task.pk])
    for asked in ("", f"?qrels={campaign.other.pk}"):  # asking for another version changes nothing
        page = client.get(url + asked)
        assert page.context["qrels"] == campaign.official
        assert [row["tag"] for row in page.context["rows"]] == ["beta"]
        assert "Alpha" not in page.content.decode()
    other_task = client.get(reverse("evaluation:results", args=[campaign.formula.pk]))
    assert other_task.status_code == 403
    download = client.get(reverse("evaluation:results-download", args=[data.task.pk, "csv"]))
    assert download.content.decode().splitlines()[1].startswith("Beta/beta,")
    assert results_visible_to(campaign.participant, data.task)
    assert not results_visible_to(campaign.participant, campaign.formula)


def test_withdrawing_hides_results_again_and_keeps_the_record_when_organizer_withdraws(
    campaign: Campaign,
) -> None:
    task = campaign.data.task
    results_publish(task=task, qrels=campaign.official, by=campaign.organizer)
    results_publish(task=task, qrels=campaign.other, by=None)  # the command line switches it
    results_withdraw(task=task, by=campaign.organizer)
    page = client_for(campaign.participant).get(reverse("evaluation:results", args=[task.pk]))
    assert page.status_code == 403
    publication = TaskPublication.objects.get(task=task)
    assert (publication.published, publication.qrels_id) == (False, campaign.other.pk)
    events = list(PublicationEvent.objects.filter(task=task).order_by("at", "id"))
    assert [(e.action, e.qrels_id, e.by_name) for e in events] == [
        ("publish", campaign.official.pk, "organizer"),
        ("publish", campaign.other.pk, "command line"),
        ("withdraw", campaign.other.pk, "organizer"),
    ]
    assert events[0].details["scored"] == ["Alpha/alpha v1", "Beta/beta v1"]
    assert events[0].qrels_checksum == campaign.official.checksum
    with pytest.raises(PublicationError, match="not published"):
        results_withdraw(task=task, by=campaign.organizer)


@pytest.mark.parametrize(
    ("which", "message"),
    [
        ("foreign", "belongs to another task"),
        ("unevaluated", "no run is scored against qrels version"),
        ("instance", "item-level qrels"),
    ],
)
def test_publishing_is_refused_with_reason_when_qrels_cannot_be_official(
    campaign: Campaign, which: str, message: str
) -> None:
    task = campaign.data.task
    qrels = {
        "foreign": lambda: QrelsVersion.objects.filter(task=campaign.formula).first(),
        "unevaluated": lambda: qrels_import(task=task, text="A.2\t0\t201\t1\n"),
        "instance": lambda: QrelsVersion.objects.create(
            task=task, level="instance", content="", checksum="x" * 64
        ),
    }[which]()
    with pytest.raises(PublicationError, match=message):
        results_publish(task=task, qrels=qrels, by=campaign.organizer)  # type: ignore[arg-type]
    assert not PublicationEvent.objects.exists()


def test_replaced_run_shows_as_not_scored_yet_to_organizers_and_its_team_when_uploaded_later(
    campaign: Campaign,
) -> None:
    data = campaign.data
    results_publish(task=data.task, qrels=campaign.official, by=campaign.organizer)
    Run.objects.filter(pk=data.beta.pk).update(version=F("version") + 1, uploaded_at=timezone.now())
    late = RunFactory.create(task=data.task, team=data.beta.team, tag="late")
    url = reverse("evaluation:results", args=[data.task.pk])
    team_page = client_for(campaign.participant).get(url)
    assert team_page.context["rows"] == []  # the old score of beta is not shown as its score
    reasons = {r["tag"]: r["reason"] for r in team_page.context["not_scored"]}
    assert reasons == {
        "beta": "uploaded after the last evaluation",
        "late": "not evaluated against this qrels version",
    }
    assert "not scored yet" in team_page.content.decode()
    staff_page = client_for(campaign.organizer).get(url)
    assert [r["tag"] for r in staff_page.context["rows"]] == ["alpha"]
    assert {r["tag"] for r in staff_page.context["not_scored"]} == {"beta", "late"}
    evaluate(data.task, campaign.official)  # a new evaluation scores both
    assert {r["tag"] for r in client_for(campaign.participant).get(url).context["rows"]} == {
        "beta",
        late.tag,
    }


def test_publication_page_confirms_version_topics_judgments_and_runs_when_organizer_reviews(
    campaign: Campaign, django_assert_max_num_queries: object
) -> None:
    task = campaign.data.task
    client = client_for(campaign.organizer)
    url = reverse("evaluation:publication", args=[task.pk])
    Run.objects.filter(pk=campaign.data.beta.pk).update(version=2)
    with django_assert_max_num_queries(14):  # type: ignore[operator]
        page = client.get(f"{url}?qrels={campaign.official.pk}")
    html = page.content.decode()
    assert page.context["chosen"] == campaign.official
    assert "2 topics, 6 judgments (qrels rows)" in html
    assert [r["tag"] for r in page.context["scored"]] == ["alpha"]
    assert "beta: uploaded after the last evaluation" in html
    assert "complete: every one of 7 pool items judged" in html
    response = client.post(url, {"action": "publish", "qrels": campaign.official.pk})
    assert response.status_code == 302
    assert TaskPublication.objects.get(task=task).published
    assert client.post(url, {"action": "publish", "qrels": "nope"}).status_code == 302
    assert client.post(url, {"action": "withdraw"}).status_code == 302
    assert not TaskPublication.objects.get(task=task).published
    assert list(PublicationEvent.objects.filter(task=task).values_list("action", flat=True)) == [
        "withdraw",
        "publish",
    ]
    assert client_for(campaign.participant).get(url).status_code == 403


def test_rest_publishes_withdraws_and_shows_participants_only_official_results(
    campaign: Campaign, django_assert_max_num_queries: object
) -> None:
    task = campaign.data.task
    staff = APIClient()
    staff.force_authenticate(campaign.organizer)  # type: ignore[arg-type]
    url = f"/api/results/{task.pk}/publication/"
    refused = staff.post(url, {"qrels": campaign.formula.qrels_versions.get().pk}, format="json")
    assert refused.status_code == 400
    published = staff.post(url, {"qrels": campaign.other.pk}, format="json")
    assert published.status_code == 200, published.content
    assert published.json()["published"] is True
    assert published.json()["events"][0]["action"] == "publish"
    participant = APIClient()
    participant.force_authenticate(campaign.participant)  # type: ignore[arg-type]
    with django_assert_max_num_queries(4):  # type: ignore[operator]
        listed = participant.get("/api/results/").json()["results"]
    assert [(r["tag"], r["qrels"], r["current"]) for r in listed] == [
        ("beta", campaign.other.pk, True)
    ]
    assert participant.get(url).status_code == 403
    withdrawn = staff.delete(url)
    assert withdrawn.json()["published"] is False
    assert participant.get("/api/results/").json()["results"] == []
    assert staff.delete(url).status_code == 400


def test_publish_results_command_publishes_and_withdraws_when_named(campaign: Campaign) -> None:
    task = campaign.data.task
    out = io.StringIO()
    name = task.campaign.name
    call_command(
        "publish_results",
        *("--campaign", name, "--task", "answer", "--qrels", str(campaign.official.pk)),
        *("--by", "organizer"),
        stdout=out,
    )
    assert f"with qrels version {campaign.official.pk}" in out.getvalue()
    assert PublicationEvent.objects.get().by_name == "organizer"
    call_command("publish_results", "--campaign", name, "--task", "answer", "--withdraw")
    assert not TaskPublication.objects.get(task=task).published
    with pytest.raises(CommandError, match="has no qrels version 999999"):
        call_command("publish_results", "--campaign", name, "--task", "answer", "--qrels", "999999")
    with pytest.raises(CommandError, match="not published"):
        call_command("publish_results", "--campaign", name, "--task", "answer", "--withdraw")
