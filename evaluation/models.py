"""Frozen qrels exports and the evaluation results computed against them."""

from django.conf import settings
from django.db import models

from collection.models import RetrievalTask
from pooling.models import Run


class QrelsVersion(models.Model):
    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="qrels_versions")
    label = models.CharField(max_length=100, blank=True)
    policy = models.JSONField(default=dict)  # which judgments count, filters
    level = models.CharField(max_length=10, default="item")  # item | instance (Task 2)
    content = models.TextField()
    checksum = models.CharField(max_length=64)  # SHA-256 of content
    topic_count = models.PositiveIntegerField(default=0)
    row_count = models.PositiveIntegerField(default=0)
    dropped_topics = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.task} qrels {self.checksum[:8]}"


class EvaluationResult(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="results")
    qrels = models.ForeignKey(QrelsVersion, on_delete=models.CASCADE, related_name="results")
    qrels_checksum = models.CharField(max_length=64)
    measures = models.JSONField(default=dict)  # ndcg_prime, map_prime, p10_prime, ...
    per_topic = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "qrels"], name="result_unique_per_qrels")
        ]

    def __str__(self) -> str:
        return f"{self.run} on {self.qrels_checksum[:8]}"


class EvaluationJob(models.Model):
    """One evaluation of every run of a task against a qrels version, run by a Celery worker.

    Besides the per-run results (EvaluationResult) it keeps what needs all runs at once:
    significance tests, bootstrap intervals and the pool-reusability report."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="evaluations")
    qrels = models.ForeignKey(QrelsVersion, on_delete=models.CASCADE, related_name="jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    runs_done = models.PositiveIntegerField(default=0)
    runs_total = models.PositiveIntegerField(default=0)
    seed = models.IntegerField(default=0, help_text="Seeds the randomization test and bootstrap.")
    significance = models.JSONField(default=dict, blank=True)  # measure -> pairwise tests
    intervals = models.JSONField(default=dict, blank=True)  # run id -> measure -> [low, high]
    reusability = models.JSONField(default=list, blank=True)  # one entry per team
    error = models.TextField(blank=True)
    celery_task_id = models.CharField(max_length=64, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A worker writes heartbeat_at while it runs the job; config.queue's reaper queues a job
    # whose heartbeat stopped again (the next attempt) or fails it after the last attempt.
    attempts = models.PositiveSmallIntegerField(default=1)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker_lost_at = models.DateTimeField(
        null=True, blank=True, help_text="The last heartbeat of a worker that died on this job."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Evaluation {self.id} of {self.task} on {self.qrels.checksum[:8]}"
