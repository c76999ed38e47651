"""Frozen qrels exports, the evaluation results computed against them, and their publication."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from collection.models import RetrievalTask
from kernel.models import JobRow
from pooling.models import Run

# A result is current while its run has not been replaced since it was computed (a run
# uploaded after the last evaluation is "not scored yet").
CURRENT_RESULT = models.Q(run_version=models.F("run__version"))


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
    # How complete the judging was when this version was exported; all None for
    # an imported file, whose completeness nobody here knows.
    pool_items = models.PositiveIntegerField(null=True, blank=True)
    judged_items = models.PositiveIntegerField(
        null=True, blank=True, help_text="Pool items with a counting grade or flag on every hit."
    )
    unjudged_items = models.PositiveIntegerField(null=True, blank=True)
    pool_topics = models.PositiveIntegerField(null=True, blank=True)
    complete_topics = models.PositiveIntegerField(null=True, blank=True)
    unjudged_topics = models.JSONField(
        default=list, blank=True, help_text="[{topic, unjudged}] of the incomplete topics."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # A version is its content: the same rows exported again (whatever the options that
            # led to them) are the same qrels, so results computed on them stay attached to one
            # version. Concurrent exports meet here (qrels_export uses get_or_create).
            models.UniqueConstraint(
                fields=["task", "level", "checksum"], name="qrels_version_unique_content"
            )
        ]

    def __str__(self) -> str:
        return f"{self.task} qrels {self.checksum[:8]}"

    @property
    def is_incomplete(self) -> bool:
        """Exported while pool items were still unjudged ("export anyway")."""
        return bool(self.unjudged_items)


class EvaluationResult(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="results")
    qrels = models.ForeignKey(QrelsVersion, on_delete=models.CASCADE, related_name="results")
    qrels_checksum = models.CharField(max_length=64)
    measures = models.JSONField(default=dict)  # ndcg_prime, map_prime, p10_prime, ...
    per_topic = models.JSONField(default=dict)
    average = models.CharField(
        max_length=3,
        choices=RetrievalTask.Average.choices,
        default=RetrievalTask.Average.ALL,
        help_text="Which topics the means are taken over.",
    )
    # The Run.version that was scored: a run replaced since then is "not scored yet".
    run_version = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "qrels"], name="result_unique_per_qrels")
        ]

    def __str__(self) -> str:
        return f"{self.run} on {self.qrels_checksum[:8]}"


class EvaluationJob(JobRow):
    """One evaluation of every run of a task against a qrels version, run by a Celery worker.

    Besides the per-run results (EvaluationResult) it keeps what needs all runs at once:
    significance tests, bootstrap intervals and the pool-reusability report."""

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="evaluations")
    qrels = models.ForeignKey(QrelsVersion, on_delete=models.CASCADE, related_name="jobs")
    runs_done = models.PositiveIntegerField(default=0)
    runs_total = models.PositiveIntegerField(default=0)
    seed = models.IntegerField(default=0, help_text="Seeds the randomization test and bootstrap.")
    average = models.CharField(
        max_length=3,
        choices=RetrievalTask.Average.choices,
        default=RetrievalTask.Average.ALL,
        help_text="Which topics the means are taken over (the task's setting when started).",
    )
    significance = models.JSONField(default=dict, blank=True)  # measure -> pairwise tests
    intervals = models.JSONField(default=dict, blank=True)  # run id -> measure -> [low, high]
    reusability = models.JSONField(default=list, blank=True)  # one entry per team
    chunk_runs = models.PositiveIntegerField(
        default=25, help_text="Runs a chunk holds: each chunk is a task any worker can take."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Evaluation {self.id} of {self.task} on {self.qrels.checksum[:8]}"


class EvaluationChunk(JobRow):
    """A slice of an evaluation job's runs, scored by whichever worker takes it.

    A job row of its own, so ``kernel.queue``'s reaper re-queues it when its worker dies.
    ``scored`` names each run already stored by this chunk (run id -> its leave-one-team-out
    means, or None): a redone chunk skips those, so each run's result and progress count are
    written once."""

    job = models.ForeignKey(EvaluationJob, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    run_ids = models.JSONField(default=list)
    scored = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="evaluation_chunk_unique_index")
        ]

    def __str__(self) -> str:
        return f"Chunk {self.index} of evaluation {self.job_id}"


class TaskPublication(models.Model):
    """A task's official qrels version and whether participants see results scored with it.

    Changed only by ``results_publish`` / ``results_withdraw``, each of which appends a
    PublicationEvent: this row is the current state, the events are the record."""

    task = models.OneToOneField(RetrievalTask, on_delete=models.CASCADE, related_name="publication")
    # RESTRICT: the official qrels cannot be deleted alone, only with their task.
    qrels = models.ForeignKey(QrelsVersion, on_delete=models.RESTRICT, related_name="+")
    published = models.BooleanField(default=False)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        state = "published" if self.published else "not published"
        return f"{self.task} {state} (qrels {self.qrels_id})"


class PublicationEvent(models.Model):
    """Append-only log of publications: who, when, which action, which qrels version."""

    class Action(models.TextChoices):
        PUBLISH = "publish"
        WITHDRAW = "withdraw"
        MIGRATED = "migrated", "migrated (published by the former campaign-wide flag)"

    task = models.ForeignKey(
        RetrievalTask, on_delete=models.CASCADE, related_name="publication_events"
    )
    action = models.CharField(max_length=10, choices=Action.choices)
    qrels = models.ForeignKey(
        QrelsVersion, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    qrels_checksum = models.CharField(max_length=64, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    by_name = models.CharField(max_length=150, blank=True, help_text="Kept if the user goes.")
    at = models.DateTimeField(default=timezone.now)
    details = models.JSONField(default=dict, blank=True)  # runs scored / not scored then

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["task", "-at"], name="publication_event_task_at")]

    def __str__(self) -> str:
        return f"{self.task} {self.action} at {self.at:%Y-%m-%d %H:%M}"


class HumanSample(models.Model):
    """The pool items people judge beside a machine judge (people and machine together): drawn
    with a known inclusion probability each (``evaluation.core.human_sample``), so the runs'
    measures can be estimated from the machine's grades corrected by the people's
    (``evaluation.core.ppi``). A new draw for the same judge replaces the old one; judgments
    are never touched."""

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="human_samples")
    judge = models.ForeignKey(
        "assessment.MachineJudge", on_delete=models.CASCADE, related_name="human_samples"
    )
    budget = models.PositiveIntegerField(help_text="Items people are asked to judge (expected).")
    seed = models.IntegerField(default=0)
    uncertain_share = models.FloatField(default=0.8)
    machine_items = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "judge"], name="human_sample_one_per_judge"),
            models.CheckConstraint(
                condition=models.Q(uncertain_share__gte=0, uncertain_share__lte=1),
                name="human_sample_share_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task} · {self.judge} · {self.budget}"


class HumanSampleItem(models.Model):
    """One drawn item (a qrels id of a topic) with the probability it was drawn with."""

    sample = models.ForeignKey(HumanSample, on_delete=models.CASCADE, related_name="items")
    topic = models.CharField(max_length=100)
    item = models.CharField(max_length=200)
    stratum = models.CharField(max_length=40)
    inclusion = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["sample", "topic", "item"], name="human_sample_item_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(inclusion__gt=0, inclusion__lte=1),
                name="human_sample_inclusion_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.topic} {self.item} ({self.inclusion:.3f})"


class HumanSampleChance(models.Model):
    """The probability every graded item had of being drawn, drawn or not: the variance the
    design anticipates for a run sums over all of the run's items (``evaluation.core.ppi``).
    A draw made before these were kept has none, and its intervals rest on the judged items'
    residuals alone."""

    sample = models.ForeignKey(HumanSample, on_delete=models.CASCADE, related_name="chances")
    topic = models.CharField(max_length=100)
    item = models.CharField(max_length=200)
    inclusion = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["sample", "topic", "item"], name="human_sample_chance_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(inclusion__gt=0, inclusion__lte=1),
                name="human_sample_chance_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.topic} {self.item} ({self.inclusion:.3f})"


class PoolPlanJob(JobRow):
    """One run of the pool planner on a task's runs (evaluation.core.pool_planner), by a worker.

    The prior judgments are kept as they were read (topic -> docno -> grade), so the job can be
    run again and says what it was run on; ``rows`` is the planner's table."""

    class Source(models.TextChoices):
        QRELS = "qrels", "an uploaded qrels file"
        RELEVANT = "relevant", "an uploaded relevance-only file"
        JUDGMENTS = "judgments", "the judgments made so far"

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="pool_plans")
    source = models.CharField(max_length=10, choices=Source.choices)
    source_name = models.CharField(max_length=255, blank=True)  # the uploaded file's name
    grades = models.JSONField(default=dict)  # the prior judgments: topic -> docno -> grade
    strategies = models.JSONField(default=list)  # NAME[:PARAM] labels
    budgets = models.JSONField(default=list)  # totals over all topics
    measures = models.JSONField(default=list)
    seed = models.IntegerField(default=0)
    # The runs strategies may pool from, named as budgeted pools name them (every accepted
    # run is scored). Empty only in plans recorded before the choice: every accepted run.
    pool_runs = models.JSONField(default=list, blank=True)
    # Condensed replay (``simulate_pools --judged-only``): every run cut to the documents the
    # prior judgments judged. False in plans recorded before the choice, which replayed runs whole.
    judged_only = models.BooleanField(default=False)
    steps_done = models.PositiveIntegerField(default=0)  # strategies replayed
    steps_total = models.PositiveIntegerField(default=0)
    rows = models.JSONField(default=list, blank=True)  # PlanRow.as_dict() per strategy, budget

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Pool plan {self.id} of {self.task}"
