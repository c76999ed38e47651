"""RAG runs on the run pages (/runs/, a run's page, the task's RAG runs page): what a RAG run
holds (topics answered, sentences, citations), counted here from the file itself."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client

from collection.models import RetrievalTask
from nuggets.services.runs import rag_run_submit
from pooling.models import Run
from tests.factories.collection import (
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

pytestmark = pytest.mark.django_db

ANSWERS = {
    "1": [("Nuggets are facts.", [0, 1]), ("They are vital or okay.", [1]), ("No source.", [])],
    "2": [("Assessors label them.", [0])],
}


def test_run_pages_show_topics_sentences_and_citations_when_the_run_is_a_rag_run() -> None:
    segments = DocumentCollectionFactory.create(name="segs")
    for docno in ("s1", "s2"):
        DocumentFactory.create(collection=segments, docno=docno, body=f"Segment {docno}.")
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.RAG, collection=segments)
    for number in ANSWERS:
        TopicFactory.create(task=task, number=number, title=f"Topic {number}")
    lines = [
        {
            "run_id": "ragged",
            "topic_id": number,
            "topic": f"Topic {number}",
            "references": ["s1", "s2"],
            "response_length": sum(len(text.split()) for text, _ in sentences),
            "answer": [{"text": text, "citations": cited} for text, cited in sentences],
        }
        for number, sentences in ANSWERS.items()
    ]
    rag_run_submit(
        task=task,
        team=TeamFactory.create(name="ragteam"),
        stream=io.BytesIO("\n".join(json.dumps(line) for line in lines).encode()),
        file_name="ragged.jsonl",
        uploaded_by=None,
    )
    sentences = sum(len(s) for s in ANSWERS.values())  # 4
    citations = sum(len(c) for s in ANSWERS.values() for _, c in s)  # 4
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    run = Run.objects.get()

    listing = organizer.get("/runs/").content.decode()
    assert f'2 answers<br><span class="muted">{sentences} sentences · {citations} citations' in (
        listing
    )
    detail = organizer.get(f"/runs/{run.pk}/").content.decode()
    assert "<dt>Answers</dt><dd>2 topics answered" in detail
    assert f"<dt>Sentences</dt><dd>{sentences}</dd>" in detail
    assert f"<dt>Citations</dt><dd>{citations} of 2 distinct segments</dd>" in detail
    own = organizer.get(f"/nuggets/tasks/{task.pk}/runs/").content.decode()
    assert f'<td class="num">{sentences}</td><td class="num">{citations} ' in own
