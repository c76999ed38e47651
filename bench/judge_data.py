"""A document task with a large pool, written in bulk, for bench/run_judge.py."""

from __future__ import annotations

import random
from typing import Any


def bulk_document_task(
    items: int, topics: int, seed: int
) -> tuple[Any, dict[tuple[str, str], int]]:
    """A document task of ``topics`` topics sharing ``items`` pooled documents evenly (one hit
    each), and qrels for them: (topic number, docno) -> grade 0-2 (mostly 0, as pools are)."""
    from collection.models import Campaign, Document, DocumentCollection, RetrievalTask, Topic
    from pooling.models import Hit, PoolItem

    rng = random.Random(seed)
    campaign = Campaign.objects.create(name=f"Judge bench {seed}")
    collection = DocumentCollection.objects.create(name=f"judge-bench-{seed}")
    task = RetrievalTask.objects.create(
        campaign=campaign, kind=RetrievalTask.Kind.DOCUMENT, name="document", collection=collection
    )
    made = Topic.objects.bulk_create(
        Topic(
            task=task,
            number=str(t + 1),
            title=f"topic {t + 1} about subject {rng.randrange(1000)}",
            description="Find documents that discuss the subject in depth.",
            narrative="A relevant document gives facts about the subject.",
        )
        for t in range(topics)
    )
    words = ["the", "a", "telescope", "galaxy", "light", "image", "data", "orbit", "star"]
    documents = Document.objects.bulk_create(
        Document(
            collection=collection,
            docno=f"DOC{i:07d}",
            title=f"document {i}",
            body=" ".join(rng.choice(words) for _ in range(150)),
        )
        for i in range(items)
    )
    pool = PoolItem.objects.bulk_create(
        PoolItem(
            topic=made[i % topics],
            key=doc.docno,
            document=doc,
            display_order=i // topics,
        )
        for i, doc in enumerate(documents)
    )
    Hit.objects.bulk_create(Hit(item=item, document=item.document) for item in pool)
    truth = {
        (made[i % topics].number, doc.docno): rng.choice((0, 0, 0, 1, 2))
        for i, doc in enumerate(documents)
    }
    return task, truth
