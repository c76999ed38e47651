"""A task created by import_topics starts with its kind's settings, and the command says them."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from collection.models import RetrievalTask
from tests.factories.collection import DocumentCollectionFactory

pytestmark = pytest.mark.django_db

ANSWER_TOPICS = (
    '<?xml version="1.0" ?>\n<Topics>\n<Topic number="A.7"><Title>T</Title>'
    "<Question>Q</Question><Tags>algebra</Tags></Topic>\n</Topics>\n"
)
TREC_TOPICS = "<top>\n<num> Number: 301\n<title> Crime\n<desc> Description:\nD\n</top>\n"


def imported(path: Path, *extra: str) -> tuple[RetrievalTask, str]:
    out = StringIO()
    call_command("import_topics", str(path), "--campaign", "C", *extra, stdout=out)
    kind = extra[extra.index("--task") + 1]
    return RetrievalTask.objects.get(campaign__name="C", kind=kind), out.getvalue()


def settings(task: RetrievalTask) -> tuple[int, int, int, int]:
    return task.min_relevant, task.relevance_level, task.primary_depth, task.alternate_depth


def test_document_task_keeps_every_topic_counts_grade_1_and_pools_deeper(tmp_path: Path) -> None:
    DocumentCollectionFactory.create(name="news")
    path = tmp_path / "topics.301"
    path.write_text(TREC_TOPICS)
    task, output = imported(path, "--task", "document", "--collection", "news")
    assert settings(task) == (0, 1, 100, 0)
    assert (
        "Created the document task of C with its kind's defaults: pools: primary runs to depth "
        "100, alternates not pooled; grade ≥ 1 is relevant; qrels keep every judged topic"
    ) in output


def test_answer_task_keeps_arqmath_rules_and_openqa_drops_no_topic(tmp_path: Path) -> None:
    path = tmp_path / "topics.xml"
    path.write_text(ANSWER_TOPICS)
    answer, output = imported(path, "--task", "answer")
    assert settings(answer) == (2, 2, 45, 20)
    assert "qrels drop topics with fewer than 2 relevant items" in output
    openqa, _ = imported(path, "--task", "openqa")
    assert settings(openqa) == (0, 2, 45, 20)
