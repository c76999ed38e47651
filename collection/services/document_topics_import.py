"""Import the topics of a document task (issue 13 §2): TREC topic files, TSV and JSONL queries.

The task is the campaign's ``document`` task, bound to a document collection that must exist;
it is created when missing. Idempotent as the ARQMath topics are: a topic stored as in the file
is left alone, a changed one is updated in place (matched by number); the file's metadata is
merged into what a topic had, as for ARQMath topics.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from collection.core.task_defaults import task_defaults
from collection.formats.errors import ImportFileError
from collection.formats.topic_text import QueryTopic
from collection.formats.trec_topics import TopicFormat, parse_query_topics
from collection.models import Campaign, DocumentCollection, RetrievalTask, Topic

_BATCH = 2_000
_FIELDS = ("title", "description", "narrative", "metadata")


def _document_task(
    *, path: str | Path, campaign_name: str, collection_name: str | None, create: bool
) -> RetrievalTask:
    """The campaign's document task, bound to ``collection_name`` (created when missing)."""
    if not collection_name:
        raise ImportFileError(
            path, None, "a document task needs its collection: give --collection NAME"
        )
    collection = DocumentCollection.objects.filter(name=collection_name).first()
    if collection is None:
        raise ImportFileError(
            path,
            None,
            f"there is no document collection named {collection_name!r}: import its documents "
            "first (manage.py import_documents PATH --collection NAME)",
        )
    kind = RetrievalTask.Kind.DOCUMENT
    task = (
        RetrievalTask.objects.select_related("campaign", "collection")
        .filter(campaign__name=campaign_name, kind=kind)
        .first()
    )
    if task is None:
        if not create:
            raise ImportFileError(
                path, None, f"campaign {campaign_name!r} has no document task (create=False)"
            )
        campaign, _ = Campaign.objects.get_or_create(name=campaign_name)
        # TREC's practice (collection.core.task_defaults): every grade from 1 relevant (the
        # built-in document scale is 0-2), every topic kept, runs pooled to 100.
        task, _ = RetrievalTask.objects.get_or_create(
            campaign=campaign,
            kind=kind,
            defaults={"collection": collection, **task_defaults(kind)},
        )
    if task.collection_id != collection.pk:
        judged = task.collection.name if task.collection else ""
        raise ImportFileError(
            path,
            None,
            f"the document task of {campaign_name!r} judges collection {judged!r}, "
            f"not {collection_name!r}",
        )
    return task


def _wanted(topic: QueryTopic, stored: Topic | None) -> dict[str, Any]:
    return {
        "title": topic.title,
        "description": topic.description,
        "narrative": topic.narrative,
        "metadata": {**(stored.metadata if stored else {}), **topic.metadata},
    }


def document_topics_import(
    *,
    path: str | Path,
    campaign_name: str,
    collection_name: str | None,
    file_format: TopicFormat = "auto",
    create: bool = True,
) -> tuple[int, int, int]:
    """Import a document task's topic file; (created, updated, unchanged).

    The whole file is read and checked first, then written in one transaction: a bad file (or a
    missing collection) leaves nothing behind."""
    topics = parse_query_topics(path, file_format)
    created: list[Topic] = []
    updated: list[Topic] = []
    with transaction.atomic():
        task = _document_task(
            path=path, campaign_name=campaign_name, collection_name=collection_name, create=create
        )
        stored = {t.number: t for t in Topic.objects.filter(task=task)}
        for topic in topics:
            have = stored.get(topic.number)
            fields = _wanted(topic, have)
            if have is None:
                created.append(Topic(task=task, number=topic.number, **fields))
            elif any(getattr(have, name) != value for name, value in fields.items()):
                for name, value in fields.items():
                    setattr(have, name, value)
                updated.append(have)
        Topic.objects.bulk_create(created, batch_size=_BATCH)
        Topic.objects.bulk_update(updated, list(_FIELDS), batch_size=_BATCH)
    return len(created), len(updated), len(topics) - len(created) - len(updated)
