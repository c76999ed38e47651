"""One qrels version per content, even under concurrent exports; one qrels reader for gold
files too."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from assessment.services.training import TrainingError, gold_qrels_parse
from evaluation.core.qrels import QrelsPolicy
from evaluation.models import QrelsVersion
from evaluation.services import qrels_export
from kernel.core.qrels import QrelsFormatError, qrels_parse
from tests.integration.evaluation_data import judged_answer_task

THREADS = 8


@pytest.mark.django_db(transaction=True)
def test_concurrent_exports_of_the_same_judgments_give_one_version_when_raced() -> None:
    task = judged_answer_task().task
    barrier = threading.Barrier(THREADS)
    found: list[int] = []
    failures: list[BaseException] = []

    def export() -> None:
        try:
            barrier.wait(timeout=30)
            found.append(qrels_export(task=task).pk)
        except BaseException as error:  # reported by the assertion below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=export) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    assert len(found) == THREADS
    assert len(set(found)) == 1
    assert QrelsVersion.objects.filter(task=task).count() == 1


@pytest.mark.django_db
def test_database_refuses_a_second_row_with_the_same_content_when_the_service_is_bypassed() -> None:
    task = judged_answer_task().task
    version = qrels_export(task=task)
    with pytest.raises(IntegrityError), transaction.atomic():
        QrelsVersion.objects.create(
            task=task, level=version.level, checksum=version.checksum, content=version.content
        )


@pytest.mark.django_db
def test_export_with_other_options_but_the_same_rows_is_the_same_version_when_repeated() -> None:
    task = judged_answer_task().task
    first = qrels_export(task=task)
    again = qrels_export(task=task, policy=QrelsPolicy(min_relevant=1), label="again")
    without_dual = qrels_export(
        task=task, policy=QrelsPolicy(precedence=("adjudicated", "official")), allow_incomplete=True
    )
    assert again.pk == first.pk
    assert without_dual.pk != first.pk  # other rows: another version
    assert QrelsVersion.objects.filter(task=task).count() == 2


@pytest.mark.parametrize(
    "text",
    [
        "A.1 0 55 3\nA.1 0 56 x\n",  # not an integer
        "A.1 0 55 3\nA.1 0 56 9\n",  # outside 0-6
        "A.1 0 55 3\nA.1 0 55 2\n",  # repeated: the old reader kept the last one silently
        "A.1 0 55 3\nA.1 0 56\n",  # three columns
        "A.1 0 55 3\nA.1 0 56 \u0662\n",  # an Arabic-Indic two
    ],
)
def test_gold_file_refuses_the_lines_an_evaluation_qrels_refuses_when_malformed(text: str) -> None:
    with pytest.raises(QrelsFormatError) as qrels:
        qrels_parse(text)
    with pytest.raises(TrainingError) as gold:
        gold_qrels_parse(text)
    assert gold.value.problems == [f"line {n}: {m}" for n, m in qrels.value.problems]
    assert gold.value.problems[0].startswith("line 2: ")


def test_gold_file_reports_every_bad_line_when_several_are_wrong() -> None:
    with pytest.raises(TrainingError) as gold:
        gold_qrels_parse("A.1 0 1 x\nA.1 0 2 3\nA.1 0 3 -1\nA.1 0 2 1\n")
    assert gold.value.problems == [
        "line 1: grade 'x' is not an integer",
        "line 3: grade -1 is outside 0-6",
        "line 4: repeated topic A.1 id 2",
    ]


def test_gold_file_with_a_byte_order_mark_is_read_when_saved_by_a_windows_editor() -> None:
    assert gold_qrels_parse("\ufeffA.1\t0\t55\t3\r\nA.1\t0\t56\t0\r\n") == {
        ("A.1", "55"): 3,
        ("A.1", "56"): 0,
    }
