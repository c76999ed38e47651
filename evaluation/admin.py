"""Admin of the evaluation app: frozen qrels, results and jobs are read, not edited."""

from django.contrib import admin

from evaluation.models import EvaluationJob, EvaluationResult, QrelsVersion


@admin.register(QrelsVersion)
class QrelsVersionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "task",
        "label",
        "level",
        "topic_count",
        "row_count",
        "short_checksum",
        "created_at",
    ]
    list_filter = ["level", "task__campaign"]
    readonly_fields = ["checksum", "content", "policy", "dropped_topics", "created_at"]

    @admin.display(description="SHA-256")
    def short_checksum(self, obj: QrelsVersion) -> str:
        return obj.checksum[:12]


@admin.register(EvaluationResult)
class EvaluationResultAdmin(admin.ModelAdmin):
    list_display = ["id", "run", "qrels", "created_at"]
    list_select_related = ["run__team", "qrels__task__campaign"]
    readonly_fields = ["qrels_checksum", "measures", "per_topic", "created_at"]


@admin.register(EvaluationJob)
class EvaluationJobAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "status", "runs_done", "runs_total", "created_at", "finished_at"]
    list_filter = ["status"]
    list_select_related = ["task__campaign", "qrels"]
    readonly_fields = ["significance", "intervals", "reusability", "error", "created_at"]
