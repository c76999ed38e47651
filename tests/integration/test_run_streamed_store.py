"""A run upload stores its rows while the file is read (binary COPY, block by block): what is
stored is exactly the file, and a file with an error stores nothing even when rows before the
error were already sent."""

from __future__ import annotations

import io
import random

import pytest
from django.db import connection, transaction

from collection.models import RetrievalTask
from pooling.core.formats.lines import CHUNK_BYTES
from pooling.core.formats.model import RunColumns
from pooling.models import Run, RunRow
from pooling.services import runs_binary
from pooling.services.runs import RunValidationError, run_submit
from tests.factories.collection import PostFactory, RetrievalTaskFactory, TopicFactory
from tests.factories.pooling import RunFactory, TeamFactory

pytestmark = pytest.mark.django_db


def _answer_task(topics: int) -> RetrievalTask:
    task = RetrievalTaskFactory.create(kind="answer")
    for t in range(1, topics + 1):
        TopicFactory.create(task=task, number=f"A.{t}")
    return task


def _trec_lines(topics: int, rows: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for t in range(1, topics + 1):
        for rank, doc in enumerate(rng.sample(range(1, 10**9), rows), 1):
            lines.append(f"A.{t}\tQ0\t{doc}\t{rank}\t{rng.uniform(-50, 50):.{rank % 17}g}\tt\n")
    return lines


def _submit(task: RetrievalTask, text: str) -> Run:
    return run_submit(
        task=task,
        team=TeamFactory.create(),
        tag="t",
        role="primary",
        stream=io.BytesIO(text.encode()),
        file_name="run.tsv",
        uploaded_by=None,
    ).run


def test_stored_rows_are_the_file_when_it_streams_in_many_blocks() -> None:
    task = _answer_task(8)
    lines = _trec_lines(8, 1000, seed=14)
    text = "".join(lines)
    assert len(text) > 3 * CHUNK_BYTES  # several COPY blocks
    run = _submit(task, text)
    expected = [
        (f[0], int(f[2]), None, int(f[3]), float(f[4]), "", "")
        for f in (line.split() for line in lines)
    ]
    stored = RunRow.objects.filter(run=run).order_by("topic__number", "rank")
    assert run.row_count == len(expected)
    assert [
        (r.topic.number, r.post_id, r.formula_id, r.rank, r.score, r.answer, r.sources)
        for r in stored
    ] == sorted(expected, key=lambda row: (row[0], row[3]))


def test_nothing_is_stored_when_an_error_follows_rows_already_sent() -> None:
    task = _answer_task(8)
    lines = _trec_lines(8, 1000, seed=15)
    lines[6000] = lines[6000].replace("\tQ0\t", "\tQ0\tx")  # a bad id far past the first block
    with pytest.raises(RunValidationError) as refused:
        _submit(task, "".join(lines))
    assert [e["line"] for e in refused.value.report["errors"]] == [6001]
    assert not Run.objects.exists()
    assert not RunRow.objects.exists()


def test_nothing_is_stored_when_collection_check_fails_after_the_copy() -> None:
    task = _answer_task(1)
    post = PostFactory.create(id=11)  # an answer: the collection check runs
    PostFactory.create(id=12, kind=1, thread=post.thread)  # a question
    text = "A.1\tQ0\t11\t1\t2.5\tt\nA.1\tQ0\t12\t2\t1.5\tt\n"
    with pytest.raises(RunValidationError) as refused:
        _submit(task, text)
    assert [(e["line"], e["field"]) for e in refused.value.report["errors"]] == [(2, "post_id")]
    assert not RunRow.objects.exists()


def test_binary_rows_store_nulls_and_values_exactly_when_a_block_mixes_them() -> None:
    run = RunFactory.create()
    topic = TopicFactory.create(task=run.task, number="B.1")
    columns = RunColumns(
        topic=["B.1"] * 4,
        post_id=[5, None, 2**62, None],
        formula_id=[None, 7, 8, None],
        rank=[1, 2, 3, 1000],
        score=[0.1, -1e-300, 1.7976931348623157e308, 5e-324],
        line=[1, 2, 3, 4],
    )
    data = runs_binary.HEADER
    data += runs_binary.binary_rows(run.pk, columns, {"B.1": topic.pk}, 0, 2)
    data += runs_binary.binary_rows(run.pk, columns, {"B.1": topic.pk}, 2, 4)
    data += runs_binary.TRAILER
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.cursor.copy_expert(runs_binary.copy_sql(), io.BytesIO(data))
    stored = RunRow.objects.filter(run=run).order_by("rank")
    assert [(r.topic_id, r.post_id, r.formula_id, r.rank, r.score, r.answer) for r in stored] == [
        (topic.pk, p, f, rank, score, "")
        for p, f, rank, score in zip(
            columns.post_id, columns.formula_id, columns.rank, columns.score, strict=True
        )
    ]
