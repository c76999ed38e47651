"""Admin of the pooling app. Run files are uploaded through /runs/ or import_run, not here."""

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from pooling.models import PoolBuild, PoolItem, Run, Team


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "member_count", "run_count", "created_at"]
    list_filter = ["campaigns"]
    search_fields = ["name", "members__username"]
    filter_horizontal = ["members", "campaigns"]  # campaigns: the tasks its members may submit to

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


@admin.register(PoolBuild)
class PoolBuildAdmin(admin.ModelAdmin):
    """Builds are started from /pools/<task>/ or build_pools; here they are only read."""

    list_display = ["id", "task", "status", "topics_done", "topics_total", "created_at"]
    list_filter = ["status", "task__campaign", "task__kind"]
    list_select_related = ["task__campaign"]
    readonly_fields = [f.name for f in PoolBuild._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(PoolItem)
class PoolItemAdmin(admin.ModelAdmin):
    """Pool items are written by pool builds only: read-only, to look one up."""

    list_display = ["topic", "key", "display_order", "is_orphaned", "entered_at"]
    list_filter = ["is_orphaned", "topic__task__campaign", "topic__task__kind"]
    list_select_related = ["topic"]
    search_fields = ["key", "topic__number"]
    readonly_fields = [f.name for f in PoolItem._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
