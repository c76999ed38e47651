"""Training rounds from earlier years' topics and official qrels, kept out of the live task."""

from __future__ import annotations

from collections import defaultdict
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment, GoldGrade, TrainingRound
from assessment.services.judging import judgment_submit
from assessment.services.training import training_round_submit
from collection.models import Post, RetrievalTask, Topic
from pooling.access import tasks_open_to, team_may_submit
from pooling.models import Hit, PoolItem
from tests.factories import (
    DocumentFactory,
    RetrievalTaskFactory,
    TeamFactory,
    ThreadFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

TOPICS = ("A.1", "A.10")
ABSENT_PER_TOPIC = 7  # answers of each topic left out of the collection


def official_grades(path: Path) -> dict[tuple[str, str], int]:
    """The qrels file read with a plain split, independently of qrelsmith's reader."""
    grades = {}
    for line in path.read_text().splitlines():
        topic, _, doc, grade = line.split()
        grades[(topic, doc)] = int(grade)
    return grades


def run_command(*args: str) -> str:
    out = StringIO()
    call_command("training_from_archive", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_round_on_arqmath1_topics_has_official_gold_and_leaves_the_live_task_alone(
    arqmath_data: Path,
) -> None:
    live = RetrievalTaskFactory.create(campaign__name="ARQMath-3", kind="answer")
    TopicFactory.create(task=live, number="A.301")
    qrels = arqmath_data / "qrels" / "2020" / "task1-qrels.tsv"
    grades = official_grades(qrels)
    by_topic: dict[str, list[str]] = defaultdict(list)
    for (topic, doc), _ in grades.items():
        by_topic[topic].append(doc)
    thread = ThreadFactory.create()
    absent = {doc for topic in TOPICS for doc in sorted(by_topic[topic])[:ABSENT_PER_TOPIC]}
    present = {doc for topic in TOPICS for doc in by_topic[topic]} - absent
    Post.objects.bulk_create(
        Post(id=int(doc), thread=thread, kind=Post.Kind.ANSWER, body=f"<p>answer {doc}</p>")
        for doc in sorted(present)
    )
    for name in ("alice", "bob"):
        UserFactory.create(username=name)

    printed = run_command(
        "--campaign", "ARQMath-3", "--task", "task1",
        "--topics", str(arqmath_data / "topics" / "2020" / "task1-topics.xml"),
        "--qrels", str(qrels), "--round", "ARQMath-1 warm-up",
        "--assessor", "alice", "--assessor", "bob",
        "--topic", TOPICS[0], "--topic", TOPICS[1], "--items-per-topic", "6", "--seed", "3",
    )  # fmt: skip

    archive = RetrievalTask.objects.get(training_for=live)
    assert archive.campaign.name == "ARQMath-3 (training archive)"
    assert archive.kind == "answer"
    assert f"{len(absent)} graded items of those topics are not in the collection" in printed
    # The live task is untouched: its one topic, no pool.
    assert list(Topic.objects.filter(task=live).values_list("number", flat=True)) == ["A.301"]
    assert not PoolItem.objects.filter(topic__task=live).exists()
    training_round = TrainingRound.objects.get(task=archive)
    items = list(training_round.items.select_related("topic"))
    assert sorted({i.topic.number for i in items}) == sorted(TOPICS)
    for topic in TOPICS:
        shown = [i for i in items if i.topic.number == topic]
        assert len(shown) == 6
        assert all(i.key in present for i in shown)
        # Grades are taken in turn, so the round shows as many grades as it can.
        grades_here = {grades[(topic, i.key)] for i in shown}
        available = {g for (t, d), g in grades.items() if t == topic and d in present}
        assert len(grades_here) == min(6, len(available))
    gold = GoldGrade.objects.filter(training_round=training_round).select_related(
        "hit__item__topic"
    )
    assert gold.count() == 12
    for row in gold:
        assert row.grade == grades[(row.hit.item.topic.number, row.hit.item.key)]
    assignments = Assignment.objects.filter(training_round=training_round)
    assert sorted(assignments.values_list("assessor__username", flat=True)) == [
        "alice", "alice", "bob", "bob",
    ]  # fmt: skip

    # An assessor judges the round as any round, and hands it in.
    alice_assignments = assignments.filter(assessor__username="alice")
    for assignment in alice_assignments:
        for hit in Hit.objects.filter(
            item__in=training_round.items.all(), item__topic=assignment.topic
        ):
            judgment_submit(assignment=assignment, hit=hit, assessor=assignment.assessor, grade=1)
    assert training_round_submit(training_round=training_round, assessor=assignment.assessor) == 2

    # A second round on the same topics reuses the archive's items; it never duplicates them.
    run_command(
        "--campaign", "ARQMath-3", "--task", "answer",
        "--topics", str(arqmath_data / "topics" / "2020" / "task1-topics.xml"),
        "--qrels", str(qrels), "--round", "second", "--assessor", "bob",
        "--topic", TOPICS[0], "--items-per-topic", "10",
    )  # fmt: skip
    assert RetrievalTask.objects.filter(training_for=live).count() == 1
    keys = list(PoolItem.objects.filter(topic__task=archive).values_list("topic_id", "key"))
    assert len(keys) == len(set(keys))
    assert PoolItem.objects.filter(topic__task=archive, topic__number=TOPICS[0]).count() >= 10


def test_an_archive_takes_no_runs() -> None:
    live = RetrievalTaskFactory.create(campaign__name="Live", kind="answer")
    archive = RetrievalTaskFactory.create(
        campaign__name="Live (training archive)", kind="answer", training_for=live
    )
    team = TeamFactory.create()
    member = UserFactory.create(username="carol")
    team.members.add(member)
    assert not team_may_submit(team, archive)
    assert team_may_submit(team, live)
    assert archive not in tasks_open_to(member)
    assert archive not in tasks_open_to(UserFactory.create(username="boss", is_staff=True))


def test_a_document_round_reads_trec_topics_and_names_what_is_wrong(tmp_path: Path) -> None:
    documents = DocumentFactory.create_batch(4)
    collection = documents[0].collection
    for document in documents[1:]:
        document.collection = collection
        document.save()
    live = RetrievalTaskFactory.create(
        campaign__name="Robust", kind="document", collection=collection
    )
    UserFactory.create(username="alice")
    topics = tmp_path / "topics.txt"
    topics.write_text(
        "<top>\n<num> Number: 301\n<title> International Organized Crime\n"
        "<desc> Description:\nIdentify organizations.\n<narr> Narrative:\nA relevant one names"
        " a group.\n</top>\n"
    )
    qrels = tmp_path / "qrels.txt"
    docnos = [d.docno for d in documents]
    qrels.write_text(
        f"301 0 {docnos[0]} 1\n301 0 {docnos[1]} 0\n301 0 {docnos[2]} 2\n301 0 GONE-1 1\n"
    )
    common = ["--campaign", "Robust", "--task", "document", "--topics", str(topics)]
    printed = run_command(*common, "--qrels", str(qrels), "--round", "r1", "--assessor", "alice")
    assert "1 graded items of those topics are not in the collection" in printed
    archive = RetrievalTask.objects.get(training_for=live)
    assert archive.collection_id == collection.pk
    [topic] = Topic.objects.filter(task=archive)
    assert (topic.number, topic.title) == ("301", "International Organized Crime")
    gold = dict(
        GoldGrade.objects.filter(training_round__task=archive).values_list(
            "hit__document__docno", "grade"
        )
    )
    assert gold == {docnos[0]: 1, docnos[1]: 0, docnos[2]: 2}

    bad = tmp_path / "bad.txt"
    bad.write_text(f"301 0 {docnos[0]} 1\n301 0 {docnos[1]}\n")
    with pytest.raises(CommandError, match="no round was created"):
        run_command(*common, "--qrels", str(bad), "--round", "r2", "--assessor", "alice")
    with pytest.raises(CommandError, match="no round was created"):
        run_command(
            *common, "--qrels", str(qrels), "--round", "r3", "--assessor", "alice",
            "--topic", "999",
        )  # fmt: skip
    assert not TrainingRound.objects.filter(name__in=["r2", "r3"]).exists()
    with pytest.raises(CommandError, match="no active user named zed"):
        run_command(*common, "--qrels", str(qrels), "--round", "r4", "--assessor", "zed")


def test_a_formula_task_cannot_train_from_visual_id_qrels(tmp_path: Path) -> None:
    RetrievalTaskFactory.create(campaign__name="F", kind="formula")
    UserFactory.create(username="alice")
    empty = tmp_path / "x.tsv"
    empty.write_text("B.1 0 12 3\n")
    with pytest.raises(CommandError, match="formula task cannot train"):
        run_command(
            "--campaign", "F", "--task", "formula", "--topics", str(empty),
            "--qrels", str(empty), "--round", "r", "--assessor", "alice",
        )  # fmt: skip


def test_the_training_page_creates_an_archive_round_and_names_what_is_wrong() -> None:
    document = DocumentFactory.create()
    live = RetrievalTaskFactory.create(
        campaign__name="Web", kind="document", collection=document.collection
    )
    alice = UserFactory.create(username="alice")
    client = Client()
    client.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("assessment:organize_training_archive", args=[live.pk])

    def post(qrels: str) -> object:
        return client.post(
            url,
            {
                "name": "earlier",
                "topics_file": SimpleUploadedFile("q.tsv", b"7\tsolar panels\n"),
                "qrels": SimpleUploadedFile("old.qrels", qrels.encode()),
                "assessors": [alice.pk],
                "items_per_topic": 3,
            },
            follow=True,
        )

    page = post("7 0 missing-docno x\n")
    assert page.status_code == 200  # type: ignore[attr-defined]
    assert "line 1" in page.content.decode()  # type: ignore[attr-defined]
    assert not RetrievalTask.objects.filter(training_for=live).exists()

    page = post(f"7 0 {document.docno} 2\n")
    archive = RetrievalTask.objects.get(training_for=live)
    assert page.redirect_chain[-1][0] == reverse(  # type: ignore[attr-defined]
        "assessment:organize_training", args=[archive.pk]
    )
    assert "This is the training archive of" in page.content.decode()  # type: ignore[attr-defined]
    live_page = client.get(reverse("assessment:organize_training", args=[live.pk])).content
    assert b"earlier" in live_page
    assert b"the training archive" in live_page
