"""The campaign, its tasks and topics (with the formulas of ARQMath topics)."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from collection.core.task_defaults import ARQMATH
from collection.core.task_names import TASK_NAME_MAX_CHARS
from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL, MAX_GRADE

TOPIC_NUMBER_MAX_CHARS = 64


class Campaign(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    submission_deadline = models.DateTimeField(
        null=True, blank=True, help_text="Runs are refused after this moment (a task may override)."
    )
    seed = models.IntegerField(default=0, help_text="Default random seed of the campaign's tasks.")
    max_primary_runs = models.PositiveSmallIntegerField(
        default=1, help_text="Primary runs allowed per team per task (ARQMath: 1)."
    )
    max_alternate_runs = models.PositiveSmallIntegerField(
        default=4, help_text="Alternate runs allowed per team per task (ARQMath: 4)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class RetrievalTask(models.Model):
    """A task of a campaign and its pooling settings (defaults: ARQMath-3)."""

    class Kind(models.TextChoices):
        ANSWER = "answer", "Answer retrieval (Task 1)"
        FORMULA = "formula", "Formula retrieval (Task 2)"
        OPENQA = "openqa", "Open-domain QA (Task 3)"
        DOCUMENT = "document", "Document retrieval (TREC-style)"
        RAG = "rag", "Generated answers judged by nuggets (TREC RAG)"

    class FormulaPolicy(models.TextChoices):
        VOTE = "vote", "Reciprocal-rank voting (ARQMath-2/3)"
        THREAD = "thread", "One answer per thread (ARQMath-1 guidelines)"

    class Average(models.TextChoices):
        ALL = "all", "All qrels topics, a missing topic scoring 0 (ARQMath-1's published tables)"
        RUN = "run", "The run's evaluated topics (ARQMath-2/3 scripts, trec_eval without -c)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="tasks")
    # A campaign may hold several tasks of one kind (a passage and a document task, two TREC
    # tracks), so commands, pages and uploads name a task by this short name, not its kind.
    name = models.SlugField(
        max_length=TASK_NAME_MAX_CHARS,
        help_text="Short name, unique in the campaign (e.g. task1, covid-docs); commands take "
        "it as --task.",
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    collection = models.ForeignKey(
        "DocumentCollection",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tasks",
        help_text="Document and RAG tasks: the collection judged or cited (the other kinds "
        "judge Math SE posts).",
    )
    title = models.CharField(max_length=200, blank=True)
    submission_deadline = models.DateTimeField(
        null=True, blank=True, help_text="Overrides the campaign's deadline for this task."
    )
    primary_depth = models.PositiveSmallIntegerField(default=ARQMATH.primary_depth)
    alternate_depth = models.PositiveSmallIntegerField(default=ARQMATH.alternate_depth)
    primary_k = models.PositiveSmallIntegerField(
        default=ARQMATH.primary_k, help_text="Visually distinct formulae pooled per primary run."
    )
    alternate_k = models.PositiveSmallIntegerField(default=ARQMATH.alternate_k)
    max_instances = models.PositiveSmallIntegerField(
        default=ARQMATH.max_instances,
        help_text="N: formula instances judged per visually distinct formula.",
    )
    formula_policy = models.CharField(
        max_length=10, choices=FormulaPolicy.choices, default=FormulaPolicy.VOTE
    )
    pool_comment_formulas = models.BooleanField(
        default=False,
        help_text="Pool formula instances found in comments. ARQMath's guidelines ignore them "
        "(formula instances are in questions and answers only); recorded with each build.",
    )
    pool_seed = models.IntegerField(default=0)
    relevance_level = models.PositiveSmallIntegerField(
        default=ARQMATH_RELEVANCE_LEVEL,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_GRADE)],
        help_text="Grade ≥ this is relevant for binary measures (MAP', P'@10), binary kappa "
        "and the minimum-relevant rule (ARQMath: 2, High+Medium). At most the task's top grade.",
    )
    answer_task = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="For open QA: the answer task whose pools its answers join and whose "
        "official topics its means are over (empty: the campaign's only answer task).",
    )
    # Protocol settings: used by default by the qrels page, CLI and REST.
    min_relevant = models.PositiveSmallIntegerField(
        default=ARQMATH.min_relevant,
        help_text="Qrels drop topics with fewer H+M-relevant items than this (ARQMath: 2; "
        "0 keeps every topic).",
    )
    average = models.CharField(
        max_length=3,
        choices=Average.choices,
        default=Average.ALL,
        help_text="Which topics a run's mean is taken over; recorded with every result.",
    )
    # Measure names as `evaluate --measure` takes them (trec_eval's or ir_measures'); empty:
    # the kind's defaults (evaluation: ARQMath's prime measures, unchanged).
    official_measures = models.JSONField(
        default=list,
        blank=True,
        help_text="The measures results, significance tests and reusability report (empty: "
        "the defaults of the task's kind).",
    )

    # ARQMath-3 trained its assessors on ARQMath-1 and -2 topics: earlier years' topics and
    # official qrels live in a task of their own (assessment/services/training_archive.py), so
    # the live task's pools, qrels and results never see them.
    training_for = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="training_archives",
        help_text="Set on a training archive: earlier years' topics and official qrels for "
        "training this task's assessors. An archive takes no runs and publishes nothing.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "name"], name="task_name_unique_per_campaign"
            ),
            # Commands, uploads and pages name a task by it: never empty.
            models.CheckConstraint(condition=~models.Q(name=""), name="task_name_not_empty"),
            models.CheckConstraint(
                condition=models.Q(relevance_level__gte=1, relevance_level__lte=4),
                name="task_relevance_level_range",
            ),
            # Exactly the document and RAG tasks name a document collection (RAG answers cite
            # its segments).
            models.CheckConstraint(
                condition=models.Q(kind__in=["document", "rag"], collection__isnull=False)
                | (~models.Q(kind__in=["document", "rag"]) & models.Q(collection__isnull=True)),
                name="task_collection_iff_document",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign.name} {self.name}"

    def clean(self) -> None:
        """An open-QA task may name the answer task whose pools its answers join: an answer
        task of the same campaign (the admin's form runs this; so does task_get_or_create)."""
        super().clean()
        if self.answer_task_id is None:
            return
        if self.kind != self.Kind.OPENQA:
            raise ValidationError({"answer_task": "only an open-QA task names an answer task"})
        answer = self.answer_task
        if answer is None or answer.kind != self.Kind.ANSWER:
            raise ValidationError({"answer_task": "choose an answer (Task 1) task"})
        if answer.campaign_id != self.campaign_id:
            raise ValidationError({"answer_task": "choose an answer task of the same campaign"})

    @property
    def deadline(self):  # type: ignore[no-untyped-def]
        return self.submission_deadline or self.campaign.submission_deadline


class Topic(models.Model):
    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="topics")
    number = models.CharField(max_length=TOPIC_NUMBER_MAX_CHARS)  # "A.301", "301", "1037798"
    title = models.TextField()
    question = models.TextField(
        blank=True, help_text="ARQMath: question body, HTML as in the topic file."
    )
    # TREC topics: plain text; the narrative is the assessor's criterion.
    description = models.TextField(blank=True)
    narrative = models.TextField(blank=True)
    tags = models.JSONField(default=list, blank=True)
    thread_id = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="The topic question's own thread id (not in the collection).",
    )
    formula_id = models.CharField(max_length=40, blank=True)  # query formula, formula topics
    latex = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)  # category, difficulty, ...
    source_topic = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="derived_topics"
    )

    class Meta:
        ordering = ["task", "id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "number"], name="topic_number_unique_per_task")
        ]

    def __str__(self) -> str:
        return self.number


class TopicFormula(models.Model):
    """A formula of a topic's title or question (topic-formulas-*.tsv): id like ``q_6``."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="formulas")
    formula_id = models.CharField(max_length=40)
    location = models.CharField(max_length=10)  # title | body
    latex = models.TextField(blank=True)
    slt = models.TextField(blank=True)
    visual_id = models.CharField(max_length=40, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["topic", "formula_id"], name="topic_formula_unique")
        ]

    def __str__(self) -> str:
        return f"{self.topic.number} {self.formula_id}"
