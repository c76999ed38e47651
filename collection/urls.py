"""HTML pages of the collection app."""

from django.urls import path

from collection import views

app_name = "collection"
urlpatterns = [
    path("threads/<id:thread_id>/", views.thread, name="thread"),
]
