"""REST endpoints of the nuggets app, mounted under /api/."""

from django.urls import path

from nuggets.api import views

app_name = "nuggets_api"

urlpatterns = [
    path("rag-runs/", views.RagRunUploadView.as_view(), name="rag-run-upload"),
    path("nuggets/topics/<id:topic_id>/", views.TopicNuggetsView.as_view(), name="topic-nuggets"),
    path(
        "nuggets/assignments/<id:assignment_id>/labels/",
        views.AssignmentLabelsView.as_view(),
        name="assignment-labels",
    ),
    path(
        "nuggets/assignments/<id:assignment_id>/citations/",
        views.AssignmentCitationsView.as_view(),
        name="assignment-citations",
    ),
    path("nuggets/tasks/<id:task_id>/scores/", views.TaskScoresView.as_view(), name="task-scores"),
    path(
        "nuggets/tasks/<id:task_id>/adjudication/",
        views.NuggetAdjudicationView.as_view(),
        name="task-adjudication",
    ),
    path(
        "nuggets/tasks/<id:task_id>/publication/",
        views.NuggetPublicationView.as_view(),
        name="task-publication",
    ),
]
