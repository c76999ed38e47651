"""HTML pages of the pooling app."""

from django.urls import path  # noqa: F401

app_name = "pooling"
urlpatterns: list = []
