"""Qrels exports from judgments, frozen as QrelsVersion rows with their checksum."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.db import transaction

from collection.models import RetrievalTask
from evaluation.models import QrelsVersion
from evaluation.qrels import (
    QrelsEntry,
    QrelsPolicy,
    qrels_checksum,
    qrels_format,
    qrels_from_judgments,
    qrels_parse,
)
from evaluation.selectors import judgment_records

LEVELS = ("item", "instance")


class QrelsExportError(ValueError):
    """Nothing to export, or a request the task cannot answer (shown to the organizer)."""


def qrels_export(
    *,
    task: RetrievalTask,
    policy: QrelsPolicy | None = None,
    level: str = "item",
    created_by: Any = None,
    label: str = "",
) -> QrelsVersion:
    """Build the task's qrels from its judgments (DESIGN.md "Qrels") and freeze them.

    The same content exported twice gives the same version (matched on its SHA-256), so
    results computed against it stay attached to it. "Relevant" for the minimum-relevant rule
    is grade >= the task's relevance level (issue 12 §4).
    """
    policy = replace(policy or QrelsPolicy(), relevant_from=task.relevance_level)
    if level not in LEVELS:
        raise QrelsExportError(f"level must be one of {', '.join(LEVELS)}")
    if level == "instance" and task.kind != RetrievalTask.Kind.FORMULA:
        raise QrelsExportError("instance-level qrels exist for the formula task only")
    build = qrels_from_judgments(judgment_records(task), kind=task.kind, policy=policy)  # type: ignore[arg-type]
    entries = build.instance_entries if level == "instance" else build.entries
    if not entries:
        raise QrelsExportError(f"no judged items for {task}: nothing to export")
    return _freeze(
        task=task,
        entries=entries,
        policy={**policy.as_dict(), "flagged_hits": build.flagged},
        level=level,
        dropped=[
            {"topic": d.topic, "relevant": d.relevant, "reason": d.reason} for d in build.dropped
        ],
        created_by=created_by,
        label=label,
    )


def qrels_import(
    *, task: RetrievalTask, text: str, label: str = "", created_by: Any = None
) -> QrelsVersion:
    """Freeze an existing qrels file (e.g. the official one) as a version, order kept."""
    entries = qrels_parse(text)
    return _freeze(
        task=task,
        entries=entries,
        policy={"imported": True},
        level="item",
        dropped=[],
        created_by=created_by,
        label=label or "imported",
    )


def _freeze(
    *,
    task: RetrievalTask,
    entries: list[QrelsEntry],
    policy: dict[str, Any],
    level: str,
    dropped: list[dict[str, Any]],
    created_by: Any,
    label: str,
) -> QrelsVersion:
    content = qrels_format(entries)
    checksum = qrels_checksum(content)
    with transaction.atomic():
        # The unique constraint on (task, level, checksum) makes a concurrent export of the
        # same content wait for the first one, then find its row instead of a duplicate.
        version, _ = QrelsVersion.objects.get_or_create(
            task=task,
            level=level,
            checksum=checksum,
            defaults={
                "label": label,
                "policy": policy,
                "content": content,
                "topic_count": len({e.topic for e in entries}),
                "row_count": len(entries),
                "dropped_topics": dropped,
                "created_by": created_by,
            },
        )
        return version
