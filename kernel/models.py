"""The job row: what every background job's table holds, for ``kernel.queue`` to run it.

Pool builds and evaluation jobs inherit it. The queue's rules (claim, heartbeat, reaper, lost
messages) read and write only these fields, so they hold for every kind of job alike.
"""

from django.conf import settings
from django.db import models


class JobRow(models.Model):
    """A background job: its status, who asked, its attempts and its worker's heartbeat."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    celery_task_id = models.CharField(max_length=64, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A worker writes heartbeat_at while it runs the job; kernel.queue's reaper queues a job
    # whose heartbeat stopped again (the next attempt) or fails it after the last attempt.
    attempts = models.PositiveSmallIntegerField(default=1)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker_lost_at = models.DateTimeField(
        null=True, blank=True, help_text="The last heartbeat of a worker that died on this job."
    )

    class Meta:
        abstract = True
