"""LLM judges' tables: endpoints, prompt versions, probe items, judge runs (job rows), the
answers (the cache of questions already asked, with their provenance) and which answer gave
each machine judgment.

A run's grades are stored as every machine judge's are (assessment.services.machine_judges):
Judgments of the MachineJudge's inactive account, one machine assignment per topic.
``JudgeGradeSource`` ties each such grade (judge, hit) to the ``JudgeAnswer`` it came from.
Probe items are not pool items: they live here only, so they never reach assessors, the pools
people see, or qrels; their answers are JudgeAnswers without a hit.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from assessment.models import MachineJudge
from collection.models import RetrievalTask, Topic
from kernel.models import JobRow
from pooling.models import Hit


class JudgeEndpoint(models.Model):
    """A server that speaks the OpenAI Chat Completions protocol. The API key is never
    stored: ``api_key_env`` names the environment variable that holds it."""

    name = models.CharField(max_length=100, unique=True)
    base_url = models.CharField(max_length=500, help_text="Where /chat/completions is posted.")
    model = models.CharField(max_length=200)
    api_key_env = models.CharField(
        max_length=100, blank=True, help_text="The NAME of the environment variable with the key."
    )
    concurrency = models.PositiveSmallIntegerField(default=4)
    requests_per_minute = models.PositiveIntegerField(default=0, help_text="0: no limit.")
    timeout_seconds = models.FloatField(default=60.0)
    price_per_1k_tokens = models.FloatField(default=0.0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(concurrency__gte=1, concurrency__lte=256),
                name="judge_endpoint_concurrency_range",
            ),
            models.CheckConstraint(
                condition=models.Q(timeout_seconds__gt=0), name="judge_endpoint_timeout_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class JudgePrompt(models.Model):
    """One version of a task's judge prompt; never edited (a change is a new version). A task
    without one uses the built-in default (version 0)."""

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="judge_prompts")
    version = models.PositiveIntegerField()
    template = models.TextField()
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["task", "version"], name="judge_prompt_version_unique"),
            models.CheckConstraint(
                condition=models.Q(version__gte=1), name="judge_prompt_version_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"Judge prompt v{self.version} of task {self.task_id}"


class ProbeItem(models.Model):
    """An item made to test the judge, not to be judged by people."""

    class Kind(models.TextChoices):
        STUFFED = "stuffed", "Topic words stuffed into unrelated text"
        INSTRUCTION = "instruction", "A sentence telling the judge the item is highly relevant"

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="judge_probes")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    key = models.CharField(max_length=40, help_text="probe-<n>: the id the judge is shown.")
    text = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "key"], name="judge_probe_key_unique"),
        ]

    def __str__(self) -> str:
        return self.key


class JudgeRun(JobRow):
    """One run of an endpoint over a task's pool items (and probes), as a background job."""

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="judge_runs")
    judge = models.ForeignKey(MachineJudge, on_delete=models.CASCADE, related_name="judge_runs")
    endpoint = models.ForeignKey(
        JudgeEndpoint, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    endpoint_name = models.CharField(max_length=100)
    model = models.CharField(max_length=200)
    prompt_version = models.PositiveIntegerField(default=0)
    parameters = models.JSONField(default=dict)  # limit, temperature, seed, max_tokens, logprobs
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0)
    asked = models.PositiveIntegerField(default=0)
    from_cache = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    retries = models.PositiveIntegerField(default=0)
    tokens = models.PositiveBigIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    stats = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Judge run {self.pk} of {self.task}"


class JudgeAnswer(models.Model):
    """A question asked of an endpoint and what it answered: the cache (one row per endpoint,
    model, prompt version, topic and item: never asked twice once answered) and the
    provenance of the grade it gave. A failed answer is kept with its text; a later run asks
    that question again."""

    endpoint_name = models.CharField(max_length=100)
    model = models.CharField(max_length=200)
    prompt_version = models.PositiveIntegerField()
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    item_key = models.CharField(max_length=200)
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    probe = models.ForeignKey(
        ProbeItem, on_delete=models.CASCADE, null=True, blank=True, related_name="answers"
    )
    run = models.ForeignKey(
        JudgeRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="answers"
    )
    ok = models.BooleanField()
    grade = models.SmallIntegerField(null=True, blank=True)
    failure = models.TextField(blank=True)
    probabilities = models.JSONField(default=dict, blank=True)  # "grade" -> probability
    raw_answer = models.TextField(blank=True)
    temperature = models.FloatField(default=0.0)
    seed = models.BigIntegerField(null=True, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint_name", "model", "prompt_version", "topic", "item_key"],
                name="judge_answer_cache_key",
            ),
            models.CheckConstraint(
                condition=models.Q(ok=False) | models.Q(grade__isnull=False),
                name="judge_answer_ok_has_grade",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.endpoint_name} on {self.item_key}"


class JudgeGradeSource(models.Model):
    """Which answer gave a machine judge's grade of a hit (its provenance)."""

    judge = models.ForeignKey(MachineJudge, on_delete=models.CASCADE, related_name="+")
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="+")
    answer = models.ForeignKey(JudgeAnswer, on_delete=models.CASCADE, related_name="sources")
    run = models.ForeignKey(
        JudgeRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "hit"], name="judge_grade_source_unique"),
        ]

    def __str__(self) -> str:
        return f"grade of hit {self.hit_id} from answer {self.answer_id}"
