"""HTML pages of the pooling app."""

from django.urls import path

from pooling.views import pools, runs

app_name = "pooling"
urlpatterns: list = [
    path("runs/", runs.runs_page, name="runs"),
    path("runs/<id:run_id>/", runs.run_detail_page, name="run-detail"),
    path("pools/", pools.pools_index, name="pools"),
    path("pools/<id:task_id>/", pools.pool_page, name="pool"),
    path("pools/<id:task_id>/build/", pools.pool_build_start, name="pool-build"),
    path("pools/<id:task_id>/export/<str:kind>.tsv", pools.pool_export, name="pool-export"),
]
