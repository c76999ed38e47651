"""REST endpoints of the pooling app, mounted under /api/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from pooling.api.pools import PoolBuildView, PoolStatsView
from pooling.api.run_views import RunViewSet

app_name = "pooling_api"
# path() routes so the run id goes through the <id:…> converter (RunViewSet.lookup_value_converter).
runs_router = SimpleRouter(use_regex_path=False)
runs_router.register("runs", RunViewSet, basename="run")

urlpatterns: list = [
    *runs_router.urls,
    path("pools/<id:task_id>/", PoolStatsView.as_view(), name="pool-stats"),
    path("pools/<id:task_id>/build/", PoolBuildView.as_view(), name="pool-build"),
]
