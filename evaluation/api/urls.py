"""REST endpoints of the evaluation app, mounted under /api/."""

from django.urls import path  # noqa: F401

app_name = "evaluation_api"
urlpatterns: list = []
