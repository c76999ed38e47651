"""The data migration that records what RAG runs stored earlier hold (their report's "rag")."""

import pytest
from django.utils import timezone

from tests.integration.migration_steps import latest, migrate

BEFORE = [("nuggets", "0003_machine_nugget_proposals")]


@pytest.mark.django_db(transaction=True)
def test_rag_runs_stored_earlier_get_their_contents_when_migrated() -> None:
    apps = migrate(BEFORE)
    try:
        campaign = apps.get_model("collection", "Campaign").objects.create(name="C")
        collection = apps.get_model("collection", "DocumentCollection").objects.create(name="s")
        task_model = apps.get_model("collection", "RetrievalTask")
        task = task_model.objects.create(
            campaign=campaign, kind="rag", name="rag", collection=collection
        )
        topic_model = apps.get_model("collection", "Topic")
        topics = [topic_model.objects.create(task=task, number=str(n)) for n in (1, 2)]
        team = apps.get_model("pooling", "Team").objects.create(name="T")
        run = apps.get_model("pooling", "Run").objects.create(
            task=task, team=team, tag="r", role="primary", uploaded_at=timezone.now()
        )
        answers = apps.get_model("nuggets", "RagAnswer")
        answers.objects.create(
            run=run,
            topic=topics[0],
            sentences=[{"text": "a", "citations": ["s1", "s2"]}, {"text": "b", "citations": []}],
            response_length=7,
            line=1,
        )
        answers.objects.create(
            run=run,
            topic=topics[1],
            sentences=[{"text": "c", "citations": ["s1"]}],
            response_length=3,
            line=2,
        )
        apps = migrate(latest())
        report = apps.get_model("pooling", "Run").objects.get(pk=run.pk).report
        # 2 topics; 3 sentences; citations s1, s2, s1 (2 distinct); 7 + 3 words.
        assert report["rag"] == {
            "topics": 2,
            "sentences": 3,
            "citations": 3,
            "segments": 2,
            "words": 10,
        }
    finally:
        migrate(latest())
