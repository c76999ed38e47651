"""The data migration from Campaign.results_published to per-task publication."""

import pytest
from django.utils import timezone

from tests.integration.migration_steps import latest, migrate

BEFORE = [
    ("collection", "0004_task_protocol_settings"),
    ("evaluation", "0005_publication_and_completeness"),
]


@pytest.mark.django_db(transaction=True)
def test_flagged_campaign_publishes_each_task_with_latest_evaluated_qrels_when_migrated() -> None:
    apps = migrate(BEFORE)
    try:
        campaign_model = apps.get_model("collection", "Campaign")
        task_model = apps.get_model("collection", "RetrievalTask")
        qrels_model = apps.get_model("evaluation", "QrelsVersion")
        job_model = apps.get_model("evaluation", "EvaluationJob")
        result_model = apps.get_model("evaluation", "EvaluationResult")
        team = apps.get_model("pooling", "Team").objects.create(name="T")
        run_model = apps.get_model("pooling", "Run")
        flagged = campaign_model.objects.create(name="flagged", results_published=True)
        quiet = campaign_model.objects.create(name="quiet", results_published=False)
        tasks = {
            (c.name, kind): task_model.objects.create(campaign=c, kind=kind)
            for c in (flagged, quiet)
            for kind in ("answer", "formula")
        }
        for (name, kind), task in tasks.items():
            if kind == "formula" and name == "flagged":
                continue  # a flagged campaign's task with nothing evaluated stays unpublished
            run = run_model.objects.create(
                task=task, team=team, tag="r", role="primary", uploaded_at=timezone.now()
            )
            for n in (1, 2):
                qrels = qrels_model.objects.create(task=task, content=f"{n}", checksum=f"{n}" * 64)
                job_model.objects.create(task=task, qrels=qrels, status="done")
                result_model.objects.create(run=run, qrels=qrels, qrels_checksum=qrels.checksum)
        apps = migrate(latest())
        publication_model = apps.get_model("evaluation", "TaskPublication")
        event_model = apps.get_model("evaluation", "PublicationEvent")
        publication = publication_model.objects.get()
        answer = tasks[("flagged", "answer")]
        assert (publication.task_id, publication.published) == (answer.pk, True)
        assert publication.qrels.checksum == "2" * 64  # the latest evaluated version
        event = event_model.objects.get()
        assert (event.action, event.task_id, event.qrels_checksum) == (
            "migrated",
            answer.pk,
            "2" * 64,
        )
        current = apps.get_model("evaluation", "EvaluationResult").objects.filter(run_version=1)
        assert current.count() == 6  # results scored after their run's upload are current
        assert "results_published" not in {
            f.name for f in apps.get_model("collection", "Campaign")._meta.get_fields()
        }
    finally:
        migrate(latest())
