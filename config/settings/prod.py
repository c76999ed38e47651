"""Production: PostgreSQL, Redis, a real secret, HTTPS. Refuses to start without them."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import env_bool

if not SECRET_KEY or len(SECRET_KEY) < 50 or SECRET_KEY.startswith("dev-"):  # noqa: F405
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to a random string of 50+ characters in production "
        '(python -c "import secrets; print(secrets.token_urlsafe(64))").'
    )
if not DATABASE_URL.startswith(("postgres://", "postgresql://")):  # noqa: F405
    raise ImproperlyConfigured("DATABASE_URL must point to PostgreSQL in production.")
if not REDIS_URL:  # noqa: F405
    raise ImproperlyConfigured("REDIS_URL must be set in production (Celery broker and cache).")

DEBUG = False
# The container health check calls http://127.0.0.1:8000/healthz with Host: localhost.
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "localhost"]  # noqa: F405
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the container health check speaks plain HTTP
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])  # noqa: F405
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
