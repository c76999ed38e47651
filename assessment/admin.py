"""Admin of the assessment app: organizers assign topics here until /organize/ does it all."""

from django.contrib import admin

from assessment.models import Assignment, Judgment, JudgmentRevision


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["topic", "assessor", "purpose", "training_round", "created_at", "revoked_at"]
    list_filter = ["purpose", "topic__task", "revoked_at"]
    search_fields = ["topic__number", "assessor__username"]
    raw_id_fields = ["topic", "training_round"]
    list_select_related = ["topic", "assessor", "training_round"]
    readonly_fields = ["created_by", "created_at"]

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
