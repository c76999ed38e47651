"""Evaluation jobs end to end: qrels from judgments, a real Celery worker, stored results."""

import time

import pytest

from evaluation.models import EvaluationJob, EvaluationResult
from evaluation.services import evaluation_job_run, evaluation_job_start, qrels_export
from tests.integration.evaluation_data import judged_answer_task

# Relevant at level 2 in A.1: 101 (H), 103 (M, adjudicated), 105 (M, dual); in A.2: 201, 202.
ALPHA_MAP = (5 / 9 + 1) / 2  # A.1: 101, 102, 103 (999 unjudged, dropped); A.2: 202, 201
BETA_MAP = (2 / 3) / 2  # A.1: 105, 101; A.2 missing from the run scores 0
BETA_MAP_WITHOUT_OWN = (1 / 2) / 2  # 105 only came from beta: without it A.1 has 2 relevant


def wait_for(job: EvaluationJob, timeout: float = 60) -> EvaluationJob:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.status in (EvaluationJob.Status.DONE, EvaluationJob.Status.FAILED):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job.pk} still {job.status} after {timeout} s")


@pytest.mark.worker
def test_worker_evaluates_every_run_against_qrels_from_judgments_when_job_started(
    celery_worker: object,
) -> None:
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    job = wait_for(evaluation_job_start(task=data.task, qrels=qrels, seed=3))
    assert job.status == EvaluationJob.Status.DONE, job.error
    assert (job.runs_done, job.runs_total) == (2, 2)
    results = {r.run.tag: r for r in EvaluationResult.objects.select_related("run")}
    assert results["alpha"].measures["map_prime"] == pytest.approx(ALPHA_MAP)
    assert results["beta"].measures["map_prime"] == pytest.approx(BETA_MAP)
    assert results["beta"].measures["topics"] == 2
    assert results["beta"].measures["run_topics"] == 1
    assert results["alpha"].per_topic["A.1"]["judged_at_10"] == pytest.approx(3 / 4)
    assert {r.qrels_checksum for r in results.values()} == {qrels.checksum}
    beta_team = next(t for t in job.reusability if t["team"] == "Beta")
    assert beta_team["unique_items"] == 1
    assert beta_team["unique_relevant"] == 1
    assert beta_team["runs"][0]["after"]["map_prime"] == pytest.approx(BETA_MAP_WITHOUT_OWN)
    pairs = job.significance["measures"]["map_prime"]
    assert [(p["a"], p["b"]) for p in pairs] == [("Alpha/alpha", "Beta/beta")]
    low, high = job.intervals[str(data.alpha.pk)]["map_prime"]
    assert low <= ALPHA_MAP <= high


@pytest.mark.django_db
def test_rerun_replaces_results_when_same_qrels_evaluated_again() -> None:
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    for _ in range(2):
        job = EvaluationJob.objects.create(task=data.task, qrels=qrels)
        evaluation_job_run(job=job)
    assert EvaluationResult.objects.count() == 2
    assert job.status == EvaluationJob.Status.DONE
