"""Importing machine judges: qrels and JSONL, errors with file, line and field,
items not in the pool skipped and counted, idempotent re-import, replacing a judge's grades,
document and formula tasks, the CLI, counting in qrels and deleting."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from assessment.models import Assignment, Judgment, JudgmentRevision, MachineJudge
from assessment.services.machine_judges import (
    MachineJudgeError,
    machine_judge_counts_in_qrels,
    machine_judge_delete,
    machine_judge_import,
)
from assessment.services.training import training_round_create
from collection.models import Document, DocumentCollection, RetrievalTask
from pooling.models import Hit, PoolItem
from tests.factories import (
    FormulaFactory,
    HitFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.integration.machine_judge_data import (
    IN_POOL,
    JUDGE_GRADES,
    import_judge,
    jsonl,
    judged_task_with_open_item,
    qrels,
    write,
)

pytestmark = pytest.mark.django_db


def stored(judge: MachineJudge) -> dict[tuple[str, str], tuple[int | None, str]]:
    """(topic, post) -> (grade, comment) of the judge's judgments."""
    rows = Judgment.objects.filter(assessor=judge.account).values_list(
        "hit__item__topic__number", "hit__item__key", "grade", "comment"
    )
    return {(topic, key): (grade, comment) for topic, key, grade, comment in rows}


def expected_in_pool() -> dict[tuple[str, str], tuple[int, str]]:
    return {(t, p): (g, r) for t, p, g, r in JUDGE_GRADES if t != "Z.9" and p != "999"}


def test_jsonl_import_stores_pool_grades_and_counts_the_rest_when_some_ids_are_unknown(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    organizer = UserFactory.create(is_staff=True)
    judge, report = import_judge(
        data.task, tmp_path, jsonl(JUDGE_GRADES), description="LLM, prompt v2", created_by=organizer
    )
    assert (report.status, report.file_format, report.grades) == ("created", "jsonl", 10)
    assert (report.stored, report.created, report.skipped, report.topics) == (IN_POOL, 8, 2, 2)
    assert report.unknown_topics == ["Z.9"]
    assert "2 grades for items not in the pool were skipped." in report.lines()
    assert stored(judge) == expected_in_pool()
    assert judge.description == "LLM, prompt v2"
    assert judge.created_by == organizer
    assert judge.source_name == "judge.jsonl"
    assert len(judge.checksum) == 64
    # One machine assignment per topic, each judgment with its first revision.
    assignments = Assignment.objects.filter(assessor=judge.account)
    assert sorted(a.topic.number for a in assignments) == ["A.1", "A.2"]
    assert {a.purpose for a in assignments} == {Assignment.Purpose.MACHINE}
    assert JudgmentRevision.objects.filter(judgment__assessor=judge.account).count() == IN_POOL


def test_account_is_no_person_when_a_judge_is_created(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name="GPT 4o / zero-shot")
    account = User.objects.get(pk=judge.account_id)
    assert account.username == f"machine-{data.task.pk}-gpt-4o-zero-shot"
    assert not account.is_active
    assert not account.has_usable_password()
    assert not account.is_staff
    assert not account.is_superuser
    assert not account.teams.exists()


def test_qrels_import_stores_the_same_grades_when_the_file_is_trec_qrels(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    judge, report = import_judge(
        data.task, tmp_path, qrels(JUDGE_GRADES), name="last-year", file_name="last.qrels"
    )
    assert (report.file_format, report.stored, report.skipped) == ("qrels", IN_POOL, 2)
    assert stored(judge) == {key: (grade, "") for key, (grade, _) in expected_in_pool().items()}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"topic": "A.1", "post_id": "102", "grade": 7}', "judge.jsonl line 2, grade: grade 7"),
        ('{"topic": "A.1", "grade": 1}', "judge.jsonl line 2, docno: missing"),
        ('{"topic": "A.1", "post_id": "101", "grade": 1}', "judge.jsonl line 2, post_id: repeated"),
        (
            '{"topic": "A.1", "post_id": "102", "grade": 1, "rationale": "' + "r" * 5001 + '"}',
            "judge.jsonl line 2, rationale: has 5,001 characters (at most 5,000)",
        ),
    ],
)
def test_import_stores_nothing_and_names_file_line_and_field_when_a_line_is_bad(
    tmp_path: Path, line: str, expected: str
) -> None:
    data = judged_task_with_open_item()
    before = (User.objects.count(), Judgment.objects.count(), Assignment.objects.count())
    text = '{"topic": "A.1", "post_id": "101", "grade": 3}\n' + line + "\n"
    with pytest.raises(MachineJudgeError) as caught:
        import_judge(data.task, tmp_path, text)
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems
    assert not MachineJudge.objects.exists()
    assert (User.objects.count(), Judgment.objects.count(), Assignment.objects.count()) == before


def test_grades_follow_the_task_scale_when_its_guidelines_are_binary(tmp_path: Path) -> None:
    from assessment.core.guidelines import scale_from_json
    from assessment.services.guidelines import guidelines_save

    data = judged_task_with_open_item()
    binary = {
        "grades": [
            {"value": 1, "label": "Relevant", "keys": ["r"], "definition": "On topic."},
            {"value": 0, "label": "Not relevant", "keys": ["n"], "definition": "Off topic."},
        ],
        "flags": [],
    }
    scale_from_json(binary)  # a valid scale
    guidelines_save(
        task=data.task, instructions="", scale=binary, relevance_level=1, created_by=None
    )
    with pytest.raises(MachineJudgeError) as caught:
        import_judge(data.task, tmp_path, "A.1 0 101 1\nA.1 0 102 2\n", file_name="j.qrels")
    assert caught.value.problems == ["j.qrels line 2, grade: grade 2 is outside 0-1"]


def test_reimport_changes_nothing_when_the_file_is_the_same(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    before = list(Judgment.objects.order_by("id").values_list("id", "grade", "updated_at"))
    revisions = JudgmentRevision.objects.count()
    again, report = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    assert again.pk == judge.pk
    assert report.status == "unchanged"
    assert "already holds: nothing changed" in report.lines()[0]
    assert list(Judgment.objects.order_by("id").values_list("id", "grade", "updated_at")) == before
    assert JudgmentRevision.objects.count() == revisions
    assert MachineJudge.objects.count() == 1


def test_new_file_replaces_grades_keeping_revisions_when_imported_under_the_same_name(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    first_checksum = judge.checksum
    # 101: 3 -> 1 (changed); 102: unchanged; 103 only rationale changed; A.2 left out entirely.
    newer = [
        ("A.1", "101", 1, "on reflection, weak"),
        ("A.1", "102", 1, ""),
        ("A.1", "103", 2, "a partial proof, checked"),
        ("A.1", "104", 0, ""),
        ("A.1", "105", 2, ""),
    ]
    unchanged_before = Judgment.objects.get(assessor=judge.account, hit=data.hits[102]).updated_at
    again, report = import_judge(data.task, tmp_path, jsonl(newer), file_name="judge-v2.jsonl")
    assert again.pk == judge.pk
    assert (report.status, report.created, report.changed, report.removed) == ("replaced", 0, 2, 3)
    assert stored(again) == {(t, p): (g, r) for t, p, g, r in newer}
    changed = Judgment.objects.get(assessor=judge.account, hit=data.hits[101])
    history = list(changed.revisions.values_list("number", "grade", "comment"))
    assert history == [
        (1, 3, "answers the question directly"),
        (2, 1, "on reflection, weak"),
    ]
    assert changed.revision == 2
    same = Judgment.objects.get(assessor=judge.account, hit=data.hits[102])
    assert (same.revision, same.updated_at) == (1, unchanged_before)
    # A topic the new file no longer grades keeps no machine assignment.
    assert [a.topic.number for a in Assignment.objects.filter(assessor=judge.account)] == ["A.1"]
    again.refresh_from_db()
    assert again.checksum != first_checksum
    assert again.source_name == "judge-v2.jsonl"


def test_document_task_maps_docnos_to_document_hits_when_a_judge_is_imported(
    tmp_path: Path,
) -> None:
    collection = DocumentCollection.objects.create(name="news")
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.DOCUMENT, collection=collection)
    topic = TopicFactory.create(task=task, number="301")
    hits = {}
    for order, docno in enumerate(["FT911-1", "LA0101-7", "FBIS3-10"]):
        document = Document.objects.create(
            collection=collection, docno=docno, title=docno, body="text", checksum="0" * 32
        )
        item = PoolItem.objects.create(
            topic=topic, key=docno, document=document, display_order=order
        )
        hits[docno] = Hit.objects.create(item=item, document=document)
    text = (
        '{"topic": "301", "docno": "FT911-1", "grade": 2, "rationale": "about the topic"}\n'
        '{"topic": 301, "doc_id": "LA0101-7", "grade": 0}\n'
        '{"topic": "301", "docno": "NOT-POOLED", "grade": 1}\n'
    )
    judge, report = import_judge(task, tmp_path, text)
    assert (report.stored, report.skipped) == (2, 1)
    graded = dict(Judgment.objects.filter(assessor=judge.account).values_list("hit_id", "grade"))
    assert graded == {hits["FT911-1"].pk: 2, hits["LA0101-7"].pk: 0}


def test_formula_task_maps_formula_instance_ids_to_hits_when_a_judge_is_imported(
    tmp_path: Path,
) -> None:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.FORMULA)
    topic = TopicFactory.create(task=task, number="B.1")
    first, second = FormulaFactory.create(visual_id="77"), FormulaFactory.create(visual_id="77")
    item = PoolItemFactory.create(topic=topic, key="77", post_id=None, visual_id="77")
    hit_a = HitFactory.create(item=item, post_id=first.post_id, formula_id=first.formula_id)
    hit_b = HitFactory.create(
        item=item, post_id=second.post_id, formula_id=second.formula_id, position=1
    )
    text = f"B.1 0 {first.formula_id} 3\nB.1 0 {second.formula_id} 1\nB.1 0 77 2\n"
    judge, report = import_judge(task, tmp_path, text, file_name="instances.qrels")
    assert (report.stored, report.skipped) == (2, 1)  # 77 is a visual id, not an instance
    graded = dict(Judgment.objects.filter(assessor=judge.account).values_list("hit_id", "grade"))
    assert graded == {hit_a.pk: 3, hit_b.pk: 1}


def test_open_qa_task_is_refused_when_a_judge_is_imported(tmp_path: Path) -> None:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.OPENQA)
    with pytest.raises(MachineJudgeError, match="open-QA answers are judged in the answer task"):
        import_judge(task, tmp_path, "A.1 0 1 1\n")


def test_uploaded_file_object_is_read_like_a_path_when_given_to_the_service(
    tmp_path: Path,
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = judged_task_with_open_item()
    upload = SimpleUploadedFile("upload.jsonl", jsonl(JUDGE_GRADES).encode())
    judge, report = machine_judge_import(task=data.task, name="uploaded", source=upload)
    assert (report.file_name, report.stored) == ("upload.jsonl", IN_POOL)
    assert judge.source_name == "upload.jsonl"


def test_at_most_one_judge_counts_when_another_is_switched_on(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    first, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), counts_in_qrels=True)
    second, report = import_judge(data.task, tmp_path, qrels(JUDGE_GRADES), name="other")
    assert not report.counts_in_qrels
    assert machine_judge_counts_in_qrels(judge=second, counts=True) == "oracle"
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.counts_in_qrels, second.counts_in_qrels) == (False, True)
    machine_judge_counts_in_qrels(judge=second, counts=False)
    assert not MachineJudge.objects.filter(counts_in_qrels=True).exists()
    # Importing again without the option keeps what the judge had.
    machine_judge_counts_in_qrels(judge=first, counts=True)
    import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES[:3]))
    first.refresh_from_db()
    assert first.counts_in_qrels


def test_delete_removes_grades_assignments_and_account_when_no_round_uses_it(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    humans = Judgment.objects.exclude(assessor=judge.account).count()
    machine_judge_delete(judge=judge)
    assert not MachineJudge.objects.exists()
    assert not User.objects.filter(pk=judge.account_id).exists()
    assert not Assignment.objects.filter(purpose=Assignment.Purpose.MACHINE).exists()
    assert Judgment.objects.count() == humans


def test_delete_is_refused_when_a_training_round_takes_its_gold_from_it(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    training_round_create(
        task=data.task,
        name="Round M",
        topics=[data.topics["A.2"]],
        assessors=[UserFactory.create()],
        created_by=None,
        gold_source="machine",
        machine_judge=judge,
        items_per_topic=2,
    )
    with pytest.raises(MachineJudgeError, match="gold of training round\\(s\\) Round M"):
        machine_judge_delete(judge=judge)
    assert MachineJudge.objects.filter(pk=judge.pk).exists()


def test_cli_imports_and_reports_when_given_a_file(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    path = write(tmp_path, "judge.jsonl", jsonl(JUDGE_GRADES))
    out = StringIO()
    call_command(
        "import_judge",
        str(path),
        "--campaign",
        data.task.campaign.name,
        "--task",
        "answer",
        "--name",
        "cli-judge",
        "--counts-in-qrels",
        "--description",
        "from the CLI",
        stdout=out,
    )
    text = out.getvalue()
    assert "imported machine: cli-judge from judge.jsonl (jsonl): 8 grades in 2 topic(s)" in text
    assert "2 grades for items not in the pool were skipped." in text
    judge = MachineJudge.objects.get(name="cli-judge")
    assert judge.counts_in_qrels
    assert judge.description == "from the CLI"
    again = StringIO()
    call_command(
        "import_judge",
        str(path),
        "--campaign",
        data.task.campaign.name,
        "--task",
        "answer",
        "--name",
        "cli-judge",
        stdout=again,
    )
    assert "nothing changed" in again.getvalue()


def test_cli_lists_problems_and_stores_nothing_when_the_file_is_bad(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    path = write(tmp_path, "bad.qrels", "A.1 0 101 3\nA.1 0 102 9\n")
    err = StringIO()
    with pytest.raises(CommandError, match=r"bad\.qrels was not stored"):
        call_command(
            "import_judge",
            str(path),
            "--campaign",
            data.task.campaign.name,
            "--task",
            "answer",
            "--name",
            "x",
            "--format",
            "qrels",
            stderr=err,
        )
    assert "bad.qrels line 2, grade: grade 9 is outside 0-3" in err.getvalue()
    assert not MachineJudge.objects.exists()
