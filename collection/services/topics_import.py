"""Import topic files into a campaign's task: ARQMath topic XML and, for
document tasks, TREC topics, TSV and JSONL queries (document_topics_import.py)."""

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from collection.core.formats.errors import ImportFileError
from collection.core.formats.topics import (
    TopicRecord,
    parse_topic_formulas,
    parse_topics,
)
from collection.core.formats.trec_topics import TopicFormat
from collection.core.formats.visual_ids import visual_id_for
from collection.core.task_names import TaskNameError
from collection.models import Campaign, RetrievalTask, Topic, TopicFormula
from collection.services.document_topics_import import document_topics_import
from collection.services.tasks import task_for_import, task_kind_named

_FORM_OF_KIND = {
    RetrievalTask.Kind.ANSWER: "answer",
    RetrievalTask.Kind.OPENQA: "answer",
    RetrievalTask.Kind.FORMULA: "formula",
}


@dataclass(frozen=True)
class TopicsImportReport:
    created: int
    updated: int
    unchanged: int
    # The task the topics went to, and whether this import created it (not compared: a report
    # is its counts).
    task: RetrievalTask | None = field(default=None, compare=False)
    task_created: bool = field(default=False, compare=False)


@dataclass
class _TopicFormulas:
    """What the topic formula TSVs say about one topic: its thread and its formulas."""

    thread_id: int | None = None
    # formula id -> field values of TopicFormula
    formulas: dict[str, dict[str, str]] | None = None


def _topic_key(number: str) -> str:
    """ "A.301" and "B.301" share the formulas of question 301 (the TSVs name the A topic)."""
    return number.partition(".")[2] or number


def _read_formula_files(
    latex: str | Path | None, slt: str | Path | None
) -> dict[str, _TopicFormulas]:
    by_topic: dict[str, _TopicFormulas] = defaultdict(_TopicFormulas)
    for path, column in ((latex, "latex"), (slt, "slt")):
        if path is None:
            continue
        for row in parse_topic_formulas(path):
            entry = by_topic[_topic_key(row.topic)]
            entry.thread_id = entry.thread_id or row.thread_id
            entry.formulas = entry.formulas if entry.formulas is not None else {}
            values = entry.formulas.setdefault(
                row.formula_id, {"location": row.location, "latex": "", "slt": ""}
            )
            values[column] = row.text.strip()
    for entry in by_topic.values():
        for values in (entry.formulas or {}).values():
            values["visual_id"] = visual_id_for(latex=values["latex"], slt=values["slt"])
    return by_topic


def _task(
    *, path: str | Path, campaign_name: str, task: str, kind: str | None, create: bool
) -> tuple[RetrievalTask, bool]:
    try:
        return task_for_import(campaign_name=campaign_name, task=task, kind=kind, create=create)
    except TaskNameError as error:
        raise ImportFileError(path, None, str(error)) from None


def _read_topics(path: str | Path, task_kind: str) -> list[TopicRecord]:
    records: list[TopicRecord] = []
    seen: set[str] = set()
    expected = _FORM_OF_KIND[RetrievalTask.Kind(task_kind)]
    for record in parse_topics(path):
        if record.form != expected:
            raise ImportFileError(
                path,
                record.line,
                f"topic {record.number} is in the {record.form}-task form; "
                f"a {task_kind} task takes the {expected}-task form",
            )
        if record.number in seen:
            raise ImportFileError(path, record.line, f"topic {record.number} appears twice")
        seen.add(record.number)
        records.append(record)
    return records


def _wanted_fields(
    record: TopicRecord, known: _TopicFormulas | None, topic: Topic | None
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "title": record.title,
        "question": record.question,
        "tags": record.tags,
        "formula_id": record.formula_id,
        "latex": record.latex,
        "metadata": {**(topic.metadata if topic else {}), **record.metadata},
    }
    if known is not None and known.thread_id is not None:
        fields["thread_id"] = known.thread_id
    return fields


def _formulas_differ(topic: Topic, wanted: dict[str, dict[str, str]]) -> bool:
    have = {
        f.formula_id: {
            "location": f.location,
            "latex": f.latex,
            "slt": f.slt,
            "visual_id": f.visual_id,
        }
        for f in topic.formulas.all()
    }
    return have != wanted


def _save_topic(
    task: RetrievalTask, record: TopicRecord, known: _TopicFormulas | None, topic: Topic | None
) -> str:
    """Create or update one topic and its formulas; says "created", "updated" or "unchanged"."""
    fields = _wanted_fields(record, known, topic)
    wanted = known.formulas if known is not None else None
    if topic is None:
        topic = Topic.objects.create(task=task, number=record.number, **fields)
        outcome = "created"
    else:
        changed = [name for name, value in fields.items() if getattr(topic, name) != value]
        formulas_changed = wanted is not None and _formulas_differ(topic, wanted)
        if not changed and not formulas_changed:
            return "unchanged"
        for name in changed:
            setattr(topic, name, fields[name])
        if changed:
            topic.save(update_fields=changed)
        outcome = "updated"
    if wanted is not None:
        topic.formulas.all().delete()
        TopicFormula.objects.bulk_create(
            TopicFormula(topic=topic, formula_id=formula_id, **values)
            for formula_id, values in wanted.items()
        )
    return outcome


def _link_formula_topics(campaign: Campaign) -> None:
    """Point each formula topic at the answer topic of the same question (same thread)."""
    asked = list(
        Topic.objects.filter(
            task__campaign=campaign, task__kind=RetrievalTask.Kind.ANSWER, thread_id__isnull=False
        )
    )
    # Two answer tasks asking the same question: which one a formula topic derives from is not
    # known, so it is left unlinked rather than linked at random.
    times = Counter(t.thread_id for t in asked)
    answers = {t.thread_id: t for t in asked if times[t.thread_id] == 1}
    if not answers:
        return
    for topic in Topic.objects.filter(
        task__campaign=campaign,
        task__kind=RetrievalTask.Kind.FORMULA,
        source_topic__isnull=True,
        thread_id__in=list(answers),
    ):
        topic.source_topic = answers[topic.thread_id]
        topic.save(update_fields=["source_topic"])


def topics_import(
    *,
    path: str | Path,
    campaign_name: str,
    task: str,
    kind: str | None = None,
    formulas_latex: str | Path | None = None,
    formulas_slt: str | Path | None = None,
    create: bool = True,
    collection_name: str | None = None,
    file_format: TopicFormat = "auto",
) -> TopicsImportReport:
    """Import an ARQMath topic file (Task 1 or Task 2 form) into the campaign's task.

    ``task`` names the task (its name, or the kind of the campaign's only task of that kind);
    with ``kind``, a task of that name is created when missing (services.tasks.task_for_import).
    A ``document`` task takes a TREC topic file, a TSV or a JSONL query file instead
    (``file_format``, default: detected), and ``collection_name`` names the document collection
    it judges (document_topics_import).

    Creates the campaign and task when missing (unless ``create=False``). Idempotent: a topic
    already stored as in the file is left alone; a changed one is updated in place (matched by
    number), never duplicated. With the topic formula TSVs, each topic gets its formulas
    (LaTeX, SLT, visual id) and its thread id. The file is read and checked before anything is
    written, and written in one transaction: a bad file leaves nothing behind.
    """
    try:
        task_kind = task_kind_named(campaign_name=campaign_name, task=task, kind=kind)
    except TaskNameError as error:
        raise ImportFileError(path, None, str(error)) from None
    if task_kind == RetrievalTask.Kind.DOCUMENT:
        if formulas_latex or formulas_slt:
            raise ImportFileError(path, None, "topic formula files belong to ARQMath tasks")
        created, updated, unchanged, found, task_created = document_topics_import(
            path=path,
            campaign_name=campaign_name,
            task=task,
            kind=kind,
            collection_name=collection_name,
            file_format=file_format,
            create=create,
        )
        return TopicsImportReport(created, updated, unchanged, found, task_created)
    if collection_name or file_format != "auto":
        raise ImportFileError(
            path, None, f"a {task_kind} task takes ARQMath topic XML: no collection or format"
        )
    records = _read_topics(path, task_kind)
    known = _read_formula_files(formulas_latex, formulas_slt)
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    with transaction.atomic():
        found, task_created = _task(
            path=path, campaign_name=campaign_name, task=task, kind=kind, create=create
        )
        stored = {
            t.number: t for t in Topic.objects.filter(task=found).prefetch_related("formulas")
        }
        for record in records:
            entry = known.get(_topic_key(record.number))
            counts[_save_topic(found, record, entry, stored.get(record.number))] += 1
        _link_formula_topics(found.campaign)
    return TopicsImportReport(**counts, task=found, task_created=task_created)
