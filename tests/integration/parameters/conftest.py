"""The small judged campaign every parameter test sends its requests about."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assessment.models import Assignment, AssignmentItem
from assessment.services.machine_judges import machine_judge_import
from evaluation.models import EvaluationJob
from evaluation.services import evaluation_job_run, qrels_export, results_publish
from judges.models import JudgeEndpoint, JudgeRun
from tests.factories import (
    AssignmentFactory,
    PostFactory,
    ThreadFactory,
    TrainingRoundFactory,
    UserFactory,
)
from tests.integration.evaluation_data import judged_answer_task
from tests.integration.parameters.sweep import Campaign


@pytest.fixture
def campaign() -> Campaign:
    data = judged_answer_task()
    task = data.task
    qrels = qrels_export(task=task)
    job = EvaluationJob.objects.create(task=task, qrels=qrels, seed=1)
    evaluation_job_run(job=job)
    # Published, so participants reach the results' code too.
    results_publish(task=task, qrels=qrels, by=UserFactory.create(is_staff=True))
    official = Assignment.objects.filter(topic=data.topics["A.1"], purpose="official").first()
    dual = Assignment.objects.filter(topic=data.topics["A.1"], purpose="dual").first()
    assert official is not None
    assert dual is not None
    participant = UserFactory.create(username="sweep-participant")
    data.alpha.team.members.add(participant)
    training = TrainingRoundFactory.create(task=task)
    AssignmentFactory.create(
        topic=data.topics["A.2"],
        assessor=official.assessor,
        purpose=Assignment.Purpose.TRAINING,
        training_round=training,
    )
    scoped = AssignmentFactory.create(
        topic=data.topics["A.2"],
        assessor=UserFactory.create(username="sweep-scoped"),
        purpose=Assignment.Purpose.DUAL,
        scoped=True,
    )
    AssignmentItem.objects.create(assignment=scoped, item=data.hits[201].item)
    thread = ThreadFactory.create()
    PostFactory.create(id=thread.id, thread=thread, kind=1)
    candidate = UserFactory.create(username="sweep-candidate")
    judge, _ = machine_judge_import(
        task=task,
        name="sweep-judge",
        source=SimpleUploadedFile("judge.qrels", b"A.1 0 101 2\nA.1 0 102 1\n"),
    )
    hit = data.hits[101]
    endpoint = JudgeEndpoint.objects.create(
        name="sweep-endpoint", base_url="http://127.0.0.1:9/v1", model="m"
    )
    judge_run = JudgeRun.objects.create(
        task=task, judge=judge, endpoint=endpoint, endpoint_name="sweep-endpoint", model="m"
    )
    return Campaign(
        ids={
            "task": str(task.pk),
            "run": str(data.alpha.pk),
            "team": str(data.alpha.team.pk),
            "assignment": str(official.pk),
            "dual_assignment": str(dual.pk),
            "scoped_assignment": str(scoped.pk),
            "item": str(hit.item_id),
            "hit": str(hit.pk),
            "disputed_hit": str(data.hits[103].pk),  # graded by two assessors
            "topic": str(data.topics["A.1"].pk),
            "round": str(training.pk),
            "qrels": str(qrels.pk),
            "job": str(job.pk),
            "thread": str(thread.pk),
            "candidate": str(candidate.pk),
            "candidate_name": candidate.username,
            "judge": str(judge.pk),
            "endpoint": str(endpoint.pk),
            "judge_run": str(judge_run.pk),
        },
        users={
            "anonymous": None,
            "participant": participant,
            "assessor": official.assessor,
            "organizer": UserFactory.create(username="sweep-organizer", is_staff=True),
        },
    )
