"""Local development and the demo: SQLite and in-process tasks unless told otherwise."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env_bool

DEBUG = env_bool("DEBUG", True)
# A fixed key is fine here: dev settings never face the internet (prod refuses this).
SECRET_KEY = SECRET_KEY or "dev-only-insecure-key-qrelsmith"  # noqa: F405
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "[::1]"]  # noqa: F405

# No collectstatic outside production: whitenoise serves straight from the finders
# (static/ and node_modules), so gunicorn in benchmarks and the live test server get assets too.
STATIC_ROOT = None  # type: ignore[assignment]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
