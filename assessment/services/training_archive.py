"""Training rounds from earlier years' topics and official qrels.

ARQMath-3 trained its assessors on ARQMath-1 and -2 topics, whose official qrels say what an
expert judged. Those topics must not enter the live task: its pools, dashboard, qrels and results
are the campaign's. So they go into a *training archive*: a task of the same kind, marked
``training_for`` the live task, in a campaign of its own ("<campaign> (training archive)").
The archive judges the same collection under a copy of the live task's guidelines; its pool
holds only the items the rounds show, taken from the qrels (every grade represented); and each
round's gold is the official grade. The archive takes no runs (pooling.access.team_may_submit)
and publishes nothing.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction

from assessment.core.guidelines import scale_as_json
from assessment.core.training_sample import sample_across_grades
from assessment.models import TrainingRound
from assessment.selectors.guidelines import guidelines_current
from assessment.services.guidelines import guidelines_save
from assessment.services.training import TrainingError, training_round_create
from collection.core.formats.errors import ImportFileError
from collection.core.formats.topics import parse_topics
from collection.core.formats.trec_topics import TopicFormat, parse_query_topics
from collection.core.task_defaults import task_defaults
from collection.models import Campaign, Document, Post, RetrievalTask, Topic
from pooling.core.algorithms import display_orders
from pooling.models import Hit, PoolItem

__all__ = ["ArchiveRound", "ArchiveTopic", "archive_topics_read", "training_archive_round_create"]

Gold = Mapping[tuple[str, str], int]  # (topic number, item key) -> official grade

ARCHIVE_SUFFIX = " (training archive)"


@dataclass(frozen=True)
class ArchiveTopic:
    """An earlier year's topic, as the archive stores it."""

    number: str
    title: str
    question: str = ""
    tags: tuple[str, ...] = ()
    description: str = ""
    narrative: str = ""


@dataclass(frozen=True)
class ArchiveRound:
    """What one call made: the round, its archive, and what the qrels named that is missing."""

    training_round: TrainingRound
    archive: RetrievalTask
    topics: int
    items: int
    missing_items: int  # graded in the qrels but not in the collection: not shown


def archive_topics_read(
    path: str | Path, *, kind: str, file_format: TopicFormat = "auto"
) -> list[ArchiveTopic]:
    """The topics of an earlier year's topic file, read by the same parsers as live topics:
    ARQMath topic XML (Task 1 form) for answer and open-QA tasks, TREC topics, TSV or JSONL for
    document tasks. ImportFileError names the file and line of a problem."""
    if kind == RetrievalTask.Kind.DOCUMENT:
        return [
            ArchiveTopic(
                number=t.number, title=t.title, description=t.description, narrative=t.narrative
            )
            for t in parse_query_topics(path, file_format)
        ]
    if kind not in (RetrievalTask.Kind.ANSWER, RetrievalTask.Kind.OPENQA):
        # A formula item is a visually distinct formula with its instances in posts; earlier
        # years' qrels name visual ids only, so their items cannot be rebuilt from them.
        raise ImportFileError(
            path, None, f"a {kind} task cannot train from an earlier year's qrels"
        )
    topics = []
    for record in parse_topics(path):
        if record.form != "answer":
            raise ImportFileError(
                path, record.line, f"topic {record.number} is not in the Task 1 (answer) form"
            )
        topics.append(
            ArchiveTopic(
                number=record.number,
                title=record.title,
                question=record.question,
                tags=tuple(record.tags),
            )
        )
    return topics


def _archive_of(task: RetrievalTask) -> RetrievalTask:
    """The live task's archive, created with its kind's defaults and the live task's relevance
    level and collection the first time."""
    archive = RetrievalTask.objects.filter(training_for=task).select_related("campaign").first()
    if archive is not None:
        return archive
    campaign, _ = Campaign.objects.get_or_create(name=f"{task.campaign.name}{ARCHIVE_SUFFIX}")
    fields = {**task_defaults(task.kind).as_fields(), "relevance_level": task.relevance_level}
    return RetrievalTask.objects.create(
        campaign=campaign,
        name=task.name,  # one archive campaign serves every task of the live campaign
        kind=task.kind,
        collection=task.collection,
        title=f"{task.title or task.get_kind_display()}: training archive",
        training_for=task,
        **fields,
    )


def _copy_guidelines(task: RetrievalTask, archive: RetrievalTask, by: User | None) -> None:
    """Assessors train under the guidelines they will judge by: the live task's in force."""
    live = guidelines_current(task=task)
    if live.is_default:
        return  # the archive has the same kind, so the same built-in defaults
    guidelines_save(
        task=archive,
        instructions=live.guidelines.instructions,
        scale=scale_as_json(live.scale),
        relevance_level=live.relevance_level,
        note=f"copied from {task} (version {live.version})",
        created_by=by,
    )


def _store_topics(archive: RetrievalTask, topics: Sequence[ArchiveTopic]) -> list[Topic]:
    """Create the archive's topics, or update them in place (matched by number)."""
    stored = {t.number: t for t in Topic.objects.filter(task=archive)}
    result = []
    for topic in topics:
        fields = {
            "title": topic.title,
            "question": topic.question,
            "tags": list(topic.tags),
            "description": topic.description,
            "narrative": topic.narrative,
        }
        have = stored.get(topic.number)
        if have is None:
            have = Topic.objects.create(task=archive, number=topic.number, **fields)
        elif any(getattr(have, name) != value for name, value in fields.items()):
            for name, value in fields.items():
                setattr(have, name, value)
            have.save(update_fields=list(fields))
        result.append(have)
    return result


def _existing_keys(task: RetrievalTask, keys: Iterable[str]) -> dict[str, int | None]:
    """Item key -> document id (None for a post) for the keys the task's collection holds."""
    wanted = set(keys)
    if task.kind == RetrievalTask.Kind.DOCUMENT:
        rows = Document.objects.filter(collection_id=task.collection_id, docno__in=wanted)
        return dict(rows.values_list("docno", "pk"))
    ids = [int(key) for key in wanted if key.isdigit()]
    answers = Post.objects.filter(kind=Post.Kind.ANSWER, pk__in=ids).values_list("pk", flat=True)
    return {str(pk): None for pk in answers}


def _round_items(
    archive: RetrievalTask,
    topics: Sequence[Topic],
    gold: Gold,
    items_per_topic: int,
    rng: random.Random,
) -> tuple[list[PoolItem], int]:
    """Per topic, up to ``items_per_topic`` of its graded items (every grade in turn), as pool
    items of the archive (made when missing). Returns the items and how many graded items the
    collection lacks."""
    graded: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for (number, key), grade in sorted(gold.items()):
        graded[number].append((key, grade))
    present = _existing_keys(archive, (key for (_, key) in gold))
    missing = sum(1 for t in topics for key, _ in graded[t.number] if key not in present)
    chosen: list[PoolItem] = []
    for topic in topics:
        candidates = [(key, grade) for key, grade in graded[topic.number] if key in present]
        picked = sample_across_grades(candidates, items_per_topic, rng)
        stored = {i.key: i for i in PoolItem.objects.filter(topic=topic)}
        orders = display_orders(
            {key: item.display_order for key, item in stored.items()}, picked, rng
        )
        for key in picked:
            item = stored.get(key)
            if item is None:
                item = _new_item(archive, topic, key, present[key], orders[key])
            chosen.append(item)
    return chosen, missing


def _new_item(
    archive: RetrievalTask, topic: Topic, key: str, document_id: int | None, order: int
) -> PoolItem:
    if archive.kind == RetrievalTask.Kind.DOCUMENT:
        item = PoolItem.objects.create(
            topic=topic, key=key, document_id=document_id, display_order=order
        )
        Hit.objects.create(item=item, document_id=document_id)
    else:
        item = PoolItem.objects.create(topic=topic, key=key, post_id=int(key), display_order=order)
        Hit.objects.create(item=item, post_id=int(key))
    return item


@transaction.atomic
def training_archive_round_create(
    *,
    task: RetrievalTask,
    name: str,
    topics: Sequence[ArchiveTopic],
    gold: Gold,
    assessors: Sequence[User],
    created_by: User | None,
    topic_numbers: Sequence[str] = (),
    items_per_topic: int = 5,
    seed: int | None = None,
    show_gold_after_submit: bool = False,
) -> ArchiveRound:
    """A training round for ``task``'s assessors on earlier years' topics, gold from their
    official qrels (``gold``, read by ``training.gold_qrels_parse`` on the task's scale).

    The round's topics are ``topic_numbers`` (default: every topic of the file the qrels
    grade). Items graded in the qrels but absent from the collection are counted, not shown.
    Nothing is stored when anything is wrong (TrainingError lists every problem)."""
    if task.training_for_id is not None:
        raise TrainingError([f"{task} is a training archive itself: name the live task"])
    by_number = {t.number: t for t in topics}
    graded_topics = {number for number, _ in gold}
    problems = [f"topic {n} is not in the topic file" for n in topic_numbers if n not in by_number]
    problems += [
        f"topic {n} has no grade in the qrels" for n in topic_numbers if n not in graded_topics
    ]
    wanted = list(topic_numbers) or [t.number for t in topics if t.number in graded_topics]
    if not wanted and not problems:
        problems.append("no topic of the topic file is graded in the qrels")
    if problems:
        raise TrainingError(problems[:20])
    archive = _archive_of(task)
    _copy_guidelines(task, archive, created_by)
    stored = _store_topics(archive, [by_number[n] for n in wanted])
    rng = random.Random(task.pool_seed if seed is None else seed)  # noqa: S311 (seeded sample)
    items, missing = _round_items(archive, stored, gold, items_per_topic, rng)
    if not items:
        raise TrainingError(
            ["none of the graded items is in the collection: import the collection first"]
        )
    shown = {item.topic_id for item in items}
    training_round = training_round_create(
        task=archive,
        name=name,
        topics=[topic for topic in stored if topic.pk in shown],
        assessors=assessors,
        created_by=created_by,
        gold_source=TrainingRound.GoldSource.QRELS,
        qrels=gold,
        items=items,
        show_gold_after_submit=show_gold_after_submit,
    )
    return ArchiveRound(training_round, archive, len(shown), len(items), missing)
