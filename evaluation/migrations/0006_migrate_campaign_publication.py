"""Carry the campaign-wide ``Campaign.results_published`` flag over to per-task publication.

Every task of a campaign that had the flag on is published with its latest evaluated qrels
version (the qrels of its latest finished evaluation, else of its latest result), and a
"migrated" event records it. A task with nothing evaluated showed participants nothing, so it
stays unpublished. Backwards: a campaign is flagged again when any of its tasks is published.
"""

from django.db import migrations


def _latest_evaluated_qrels(apps, task):
    job = (
        apps.get_model("evaluation", "EvaluationJob")
        .objects.filter(task=task, status="done")
        .order_by("-created_at", "-id")
        .first()
    )
    if job is not None:
        return job.qrels
    result = (
        apps.get_model("evaluation", "EvaluationResult")
        .objects.filter(run__task=task)
        .order_by("-created_at", "-id")
        .first()
    )
    return result.qrels if result is not None else None


def forwards(apps, schema_editor):
    RetrievalTask = apps.get_model("collection", "RetrievalTask")
    TaskPublication = apps.get_model("evaluation", "TaskPublication")
    PublicationEvent = apps.get_model("evaluation", "PublicationEvent")
    EvaluationResult = apps.get_model("evaluation", "EvaluationResult")
    # Results stored before run versions were recorded: current when scored after the upload.
    for result in EvaluationResult.objects.filter(run_version__isnull=True).select_related("run"):
        if result.created_at >= result.run.uploaded_at:
            result.run_version = result.run.version
            result.save(update_fields=["run_version"])
    for task in RetrievalTask.objects.filter(campaign__results_published=True):
        qrels = _latest_evaluated_qrels(apps, task)
        if qrels is None:
            continue
        TaskPublication.objects.update_or_create(
            task=task, defaults={"qrels": qrels, "published": True}
        )
        PublicationEvent.objects.create(
            task=task,
            action="migrated",
            qrels=qrels,
            qrels_checksum=qrels.checksum,
            by_name="migration",
            details={"from": "Campaign.results_published"},
        )


def backwards(apps, schema_editor):
    Campaign = apps.get_model("collection", "Campaign")
    TaskPublication = apps.get_model("evaluation", "TaskPublication")
    published = TaskPublication.objects.filter(published=True).values("task__campaign_id")
    Campaign.objects.filter(pk__in=published).update(results_published=True)


class Migration(migrations.Migration):
    dependencies = [
        ("collection", "0004_task_protocol_settings"),
        ("evaluation", "0005_publication_and_completeness"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
