"""Generated answers, the nuggets of each topic, and the labels that say which answer supports
which nugget (TREC RAG 2024's nugget evaluation).

A RAG run is a ``pooling.Run`` of a ``rag`` task (team, tag, deadline and limits as for every
run); its answers are ``RagAnswer`` rows, one per topic. A topic's nuggets are edited in place
and every change is kept as a ``NuggetRevision`` (a numbered snapshot of the whole list, with who
made it), so any earlier version can be shown. Labels belong to an ``assessment.Assignment`` of
the topic, as judgments do: assigned, moved and revoked by the same rules.
"""

from django.conf import settings
from django.db import models

from assessment.models import Assignment
from collection.models import RetrievalTask, Topic
from judges.models import JudgeEndpoint
from kernel.models import JobRow
from nuggets.core.citations import CitationSupport
from nuggets.core.nuggetizer import MAX_NUGGET_CHARS
from nuggets.core.rag_runs import DEFAULT_MAX_ANSWER_WORDS
from nuggets.core.scores import Importance, Support
from pooling.models import Run


class RagSettings(models.Model):
    """What a ``rag`` task states beyond every task's settings."""

    task = models.OneToOneField(RetrievalTask, on_delete=models.CASCADE, related_name="rag")
    max_answer_words = models.PositiveIntegerField(
        default=DEFAULT_MAX_ANSWER_WORDS,
        help_text="The longest answer a run may give, in words (TREC RAG 2024: 400).",
    )

    def __str__(self) -> str:
        return f"{self.task}: {self.max_answer_words} words"


class RagAnswer(models.Model):
    """One run's generated answer to one topic: its sentences and the segments they cite."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rag_answers")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="rag_answers")
    references = models.JSONField(default=list)  # segment ids (docnos of the collection)
    # [{"text": str, "citations": [segment id, ...]}, ...] in the answer's order.
    sentences = models.JSONField(default=list)
    response_length = models.PositiveIntegerField()
    line = models.PositiveIntegerField(help_text="The line of the run file it came from.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "topic"], name="rag_answer_one_per_topic")
        ]
        indexes = [models.Index(fields=["topic"], name="rag_answer_topic")]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.topic_id}"


class Nugget(models.Model):
    """A short fact a good answer to the topic contains. Deleting keeps the row (labels point
    to it) and drops it from the list."""

    class Origin(models.TextChoices):
        PERSON = "person"
        MACHINE = "machine"

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nuggets")
    text = models.TextField(max_length=MAX_NUGGET_CHARS)
    importance = models.CharField(
        max_length=5, choices=[(i.value, i.value) for i in Importance], default=Importance.OKAY
    )
    position = models.PositiveIntegerField()
    origin = models.CharField(max_length=7, choices=Origin.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    provenance = models.TextField(
        blank=True, help_text="Machine nuggets: the judge, model or file that proposed it."
    )
    is_deleted = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["topic", "position"]
        indexes = [models.Index(fields=["topic", "is_deleted"], name="nugget_topic_live")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(importance__in=[i.value for i in Importance]),
                name="nugget_importance_known",
            )
        ]

    def __str__(self) -> str:
        return self.text[:60]


class NuggetRevision(models.Model):
    """A topic's nugget list after one change: version 1, 2, … with who changed it and how."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nugget_revisions")
    version = models.PositiveIntegerField()
    action = models.CharField(max_length=40)  # add, edit, importance, move, merge, delete, import
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # [{"id", "text", "importance", "origin", "provenance"}, ...] in the list's order.
    nuggets = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["topic", "version"], name="nugget_revision_unique")
        ]

    def __str__(self) -> str:
        return f"{self.topic_id} v{self.version}"


class NuggetMachineAnswer(models.Model):
    """A judge endpoint's answer to "propose this topic's nuggets": the cache (one row per
    endpoint, model, prompt version and question, so a question once answered is never sent
    again) and the provenance of the proposals drawn from it. A failed answer is kept with
    its text and why it failed; asking again replaces it."""

    endpoint_name = models.CharField(max_length=100)
    model = models.CharField(max_length=200)
    prompt_version = models.PositiveIntegerField()
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    question_digest = models.CharField(max_length=64, help_text="SHA-256 of the prompt sent.")
    sources = models.JSONField(default=list)  # the docnos the prompt gave, in its order
    ok = models.BooleanField()
    failure = models.TextField(blank=True)
    raw_answer = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint_name", "model", "prompt_version", "question_digest"],
                name="nugget_machine_answer_cache_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.endpoint_name} on topic {self.topic_id}"


class NuggetProposalRun(JobRow):
    """One request for a topic's proposals from an endpoint, as a background job."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nugget_asks")
    endpoint = models.ForeignKey(
        JudgeEndpoint, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    endpoint_name = models.CharField(max_length=100)
    model = models.CharField(max_length=200)
    prompt_version = models.PositiveIntegerField()
    answer = models.ForeignKey(
        NuggetMachineAnswer, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    from_cache = models.BooleanField(default=False)
    proposed = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Nugget proposals for topic {self.topic_id} from {self.endpoint_name}"


class NuggetProposal(models.Model):
    """A nugget a machine proposed, waiting for (or given) the editor's decision."""

    class Decision(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        EDITED = "edited"
        REJECTED = "rejected"

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nugget_proposals")
    text = models.TextField(max_length=MAX_NUGGET_CHARS)
    importance = models.CharField(max_length=5, default=Importance.OKAY)
    provenance = models.TextField(help_text="The judge, model or file that proposed it.")
    decision = models.CharField(max_length=8, choices=Decision.choices, default=Decision.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    nugget = models.ForeignKey(
        Nugget, on_delete=models.SET_NULL, null=True, blank=True, related_name="proposals"
    )
    # Proposed by an endpoint: the answer it came from (endpoint, model, prompt version, raw
    # answer, tokens). Proposed from a file: empty, ``provenance`` names the file.
    machine_answer = models.ForeignKey(
        NuggetMachineAnswer,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="proposals",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.decision}: {self.text[:60]}"


SUPPORT_CHOICES = [(s.value, s.value) for s in Support]


class NuggetLabel(models.Model):
    """Whether an answer supports a nugget, as one assignment (an assessor's or a machine's)
    says; every change is kept as a ``NuggetLabelRevision``."""

    assignment = models.ForeignKey(
        Assignment, on_delete=models.PROTECT, related_name="nugget_labels"
    )
    answer = models.ForeignKey(RagAnswer, on_delete=models.PROTECT, related_name="labels")
    nugget = models.ForeignKey(Nugget, on_delete=models.PROTECT, related_name="labels")
    support = models.CharField(max_length=15, choices=SUPPORT_CHOICES)
    assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="nugget_labels"
    )
    revision = models.PositiveIntegerField(default=1)
    # The last request that wrote it: the same request again changes nothing.
    client_token = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "answer", "nugget"], name="nugget_label_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(support__in=[s.value for s in Support]),
                name="nugget_label_support_known",
            ),
        ]
        indexes = [models.Index(fields=["answer"], name="nugget_label_answer")]

    def __str__(self) -> str:
        return f"{self.answer_id}/{self.nugget_id}: {self.support}"


class NuggetLabelRevision(models.Model):
    """Every value a label has had: nothing an assessor said is lost."""

    label = models.ForeignKey(NuggetLabel, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    support = models.CharField(max_length=15, choices=SUPPORT_CHOICES)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["label", "number"], name="nugget_label_revision_unique")
        ]

    def __str__(self) -> str:
        return f"{self.label_id} r{self.number}: {self.support}"


class CitationLabel(models.Model):
    """Whether a cited segment supports the answer sentence citing it (full, partial, none),
    as one assignment says; ``history`` keeps every earlier value with who gave it."""

    assignment = models.ForeignKey(
        Assignment, on_delete=models.PROTECT, related_name="citation_labels"
    )
    answer = models.ForeignKey(RagAnswer, on_delete=models.PROTECT, related_name="citation_labels")
    sentence = models.PositiveIntegerField(help_text="The sentence's index in the answer.")
    segment = models.CharField(max_length=200)  # a docno the sentence cites
    support = models.CharField(max_length=7, choices=[(s.value, s.value) for s in CitationSupport])
    assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="citation_labels"
    )
    revision = models.PositiveIntegerField(default=1)
    history = models.JSONField(default=list, blank=True)  # [{"support", "by", "at"}, ...]
    client_token = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "answer", "sentence", "segment"],
                name="citation_label_unique",
            ),
            models.CheckConstraint(
                condition=models.Q(support__in=[s.value for s in CitationSupport]),
                name="citation_label_support_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.answer_id}[{self.sentence}] {self.segment}: {self.support}"


ADJUDICATION_NOTE_MAX_CHARS = 2_000


class NuggetAdjudication(models.Model):
    """An organizer's final label of (answer, nugget) where the labels disagree. Scores take it
    before any assessor's label; the labels stay as they were, and ``history`` keeps every
    earlier decision with who made it and when."""

    answer = models.ForeignKey(RagAnswer, on_delete=models.PROTECT, related_name="adjudications")
    nugget = models.ForeignKey(Nugget, on_delete=models.PROTECT, related_name="adjudications")
    support = models.CharField(max_length=15, choices=SUPPORT_CHOICES)
    note = models.TextField(blank=True, max_length=ADJUDICATION_NOTE_MAX_CHARS)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now=True)
    history = models.JSONField(default=list, blank=True)  # [{"support", "note", "by", "at"}]

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["answer", "nugget"], name="nugget_adjudication_unique"),
            models.CheckConstraint(
                condition=models.Q(support__in=[s.value for s in Support]),
                name="nugget_adjudication_support_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.answer_id}/{self.nugget_id}: final {self.support}"


class NuggetScoreSnapshot(models.Model):
    """A RAG task's nugget scores frozen when published: participants see these figures, not
    whatever the labels say later. Never changed; a new publication makes a new snapshot."""

    task = models.ForeignKey(
        RetrievalTask, on_delete=models.CASCADE, related_name="nugget_snapshots"
    )
    # {"topics": [...], "measures": [...], "runs": [{"run", "team", "team_id", "measures",
    #  "per_topic", "judged", "to_judge"}]}
    scores = models.JSONField()
    checksum = models.CharField(max_length=64)  # sha256 of the scores' canonical JSON
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.task} nugget scores {self.checksum[:12]}"


class NuggetPublicationEvent(models.Model):
    """Append-only record of publishing a RAG task's nugget scores and withdrawing them; the
    latest event of a task is its state."""

    class Action(models.TextChoices):
        PUBLISH = "publish"
        WITHDRAW = "withdraw"

    task = models.ForeignKey(
        RetrievalTask, on_delete=models.CASCADE, related_name="nugget_publication_events"
    )
    action = models.CharField(max_length=8, choices=Action.choices)
    snapshot = models.ForeignKey(
        NuggetScoreSnapshot, on_delete=models.PROTECT, related_name="events"
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    by_name = models.CharField(max_length=150, blank=True, help_text="Kept if the user goes.")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["task", "-at"], name="nugget_publication_task_at")]

    def __str__(self) -> str:
        return f"{self.task} nugget scores {self.action} at {self.at:%Y-%m-%d %H:%M}"
