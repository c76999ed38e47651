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
    "kernel",  # the shared kernel: access, jobs, cache, parameters; imports no app
    "collection",
    "pooling",
    "assessment",
    "judges",  # LLM judges: endpoints, prompts, judge runs, probes
    "evaluation",
    "nuggets",  # generated answers judged by nuggets (TREC RAG)
    "demo",  # the synthetic demo campaigns (manage.py demo); it imports every other app
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # see "Security headers / CSP" below
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF check, which reads a form's whole body: an upload past its view's limit
    # is refused (413) before a byte of it is read (kernel/request_limits.py).
    "kernel.request_limits.BodyLimitMiddleware",
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
# LOGIN_FAILURE_LIMIT failed logins for one account from one address lock that account at that
# address, and LOGIN_ADDRESS_FAILURE_LIMIT failed logins from one address, whatever the
# accounts, lock the address, each for LOGIN_LOCKOUT_MINUTES, on the site's login and the
# admin's. Assessors behind one NAT do not lock each other out, and knowing a username is not
# enough to lock its owner out. Attempts are counted in the database, so logins (and the
# lockout) work while Redis is down. See assessment/login.py.
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]  # last: turns a lockout into the page below
AUTHENTICATION_BACKENDS = [
    "assessment.login.LoginLockoutBackend",
    # Django's model backend, loading the user's roles with the user (menus need no query).
    "assessment.roles.RoleAwareBackend",
]
AXES_HANDLER = "assessment.login.LoginLockoutHandler"  # the two limits above
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
LOGIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("LOGIN_ADDRESS_FAILURE_LIMIT", "50"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_LOCKOUT_MINUTES", "15")))
# The account at an address, and the address alone (with its own, higher limit).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
# A success does not wipe the failures: with per-address counting it would also wipe a
# guesser's failures against other accounts from the same address.
AXES_RESET_ON_SUCCESS = False
# Axes logs a banner on every start (each manage.py command) and a line for every failed
# login; LOGIN_LOG_VERBOSE=1 brings both back. Lockouts are logged either way (assessment/login.py).
AXES_VERBOSE = os.environ.get("LOGIN_LOG_VERBOSE", "") == "1"
AXES_LOCKOUT_CALLABLE = "assessment.login.lockout_response"  # registration/locked_out.html
AXES_CLIENT_IP_CALLABLE = "assessment.login.client_ip"
AXES_USERNAME_CALLABLE = "assessment.login.client_username"  # bounded: a long guess is no 500
# Proxies in front of the app that append to X-Forwarded-For (a TLS proxy: 1). 0 trusts none.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# --- Sessions (https://docs.djangoproject.com/en/5.2/topics/http/sessions/) -------------
# In the database only, so login and judging never depend on Redis. The judging
# page measured as fast as with cached_db (a primary-key read either way), and cached_db over a
# cache that skips writes during an outage would serve stale sessions afterwards (a logout done
# during the outage would come back with Redis).
SESSION_ENGINE = "django.contrib.sessions.backends.db"
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
    # axe-core: only the browser tests load it (tests/browser/test_accessibility_browser.py).
    ("vendor/axe-core", BASE_DIR / "node_modules" / "axe-core"),
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Uploads --------------------------------------------------------------
# Run files are streamed from a temporary file, never held whole in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# The largest run file accepted, counted after decompression (a 100-topic x 1,000-row TREC
# run is about 6 MB), and the longest line in one (a Task 3 answer line is a few KB).
RUN_FILE_MAX_BYTES = int(os.environ.get("RUN_FILE_MAX_BYTES", str(50 * 1024 * 1024)))
RUN_LINE_MAX_BYTES = int(os.environ.get("RUN_LINE_MAX_BYTES", str(64 * 1024)))
# The largest run upload request (web form or REST, the file as sent, compressed or not, with
# the form's other fields), refused with a 413 before it is read: by default the largest run
# file plus 1 MiB for the rest of the form (a file compressed with gzip is no larger than it
# is decompressed, give or take a few bytes a block).
RUN_UPLOAD_MAX_BYTES = int(
    os.environ.get("RUN_UPLOAD_MAX_BYTES", str(RUN_FILE_MAX_BYTES + 1024 * 1024))
)
# A qrels file uploaded on the results pages is parsed whole: ARQMath's are about 1 MB, the
# largest TREC ones a few tens of MB.
QRELS_FILE_MAX_BYTES = int(os.environ.get("QRELS_FILE_MAX_BYTES", str(100 * 1024 * 1024)))
# Any other request's body (a form or JSON, never a file: the views that take files name their
# own limit below), refused with a 413 before it is read (kernel/request_limits.py).
REQUEST_MAX_BYTES = int(os.environ.get("REQUEST_MAX_BYTES", str(DATA_UPLOAD_MAX_MEMORY_SIZE)))
# The organizers' uploads are bounded as run uploads are (413 before a byte is read,
# kernel/request_limits.py): each request by the largest file(s) it carries plus 1 MiB for the
# rest of its form. A qrels file: the qrels page's import, the pool planner's prior judgments
# (page and REST; the planner takes 50 MB of them), a training round's gold qrels.
QRELS_UPLOAD_MAX_BYTES = int(
    os.environ.get("QRELS_UPLOAD_MAX_BYTES", str(QRELS_FILE_MAX_BYTES + 1024 * 1024))
)
# A training round on earlier years' topics: their topic file and their qrels, each at most
# QRELS_FILE_MAX_BYTES (a year's topic file is well under 1 MB).
TRAINING_ARCHIVE_UPLOAD_MAX_BYTES = int(
    os.environ.get("TRAINING_ARCHIVE_UPLOAD_MAX_BYTES", str(2 * QRELS_FILE_MAX_BYTES + 1024 * 1024))
)
# A machine judge's grades file (qrels or JSONL, optionally gzip), counted decompressed: 100
# topics x 5,000 items with a paragraph of rationale each fits easily. Its upload (page and
# REST) is the file as sent plus the form.
MACHINE_JUDGE_FILE_MAX_BYTES = int(
    os.environ.get("MACHINE_JUDGE_FILE_MAX_BYTES", str(512 * 1024 * 1024))
)
MACHINE_JUDGE_UPLOAD_MAX_BYTES = int(
    os.environ.get(
        "MACHINE_JUDGE_UPLOAD_MAX_BYTES", str(MACHINE_JUDGE_FILE_MAX_BYTES + 1024 * 1024)
    )
)

# --- LLM judges (docs/llm-judges.md) -------------------------------------
# How long registering a judge endpoint (and each connection of a judge run) waits for the
# host's name to resolve: a DNS answer takes milliseconds, the system resolver's own retries
# (5 s a try, twice, per search domain) would hold a page far longer.
JUDGE_RESOLVE_TIMEOUT_SECONDS = float(os.environ.get("JUDGE_RESOLVE_TIMEOUT_SECONDS", "3"))

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
    "DEFAULT_PAGINATION_CLASS": "kernel.params.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "kernel.params.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "qrelsmith API",
    "DESCRIPTION": (
        "Runs, pools, assignments, judgments, qrels and results of an evaluation campaign."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "REDOC_DIST": "SIDECAR",  # served from drf-spectacular-sidecar's static files
    "PATH_CONVERTER_OVERRIDES": {"id": int},  # <id:…> (kernel.params.IdConverter)
}

# --- Cache ----------------------------------------------------------------
# Redis when REDIS_URL is set, through kernel.cache: an unreachable Redis is a cache miss (the
# throttles then let requests through), never an error. Nothing may keep its only copy here.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "kernel.cache.ResilientRedisCache",
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
# The longest tasks (a pool build or an evaluation of a whole ARQMath task) take minutes;
# they are stopped after 30.
CELERY_TASK_TIME_LIMIT = 30 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 28 * 60
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker waits out a Redis outage of any length (retrying every 2 s, growing to 30 s) instead
# of exiting after 100 tries.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A running job goes on when the worker loses Redis; its acknowledgement is then lost and the
# message redelivered after the visibility timeout, which skips the finished job.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Redis redelivers a message a worker took but did not acknowledge after the visibility
# timeout. With acks_late a healthy task is unacknowledged for as long as it runs, so the
# timeout must exceed the longest run (the 30 min time limit), or a second worker would start
# the same job. A dead worker's job does not wait for it: the heartbeat reaper (kernel.queue)
# re-queues it within 90 s; the timeout is only the backstop for a message taken by a worker
# that died before marking its job running, and a redelivered message of a done or superseded
# job does nothing.
# Short socket timeouts and a single publish retry make an enqueue with Redis down fail in
# about 2 s (the page then says "try again") instead of hanging.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 35 * 60,
    "socket_connect_timeout": 1,
    "socket_timeout": 2,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 0.5,
}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1
CELERY_REDIS_SOCKET_TIMEOUT = 2
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 2, "interval_start": 0, "interval_step": 0.5}
}
# Celery beat (the `beat` service of docker-compose.yml) runs the reapers of dead workers'
# jobs; the pages that show a job's status run them too.
CELERY_BEAT_SCHEDULE = {
    "reap-pool-builds": {"task": "pooling.tasks.reap_pool_builds_task", "schedule": 30.0},
    "reap-judge-runs": {"task": "judges.tasks.reap_judge_runs_task", "schedule": 30.0},
    "reap-evaluation-jobs": {
        "task": "evaluation.tasks.reap_evaluation_jobs_task",
        "schedule": 30.0,
    },
    "reap-pool-plans": {"task": "evaluation.tasks.reap_pool_plans_task", "schedule": 30.0},
    "reap-nugget-proposals": {
        "task": "nuggets.tasks.reap_nugget_proposal_runs_task",
        "schedule": 30.0,
    },
}
# Jobs (kernel.queue): a running job writes its heartbeat every JOB_HEARTBEAT_SECONDS; one
# silent for JOB_STALE_SECONDS lost its worker and is queued again, JOB_MAX_ATTEMPTS in all.
JOB_HEARTBEAT_SECONDS = int(os.environ.get("JOB_HEARTBEAT_SECONDS", "10"))
JOB_STALE_SECONDS = int(os.environ.get("JOB_STALE_SECONDS", "60"))
JOB_MAX_ATTEMPTS = 3
# A job pending this long whose message the broker no longer holds (Redis restarted without
# persistence, or the web process died between commit and publish) is published again.
JOB_LOST_MESSAGE_SECONDS = int(os.environ.get("JOB_LOST_MESSAGE_SECONDS", "60"))
# An evaluation job is cut into chunks of this many runs, each a task any worker can take.
EVALUATION_CHUNK_RUNS = int(os.environ.get("EVALUATION_CHUNK_RUNS", "25"))
JOB_TEST_HOOKS = False  # kernel.queue.job_checkpoint; on in the test settings only

# --- Security headers / CSP (https://django-csp.readthedocs.io/en/latest/configuration.html)
# Every byte from participants and the collection is hostile (post HTML, TeX, answers): the
# policy is the layer under nh3 (HTML) and MathJax's safe mode (TeX, static/js/mathjax_config.js).
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
    # Django's default config gives the "django" logger a console handler of its own (when
    # DEBUG) and lets it propagate to the root's: every line (runserver's "Watching for file
    # changes", request errors) came out twice. One handler, the root's.
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "axes": {"level": "INFO" if AXES_VERBOSE else "ERROR"},
    },
}
