"""Work a process would otherwise do on its first request, done when it starts instead.

The first request a fresh web process serves used to take about half a second before any of
its own work: importing every view through the URLconf (the evaluation views bring numpy and
pytrec_eval), building the reverse lookup tables, compiling the templates. An assessor opening
a judging page right after a deploy or a worker restart paid for all of it. ``warm_up`` runs
in config/wsgi.py, so gunicorn workers and runserver do it before they accept connections.
It needs no database.
"""

from __future__ import annotations

from django.template.loader import get_template
from django.urls import get_resolver, reverse

# The pages an assessor opens first, and what they extend or include (a parent is found only
# when the child renders, so each is named here).
TEMPLATES = (
    "base.html",
    "collection/_mathjax.html",
    "assessment/judge.html",
    "assessment/home.html",
    "assessment/items.html",
    "collection/thread.html",
    "registration/login.html",
)
# The names those pages reverse: each namespace builds its table, each pattern its regex, once.
URL_NAMES: tuple[tuple[str, list[int]], ...] = (
    ("home", []),
    ("login", []),
    ("logout", []),
    ("admin:index", []),
    ("assessment:home", []),
    ("assessment:continue", [1]),
    ("assessment:items", [1]),
    ("assessment:judge", [1, 1]),
    ("assessment_api:item-judgments", [1, 1]),
)


def warm_up() -> None:
    """Import every view, build the URL tables and compile the assessor's templates."""
    get_resolver().url_patterns  # noqa: B018 - imports the URLconf and every view module
    for name, args in URL_NAMES:
        reverse(name, args=args)
    for template in TEMPLATES:
        get_template(template)
