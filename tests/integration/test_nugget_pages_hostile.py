"""Collection documents are hostile: the nugget editor (and the labelling page's cited segments,
which share its document rendering) show them sanitized, never as live markup."""

from __future__ import annotations

import pytest
from django.test import Client

from assessment.models import Assignment, Judgment
from collection.models import RetrievalTask
from nuggets.selectors.pages import cited_segments
from tests.factories.collection import (
    DocumentCollectionFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.integration.document_pool import document_pool

pytestmark = pytest.mark.django_db

HOSTILE_HTML = (
    '<p>Kept <b>bold</b>.</p><script>alert("s")</script>'
    '<img src="x" onerror="alert(1)"><a href="javascript:alert(2)">link</a>'
    '<iframe src="https://example.org"></iframe><style>body{display:none}</style>'
)
HOSTILE_TEXT = '<script>alert("t")</script> & </document>'


def test_hostile_documents_reach_the_nugget_editor_and_cited_segments_inert() -> None:
    collection = DocumentCollectionFactory.create(name="segments")
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.RAG, collection=collection)
    topic = TopicFactory.create(task=task, number="1", title="t")
    assessor = UserFactory.create(username="judy")
    bodies = [("<i>t0</i>", HOSTILE_HTML, "html"), ("t1", HOSTILE_TEXT, "text")]
    pool = document_pool(items=2, topic=topic, docno_prefix="seg", bodies=bodies)
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    for hits in pool.hits:
        Judgment.objects.create(assignment=assignment, hit=hits[0], assessor=assessor, grade=2)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="olga", is_staff=True))

    page = organizer.get(f"/nuggets/topics/{topic.pk}/").content.decode()

    assert "Kept <b>bold</b>." in page
    for live in ("<script>alert", "onerror=", "javascript:alert", "<iframe", "<style>body"):
        assert live not in page
    assert "&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; &lt;/document&gt;" in page
    docnos = [item.key for item in pool.items]
    shown = cited_segments([{"citations": docnos}], collection.pk)
    assert [s.docno for s in shown] == docnos
    for segment in shown:
        for live in ("<script", "onerror", "javascript:", "<iframe", "<style"):
            assert live not in segment.body_html
