"""Django admin for the campaign and the collection (organizers' back office).

The collection tables hold millions of rows: foreign keys are raw-id inputs, list pages select
their related rows in the same query and skip the full count.
"""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from collection.core.task_defaults import KIND_DEFAULTS, defaults_summary, task_defaults
from collection.models import (
    Campaign,
    CollectionImport,
    Comment,
    Document,
    DocumentCollection,
    DocumentImport,
    Formula,
    Post,
    RetrievalTask,
    Thread,
    Topic,
    TopicFormula,
)


class RetrievalTaskInline(admin.TabularInline):
    model = RetrievalTask
    extra = 0
    fields = ("name", "kind", "title", "submission_deadline", "primary_depth", "alternate_depth")
    show_change_link = True


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    # Publication is per task now: /results/ (evaluation.TaskPublication).
    list_display = ("name", "submission_deadline", "created_at")
    search_fields = ("name",)
    inlines = [RetrievalTaskInline]


@admin.register(RetrievalTask)
class RetrievalTaskAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "kind",
        "primary_depth",
        "alternate_depth",
        "primary_k",
        "alternate_k",
        "min_relevant",
        "average",
    )
    list_filter = ("kind", "campaign")
    list_select_related = ("campaign",)
    search_fields = ("name", "campaign__name")
    raw_id_fields = ("answer_task",)
    # Checked against the task's grade scale, so it is set with the scale on
    # /organize/task/<id>/guidelines/.
    readonly_fields = ("relevance_level",)

    def save_model(self, request: HttpRequest, obj: RetrievalTask, form: Any, change: bool) -> None:
        """A new task takes its kind's defaults for every setting the organizer left as the
        form offered it (collection/core/task_defaults.py), and says which."""
        if not change and obj.kind in KIND_DEFAULTS:
            for name, value in task_defaults(obj.kind).as_fields().items():
                if name not in form.changed_data:
                    setattr(obj, name, value)
            self.message_user(
                request, f"The {obj.kind} task starts with its kind's defaults: "
                f"{defaults_summary(obj.kind)}."
            )  # fmt: skip
        super().save_model(request, obj, form, change)


class TopicFormulaInline(admin.TabularInline):
    model = TopicFormula
    extra = 0
    fields = ("formula_id", "location", "latex", "visual_id")


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ("number", "task", "title", "formula_id", "thread_id")
    list_filter = ("task__campaign", "task__kind")
    list_select_related = ("task__campaign",)
    search_fields = ("number", "title", "formula_id")
    raw_id_fields = ("source_topic",)
    inlines = [TopicFormulaInline]


@admin.register(Thread)
class ThreadAdmin(admin.ModelAdmin):
    list_display = ("id", "title")
    search_fields = ("=id", "title")
    show_full_result_count = False


@admin.register(Post)
class PostAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "thread", "score", "created_at")
    list_filter = ("kind",)
    list_select_related = ("thread",)
    search_fields = ("=id", "=thread__id")
    raw_id_fields = ("thread",)
    show_full_result_count = False


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ("id", "post", "score", "created_at")
    search_fields = ("=id", "=post__id")
    raw_id_fields = ("post",)
    show_full_result_count = False


@admin.register(Formula)
class FormulaAdmin(admin.ModelAdmin):
    list_display = ("formula_id", "visual_id", "location", "post", "latex")
    list_filter = ("location",)
    list_select_related = ("post",)
    search_fields = ("=formula_id", "=visual_id", "=post__id")
    raw_id_fields = ("post", "thread", "comment")
    show_full_result_count = False


@admin.register(CollectionImport)
class CollectionImportAdmin(admin.ModelAdmin):
    """The import ledger (collection/services/collection_import/ledger.py): read-only, written
    by ``import_collection`` alone, so a re-run skips exactly what it should."""

    list_display = ["role", "path", "status", "skipped", "changed", "started_at", "finished_at"]
    list_filter = ["role", "status"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class DocumentImportInline(admin.TabularInline):
    model = DocumentImport
    extra = 0
    fields = ("source", "file_format", "status", "skipped", "counts", "started_at", "message")
    readonly_fields = fields
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(DocumentCollection)
class DocumentCollectionAdmin(admin.ModelAdmin):
    """Collections are made by ``import_documents``; here only their description is edited."""

    list_display = ("name", "description", "created_at")
    search_fields = ("name",)
    readonly_fields = ("name", "created_at")
    inlines = [DocumentImportInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    """Read-only: documents change by importing a newer file (the checksum must match them).
    Search by exact docno; filter by collection first on a big table."""

    list_display = ("docno", "collection", "title", "body_format")
    list_filter = ("collection", "body_format")
    list_select_related = ("collection",)
    search_fields = ("=docno",)
    show_full_result_count = False
    fields = ("collection", "docno", "title", "body_format", "url", "metadata", "checksum", "body")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(DocumentImport)
class DocumentImportAdmin(admin.ModelAdmin):
    """The document import ledger (collection/services/document_import/ledger.py), read-only."""

    list_display = ["collection", "source", "file_format", "status", "skipped", "started_at"]
    list_filter = ["status", "file_format", "collection"]
    list_select_related = ("collection",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
