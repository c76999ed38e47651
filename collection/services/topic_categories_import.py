"""Storing a task's topic categories (``collection/core/formats/topic_categories.py``)."""

from __future__ import annotations

from pathlib import Path

from django.db import transaction

from collection.core.formats.errors import ImportFileError
from collection.core.formats.topic_categories import topic_categories_parse
from collection.models import RetrievalTask, Topic
from collection.selectors import CATEGORIES_KEY


def topic_categories_import(*, task: RetrievalTask, path: str | Path) -> int:
    """Give each topic the file lists its categories (replacing what it had); returns how many
    topics changed. A topic the task does not have is an error naming its line; nothing is
    stored unless the whole file is good."""
    source = Path(path)
    entries = topic_categories_parse(source, source.read_bytes())
    with transaction.atomic():
        topics = {
            t.number: t
            for t in Topic.objects.select_for_update().filter(
                task=task, number__in=[e.topic for e in entries]
            )
        }
        changed = []
        for entry in entries:
            topic = topics.get(entry.topic)
            if topic is None:
                raise ImportFileError(
                    source, entry.line, f"topic {entry.topic[:40]!r} is not a topic of this task"
                )
            if topic.metadata.get(CATEGORIES_KEY) != entry.categories:
                topic.metadata = {**topic.metadata, CATEGORIES_KEY: entry.categories}
                changed.append(topic)
        Topic.objects.bulk_update(changed, ["metadata"])
    return len(changed)
