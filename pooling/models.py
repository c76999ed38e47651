"""Teams, their runs, and the pools built from them.

A pool is kept *annotated*: every (run, rank) that put an item in the pool is stored as a
Contribution, so any depth-k pool can be rebuilt and each run's unique contributions counted.
"""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from collection.models import DOCNO_MAX_CHARS, Document, RetrievalTask, Topic
from kernel.models import JobRow
from pooling.core.formats.model import MAX_ANSWER_CHARS, MAX_SOURCES_CHARS

RUN_TAG_VALIDATOR = RegexValidator(
    r"^[A-Za-z0-9_.\-]{1,40}$", "Use ASCII letters, digits and -_. (at most 40 characters)."
)
# Participants write it; it is stored and shown back (every stored text is bounded).
RUN_DESCRIPTION_MAX_CHARS = 4000
TEAM_NAME_MAX_CHARS = 100


class Team(models.Model):
    name = models.CharField(max_length=TEAM_NAME_MAX_CHARS, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="teams", blank=True)
    # The campaigns the team registered for: its members are offered, and may submit to, those
    # campaigns' tasks only. None named: every campaign (teams from before campaigns were named,
    # and teams an organizer's run import creates). The rule: pooling.access.team_may_submit.
    campaigns = models.ManyToManyField(
        "collection.Campaign",
        related_name="teams",
        blank=True,
        help_text="Campaigns this team takes part in; none: every campaign.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    class Role(models.TextChoices):
        PRIMARY = "primary"
        ALTERNATE = "alternate"

    class DeclaredData(models.TextChoices):
        TEXT = "text"
        MATH = "math"
        BOTH = "both"

    class Status(models.TextChoices):
        ACCEPTED = "accepted"
        WITHDRAWN = "withdrawn"

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="runs")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=40, validators=[RUN_TAG_VALIDATOR])
    role = models.CharField(max_length=10, choices=Role.choices)
    is_manual = models.BooleanField(default=False)
    # ARQMath's "data used" (text, math or both); blank for document (TREC-style) tasks.
    declared_data = models.CharField(
        max_length=5, choices=DeclaredData.choices, default=DeclaredData.BOTH, blank=True
    )
    description = models.TextField(blank=True, max_length=RUN_DESCRIPTION_MAX_CHARS)
    # Organizer-only fields.
    is_baseline = models.BooleanField(default=False)
    pool_as_primary = models.BooleanField(default=False)
    depth_override = models.PositiveSmallIntegerField(null=True, blank=True)

    file_name = models.CharField(max_length=255, blank=True)
    checksum = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the file.")
    file_format = models.CharField(max_length=20, blank=True)
    row_count = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACCEPTED)
    report = models.JSONField(default=dict, blank=True, help_text="Validation warnings.")
    version = models.PositiveIntegerField(default=1, help_text="Bumped by each replacement.")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    uploaded_at = models.DateTimeField()

    class Meta:
        ordering = ["task", "team__name", "tag"]
        constraints = [
            models.UniqueConstraint(fields=["task", "team", "tag"], name="run_tag_unique_per_team"),
            models.CheckConstraint(
                condition=models.Q(depth_override__isnull=True) | models.Q(depth_override__gt=0),
                name="run_depth_override_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.team.name}/{self.tag}"


class RunRow(models.Model):
    """One ranked result. Ids are the collection's; they are checked at upload, not by FKs,
    so that rows load with COPY at full speed."""

    # No database-level foreign keys: run_id and topic_id are written by run_rows_store in the
    # transaction that creates the run, from the task's own topics; PostgreSQL's deferred FK
    # checks tripled the time of a run's COPY + commit (bench/ingest_runs.py). Deletes still
    # cascade through the ORM. The (run, topic, rank) index serves lookups by run.
    run = models.ForeignKey(
        Run, on_delete=models.CASCADE, related_name="rows", db_constraint=False, db_index=False
    )
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    post_id = models.BigIntegerField(null=True, blank=True)
    formula_id = models.BigIntegerField(null=True, blank=True)
    # Document tasks: the docno, checked against the task's collection at upload. The database
    # default lets the other kinds' COPY leave the column out.
    docno = models.CharField(max_length=DOCNO_MAX_CHARS, blank=True, default="", db_default="")
    rank = models.PositiveIntegerField()
    score = models.FloatField()
    answer = models.TextField(blank=True, max_length=MAX_ANSWER_CHARS)  # open QA
    sources = models.TextField(blank=True, max_length=MAX_SOURCES_CHARS)  # open QA

    class Meta:
        indexes = [models.Index(fields=["run", "topic", "rank"], name="runrow_run_topic_rank")]

    def __str__(self) -> str:
        return f"{self.run_id} {self.topic_id} {self.rank}"


class PoolBuild(JobRow):
    """One build of a task's pools, with the settings it used and its progress."""

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="pool_builds")
    parameters = models.JSONField(default=dict)  # depths, k, N, policy, seed
    topics_done = models.PositiveIntegerField(default=0)
    topics_total = models.PositiveIntegerField(default=0)
    stats = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"Build {self.id} of {self.task}"


class PoolItem(models.Model):
    """One page to judge: an answer post, a visually distinct formula, a generated answer or a
    document."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="pool_items")
    # Post id, visual id, generated-answer id or docno.
    key = models.CharField(max_length=DOCNO_MAX_CHARS)
    post_id = models.BigIntegerField(null=True, blank=True)  # answer items
    document = models.ForeignKey(  # document items
        Document, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    visual_id = models.CharField(max_length=40, blank=True)  # formula items
    answer = models.TextField(blank=True)  # open QA items
    display_order = models.PositiveIntegerField()
    entered_build = models.ForeignKey(
        PoolBuild, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    entered_at = models.DateTimeField(auto_now_add=True)
    is_orphaned = models.BooleanField(
        default=False, help_text="Judged, but no run contributes it any more."
    )

    class Meta:
        ordering = ["topic", "display_order"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "key"], name="pool_item_key_unique"),
            models.UniqueConstraint(
                fields=["topic", "display_order"], name="pool_item_display_order_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.topic.number}:{self.key}"


class Contribution(models.Model):
    """A run put a pool item in the pool at this rank (its best rank for that item)."""

    item = models.ForeignKey(PoolItem, on_delete=models.CASCADE, related_name="contributions")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="contributions")
    rank = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "run"], name="contribution_unique")]
        indexes = [models.Index(fields=["run", "rank"], name="contribution_run_rank")]

    def __str__(self) -> str:
        return f"{self.run_id}@{self.rank} -> {self.item_id}"


class Hit(models.Model):
    """One judged unit: the answer or document itself, or one formula instance in its post."""

    item = models.ForeignKey(PoolItem, on_delete=models.CASCADE, related_name="hits")
    post_id = models.BigIntegerField(null=True, blank=True)
    formula_id = models.BigIntegerField(null=True, blank=True)
    document = models.ForeignKey(
        Document, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    position = models.PositiveSmallIntegerField(default=0)  # order within the item
    vote = models.FloatField(default=0.0)  # sum of 1/rank; never shown to assessors

    class Meta:
        ordering = ["item", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "post_id"],
                condition=models.Q(formula_id__isnull=True),
                name="hit_post_unique_per_item",
            ),
            models.UniqueConstraint(
                fields=["item", "formula_id"],
                condition=models.Q(formula_id__isnull=False),
                name="hit_formula_unique_per_item",
            ),
            models.UniqueConstraint(
                fields=["item", "document"],
                condition=models.Q(document__isnull=False),
                name="hit_document_unique_per_item",
            ),
        ]

    def __str__(self) -> str:
        return f"Hit {self.id} of {self.item_id}"


class TopicPoolState(models.Model):
    """What a topic's stored pool was last built from.

    ``fingerprint`` hashes the build's inputs for this topic: the pooling settings and seed,
    the topic's number, and each accepted run with rows for it (role, depth override, flags,
    version). A rebuild recomputes only topics whose fingerprint changed; it is written in the
    transaction that writes the topic's pool, so it never claims more than is stored.
    """

    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="pool_state")
    fingerprint = models.CharField(max_length=64)
    built_by = models.ForeignKey(
        PoolBuild, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.topic_id}: {self.fingerprint[:12]}"
