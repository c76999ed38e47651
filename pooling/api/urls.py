"""REST endpoints of the pooling app, mounted under /api/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from pooling.api.pools import PoolBuildView, PoolStatsView
from pooling.api.run_views import RunViewSet

app_name = "pooling_api"
runs_router = SimpleRouter()
runs_router.register("runs", RunViewSet, basename="run")

urlpatterns: list = [
    *runs_router.urls,
    path("pools/<int:task_id>/", PoolStatsView.as_view(), name="pool-stats"),
    path("pools/<int:task_id>/build/", PoolBuildView.as_view(), name="pool-build"),
]
