"""REST endpoints of the assessment app, mounted under /api/."""

from django.urls import path  # noqa: F401

app_name = "assessment_api"
urlpatterns: list = []
