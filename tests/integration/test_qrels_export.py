"""Qrels exported from judgments in the database: precedence, flags, filter, frozen versions."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assessment.models import Assignment
from evaluation.core.qrels import QrelsPolicy, qrels_checksum
from evaluation.models import QrelsVersion
from evaluation.services import QrelsExportError, qrels_export
from tests.factories import (
    AssignmentFactory,
    JudgmentFactory,
    RetrievalTaskFactory,
    TrainingRoundFactory,
)
from tests.integration.evaluation_data import judged_answer_task

pytestmark = pytest.mark.django_db

EXPECTED = (
    "A.1\t0\t101\t3\nA.1\t0\t102\t0\nA.1\t0\t103\t2\nA.1\t0\t105\t2\n"
    "A.2\t0\t201\t2\nA.2\t0\t202\t3\n"
)


def test_export_applies_adjudicated_official_dual_precedence_when_judgments_disagree() -> None:
    data = judged_answer_task()
    version = qrels_export(task=data.task)
    assert version.content == EXPECTED
    assert version.checksum == qrels_checksum(EXPECTED)
    assert (version.topic_count, version.row_count) == (2, 6)
    assert version.policy["precedence"] == ["adjudicated", "official", "dual"]


def test_export_leaves_dual_only_items_out_when_policy_excludes_dual() -> None:
    data = judged_answer_task()
    # 105 was judged only by the dual assessor: without dual it is unjudged, so "export anyway".
    version = qrels_export(
        task=data.task, policy=QrelsPolicy(("adjudicated", "official")), allow_incomplete=True
    )
    assert "\t105\t" not in version.content
    assert "A.1\t0\t103\t2\n" in version.content


def test_export_ignores_training_and_revoked_judgments_when_present() -> None:
    data = judged_answer_task()
    training = AssignmentFactory.create(
        topic=data.topics["A.2"],
        purpose=Assignment.Purpose.TRAINING,
        training_round=TrainingRoundFactory.create(task=data.task),
    )
    JudgmentFactory.create(assignment=training, hit=data.hits[201], grade=0)
    assert qrels_export(task=data.task).content == EXPECTED


def test_same_export_twice_gives_one_frozen_version_when_nothing_changed() -> None:
    data = judged_answer_task()
    first = qrels_export(task=data.task)
    assert qrels_export(task=data.task).pk == first.pk
    assert QrelsVersion.objects.count() == 1


def test_min_relevant_filter_drops_topic_and_records_why_when_too_few_relevant() -> None:
    data = judged_answer_task()
    version = qrels_export(task=data.task, policy=QrelsPolicy(min_relevant=3))
    assert {line.split("\t")[0] for line in version.content.splitlines()} == {"A.1"}
    assert version.dropped_topics == [
        {"topic": "A.2", "relevant": 2, "reason": "2 H+M-relevant items, fewer than 3"}
    ]


def test_export_refuses_when_nothing_judged() -> None:
    with pytest.raises(QrelsExportError, match="nothing to export"):
        qrels_export(task=RetrievalTaskFactory.create())


def test_export_qrels_command_writes_file_when_campaign_and_task_named(tmp_path: Path) -> None:
    data = judged_answer_task()
    out = tmp_path / "qrels.tsv"
    call_command(
        "export_qrels",
        "--campaign",
        data.task.campaign.name,
        "--task",
        "answer",
        "--out",
        str(out),
        "--min-relevant",
        "2",
        stdout=io.StringIO(),
    )
    assert out.read_text() == EXPECTED


def test_export_qrels_command_fails_clearly_when_task_unknown() -> None:
    with pytest.raises(CommandError, match="campaign 'nope' has no answer task"):
        call_command("export_qrels", "--campaign", "nope", "--task", "answer")
