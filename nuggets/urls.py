"""Pages of the nuggets app."""

from django.urls import path

from nuggets import views

app_name = "nuggets"

urlpatterns = [
    path("nuggets/topics/<id:topic_id>/", views.nugget_editor, name="editor"),
    path("nuggets/assignments/<id:assignment_id>/", views.assignment_page, name="assign"),
    path("nuggets/tasks/<id:task_id>/scores/", views.scores_page, name="scores"),
    path("nuggets/tasks/<id:task_id>/runs/", views.runs_page, name="runs"),
]
