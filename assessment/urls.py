"""HTML pages of the assessment app."""

from django.urls import path  # noqa: F401

app_name = "assessment"
urlpatterns: list = []
