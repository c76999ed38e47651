"""The Math Stack Exchange collection: threads, posts, comments, formula instances and their
MathML, and the ledger of the files they were imported from.

It is shared by every ARQMath-style task of a deployment, with the dump's own integer ids.
"""

from django.db import models
from django.utils import timezone

from collection.core.formats.visual_ids import COMPUTED_PREFIX


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
    # canonical symbol-layout string (collection/core/formats/visual_ids.py): the column stays
    # short.
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
