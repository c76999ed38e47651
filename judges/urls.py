"""Pages of the judges app."""

from django.urls import path

from judges.views import pages

app_name = "judges"

urlpatterns = [
    path("organize/judges/endpoints/", pages.endpoints_page, name="endpoints"),
    path("organize/task/<id:task_id>/judge-runs/", pages.judge_runs_page, name="runs"),
]
