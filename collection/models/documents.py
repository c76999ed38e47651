"""Document collections: named sets of documents with string ids (docnos), as
TREC-style campaigns have; a ``document`` task names the one it judges."""

from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

DOCNO_MAX_CHARS = 200


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
