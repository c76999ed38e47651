"""A document task's pool built with the factories, for the document judging,
adjudication, agreement and qrels tests and the browser tests.

Items are made the way pooling makes them: key = docno, document set, one Hit with the
document and no post or formula. A run stands behind every item so blindness can be checked.
"""

from __future__ import annotations

from collections.abc import Sequence

from collection.models import Document, RetrievalTask, Topic
from tests.factories import (
    DocumentCollectionFactory,
    DocumentFactory,
    HitFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    RunFactory,
    TopicFactory,
)
from tests.integration.test_judging_pools import SECRET_RUN_TAG, SECRET_TEAM, Pool

TOPIC_TITLE = "Hubble telescope achievements"
TOPIC_DESCRIPTION = "Identify positive accomplishments of the Hubble telescope since launch."
TOPIC_NARRATIVE = (
    "Documents are relevant that show the Hubble telescope has produced new data or better "
    "pictures.\nDocuments about its flaws alone are not relevant."
)

PLAIN_BODY = (
    "The Hubble telescope sent back new pictures of a distant galaxy.\n"
    "Astronomers called the images a triumph.\n\n"
    "Telescopes on the ground cannot see as far; a <script>alert(1)</script> stays text."
)
HTML_BODY = (
    "<p>Since launch, <b>Hubble</b> has measured the expansion of the universe.</p>"
    '<p onclick="alert(1)">Its <a href="javascript:alert(1)">achievements</a> include deep '
    'fields <img src="https://evil.example/x.png" alt="deep field">.</p>'
    "<script>alert(2)</script><style>body{display:none}</style>"
)
BODIES: tuple[tuple[str, str, str], ...] = (
    ("Hubble pictures of a galaxy", PLAIN_BODY, Document.BodyFormat.TEXT),
    ("Hubble <i>measures</i> the universe", HTML_BODY, Document.BodyFormat.HTML),
    ("Ferry timetable", "Ferries leave every hour.\nNo telescope here.", "text"),
)


def document_task(**fields: object) -> RetrievalTask:
    collection = DocumentCollectionFactory.create()
    return RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.DOCUMENT, collection=collection, **fields
    )


def document_topic(task: RetrievalTask | None = None, number: str = "301") -> Topic:
    return TopicFactory.create(
        task=task or document_task(),
        number=number,
        title=TOPIC_TITLE,
        question="",
        tags=[],
        description=TOPIC_DESCRIPTION,
        narrative=TOPIC_NARRATIVE,
    )


def document_pool(
    *,
    items: int = 3,
    topic: Topic | None = None,
    bodies: Sequence[tuple[str, str, str]] = BODIES,
    docno_prefix: str = "LA0101",
) -> Pool:
    """A document-task topic whose items are documents of its task's collection (one hit
    each, key = docno), in display order, with a run behind them."""
    topic = topic or document_topic()
    task = topic.task
    run = RunFactory.create(task=task, tag=SECRET_RUN_TAG, team__name=f"{SECRET_TEAM}{topic.pk}")
    pool_items, hits = [], []
    for i in range(items):
        title, body, body_format = bodies[i % len(bodies)]
        document = DocumentFactory.create(
            collection=task.collection,
            docno=f"{docno_prefix}-{topic.number}-{i:04d}",
            title=title,
            body=body,
            body_format=body_format,
        )
        item = PoolItemFactory.create(
            topic=topic, post_id=None, key=document.docno, document=document, display_order=i
        )
        item.contributions.create(run=run, rank=i + 1)
        hits.append([HitFactory.create(item=item, post_id=None, document=document, vote=0.75)])
        pool_items.append(item)
    return Pool(topic=topic, items=pool_items, hits=hits)
