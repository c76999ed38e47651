"""The campaign, its tasks and topics, and the collections they are judged against.

Two kinds of collection coexist. The Math Stack Exchange collection (threads, posts, comments,
formula instances) is shared by every ARQMath-style task of a deployment, with the dump's own
integer ids. Document collections (issue 13) are named sets of documents with string ids
(docnos), as TREC-style campaigns have; a ``document`` task names the one it judges.
"""

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone

from collection.formats.visual_ids import COMPUTED_PREFIX

TOPIC_NUMBER_MAX_CHARS = 64
DOCNO_MAX_CHARS = 200


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

    class FormulaPolicy(models.TextChoices):
        VOTE = "vote", "Reciprocal-rank voting (ARQMath-2/3)"
        THREAD = "thread", "One answer per thread (ARQMath-1 guidelines)"

    class Average(models.TextChoices):
        ALL = "all", "All qrels topics, a missing topic scoring 0 (ARQMath-1's published tables)"
        RUN = "run", "The run's evaluated topics (ARQMath-2/3 scripts, trec_eval without -c)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="tasks")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    collection = models.ForeignKey(
        "DocumentCollection",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tasks",
        help_text="Document tasks: the collection judged (the other kinds judge Math SE posts).",
    )
    title = models.CharField(max_length=200, blank=True)
    submission_deadline = models.DateTimeField(
        null=True, blank=True, help_text="Overrides the campaign's deadline for this task."
    )
    primary_depth = models.PositiveSmallIntegerField(default=45)
    alternate_depth = models.PositiveSmallIntegerField(default=20)
    primary_k = models.PositiveSmallIntegerField(
        default=25, help_text="Visually distinct formulae pooled per primary run."
    )
    alternate_k = models.PositiveSmallIntegerField(default=15)
    max_instances = models.PositiveSmallIntegerField(
        default=5, help_text="N: formula instances judged per visually distinct formula."
    )
    formula_policy = models.CharField(
        max_length=10, choices=FormulaPolicy.choices, default=FormulaPolicy.VOTE
    )
    pool_seed = models.IntegerField(default=0)
    relevance_level = models.PositiveSmallIntegerField(
        default=2,
        validators=[MinValueValidator(1), MaxValueValidator(4)],
        help_text="Grade ≥ this is relevant for binary measures (MAP', P'@10), binary kappa "
        "and the minimum-relevant rule (ARQMath: 2, High+Medium). At most the task's top grade.",
    )
    answer_task = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="For open QA: the answer task whose pools its answers join.",
    )
    # Protocol settings (issue 12 §2, §7): used by default by the qrels page, CLI and REST.
    min_relevant = models.PositiveSmallIntegerField(
        default=2,
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

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "kind"], name="task_kind_unique_per_campaign"
            ),
            models.CheckConstraint(
                condition=models.Q(relevance_level__gte=1, relevance_level__lte=4),
                name="task_relevance_level_range",
            ),
            # Exactly the document tasks name a document collection.
            models.CheckConstraint(
                condition=models.Q(kind="document", collection__isnull=False)
                | (~models.Q(kind="document") & models.Q(collection__isnull=True)),
                name="task_collection_iff_document",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign.name} {self.kind}"

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
    # TREC topics (issue 13 §2): plain text; the narrative is the assessor's criterion.
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


class Thread(models.Model):
    """A question with its answers; the id is the question's post id."""

    id = models.BigIntegerField(primary_key=True)
    title = models.TextField()
    tags = models.JSONField(default=list, blank=True)
    accepted_answer_id = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Thread {self.id}"


class Post(models.Model):
    class Kind(models.IntegerChoices):  # Stack Exchange PostTypeId
        QUESTION = 1, "question"
        ANSWER = 2, "answer"

    id = models.BigIntegerField(primary_key=True)
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="posts")
    kind = models.PositiveSmallIntegerField(choices=Kind.choices)
    body = models.TextField(help_text="HTML as in the dump; untrusted, sanitized on display.")
    score = models.IntegerField(default=0)
    created_at = models.DateTimeField(null=True, blank=True)
    owner_user_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["thread", "kind"], name="post_thread_kind")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.id}"


class Comment(models.Model):
    id = models.BigIntegerField(primary_key=True)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="comments")
    text = models.TextField()
    score = models.IntegerField(default=0)
    created_at = models.DateTimeField(null=True, blank=True)
    user_id = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Comment {self.id}"


class Formula(models.Model):
    """One formula *instance* of the collection's formula index."""

    class Location(models.TextChoices):
        TITLE = "title"
        QUESTION = "question"
        ANSWER = "answer"
        COMMENT = "comment"

    formula_id = models.BigIntegerField(primary_key=True)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="formulas")
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="formulas")
    location = models.CharField(max_length=10, choices=Location.choices)
    comment = models.ForeignKey(
        Comment, on_delete=models.CASCADE, null=True, blank=True, related_name="formulas"
    )
    # Given ids are stored as their decimal text; computed ones are "c" + a hash of the
    # canonical symbol-layout string (collection/formats/visual_ids.py): the column stays short.
    visual_id = models.CharField(max_length=40)
    old_visual_id = models.CharField(max_length=40, blank=True)
    issue = models.CharField(max_length=20, blank=True)
    latex = models.TextField()

    class Meta:
        indexes = [
            models.Index(fields=["visual_id"], name="formula_visual_id"),
            # The few formulas whose visual id was computed (the index gave none): an SLT load
            # recomputes theirs without reading the 28 million others.
            models.Index(
                fields=["formula_id"],
                condition=models.Q(visual_id__startswith=COMPUTED_PREFIX),
                name="formula_computed_visual_id",
            ),
        ]

    def __str__(self) -> str:
        return f"Formula {self.formula_id}"


class FormulaSlt(models.Model):
    """A formula's Presentation MathML (symbol layout tree), from the SLT file.

    A table of its own, holding only the formulas that have MathML: the SLT pass is then a COPY
    into it (28 million rows at ARQMath's size), not an update of every formula row.
    """

    formula = models.OneToOneField(
        Formula, on_delete=models.CASCADE, primary_key=True, related_name="slt"
    )
    mathml = models.TextField()

    def __str__(self) -> str:
        return f"SLT of formula {self.formula_id}"


class CollectionImport(models.Model):
    """One file given to ``import_collection``: its fingerprint, and how its import ended.

    A finished import of a file with the same role and content (SHA-256) lets a re-run skip
    the file unread; a "started" row that no running import holds was killed half-way (its
    data was rolled back with it) and is marked "interrupted" by the next import.
    """

    class Role(models.TextChoices):
        POSTS = "posts", "Posts.xml"
        COMMENTS = "comments", "Comments.xml"
        FORMULAS = "formulas", "formula index"
        SLT = "slt", "SLT"

    class Status(models.TextChoices):
        STARTED = "started"
        FINISHED = "finished"
        FAILED = "failed"
        INTERRUPTED = "interrupted"

    role = models.CharField(max_length=10, choices=Role.choices)
    path = models.TextField(help_text="The file as given, made absolute.")
    size = models.BigIntegerField()
    mtime_ns = models.BigIntegerField()
    ctime_ns = models.BigIntegerField()
    sha256 = models.CharField(max_length=64, blank=True, help_text="Known once the file is read.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.STARTED)
    skipped = models.BooleanField(
        default=False, help_text="Identical to an earlier finished import: not read again."
    )
    changed = models.BooleanField(default=False, help_text="Rows were added or updated.")
    # {"posts": {"rows": 5, "added": 5, "updated": 0, "unchanged": 0}, "threads": {...}}
    counts = models.JSONField(default=dict, blank=True)
    message = models.TextField(blank=True, help_text="Why the import failed.")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["role", "sha256"], name="collection_import_content")]

    def __str__(self) -> str:
        return f"{self.role} {self.path} ({self.status})"


class DocumentCollection(models.Model):
    """A named set of documents with string ids (TREC, JSONL, TSV or ir_datasets)."""

    name = models.CharField(
        max_length=100,
        unique=True,
        validators=[
            RegexValidator(
                r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}$",
                "Use ASCII letters, digits and -_. (at most 100 characters).",
            )
        ],
    )
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Document(models.Model):
    """One document: its docno, title and body, as the collection file gave them.

    ``body`` is untrusted: HTML bodies are sanitized on display, plain text is escaped.
    ``checksum`` hashes what was imported (docno, title, body, format, URL, metadata), so a
    re-import of an unchanged document writes nothing.
    """

    class BodyFormat(models.TextChoices):
        TEXT = "text", "Plain text"
        HTML = "html", "HTML"

    collection = models.ForeignKey(
        DocumentCollection, on_delete=models.CASCADE, related_name="documents"
    )
    docno = models.CharField(max_length=DOCNO_MAX_CHARS)
    title = models.TextField(blank=True)
    body = models.TextField(blank=True)
    body_format = models.CharField(
        max_length=4, choices=BodyFormat.choices, default=BodyFormat.TEXT
    )
    url = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    checksum = models.CharField(max_length=32)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "docno"], name="document_docno_unique_per_collection"
            )
        ]

    def __str__(self) -> str:
        return self.docno


class DocumentImport(models.Model):
    """One file given to ``import_documents``, as CollectionImport is for the Math SE dump."""

    class Status(models.TextChoices):
        STARTED = "started"
        FINISHED = "finished"
        FAILED = "failed"
        INTERRUPTED = "interrupted"

    collection = models.ForeignKey(
        DocumentCollection, on_delete=models.CASCADE, related_name="imports"
    )
    source = models.TextField(help_text="The file as given (made absolute), or ir_datasets:ID.")
    file_format = models.CharField(max_length=12)  # trec | jsonl | tsv | ir_datasets
    size = models.BigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.STARTED)
    skipped = models.BooleanField(default=False)
    counts = models.JSONField(default=dict, blank=True)  # {"rows", "added", "updated", ...}
    message = models.TextField(blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["collection", "sha256"], name="document_import_content")]

    def __str__(self) -> str:
        return f"{self.collection} {self.source} ({self.status})"
