"""Admin of the evaluation app: frozen qrels, results, jobs and the publication record are
read, not edited (publish and withdraw on /results/, over REST or with publish_results)."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from evaluation.models import (
    EvaluationJob,
    EvaluationResult,
    PublicationEvent,
    QrelsVersion,
    TaskPublication,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(QrelsVersion)
class QrelsVersionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "task",
        "label",
        "level",
        "topic_count",
        "row_count",
        "unjudged_items",
        "short_checksum",
        "created_at",
    ]
    list_filter = ["level", "task__campaign"]
    readonly_fields = [
        "checksum",
        "content",
        "policy",
        "dropped_topics",
        "pool_items",
        "judged_items",
        "unjudged_items",
        "pool_topics",
        "complete_topics",
        "unjudged_topics",
        "created_at",
    ]

    @admin.display(description="SHA-256")
    def short_checksum(self, obj: QrelsVersion) -> str:
        return obj.checksum[:12]


@admin.register(EvaluationResult)
class EvaluationResultAdmin(admin.ModelAdmin):
    list_display = ["id", "run", "qrels", "average", "run_version", "created_at"]
    list_select_related = ["run__team", "qrels__task__campaign"]
    readonly_fields = [
        "qrels_checksum",
        "measures",
        "per_topic",
        "average",
        "run_version",
        "created_at",
    ]


@admin.register(EvaluationJob)
class EvaluationJobAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "status", "runs_done", "runs_total", "created_at", "finished_at"]
    list_filter = ["status"]
    list_select_related = ["task__campaign", "qrels"]
    readonly_fields = ["significance", "intervals", "reusability", "error", "created_at"]


@admin.register(TaskPublication)
class TaskPublicationAdmin(ReadOnlyAdmin):
    list_display = ["task", "published", "qrels", "changed_by", "changed_at"]
    list_select_related = ["task__campaign", "qrels", "changed_by"]


@admin.register(PublicationEvent)
class PublicationEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "task", "action", "qrels", "by_name"]
    list_filter = ["action", "task__campaign"]
    list_select_related = ["task__campaign", "qrels"]
