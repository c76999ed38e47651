"""HTML pages of the collection app."""

from django.urls import path  # noqa: F401

app_name = "collection"
urlpatterns: list = []
