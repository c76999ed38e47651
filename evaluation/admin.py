"""Admin of the evaluation app: frozen qrels, results, jobs and the publication record are
read, not edited (publish and withdraw on /results/, over REST or with publish_results). It
also checks the official measures of a task edited in the collection app's task admin."""

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from collection.admin import RetrievalTaskAdmin
from collection.models import RetrievalTask
from evaluation.core.official import official_measures_check
from evaluation.core.trec_names import MeasureNameError
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


class RetrievalTaskForm(forms.ModelForm):
    """The task's admin form, its official measures checked by the measure parser (the
    evaluation app owns measure names, so it swaps the form in; collection cannot import it)."""

    class Meta:
        model = RetrievalTask
        fields = "__all__"  # noqa: DJ007 - the collection app's admin chooses what is shown

    def clean_official_measures(self) -> list[str]:
        names = self.cleaned_data.get("official_measures") or []
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise forms.ValidationError('a JSON list of measure names, as ["map", "P_10"]')
        kind = self.cleaned_data.get("kind") or (self.instance.kind if self.instance else "")
        try:
            return official_measures_check(kind, names)
        except MeasureNameError as error:
            raise forms.ValidationError(str(error)) from None


class RetrievalTaskMeasuresAdmin(RetrievalTaskAdmin):
    form = RetrievalTaskForm


admin.site.unregister(RetrievalTask)
admin.site.register(RetrievalTask, RetrievalTaskMeasuresAdmin)
