"""Qrels exports from judgments, frozen as QrelsVersion rows with their checksum."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.db import transaction

from collection.models import RetrievalTask
from evaluation.core.answers import answer_entries
from evaluation.core.qrels import (
    DEFAULT_PRECEDENCE,
    MACHINE,
    QrelsEntry,
    QrelsPolicy,
    qrels_checksum,
    qrels_format,
    qrels_from_judgments,
    qrels_parse,
)
from evaluation.core.readiness import QrelsReadiness
from evaluation.models import QrelsVersion
from evaluation.selectors import (
    answer_runs,
    counting_machine_judge,
    judgment_records,
    policy_machine_judge,
    task_readiness,
)

LEVELS = ("item", "instance")


class QrelsExportError(ValueError):
    """Nothing to export, or a request the task cannot answer (shown to the organizer)."""


class QrelsIncompleteError(QrelsExportError):
    """Pool items are still unjudged and the caller did not ask to export anyway."""

    def __init__(self, readiness: QrelsReadiness) -> None:
        self.readiness = readiness
        super().__init__(
            f"{readiness.unjudged_summary()}: judge them first, or export anyway to freeze "
            "the qrels as they are (the version records how complete it was)"
        )


def qrels_policy(
    *, task: RetrievalTask, use_dual: bool = True, min_relevant: int | None = None
) -> QrelsPolicy:
    """The qrels policy the page, the CLI and REST build from their options: dual assessments
    count where no official one exists (unless ``use_dual`` is off), and the minimum-relevant
    rule is the task's setting unless ``min_relevant`` is given (0 turns it off). When the
    organizer lets a machine judge of the task count, its grades come last:
    adjudicated > official > dual > machine."""
    precedence = DEFAULT_PRECEDENCE
    if not use_dual:
        precedence = tuple(s for s in precedence if s != "dual")
    wanted = task.min_relevant if min_relevant is None else min_relevant
    judge = counting_machine_judge(task)
    if judge is None:
        return QrelsPolicy(precedence, wanted or None)
    return QrelsPolicy((*precedence, MACHINE), wanted or None, machine_judge=judge)


def qrels_export(
    *,
    task: RetrievalTask,
    policy: QrelsPolicy | None = None,
    level: str = "item",
    created_by: Any = None,
    label: str = "",
    allow_incomplete: bool = False,
) -> QrelsVersion:
    """Build the task's qrels from its judgments (docs/evaluation.md) and freeze them.

    ``policy`` defaults to ``qrels_policy(task=task)`` (the task's minimum-relevant rule).
    While pool items are unjudged the export is refused (QrelsIncompleteError, naming them by
    topic) unless ``allow_incomplete``; either way the version records how complete it was.
    Task 3 rows are one per run's answer (``evaluation.core.answers``). The same content exported
    twice gives the same version (matched on its SHA-256), so results computed against it
    stay attached to it. "Relevant" for the minimum-relevant rule is grade >= the task's
    relevance level.
    """
    policy = replace(policy or qrels_policy(task=task), relevant_from=task.relevance_level)
    if level not in LEVELS:
        raise QrelsExportError(f"level must be one of {', '.join(LEVELS)}")
    if level == "instance" and task.kind != RetrievalTask.Kind.FORMULA:
        raise QrelsExportError("instance-level qrels exist for the formula task only")
    records = judgment_records(task, machine_judge=policy_machine_judge(policy))
    readiness = task_readiness(task, policy, records=records)
    if not readiness.complete and not allow_incomplete:
        raise QrelsIncompleteError(readiness)
    build = qrels_from_judgments(records, kind=task.kind, policy=policy)  # type: ignore[arg-type]
    entries = build.instance_entries if level == "instance" else build.entries
    if task.kind == RetrievalTask.Kind.OPENQA:
        entries = answer_entries(entries, answer_runs(task))
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
        completeness=_completeness(readiness),
    )


def _completeness(readiness: QrelsReadiness) -> dict[str, Any]:
    return {
        "pool_items": readiness.items,
        "judged_items": readiness.judged + readiness.flagged,
        "unjudged_items": readiness.unjudged,
        "pool_topics": len(readiness.topics),
        "complete_topics": readiness.complete_topics,
        "unjudged_topics": [
            {"topic": t.topic, "unjudged": t.unjudged} for t in readiness.incomplete_topics
        ],
    }


def qrels_import(
    *, task: RetrievalTask, text: str, label: str = "", created_by: Any = None
) -> QrelsVersion:
    """Freeze an existing qrels file (e.g. the official one) as a version, order kept. It is
    read as trec_eval reads it: ``#`` lines skipped, any integer grade (negative: in the pool,
    not judged)."""
    entries = qrels_parse(text, trec_eval=True)
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
    completeness: dict[str, Any] | None = None,
) -> QrelsVersion:
    content = qrels_format(entries)
    checksum = qrels_checksum(content)
    completeness = completeness or {}
    with transaction.atomic():
        # The unique constraint on (task, level, checksum) makes a concurrent export of the
        # same content wait for the first one, then find its row instead of a duplicate.
        version, created = QrelsVersion.objects.get_or_create(
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
                **completeness,
            },
        )
        if not created and completeness:
            # Same rows, judged state as of now (e.g. the last items were flagged since).
            for name, value in completeness.items():
                setattr(version, name, value)
            version.save(update_fields=list(completeness))
        return version
