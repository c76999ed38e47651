"""Settings shared by every environment, read from the environment.

See https://docs.djangoproject.com/en/5.2/ref/settings/ for what each one means.
Environment variables: DATABASE_URL, REDIS_URL, SECRET_KEY, DEBUG, ALLOWED_HOSTS.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# --- Core -----------------------------------------------------------------
SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Redoc for /api/docs/ from a package, never a CDN
    "csp",
    "collection",
    "pooling",
    "assessment",
    "evaluation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # see "Security headers / CSP" below
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "assessment.roles.menu",
            ],
        },
    },
]

# --- Database (https://docs.djangoproject.com/en/5.2/ref/settings/#databases) ----
# No DATABASE_URL means the embedded default: a SQLite file beside the code.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL or f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -----------------------------------------------------------------
# https://docs.djangoproject.com/en/5.2/topics/auth/passwords/#module-django.contrib.auth.password_validation
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Login lockout with django-axes (https://django-axes.readthedocs.io/en/latest/4_configuration.html):
# LOGIN_FAILURE_LIMIT failed logins for one account, or from one address, lock it for
# LOGIN_LOCKOUT_MINUTES, on the site's login and the admin's. Attempts are counted in the
# database, so logins (and the lockout) work while Redis is down. See config/auth.py.
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # last: turns a lockout into the page below
AUTHENTICATION_BACKENDS = [
    "config.auth.LoginLockoutBackend",
    # Django's model backend, loading the user's roles with the user (menus need no query).
    "assessment.roles.RoleAwareBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one reaching the limit locks
# A success does not wipe the failures: with per-address counting it would also wipe a
# guesser's failures against other accounts from the same address.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "config.auth.lockout_response"  # registration/locked_out.html
AXES_CLIENT_IP_CALLABLE = "config.auth.client_ip"
# Proxies in front of the app that append to X-Forwarded-For (a TLS proxy: 1). 0 trusts none.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# Sessions are read on every request (the judging page most of all): serve them from the
# cache (Redis when REDIS_URL is set) and keep the database copy for durability.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# --- I18N -----------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files ---------------------------------------------------------
# Front-end packages come from the npm registry (package.json) and are served
# straight out of node_modules: no CDN at run time, no copies in the repo.
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    ("vendor/mathjax", BASE_DIR / "node_modules" / "mathjax" / "es5"),
    ("vendor/chartjs", BASE_DIR / "node_modules" / "chart.js" / "dist"),
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Uploads --------------------------------------------------------------
# Run files are streamed from a temporary file, never held whole in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
RUN_FILE_MAX_BYTES = int(os.environ.get("RUN_FILE_MAX_BYTES", str(200 * 1024 * 1024)))

# --- REST framework -------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {"run_upload": os.environ.get("RUN_UPLOAD_RATE", "30/hour")},
    # ?limit= and ?offset= read strictly and bounded; a bad parameter is a 400 naming it.
    "DEFAULT_PAGINATION_CLASS": "config.params.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "config.params.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "qrelsmith API",
    "DESCRIPTION": (
        "Runs, pools, assignments, judgments, qrels and results of an evaluation campaign."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "REDOC_DIST": "SIDECAR",  # served from drf-spectacular-sidecar's static files
    "PATH_CONVERTER_OVERRIDES": {"id": int},  # <id:…> (config.params.IdConverter)
}

# --- Cache ----------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery (https://docs.celeryq.dev/en/stable/django/) --------------------
# No REDIS_URL means the embedded default: tasks run in-process, eagerly.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_TRACK_STARTED = True
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the task to be redelivered
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 60 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 55 * 60
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Security headers / CSP (https://django-csp.readthedocs.io/en/latest/configuration.html)
# Every byte from participants and the collection is hostile (post HTML, TeX, answers): the
# policy is the layer under nh3 (HTML) and MathJax's safe mode (TeX, static/js/mathjax-config.js).
# - Scripts only from our own files: no inline <script>, no on*= handler, no javascript: URL,
#   no eval. A page script is a file in static/js/, loaded with <script src> and wired to its
#   page with data-* attributes (README, "Security headers").
# - No inline style attributes (style-src-attr 'none'): nothing in markup, from a template or
#   from TeX, can position or cover anything. MathJax lays formulas out through the CSSOM
#   (element.style), which CSP does not restrict; templates size their bars with data-percent,
#   data-grow and data-share (static/js/site.js).
# - <style> elements may be inline (style-src 'unsafe-inline'): MathJax CHTML writes its font
#   rules into one, and so does Redoc on /api/docs/; neither can take a nonce. Post HTML never
#   holds one (nh3 drops <style> with its content) and TeX cannot create elements.
# - Images: ours or data: URLs; fonts: ours (MathJax's woff files); fetch/XHR: ours only.
# CSP_REPORT_URI (optional): where browsers POST violation reports.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "style-src-attr": [NONE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}
if os.environ.get("CSP_REPORT_URI"):
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["report-uri"] = [os.environ["CSP_REPORT_URI"]]

# --- Logging --------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
