"""REST endpoints of the pooling app, mounted under /api/."""

from django.urls import path  # noqa: F401

app_name = "pooling_api"
urlpatterns: list = []
