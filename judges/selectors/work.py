"""What a judge run asks about: the task's pool hits (and its probes), each with the topic's
fields and the item's text, in a bounded number of queries.

The id a hit goes by is the one the task's qrels use (assessment.selectors.machine_judges:
the answer post id, the formula instance id, the docno), so a judge's grades, its cache and
an exported qrels file name items alike. Open-QA answers are not judged by machine judges.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from collection.core.post_html import plain_text
from collection.models import Formula, Post, RetrievalTask, Topic
from judges.core.prompts import PromptItem
from judges.models import ProbeItem
from kernel.core.ordering import natural_key
from pooling.core.algorithms.openqa import ANSWER_KEY_PREFIX
from pooling.models import Hit

__all__ = ["DEFAULT_SAMPLE_SEED", "WorkItem", "judge_work", "sample_rank"]

TEXT_MAX_CHARS = 20_000
DEFAULT_SAMPLE_SEED = 0


@dataclass(frozen=True)
class WorkItem:
    topic_id: int
    key: str
    hit_id: int | None
    probe_id: int | None
    prompt: PromptItem


def _topic_fields(topic: Topic) -> tuple[str, str, str, str]:
    description = topic.description or plain_text(topic.question or "")
    return topic.number, plain_text(topic.title), description, topic.narrative


def _prompt_item(topic: Topic, key: str, text: str) -> PromptItem:
    number, title, description, narrative = _topic_fields(topic)
    return PromptItem(number, title, description, narrative, key, text[:TEXT_MAX_CHARS])


def sample_rank(seed: int, topic: str, key: str) -> bytes:
    """Where a pool item falls in the seeded sample: a digest of the seed, the topic and the
    item's qrels id. A hash rather than a random generator's stream, so an item's place does
    not depend on which other items the pool holds: the same seed draws the same items when
    the run is resumed, and a larger limit with that seed draws a superset (the answers
    already cached are reused)."""
    return hashlib.sha256(f"{seed}\t{topic}\t{key}".encode()).digest()


def judge_work(
    task: RetrievalTask, *, limit: int | None = None, sample_seed: int = DEFAULT_SAMPLE_SEED
) -> list[WorkItem]:
    """The hits of ``task``'s pools in topic order then display order (with ``limit``, a
    random sample of that many of them, seeded by ``sample_seed``: the first pool items
    would all be of the first topics), then every probe of its topics."""
    topics = {t.pk: t for t in Topic.objects.filter(task=task)}
    order = {pk: natural_key(t.number) for pk, t in topics.items()}
    hits = Hit.objects.filter(item__topic__task=task).values_list(
        "pk",
        "item__topic_id",
        "item__display_order",
        "position",
        "item__key",
        "post_id",
        "formula_id",
        "document_id",
    )
    if task.kind == RetrievalTask.Kind.FORMULA:
        hits = hits.filter(formula_id__isnull=False)
    elif task.kind == RetrievalTask.Kind.DOCUMENT:
        hits = hits.filter(document__isnull=False)
    else:
        hits = hits.filter(formula_id__isnull=True).exclude(item__key__startswith=ANSWER_KEY_PREFIX)
    rows = sorted(hits, key=lambda r: (order[r[1]], r[2], r[3]))
    if limit is not None and limit < len(rows):
        chosen = sorted(
            rows, key=lambda r: (sample_rank(sample_seed, topics[r[1]].number, r[4]), r[0])
        )
        kept = {r[0] for r in chosen[:limit]}
        rows = [r for r in rows if r[0] in kept]
    texts = _texts(task, rows)
    work = [
        WorkItem(topic_id, key, hit_id, None, _prompt_item(topics[topic_id], key, text))
        for hit_id, topic_id, key, text in texts
    ]
    probes = ProbeItem.objects.filter(topic__task=task).order_by("topic_id", "pk")
    for probe in probes:
        topic = topics[probe.topic_id]
        work.append(
            WorkItem(
                topic.pk, probe.key, None, probe.pk, _prompt_item(topic, probe.key, probe.text)
            )
        )
    return work


def _texts(task: RetrievalTask, rows: list[tuple]) -> list[tuple[int, int, str, str]]:
    """(hit id, topic id, qrels id, text) for each row."""
    if task.kind == RetrievalTask.Kind.DOCUMENT:
        from collection.models import Document

        docs = {
            d["pk"]: d
            for d in Document.objects.filter(pk__in={r[7] for r in rows}).values(
                "pk", "docno", "title", "body", "body_format"
            )
        }
        found = []
        for r in rows:
            doc = docs[r[7]]
            body = doc["body"] if doc["body_format"] == "text" else plain_text(doc["body"])
            text = (doc["title"].strip() + "\n\n" + body.strip()).strip()
            found.append((r[0], r[1], doc["docno"], text))
        return found
    if task.kind == RetrievalTask.Kind.FORMULA:
        formulas = {
            f["pk"]: f
            for f in Formula.objects.filter(pk__in={r[6] for r in rows}).values(
                "pk", "latex", "post__body", "thread__title"
            )
        }
        found = []
        for r in rows:
            formula: Any = formulas.get(r[6], {})
            text = (
                f"Formula: ${formula.get('latex', '')}$\n\nIn the post (thread "
                f'"{plain_text(formula.get("thread__title") or "")}"):\n'
                + plain_text(formula.get("post__body") or "")
            )
            found.append((r[0], r[1], str(r[6]), text))
        return found
    posts = {
        p["pk"]: p
        for p in Post.objects.filter(pk__in={r[5] for r in rows if r[5] is not None}).values(
            "pk", "body", "thread__title"
        )
    }
    found = []
    for r in rows:
        post = posts.get(r[5]) if r[5] is not None else None
        text = plain_text(post["body"]) if post else ""
        found.append((r[0], r[1], r[4], text))
    return found
