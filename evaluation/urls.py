"""HTML pages of the evaluation app."""

from django.urls import path  # noqa: F401

app_name = "evaluation"
urlpatterns: list = []
