"""Who judges what, the judgments themselves, training rounds and adjudication."""

from django.conf import settings
from django.db import models

from collection.models import RetrievalTask, Topic
from kernel.core.grades import MAX_GRADE
from pooling.models import Hit, PoolItem

# Assessors' comments and organizers' adjudication notes: a few sentences, stored and shown
# back, so bounded. Services check it and say so; forms and admin enforce it too.
COMMENT_MAX_CHARS = 5000


class TaskGuidelines(models.Model):
    """One version of a task's guidelines: instructions and grade scale.

    Versions are never edited: a change is a new version, and the latest is the one in force.
    A task with no version is judged under the built-in defaults of its kind
    (assessment/core/guidelines_defaults.py). ``scale`` is validated JSON
    (assessment.core.guidelines.scale_from_json): grades with value, label, keys and definition,
    and the flags the task allows with label, keys and definition.
    """

    task = models.ForeignKey(
        RetrievalTask, on_delete=models.CASCADE, related_name="guidelines_versions"
    )
    version = models.PositiveIntegerField()
    instructions = models.TextField(blank=True, help_text="Markdown; math as $…$.")
    scale = models.JSONField()
    note = models.CharField(max_length=200, blank=True, help_text="What changed, in a line.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "task guidelines version"
        ordering = ["task", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["task", "version"], name="guidelines_version_unique"),
            models.CheckConstraint(
                condition=models.Q(version__gte=1), name="guidelines_version_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task} guidelines v{self.version}"


class TrainingRound(models.Model):
    """A set of topics (a few pool items each) that every assessor in the round judges."""

    class GoldSource(models.TextChoices):
        QRELS = "qrels", "Imported qrels"
        EXPERT = "expert", "An expert assessor"
        MACHINE = "machine", "A machine judge"

    task = models.ForeignKey(
        RetrievalTask, on_delete=models.CASCADE, related_name="training_rounds"
    )
    name = models.CharField(max_length=100)
    gold_source = models.CharField(max_length=10, choices=GoldSource.choices)
    expert = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    machine_judge = models.ForeignKey(
        "MachineJudge", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    show_gold_after_submit = models.BooleanField(default=False)
    items = models.ManyToManyField(PoolItem, blank=True, related_name="training_rounds")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "name"], name="training_round_name_unique")
        ]

    def __str__(self) -> str:
        return self.name


class GoldGrade(models.Model):
    """The reference grade of a hit in a training round."""

    training_round = models.ForeignKey(TrainingRound, on_delete=models.CASCADE, related_name="gold")
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="+")
    grade = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["training_round", "hit"], name="gold_unique"),
            models.CheckConstraint(
                condition=models.Q(grade__lte=MAX_GRADE), name="gold_grade_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.hit_id}={self.grade}"


class Assignment(models.Model):
    """A topic given to an assessor. A move never changes an assignment's
    assessor: it revokes the assignment and creates a new one that ``replaces`` it, so every
    judgment stays with the assignment (and the assessor) it was made under.

    ``handover`` says what the new assessor takes over. ``continue``: the hits already judged
    along the line of moves count as done (shown as "judged by a previous assessor", never
    their grade), and the new assessor judges the rest; ``line_start`` names the first
    assignment of that line, so one indexed comparison finds every judgment the line holds.
    ``start_over``: the new assessor judges every hit blind, and the earlier judgments no
    longer count toward qrels (docs/agreement.md "Moving a topic").
    """

    class Purpose(models.TextChoices):
        OFFICIAL = "official"
        DUAL = "dual"
        TRAINING = "training"
        MACHINE = "machine"  # a machine judge's grades for one topic (MachineJudge)

    class Handover(models.TextChoices):
        NONE = "", "Not a move"
        CONTINUE = "continue", "Continue: the new assessor judges what is left"
        START_OVER = "start_over", "Start over: the new assessor judges every item blind"

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="assignments")
    assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    purpose = models.CharField(max_length=10, choices=Purpose.choices)
    training_round = models.ForeignKey(
        TrainingRound, on_delete=models.CASCADE, null=True, blank=True, related_name="assignments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(
        null=True, blank=True, help_text="Training: the assessor handed the round in."
    )
    replaces = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replaced_by",
        help_text="The (revoked) assignment this one took over by a move.",
    )
    handover = models.CharField(
        max_length=10, choices=Handover.choices, blank=True, default=Handover.NONE
    )
    line_start = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="Continue-moves: the first assignment of the line this one carries on.",
    )
    scoped = models.BooleanField(
        default=False,
        help_text="Covers only its AssignmentItem rows (e.g. a drawn human sample), not the "
        "topic's whole pool.",
    )

    class Meta:
        constraints = [
            # Each topic has one official assignment at a time.
            models.UniqueConstraint(
                fields=["topic"],
                condition=models.Q(purpose="official", revoked_at__isnull=True),
                name="one_official_assignment_per_topic",
            ),
            models.UniqueConstraint(
                fields=["topic", "assessor", "purpose", "training_round"],
                condition=models.Q(revoked_at__isnull=True),
                name="assignment_unique_active",
            ),
            models.CheckConstraint(
                condition=models.Q(purpose="training", training_round__isnull=False)
                | (~models.Q(purpose="training") & models.Q(training_round__isnull=True)),
                name="training_assignment_has_round",
            ),
            # A move names what it replaces and how; nothing else has a handover.
            models.CheckConstraint(
                condition=(models.Q(replaces__isnull=True) & models.Q(handover=""))
                | (
                    models.Q(replaces__isnull=False)
                    & models.Q(handover__in=["continue", "start_over"])
                    & ~models.Q(purpose="training")
                ),
                name="assignment_handover_with_replaces",
            ),
            # Exactly the continue-moves carry a line on.
            models.CheckConstraint(
                condition=models.Q(handover="continue", line_start__isnull=False)
                | (~models.Q(handover="continue") & models.Q(line_start__isnull=True)),
                name="assignment_line_only_when_continuing",
            ),
        ]
        indexes = [models.Index(fields=["assessor", "revoked_at"], name="assignment_assessor")]

    def __str__(self) -> str:
        return f"{self.topic.number} → {self.assessor} ({self.purpose})"


class AssignmentItem(models.Model):
    """One pool item a scoped assignment covers. Removing it (or revoking the assignment)
    never touches a judgment: judgments hang on the assignment and the hit, not on this row."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="scope")
    item = models.ForeignKey(PoolItem, on_delete=models.CASCADE, related_name="assignment_scopes")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "item"], name="assignment_item_unique")
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id}:{self.item_id}"


class MachineJudge(models.Model):
    """A judge that is not a person: an LLM judge, last year's qrels, ...

    Its grades are imported, not given in the judging page: they are Judgments of ``account``
    (an inactive user that can never log in) under one ``machine`` assignment per topic, so the
    agreement tables compare it with every human like one more assessor. It never reaches an
    assessor's page, and counts toward its task's qrels only with ``counts_in_qrels``.
    """

    task = models.ForeignKey(RetrievalTask, on_delete=models.CASCADE, related_name="machine_judges")
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, max_length=COMMENT_MAX_CHARS)
    account = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="machine_judge"
    )
    counts_in_qrels = models.BooleanField(
        default=False,
        help_text="Its grades fill the hits no person's judgment decides in official qrels.",
    )
    unlisted_not_relevant = models.BooleanField(
        default=False,
        help_text="The file lists only relevant items (classic collections' qrels): a pooled "
        "hit of a topic the file grades that it does not list is graded 0.",
    )
    suggests = models.BooleanField(
        default=False,
        help_text="Assisted mode: its grade is shown to assessors as a suggestion on the judging "
        "page (at most one judge of a task).",
    )
    source_name = models.CharField(max_length=255, blank=True)
    checksum = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the file.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "name"], name="machine_judge_name_unique"),
            models.UniqueConstraint(
                fields=["task"],
                condition=models.Q(counts_in_qrels=True),
                name="one_machine_judge_in_qrels_per_task",
            ),
            models.UniqueConstraint(
                fields=["task"],
                condition=models.Q(suggests=True),
                name="one_suggesting_machine_judge_per_task",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Judgment(models.Model):
    class Flag(models.TextChoices):
        NONE = "", "—"
        SYSTEM_FAILURE = "system_failure", "System failure"
        DONT_KNOW = "dont_know", "Do not know"

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="judgments")
    hit = models.ForeignKey(Hit, on_delete=models.PROTECT, related_name="judgments")
    assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments"
    )
    grade = models.PositiveSmallIntegerField(null=True, blank=True)  # 0..G of the task's scale
    flag = models.CharField(max_length=20, choices=Flag.choices, blank=True, default="")
    comment = models.TextField(blank=True, max_length=COMMENT_MAX_CHARS)
    active_seconds = models.FloatField(default=0.0)
    # Answers to the guidelines' extra questions on this hit (question code -> yes/no, e.g.
    # {"mg": false, "ui": true}); empty where none was asked. A JSON field, not a table: a
    # judgment has at most a handful, always read and revised with its grade.
    answers = models.JSONField(default=dict, blank=True)
    revision = models.PositiveIntegerField(default=1)
    # Whether the judging page showed a machine judge's grade as a suggestion when this value
    # was given (the task's assisted mode), so agreement can be split by it.
    suggestion_shown = models.BooleanField(default=False)
    # The token of the last request that wrote this judgment: a retried request (same token)
    # is answered with the stored judgment and adds no active time twice.
    client_token = models.CharField(max_length=64, blank=True)
    # The guidelines in force when the value it holds was given; empty: the built-in defaults
    # (every judgment made before its task had a saved version).
    guidelines_version = models.ForeignKey(
        TaskGuidelines,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="judgments",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "hit"], name="judgment_unique"),
            models.CheckConstraint(
                condition=(models.Q(grade__isnull=False, grade__lte=MAX_GRADE) & models.Q(flag=""))
                | (models.Q(grade__isnull=True) & ~models.Q(flag="") & ~models.Q(comment="")),
                name="judgment_grade_xor_flag_with_comment",
            ),
        ]
        indexes = [models.Index(fields=["hit"], name="judgment_hit")]

    def __str__(self) -> str:
        return f"{self.hit_id}: {self.grade if self.grade is not None else self.flag}"


class JudgmentRevision(models.Model):
    """Every value a judgment has had, in order: nothing an assessor said is ever lost."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now_add=True)
    grade = models.PositiveSmallIntegerField(null=True, blank=True)
    flag = models.CharField(max_length=20, blank=True)
    comment = models.TextField(blank=True, max_length=COMMENT_MAX_CHARS)
    active_seconds = models.FloatField(default=0.0)
    answers = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["judgment", "number"]
        constraints = [
            models.UniqueConstraint(fields=["judgment", "number"], name="revision_unique")
        ]

    def __str__(self) -> str:
        return f"{self.judgment_id} r{self.number}"


class Adjudication(models.Model):
    """An organizer's final grade for a hit where dual assessors disagree."""

    hit = models.OneToOneField(Hit, on_delete=models.PROTECT, related_name="adjudication")
    grade = models.PositiveSmallIntegerField()
    note = models.TextField(blank=True, max_length=COMMENT_MAX_CHARS)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(grade__lte=MAX_GRADE), name="adjudication_grade_range"
            )
        ]

    def __str__(self) -> str:
        return f"{self.hit_id}={self.grade}"
