"""What the database knows about a task and its collection, as a RunContext for the parser.

Each lookup is one query for all the ids a file names (PostgreSQL ``= ANY(array)``), never one
query per row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar

from django.db import connection

from collection.models import Document, Formula, Post, RetrievalTask, Topic
from collection.selectors import answer_task_of
from pooling.core.formats import RunContext
from pooling.core.formats.model import DocnoLookup

_Id = TypeVar("_Id", int, str)
_CHUNK = 20_000  # SQLite's host-parameter limit is far below a run's 100,000 ids


def task_topic_ids(task: RetrievalTask) -> dict[str, int]:
    """Topic number -> topic pk of the topics a run of ``task`` may name.

    An open-QA task without topics of its own answers its answer task's topics (ARQMath-3
    Task 3 used Task 1's topics, A.301-A.400)."""
    topics = dict(Topic.objects.filter(task=task).values_list("number", "id"))
    answers = answer_task_of(task) if not topics else None
    if answers is not None:
        topics = dict(Topic.objects.filter(task=answers).values_list("number", "id"))
    return topics


def _chunks(ids: set[_Id]) -> Iterator[list[_Id]]:
    id_list = sorted(ids)
    for start in range(0, len(id_list), _CHUNK):
        yield id_list[start : start + _CHUNK]


def _postgres_rows(sql: str, ids: set[int]) -> list[tuple[int, ...]]:
    # One array literal as text ('{1,2,3}'::bigint[]): psycopg2 would send a list as
    # ARRAY[1,2,3], an expression of 100,000 constants that costs PostgreSQL 3x more to plan.
    with connection.cursor() as cursor:
        cursor.execute(sql, ["{" + repr(list(ids))[1:-1] + "}"])  # '{1, 2, 3}'; ints only
        return list(cursor.fetchall())


def collection_docnos(collection_id: int) -> DocnoLookup:
    """The lookup "which of these docnos are documents of the collection", a query per
    20,000 docnos (the (collection, docno) unique index answers each)."""
    table = Document._meta.db_table
    where = f"FROM {table} WHERE collection_id = %s AND docno = ANY(%s)"

    def known(docnos: set[str]) -> set[str]:
        found: set[str] = set()
        for chunk in _chunks(docnos):
            if connection.vendor != "postgresql":
                in_collection = Document.objects.filter(collection_id=collection_id)
                found.update(in_collection.filter(docno__in=chunk).values_list("docno", flat=True))
                continue
            with connection.cursor() as cursor:
                # The usual case is a valid file: count first, fetch only when some are missing.
                cursor.execute(f"SELECT count(*) {where}", [collection_id, chunk])
                if cursor.fetchone()[0] == len(chunk):
                    found.update(chunk)
                    continue
                cursor.execute(f"SELECT docno {where}", [collection_id, chunk])
                found.update(row[0] for row in cursor.fetchall())
        return found

    return known


def answer_posts(ids: set[int]) -> set[int]:
    """The subset of ``ids`` that are answer posts of the collection."""
    if connection.vendor == "postgresql":
        table = Post._meta.db_table
        where = f"FROM {table} WHERE kind = {int(Post.Kind.ANSWER)} AND id = ANY(%s::bigint[])"
        # The usual case is a valid file: count first, fetch the ids only when some are not.
        if _postgres_rows(f"SELECT count(*) {where}", ids)[0][0] == len(ids):
            return ids
        return {row[0] for row in _postgres_rows(f"SELECT id {where}", ids)}
    found: set[int] = set()
    for chunk in _chunks(ids):
        answers = Post.objects.filter(kind=Post.Kind.ANSWER, id__in=chunk)
        found.update(answers.values_list("id", flat=True))
    return found


def formula_posts(ids: set[int]) -> Mapping[int, int]:
    """Formula id -> post id, for the ids the collection's formula index knows."""
    if connection.vendor == "postgresql":
        table = Formula._meta.db_table
        sql = f"SELECT formula_id, post_id FROM {table} WHERE formula_id = ANY(%s::bigint[])"  # noqa: S608
        return {row[0]: row[1] for row in _postgres_rows(sql, ids)}
    found: dict[int, int] = {}
    for chunk in _chunks(ids):
        pairs = Formula.objects.filter(formula_id__in=chunk).values_list("formula_id", "post_id")
        found.update(pairs)
    return found


def run_context(task: RetrievalTask, topic_ids: Mapping[str, int]) -> tuple[RunContext, list[str]]:
    """The parser's context for ``task`` and notes on checks skipped.

    Decision: the "post is an answer" and "formula is in the post" checks need a
    collection. When none is loaded (no answer posts, resp. no formula instances), they are
    skipped with a warning note rather than refusing every run: organizers often accept runs
    before the 28 M-formula index is imported, and ARQMath's published runs (e.g. the 2020
    "prime" runs) name posts of the full collection that a test deployment does not hold."""
    notes: list[str] = []
    answers = None
    formulas = None
    if task.kind in (RetrievalTask.Kind.ANSWER, RetrievalTask.Kind.FORMULA):
        if task.kind == RetrievalTask.Kind.ANSWER:
            if Post.objects.filter(kind=Post.Kind.ANSWER).exists():
                answers = answer_posts
            else:
                notes.append("the collection has no answer posts yet: post ids were not checked")
        elif Formula.objects.exists():
            formulas = formula_posts
        else:
            notes.append("the collection has no formula index yet: formula ids were not checked")
    if task.kind == RetrievalTask.Kind.DOCUMENT and task.collection_id is not None:
        # Unlike Math SE posts, always checked: a document pool needs the documents.
        collection = task.collection.name if task.collection else ""
        context = RunContext(
            task_kind=task.kind,
            topics=frozenset(topic_ids),
            document_docnos=collection_docnos(task.collection_id),
            collection=collection,
        )
        return context, notes
    context = RunContext(
        task_kind=task.kind,
        topics=frozenset(topic_ids),
        answer_posts=answers,
        formula_posts=formulas,
    )
    return context, notes
