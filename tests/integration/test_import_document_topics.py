"""import_topics --task document: TREC topics, TSV and JSONL into a document task."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collection.models import Campaign, RetrievalTask, Topic
from tests.factories.collection import DocumentCollectionFactory, RetrievalTaskFactory

pytestmark = pytest.mark.django_db

TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime
<desc> Description:
Identify organizations that participate in international criminal activity.
<narr> Narrative:
A relevant document must identify the organization.
</top>
<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio
<desc> Description:
Is polio under control in the world?
<narr> Narrative:
Relevant documents contain data on outbreaks.
<smry> Summary: polio today
</top>
"""


def run_import(path: Path, *extra: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("import_topics", str(path), "--campaign", "News-2026", *extra, stdout=out)
    return out.getvalue()


def stored() -> dict[str, tuple[str, str, str, dict]]:
    return {
        t.number: (t.title, t.description, t.narrative, t.metadata)
        for t in Topic.objects.filter(task__campaign__name="News-2026", task__kind="document")
    }


def test_trec_topics_create_the_document_task_bound_to_the_collection(tmp_path: Path) -> None:
    news = DocumentCollectionFactory.create(name="news")
    path = tmp_path / "topics.301-302"
    path.write_text(TOPICS)
    output = run_import(path, "--task", "document", "--collection", "news")
    assert "2 topics created, 0 updated, 0 unchanged" in output
    task = RetrievalTask.objects.get(campaign__name="News-2026", kind="document")
    assert task.collection == news
    assert stored() == {
        "301": (
            "International Organized Crime",
            "Identify organizations that participate in international criminal activity.",
            "A relevant document must identify the organization.",
            {},
        ),
        "302": (
            "Poliomyelitis and Post-Polio",
            "Is polio under control in the world?",
            "Relevant documents contain data on outbreaks.",
            {"smry": "polio today"},
        ),
    }


def test_reimport_changes_nothing_and_a_changed_topic_is_updated_in_place(tmp_path) -> None:
    DocumentCollectionFactory.create(name="news")
    path = tmp_path / "topics.txt"
    path.write_text(TOPICS)
    run_import(path, "--task", "document", "--collection", "news")
    ids = dict(Topic.objects.values_list("number", "id"))
    before = stored()
    assert "0 topics created, 0 updated, 2 unchanged" in run_import(
        path, "--task", "document", "--collection", "news", "--format", "trec"
    )
    assert stored() == before
    path.write_text(TOPICS.replace("identify the organization", "name the cartel"))
    assert "0 topics created, 1 updated, 1 unchanged" in run_import(
        path, "--task", "document", "--collection", "news"
    )
    assert stored()["301"][2] == "A relevant document must name the cartel."
    assert dict(Topic.objects.values_list("number", "id")) == ids


@pytest.mark.parametrize("form", ["tsv", "jsonl"])
def test_tsv_and_jsonl_queries_import_gzipped_with_numbers_as_strings(tmp_path, form) -> None:
    DocumentCollectionFactory.create(name="msmarco")
    if form == "tsv":
        text = "0042\twhat is a docno\n1037798\twho is robert gray\n"
    else:
        rows = [
            {"_id": "0042", "text": "what is a docno"},
            {"qid": 1037798, "query": "who is robert gray"},
        ]
        text = "".join(json.dumps(row) + "\n" for row in rows)
    path = tmp_path / f"queries.{form}.gz"
    path.write_bytes(gzip.compress(text.encode()))
    run_import(path, "--task", "document", "--collection", "msmarco", "--format", form)
    assert {n: v[0] for n, v in stored().items()} == {
        "0042": "what is a docno",
        "1037798": "who is robert gray",
    }


def test_a_missing_collection_is_a_clear_error_and_nothing_is_created(tmp_path) -> None:
    path = tmp_path / "topics.txt"
    path.write_text(TOPICS)
    with pytest.raises(
        CommandError, match=r"no document collection named 'nope'.*import_documents"
    ):
        run_import(path, "--task", "document", "--collection", "nope")
    with pytest.raises(CommandError, match="--collection"):
        run_import(path, "--task", "document")
    assert not Campaign.objects.filter(name="News-2026").exists()
    assert not Topic.objects.exists()


def test_a_task_bound_to_another_collection_is_refused(tmp_path) -> None:
    path = tmp_path / "topics.txt"
    path.write_text(TOPICS)
    DocumentCollectionFactory.create(name="news")
    RetrievalTaskFactory.create(
        campaign__name="News-2026",
        kind="document",
        collection=DocumentCollectionFactory(name="web"),
    )
    with pytest.raises(CommandError, match="judges collection 'web', not 'news'"):
        run_import(path, "--task", "document", "--collection", "news")
    assert not Topic.objects.exists()


def test_a_bad_file_stores_nothing_and_names_file_line_and_field(tmp_path) -> None:
    DocumentCollectionFactory.create(name="news")
    path = tmp_path / "topics.txt"
    path.write_text(TOPICS + "<top>\n<num> Number: 301\n<title> again\n</top>\n")
    with pytest.raises(
        CommandError, match=r"topics.txt line 18: topic 301 appears twice \(first on line 1\)"
    ):
        run_import(path, "--task", "document", "--collection", "news")
    assert not Topic.objects.exists()
    assert not RetrievalTask.objects.filter(kind="document").exists()


def test_arqmath_tasks_refuse_a_collection_or_a_document_format(tmp_path) -> None:
    path = tmp_path / "topics.xml"
    path.write_text(
        '<Topics><Topic number="A.1"><Title>t</Title><Question>q</Question></Topic></Topics>'
    )
    with pytest.raises(CommandError, match="ARQMath topic XML"):
        run_import(path, "--task", "answer", "--format", "tsv")
    with pytest.raises(CommandError, match="ARQMath topic XML"):
        run_import(path, "--task", "answer", "--collection", "news")
    assert "1 topics created" in run_import(path, "--task", "answer")


def test_a_new_document_task_starts_trec_style_and_says_so(tmp_path: Path) -> None:
    """TREC keeps every topic, counts grade 1 (Relevant) as relevant and pools runs to depth
    100; an ARQMath task keeps ARQMath-3's rules. The organizer is told what was chosen."""
    DocumentCollectionFactory.create(name="news")
    path = tmp_path / "topics.301-302"
    path.write_text(TOPICS)
    output = run_import(path, "--task", "document", "--collection", "news")
    task = RetrievalTask.objects.get(campaign__name="News-2026", kind="document")
    assert (task.min_relevant, task.relevance_level) == (0, 1)
    assert (task.primary_depth, task.alternate_depth) == (100, 0)
    assert "Created the document task of News-2026 with its kind's defaults" in output
    assert "qrels keep every judged topic" in output
    assert "primary runs to depth 100, alternates not pooled" in output
    again = run_import(path, "--task", "document", "--collection", "news")
    assert "Created the" not in again  # an existing task keeps the organizer's settings
