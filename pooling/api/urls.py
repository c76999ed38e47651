"""REST endpoints of the pooling app, mounted under /api/."""

from django.urls import path  # noqa: F401
from rest_framework.routers import SimpleRouter

from pooling.api.run_views import RunViewSet

app_name = "pooling_api"
runs_router = SimpleRouter()
runs_router.register("runs", RunViewSet, basename="run")

urlpatterns: list = [*runs_router.urls]
