"""Pages of the nuggets app."""

from django.urls import path

from nuggets import views
from nuggets.views.adjudication import adjudication_page
from nuggets.views.publication import published_page

app_name = "nuggets"

urlpatterns = [
    path("nuggets/topics/<id:topic_id>/", views.nugget_editor, name="editor"),
    path("nuggets/assignments/<id:assignment_id>/", views.assignment_page, name="assign"),
    path("nuggets/tasks/<id:task_id>/scores/", views.scores_page, name="scores"),
    path("nuggets/tasks/<id:task_id>/runs/", views.runs_page, name="runs"),
    path("nuggets/tasks/<id:task_id>/adjudication/", adjudication_page, name="adjudication"),
    path("nuggets/tasks/<id:task_id>/published/", published_page, name="published"),
]
