"""An evaluation job spread over the workers in chunks of runs.

A document task of 11 runs is cut into chunks of 3 (four chunks, each a Celery task). Every
run's figures must equal pytrec_eval's, computed here from the same rankings; killed in the
middle of its second chunk, the job must finish on another worker with each run stored and
counted once (a stored row keeps its PostgreSQL ``xmin``: it was never written again).
"""

from __future__ import annotations

import math
import random
import time
from datetime import timedelta
from pathlib import Path

import pytest
import pytrec_eval
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from collection.models import DocumentCollection, RetrievalTask
from config.celery import app as celery_app
from evaluation.models import EvaluationChunk, EvaluationJob, EvaluationResult, QrelsVersion
from evaluation.services import evaluation_job_start, qrels_import
from evaluation.services.job_chunks import evaluation_chunk_run
from evaluation.services.jobs import evaluation_job_run, evaluation_jobs_reap
from kernel.queue import job_claim
from pooling.models import RunRow
from tests.factories import RetrievalTaskFactory, RunFactory, TeamFactory, TopicFactory
from tests.factories.collection import UserFactory
from tests.integration.workers import kill, wait_for, worker_process

RUNS, CHUNK = 11, 3  # four chunks: 3 + 3 + 3 + 2 runs
TOPICS = ["401", "402", "403", "404", "405"]
KEYS = ["map", "P_10", "ndcg_cut_10", "bpref"]  # a document task's default measures
PAUSE_AFTER = 5  # runs: the first chunk done, the second one run in
TOL = 1e-12
Rankings = dict[str, dict[str, dict[str, float]]]  # run id -> topic -> docno -> score

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def document_task(seed: int = 5) -> tuple[RetrievalTask, QrelsVersion, dict, Rankings]:
    """Graded qrels over string docnos and RUNS runs of 30 rows a topic (the last run leaves
    out a topic); scores are distinct, so every tool orders them alike."""
    rng = random.Random(seed)
    collection = DocumentCollection.objects.create(name=f"wire-{seed}")
    task = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.DOCUMENT, collection=collection, relevance_level=1
    )
    topics = {n: TopicFactory.create(task=task, number=n) for n in TOPICS}
    docnos = [f"AP88{rng.randrange(10**6):06d}-{i}" for i in range(80)]
    qrels = {n: {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docnos, 30)} for n in TOPICS}
    teams = [TeamFactory.create(name=f"Team{i}") for i in range(4)]
    rankings: Rankings = {}
    for i in range(RUNS):
        run = RunFactory.create(task=task, team=teams[i % 4], tag=f"run{i:02d}")
        ranking: dict[str, dict[str, float]] = {}
        rows = []
        for number in TOPICS[: 4 if i == RUNS - 1 else 5]:
            docs = rng.sample(docnos, 30)
            ranking[number] = {d: 100.0 - rank + rng.random() / 2 for rank, d in enumerate(docs)}
            rows += [
                RunRow(run=run, topic=topics[number], docno=d, rank=rank, score=ranking[number][d])
                for rank, d in enumerate(docs, 1)
            ]
        RunRow.objects.bulk_create(rows)
        rankings[str(run.pk)] = ranking
    text = "".join(f"{t}\t0\t{d}\t{g}\n" for t, docs in qrels.items() for d, g in docs.items())
    return task, qrels_import(task=task, text=text, label="official"), qrels, rankings


def pytrec_eval_means(qrels: dict, ranking: dict) -> dict[str, float]:
    """trec_eval -c from pytrec_eval alone: a topic missing from the run scores 0."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(KEYS), relevance_level=1)
    found = evaluator.evaluate({t: ranking.get(t, {}) for t in qrels})
    return {k: math.fsum(found[t][k] for t in qrels) / len(qrels) for k in KEYS}


def assert_figures_equal_pytrec_eval(job: EvaluationJob, qrels: dict, rankings: Rankings) -> None:
    results = list(EvaluationResult.objects.filter(qrels=job.qrels))
    assert sorted(str(r.run_id) for r in results) == sorted(rankings)
    for result in results:
        expected = pytrec_eval_means(qrels, rankings[str(result.run_id)])
        for key in KEYS:
            assert result.measures[key] == pytest.approx(expected[key], abs=TOL), key
    # The tests pair every two runs, over all topics, whichever chunk scored them.
    pairs = job.significance["measures"]["map"]
    assert len(pairs) == RUNS * (RUNS - 1) // 2
    means = {f"{r.run.team.name}/{r.run.tag}": r.measures["map"] for r in results}
    for pair in pairs:
        assert pair["mean_difference"] == pytest.approx(means[pair["a"]] - means[pair["b"]])
    assert set(job.intervals) == set(rankings)


def test_job_over_four_chunks_equals_pytrec_eval_when_a_worker_runs_them(
    celery_worker: object, settings: object
) -> None:
    settings.EVALUATION_CHUNK_RUNS = CHUNK  # type: ignore[attr-defined]
    task, qrels_version, qrels, rankings = document_task()
    job = evaluation_job_start(task=task, qrels=qrels_version, seed=2)
    deadline = time.monotonic() + 120
    while job.status not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()
    assert job.status == EvaluationJob.Status.DONE, job.error
    assert (job.runs_done, job.runs_total) == (RUNS, RUNS)
    chunks = list(job.chunks.order_by("index"))
    assert [len(c.run_ids) for c in chunks] == [3, 3, 3, 2]
    assert {(c.status, c.attempts) for c in chunks} == {("done", 1)}
    assert_figures_equal_pytrec_eval(job, qrels, rankings)
    assert {e["team"] for e in job.reusability} == {"Team0", "Team1", "Team2", "Team3"}


def result_versions(job: EvaluationJob) -> dict[int, int]:
    """run id -> the PostgreSQL transaction that last wrote its result (``xmin``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT run_id, xmin::text::bigint FROM {EvaluationResult._meta.db_table} "  # noqa: S608
            "WHERE qrels_id = %s",
            [job.qrels_id],
        )
        return dict(cursor.fetchall())


def test_killed_worker_mid_chunk_leaves_each_run_stored_once_when_another_finishes(
    tmp_path: Path, settings: object
) -> None:
    settings.EVALUATION_CHUNK_RUNS = CHUNK  # type: ignore[attr-defined]
    settings.JOB_STALE_SECONDS, settings.JOB_HEARTBEAT_SECONDS = 5, 1  # type: ignore[attr-defined]
    beats = {"JOB_STALE_SECONDS": "5", "JOB_HEARTBEAT_SECONDS": "1"}
    task, qrels_version, qrels, rankings = document_task(seed=9)
    paused = tmp_path / "paused"
    celery_app.control.purge()
    first = worker_process(
        "chunks-first",
        JOB_TEST_PAUSE=f"evaluation_job:{PAUSE_AFTER}",
        JOB_TEST_PAUSED_FILE=str(paused),
        **beats,
    )
    second = None
    try:
        job = evaluation_job_start(task=task, qrels=qrels_version, seed=4)
        wait_for(paused.exists, 120, "the evaluation to reach its pause point")
        before = result_versions(job)
        kill(first)
        job.refresh_from_db()
        assert (job.status, job.runs_done) == ("running", PAUSE_AFTER)
        assert len(before) == PAUSE_AFTER
        second = worker_process("chunks-second", **beats)
        client = Client()
        client.force_login(UserFactory.create(username="organizer", is_staff=True))
        progress_url = reverse("evaluation:job-progress", args=[job.pk])
        wait_for(  # the progress bar's poll runs the reaper
            lambda: client.get(progress_url).json()["status"] in ("done", "failed"),
            120,
            "the killed evaluation to finish",
            every=0.5,
        )
    finally:
        kill(first)
        if second is not None:
            kill(second)
    job.refresh_from_db()
    assert job.status == EvaluationJob.Status.DONE, job.error
    assert (job.runs_done, job.runs_total) == (RUNS, RUNS)  # each run counted once
    assert job.worker_lost_at is not None
    assert job.attempts == 2  # the chunk run again was an attempt of the job too
    chunks = list(job.chunks.order_by("index"))
    # Only the chunk the worker died in was run again, and it skipped the runs it had stored.
    assert [c.attempts for c in chunks] == [1, 2, 1, 1]
    assert sum(len(c.scored) for c in chunks) == RUNS
    after = result_versions(job)
    assert len(after) == RUNS
    assert {run: after[run] for run in before} == before  # stored before the kill, never again
    assert_figures_equal_pytrec_eval(job, qrels, rankings)


def test_job_runs_its_chunks_in_process_when_there_is_no_broker(settings: object) -> None:
    # As without REDIS_URL: Celery runs tasks eagerly, in the process that starts the job.
    settings.EVALUATION_CHUNK_RUNS = CHUNK  # type: ignore[attr-defined]
    task, qrels_version, qrels, rankings = document_task(seed=3)
    celery_app.conf.task_always_eager = True
    try:
        job = evaluation_job_start(task=task, qrels=qrels_version, seed=2)
    finally:
        celery_app.conf.task_always_eager = False
    job.refresh_from_db()
    assert job.status == EvaluationJob.Status.DONE, job.error
    assert (job.runs_done, job.runs_total) == (RUNS, RUNS)
    assert [c.status for c in job.chunks.order_by("index")] == ["done"] * 4
    assert_figures_equal_pytrec_eval(job, qrels, rankings)


def test_job_counts_a_reaped_chunk_as_its_next_attempt_and_sums_up_on_it(
    settings: object,
) -> None:
    settings.EVALUATION_CHUNK_RUNS = CHUNK  # type: ignore[attr-defined]
    settings.JOB_STALE_SECONDS = 5  # type: ignore[attr-defined]
    task, qrels_version, qrels, rankings = document_task(seed=7)
    celery_app.control.purge()
    try:  # no worker: the messages wait in the broker and this test plays the workers
        job = evaluation_job_start(task=task, qrels=qrels_version, seed=1)
        job = EvaluationJob.objects.select_related("task", "qrels").get(pk=job.pk)
        evaluation_job_run(job=job, spread=True)  # cuts the job in chunks and queues them
        chunks = list(job.chunks.select_related("job__task", "job__qrels").order_by("index"))
        # The worker that took chunk 1 died: it is running with a heartbeat long gone.
        assert job_claim(model=EvaluationChunk, job_id=chunks[1].pk, attempt=1)
        EvaluationChunk.objects.filter(pk=chunks[1].pk).update(
            heartbeat_at=timezone.now() - timedelta(seconds=60)
        )
        evaluation_jobs_reap()
        job.refresh_from_db()
        assert (job.attempts, job.status) == (2, "running")
        assert job.worker_lost_at is not None
        assert EvaluationChunk.objects.get(pk=chunks[1].pk).attempts == 2
        # Chunks loaded before the reaper ran still say attempt 1; the last to finish reads
        # the job's attempt as it is now, for the summing-up message.
        last = [evaluation_chunk_run(chunk=c) for c in (chunks[0], chunks[2], chunks[3])]
        chunks[1].refresh_from_db()
        last.append(evaluation_chunk_run(chunk=chunks[1]))
        assert last == [False, False, False, True]
        assert chunks[1].job.attempts == 2
        job.refresh_from_db()
        job = evaluation_job_run(job=job)  # the summing-up message, as attempt 2
    finally:
        celery_app.control.purge()
    job.refresh_from_db()
    assert (job.status, job.attempts, job.runs_done) == ("done", 2, RUNS)
    assert_figures_equal_pytrec_eval(job, qrels, rankings)
