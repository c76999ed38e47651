"""Top-level URLs: each app mounts its pages and its REST endpoints."""

from csp.constants import SELF
from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

from kernel import views
from kernel.params import IdConverter

# <id:name>: a database id, 1 to 2**63 - 1; anything else does not match (404, never a 500).
# Every urls.py uses it for ids instead of <int:…>; registered here, before the includes.
register_converter(IdConverter, "id")

# /api/docs/: Redoc from drf-spectacular-sidecar (settings: REDOC_DIST), in a template without
# inline script, so it works offline and under the Content-Security-Policy. Redoc's search runs
# in a Web Worker made from a blob: URL: this page alone allows that.
api_docs = csp_update({"worker-src": [SELF, "blob:"]})(
    SpectacularRedocView.as_view(url_name="api-schema", template_name="api/docs.html")
)

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("collection.urls")),
    path("", include("pooling.urls")),
    path("", include("assessment.urls")),
    path("", include("judges.urls")),
    path("", include("evaluation.urls")),
    path("", include("nuggets.urls")),
    path("api/", include("collection.api.urls")),
    path("api/", include("pooling.api.urls")),
    path("api/", include("assessment.api.urls")),
    path("api/", include("judges.api.urls")),
    path("api/", include("evaluation.api.urls")),
    path("api/", include("nuggets.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", api_docs, name="api-docs"),
]
