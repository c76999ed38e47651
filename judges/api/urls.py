"""REST endpoints of the judges app, mounted under /api/."""

from django.urls import path

from judges.api.views import EndpointDetailView, EndpointListView, RunView, TaskRunsView

app_name = "judges_api"

urlpatterns = [
    path("judges/endpoints/", EndpointListView.as_view(), name="endpoints"),
    path("judges/endpoints/<id:endpoint_id>/", EndpointDetailView.as_view(), name="endpoint"),
    path("judges/tasks/<id:task_id>/runs/", TaskRunsView.as_view(), name="task-runs"),
    path("judges/runs/<id:run_id>/", RunView.as_view(), name="run"),
]
