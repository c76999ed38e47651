"""REST endpoints of the collection app, mounted under /api/."""

from django.urls import path  # noqa: F401

app_name = "collection_api"
urlpatterns: list = []
