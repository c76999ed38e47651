"""Import the topics of a document task: TREC topic files, TSV and JSONL queries.

The task is the document task ``task`` names (services.tasks.task_for_import), bound to a
document collection that must exist; it is created when missing. Idempotent as the ARQMath
topics are: a topic stored as in the file is left alone, a changed one is updated in place
(matched by number); the file's metadata is merged into what a topic had, as for ARQMath topics.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from collection.core.formats.errors import ImportFileError
from collection.core.formats.topic_text import QueryTopic
from collection.core.formats.trec_topics import TopicFormat, parse_query_topics
from collection.core.task_names import TaskNameError
from collection.models import DocumentCollection, RetrievalTask, Topic
from collection.services.tasks import task_for_import

_BATCH = 2_000
_FIELDS = ("title", "description", "narrative", "metadata")


def _document_task(
    *,
    path: str | Path,
    campaign_name: str,
    task: str,
    kind: str | None,
    collection_name: str | None,
    create: bool,
) -> tuple[RetrievalTask, bool]:
    """The document task ``task`` names, bound to ``collection_name`` (created when missing)."""
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
    try:
        found, created = task_for_import(
            campaign_name=campaign_name, task=task, kind=kind, create=create, collection=collection
        )
    except TaskNameError as error:
        raise ImportFileError(path, None, str(error)) from None
    if found.kind != RetrievalTask.Kind.DOCUMENT:
        raise ImportFileError(path, None, f"task {found.name!r} is a {found.kind} task")
    if found.collection_id != collection.pk:
        judged = found.collection.name if found.collection else ""
        raise ImportFileError(
            path,
            None,
            f"the document task {found.name!r} of {campaign_name!r} judges collection "
            f"{judged!r}, not {collection_name!r}",
        )
    return found, created


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
    task: str = RetrievalTask.Kind.DOCUMENT,
    kind: str | None = None,
    file_format: TopicFormat = "auto",
    create: bool = True,
) -> tuple[int, int, int, RetrievalTask, bool]:
    """Import a document task's topic file; (created, updated, unchanged, task, task created).

    The whole file is read and checked first, then written in one transaction: a bad file (or a
    missing collection) leaves nothing behind."""
    topics = parse_query_topics(path, file_format)
    created: list[Topic] = []
    updated: list[Topic] = []
    with transaction.atomic():
        found, task_created = _document_task(
            path=path,
            campaign_name=campaign_name,
            task=task,
            kind=kind,
            collection_name=collection_name,
            create=create,
        )
        stored = {t.number: t for t in Topic.objects.filter(task=found)}
        for topic in topics:
            have = stored.get(topic.number)
            fields = _wanted(topic, have)
            if have is None:
                created.append(Topic(task=found, number=topic.number, **fields))
            elif any(getattr(have, name) != value for name, value in fields.items()):
                for name, value in fields.items():
                    setattr(have, name, value)
                updated.append(have)
        Topic.objects.bulk_create(created, batch_size=_BATCH)
        Topic.objects.bulk_update(updated, list(_FIELDS), batch_size=_BATCH)
    unchanged = len(topics) - len(created) - len(updated)
    return len(created), len(updated), unchanged, found, task_created
