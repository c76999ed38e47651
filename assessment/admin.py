"""Admin of the assessment app: organizers assign topics here until /organize/ does it all."""

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from assessment.models import (
    Adjudication,
    Assignment,
    GoldGrade,
    Judgment,
    JudgmentRevision,
    TaskGuidelines,
    TrainingRound,
)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["topic", "assessor", "purpose", "training_round", "created_at", "revoked_at"]
    list_filter = ["purpose", "topic__task", "revoked_at"]
    search_fields = ["topic__number", "assessor__username"]
    raw_id_fields = ["topic", "training_round"]
    list_select_related = ["topic", "assessor", "training_round"]
    readonly_fields = ["created_by", "created_at", "replaces", "handover", "line_start"]

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        """An existing assignment keeps its topic and assessor: changing the assessor in place
        would show the new one the old one's judgments. Moves go through /organize/."""
        fixed = ["topic", "assessor", "purpose", "training_round"] if obj is not None else []
        return [*fixed, *self.readonly_fields]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


class JudgmentRevisionInline(admin.TabularInline):
    model = JudgmentRevision
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "number",
        "grade",
        "flag",
        "comment",
        "active_seconds",
        "changed_by",
        "changed_at",
    )

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    """Read-only: judgments change through the judging page, so every change is a revision."""

    list_display = ["hit", "assignment", "assessor", "grade", "flag", "revision", "updated_at"]
    list_filter = ["flag", "grade", "assignment__purpose"]
    search_fields = ["assignment__topic__number", "assessor__username"]
    list_select_related = ["assignment__topic", "assessor"]
    inlines = [JudgmentRevisionInline]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


class GoldGradeInline(admin.TabularInline):
    model = GoldGrade
    extra = 0
    raw_id_fields = ["hit"]


@admin.register(TrainingRound)
class TrainingRoundAdmin(admin.ModelAdmin):
    """Rounds are created from /organize/…/training/ (items sampled, assignments made);
    the admin is for looking and for fixing a gold grade."""

    list_display = ["name", "task", "gold_source", "expert", "show_gold_after_submit", "created_at"]
    list_filter = ["task", "gold_source"]
    raw_id_fields = ["items"]
    inlines = [GoldGradeInline]


@admin.register(Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    list_display = ["hit", "grade", "decided_by", "decided_at"]
    raw_id_fields = ["hit"]
    readonly_fields = ["decided_by", "decided_at"]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        obj.decided_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(TaskGuidelines)
class TaskGuidelinesAdmin(admin.ModelAdmin):
    """Read-only: a version is never edited, and a new one is validated and numbered by the
    organizer's guidelines page (/organize/task/<id>/guidelines/)."""

    list_display = ["task", "version", "created_at", "created_by", "note", "edit_page"]
    list_filter = ["task__campaign", "task__kind"]
    list_select_related = ["task__campaign", "created_by"]
    fields = readonly_fields = (
        "task",
        "version",
        "created_at",
        "created_by",
        "note",
        "instructions",
        "scale_json",
        "edit_page",
    )

    @admin.display(description="scale")
    def scale_json(self, obj: TaskGuidelines) -> str:
        return json.dumps(obj.scale, indent=2, ensure_ascii=False)

    @admin.display(description="edit")
    def edit_page(self, obj: TaskGuidelines) -> str:
        url = reverse("assessment:organize_guidelines", args=[obj.task_id])
        return format_html('<a href="{}">guidelines page</a>', url)

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False
