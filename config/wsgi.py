"""WSGI entry point (gunicorn config.wsgi; runserver loads it too)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
application = get_wsgi_application()

from kernel.warmup import warm_up  # noqa: E402 - needs the apps loaded above

warm_up()
