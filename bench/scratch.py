"""A scratch PostgreSQL database for a benchmark that drives the app: created empty beside
DATABASE_URL's, migrated, and dropped afterwards (unless kept), so a benchmark never touches
the database it was pointed at."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from urllib.parse import urlsplit

from bench.pooling import _admin, _scratch_database


@contextlib.contextmanager
def scratch_django(suffix: str, *, keep: bool = False) -> Iterator[str]:
    """Django set up on a fresh ``<database>_<suffix>`` (no Redis: tasks run in-process);
    yields its URL."""
    url = _scratch_database().replace("_poolbench", f"_{suffix}")
    name = urlsplit(url).path.lstrip("/")
    _admin(url, f'DROP DATABASE IF EXISTS "{name}"')
    _admin(url, f'CREATE DATABASE "{name}"')
    os.environ.update(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings.dev")
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    try:
        call_command("migrate", verbosity=0)
        yield url
    finally:
        connections.close_all()
        if not keep:
            _admin(url, f'DROP DATABASE IF EXISTS "{name}"')
