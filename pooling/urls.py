"""HTML pages of the pooling app."""

from django.urls import path

from pooling.views import runs

app_name = "pooling"
urlpatterns: list = [
    path("runs/", runs.runs_page, name="runs"),
    path("runs/<int:run_id>/", runs.run_detail_page, name="run-detail"),
]
