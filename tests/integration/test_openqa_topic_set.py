"""Open QA means over its answer task's official topics, as ARQMath-3 averaged Task 3."""

import html

import pytest
from django.test import Client
from django.urls import reverse

from collection.models import RetrievalTask
from evaluation.core.answers import answer_id
from evaluation.models import EvaluationJob, EvaluationResult
from evaluation.services import evaluation_job_run, qrels_import, results_publish
from pooling.core.algorithms import answer_key
from tests.factories import (
    RetrievalTaskFactory,
    RunFactory,
    RunRowFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

TEXTS = {"A.1": "Because $x^2 \\geq 0$.", "A.2": "By induction."}


def openqa_task() -> tuple[RetrievalTask, RetrievalTask, str]:
    """An answer task and its open QA task with one run; the open QA qrels as text."""
    answer_task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    openqa = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.OPENQA, campaign=answer_task.campaign, answer_task=answer_task
    )
    run = RunFactory.create(task=openqa)
    for number, text in TEXTS.items():
        topic = TopicFactory.create(task=openqa, number=number)
        RunRowFactory.create(run=run, topic=topic, post_id=None, rank=1, score=1.0, answer=text)
    ids = {n: answer_id(run.pk, answer_key(t)) for n, t in TEXTS.items()}
    # Only A.1 and A.2 have a judged answer: grades 3 and 1.
    return answer_task, openqa, f"A.1\t0\t{ids['A.1']}\t3\nA.2\t0\t{ids['A.2']}\t1\n"


def staff_page(url: str) -> str:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    return html.unescape(client.get(url).content.decode())


def test_openqa_averages_over_the_answer_task_official_topics() -> None:
    answer_task, openqa, text = openqa_task()
    # The answer task's official qrels assessed four topics.
    official = qrels_import(
        task=answer_task,
        text="".join(f"A.{n}\t0\t{100 + n}\t2\n" for n in range(1, 5)),
        label="official",
    )
    answer_run = RunFactory.create(task=answer_task)
    RunRowFactory.create(
        run=answer_run, topic=TopicFactory.create(task=answer_task, number="A.1"), post_id=101
    )
    evaluation_job_run(job=EvaluationJob.objects.create(task=answer_task, qrels=official))
    results_publish(task=answer_task, qrels=official, by=None)
    qrels = qrels_import(task=openqa, text=text)
    job = evaluation_job_run(job=EvaluationJob.objects.create(task=openqa, qrels=qrels))
    result = EvaluationResult.objects.get(run__task=openqa)
    # AR = (3 + 1 + 0 + 0) / 4; P@1 = 1 / 4 (grade >= 2 only for A.1).
    assert result.measures["ar"] == pytest.approx(1.0)
    assert result.measures["p1"] == pytest.approx(0.25)
    assert result.measures["topics"] == 4
    note = "Means over the 4 topics of the answer task's official qrels (official)."
    assert note in result.measures["notes"]
    assert note in staff_page(reverse("evaluation:results", args=[openqa.pk]))
    assert "over the 4 topics of the answer task's official qrels (official)" in staff_page(
        reverse("evaluation:qrels", args=[openqa.pk])
    )
    # Bootstrap intervals take the same four topics.
    assert job.intervals[str(result.run_id)]["ar"][0] == pytest.approx(0.0)


def test_openqa_without_official_answer_qrels_averages_over_its_own_and_says_so() -> None:
    _, openqa, text = openqa_task()
    qrels = qrels_import(task=openqa, text=text)
    evaluation_job_run(job=EvaluationJob.objects.create(task=openqa, qrels=qrels))
    result = EvaluationResult.objects.get(run__task=openqa)
    assert result.measures["ar"] == pytest.approx(2.0)
    assert (
        "Means over the 2 topics of this task's qrels (its answer task has no official qrels yet)."
        in result.measures["notes"]
    )
