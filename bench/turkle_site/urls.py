"""Turkle's task pages and the auth pages its base template links to."""

from django.urls import include, path

urlpatterns = [
    path("", include("django.contrib.auth.urls")),
    path("", include("turkle.urls")),
]
