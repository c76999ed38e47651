"""Every URL of the project, every parameter it reads, a table of bad values: never a 5xx.

The URL patterns are walked from the root resolver, so a new URL is swept as soon as it exists;
a URL name missing from ``URLS`` fails the test, so whoever adds a URL also writes down the
parameters its view reads. Each URL is requested as an anonymous visitor, a participant, an
assessor and an organizer over a small judged campaign, with

- each path parameter replaced by each bad value (the others valid),
- each query parameter and each form field the view reads set to each bad value (GET, POST),
  alone and repeated beside a valid value (``?task=1&task=²``),
- the generic set (``task``, ``qrels``, ``limit``, … sent to every URL at once),

and every answer must be below 500. The admin's URLs are not swept: they are
Django's own views (its ModelAdmin validates object ids and its changelist parameters itself),
no code of this project reads their parameters, and they would triple the test's time.
"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.integration.parameters.sweep import (
    Campaign,
    Sweep,
    path_parameters,
    project_routes,
    sweep_route,
)
from tests.integration.parameters.url_table import URLS

pytestmark = pytest.mark.django_db


def test_every_url_name_has_its_parameters_in_the_table_when_urls_are_walked() -> None:
    routes = list(project_routes())
    names = {route.name for route in routes}
    missing = sorted(names - URLS.keys())
    assert not missing, (
        f"add these URL names and the parameters their views read to URLS: {missing}"
    )
    stale = sorted(URLS.keys() - names)
    assert not stale, f"URLS names URLs that no longer exist: {stale}"
    for route in routes:
        unknown = set(path_parameters(route.route)) - URLS[route.name].path.keys()
        assert not unknown, f"{route.name}: no valid value for path parameters {unknown}"


@pytest.mark.parametrize("role", ["anonymous", "participant", "assessor", "organizer"])
def test_no_url_answers_5xx_when_parameters_are_malformed(role: str, campaign: Campaign) -> None:
    client = Client(raise_request_exception=False)
    user = campaign.users[role]
    if user is not None:
        client.force_login(user)
    sweep = Sweep(client)
    for route in project_routes():
        entry = URLS.get(route.name)
        if entry is None:
            continue  # the table test above names it
        sweep_route(sweep, route, entry, campaign)
        if route.name == "logout" and user is not None:
            client.force_login(user)  # the sweep logged out: log in again for the next URLs
    assert sweep.requests > 1000
    assert not sweep.failures, f"{len(sweep.failures)} answers >= 500:\n" + "\n".join(
        sweep.failures[:60]
    )
