"""Turkle's own site settings (its turkle_site/settings.py, which the wheel does not ship),
trimmed to what the judging cycle uses, on PostgreSQL like qrelsmith's side of the benchmark."""

import os
from urllib.parse import urlsplit

_db = urlsplit(os.environ["TURKLE_BENCH_DATABASE_URL"])

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
X_FRAME_OPTIONS = "SAMEORIGIN"
SECRET_KEY = os.environ["TURKLE_BENCH_SECRET_KEY"]  # per run, shared by seeding and gunicorn
TURKLE_SITE_NAME = "Turkle"
TURKLE_AUTO_ACCEPT_DEFAULT = False  # the simulated assessor asks for the next task itself
TURKLE_TEMPLATE_LIMIT = 64
STATIC_URL = "/static/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
TIME_ZONE = "UTC"
USE_TZ = True
LANGUAGE_CODE = "en-us"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "index"
LOGOUT_REDIRECT_URL = "index"
ROOT_URLCONF = "turkle_site.urls"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": _db.path.lstrip("/"),
        "USER": _db.username or "postgres",
        "PASSWORD": _db.password or "",
        "HOST": _db.hostname or "127.0.0.1",
        "PORT": str(_db.port or 5432),
        "CONN_MAX_AGE": 600,  # as qrelsmith's side runs
    }
}

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.contrib.auth.context_processors.auth",
                "django.template.context_processors.request",
                "django.template.context_processors.static",
                "django.contrib.messages.context_processors.messages",
                "turkle.utils.turkle_vars",
            ],
        },
    },
]

MIDDLEWARE = [
    "django.middleware.common.CommonMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# Turkle's admin and REST API are left out: the judging cycle does not touch them.
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "turkle",
    "guardian",
]

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
