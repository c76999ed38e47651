"""A small RAG task (segments, a run, a nugget, an assessor's assignment) for page-wide tests."""

from __future__ import annotations

import io
import json

from django.contrib.auth.models import User

from assessment.models import Assignment
from collection.models import RetrievalTask
from nuggets.services.nuggets import nugget_add
from nuggets.services.runs import rag_run_submit
from tests.factories.collection import (
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
)
from tests.factories.pooling import TeamFactory


def small_rag_task(assessor: User) -> dict[str, int]:
    """Ids of a RAG task, its topic and ``assessor``'s official assignment of it."""
    segments = DocumentCollectionFactory.create(name="rag-segments")
    DocumentFactory.create(collection=segments, docno="seg_1", body="Nuggets are short facts.")
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.RAG, collection=segments)
    topic = TopicFactory.create(task=task, number="1", title="What is a nugget?")
    record = {
        "run_id": "rag-run",
        "topic_id": "1",
        "topic": topic.title,
        "references": ["seg_1"],
        "response_length": 4,
        "answer": [{"text": "A short fact.", "citations": [0]}],
    }
    rag_run_submit(
        task=task,
        team=TeamFactory.create(name="rag-team"),
        stream=io.BytesIO(json.dumps(record).encode()),
        file_name="rag-run.jsonl",
        uploaded_by=None,
    )
    nugget_add(topic=topic, text="nuggets are short facts", importance="vital", user=None)
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    return {"rag_task": task.pk, "rag_topic": topic.pk, "rag_assignment": assignment.pk}
