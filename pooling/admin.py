"""Admin of the pooling app. Run files are uploaded through /runs/ or import_run, not here."""

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from pooling.models import Run, Team


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "member_count", "run_count", "created_at"]
    search_fields = ["name", "members__username"]
    filter_horizontal = ["members"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Team]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_members=Count("members", distinct=True), n_runs=Count("runs", distinct=True)
            )
        )

    @admin.display(description="members", ordering="n_members")
    def member_count(self, team: Team) -> int:
        return team.n_members  # type: ignore[attr-defined]

    @admin.display(description="runs", ordering="n_runs")
    def run_count(self, team: Team) -> int:
        return team.n_runs  # type: ignore[attr-defined]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = [
        "tag",
        "team",
        "task",
        "role",
        "is_baseline",
        "row_count",
        "version",
        "uploaded_at",
    ]
    list_filter = ["task__campaign", "task__kind", "role", "status", "is_baseline", "is_manual"]
    list_select_related = ["team", "task__campaign"]
    search_fields = ["tag", "team__name"]
    # The file's content is the rows: what came from the file stays read-only here.
    readonly_fields = [
        "task",
        "team",
        "tag",
        "file_name",
        "file_format",
        "checksum",
        "row_count",
        "version",
        "report",
        "uploaded_by",
        "uploaded_at",
    ]
    fields = [
        "task",
        "team",
        "tag",
        "role",
        "is_manual",
        "declared_data",
        "description",
        "status",
        "is_baseline",
        "pool_as_primary",
        "depth_override",
        "file_name",
        "file_format",
        "checksum",
        "row_count",
        "version",
        "uploaded_by",
        "uploaded_at",
        "report",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
