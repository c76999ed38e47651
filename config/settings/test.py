"""Tests: a real PostgreSQL and Redis, 127.0.0.1 unless DATABASE_URL / REDIS_URL say otherwise."""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")

from config.settings.base import *  # noqa: F403

SECRET_KEY = "test-only-key-qrelsmith"  # noqa: S105
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests talk to a real worker (the `celery_worker` fixture); tasks are not run eagerly.
CELERY_TASK_ALWAYS_EAGER = False
# Throttling is tested on its own; other tests must not trip over it.
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"run_upload": "10000/minute"}}  # noqa: F405
STORAGES = {  # no manifest needed in tests
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# No collectstatic outside production: whitenoise serves straight from the finders
# (static/ and node_modules), so gunicorn in benchmarks and the live test server get assets too.
STATIC_ROOT = None  # type: ignore[assignment]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# kernel.queue.job_checkpoint: lets the worker-kill tests stop a job at a known point.
JOB_TEST_HOOKS = True
