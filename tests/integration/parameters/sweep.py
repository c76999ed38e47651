"""Walking the project's URLs and sending each the bad values of the table."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.contrib.auth.models import User
from django.db import DatabaseError, transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.integration.parameters.url_table import (
    BAD_VALUES,
    GENERIC,
    GENERIC_VALUES,
    REFUSED,
    SKIPPED_NAMESPACES,
    Entry,
)


@dataclass(frozen=True)
class Route:
    name: str
    route: str  # "organize/task/<id:task_id>/"


def project_routes() -> Iterator[Route]:
    """Every URL pattern under the root resolver, with its namespaced name and full route."""

    def walk(patterns: list[Any], prefix: str, namespace: str) -> Iterator[Route]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace in SKIPPED_NAMESPACES:
                    continue
                inner = pattern.namespace or namespace
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                name = f"{namespace}:{pattern.name}" if namespace else str(pattern.name)
                yield Route(name, prefix + str(pattern.pattern))

    yield from walk(get_resolver().url_patterns, "", "")


PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


def path_parameters(route: str) -> list[str]:
    return [match["name"] for match in PARAMETER.finditer(route)]


def build_path(route: str, values: dict[str, str]) -> str:
    return "/" + PARAMETER.sub(lambda m: quote(values[m["name"]], safe=""), route)


@dataclass
class Campaign:
    """The ids a valid request uses, and the people who send them."""

    ids: dict[str, str]
    users: dict[str, User | None]

    def fill(self, value: Any) -> Any:
        """``"{task}"`` → the task's id, in strings, lists and dicts alike."""
        if isinstance(value, str):
            return value.format(**self.ids)
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if isinstance(value, dict):
            return {self.fill(k): self.fill(v) for k, v in value.items()}
        return value


def _with(body: Any, dotted: str, value: Any) -> Any:
    """A copy of a JSON body with ``judgments.0.hit`` (a dotted path) set to ``value``."""
    body = json.loads(json.dumps(body))
    *parents, last = dotted.split(".")
    target = body
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
    if isinstance(target, list):
        index = int(last)
        target.extend([None] * (index + 1 - len(target)))
        target[index] = value
    else:
        target[last] = value
    return body


class Sweep:
    """Sends the requests and keeps every answer of 500 or more."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.failures: list[str] = []
        self.requests = 0

    def send(self, method: str, path: str, *, data: Any = None, as_json: bool = False) -> None:
        self.requests += 1
        shown = f"{method} {path} {json.dumps(data, ensure_ascii=True)[:200]}"
        # Each request in its own savepoint: a database error it caused is its own failure,
        # not a broken transaction that fails every request after it.
        try:
            with transaction.atomic():
                status = self._request(method, path, data, as_json)
        except DatabaseError as error:
            self.failures.append(f"{shown} -> left the transaction broken: {error}")
            return
        if status >= 500:
            self.failures.append(f"{shown} -> {status}")

    def refused(self, url: str) -> bool:
        """Does the view turn this client away with valid parameters (POST if GET is 405)?"""
        with transaction.atomic():
            status = self._request("GET", url, None, as_json=False)
            if status == 405:
                status = self._request("POST", url, None, as_json=False)
        return status in REFUSED

    def _request(self, method: str, path: str, data: Any, as_json: bool) -> int:
        if method == "GET":
            return self.client.get(path, data).status_code
        if as_json:
            body = json.dumps(data)
            return self.client.post(path, body, content_type="application/json").status_code
        return self.client.post(path, data or {}).status_code


def sweep_route(sweep: Sweep, route: Route, entry: Entry, campaign: Campaign) -> None:
    valid = {
        name: _valid_path_value(entry, name, campaign) for name in path_parameters(route.route)
    }
    url = build_path(route.route, valid)
    for name in valid:  # each path parameter, the others valid
        for bad in BAD_VALUES:
            bad_url = build_path(route.route, {**valid, name: bad})
            sweep.send("GET", bad_url)
            sweep.send("POST", bad_url)
    if sweep.refused(url):
        # The view turns this role away before it reads anything (login page, 401, 403): the
        # same parameters are read, and swept, for the roles it lets in.
        entry = Entry()
    for name in entry.query:
        for bad in BAD_VALUES:
            sweep.send("GET", url, data={name: bad})
        sweep.send("GET", url, data={name: ["1", BAD_VALUES[0]]})
        sweep.send("GET", url, data={name: [BAD_VALUES[0], "1"]})
    for body in entry.bodies:
        base = campaign.fill(body.base)
        for name in campaign.fill(list(body.fields)):
            for bad in BAD_VALUES:
                data = _with(base, name, bad) if body.as_json else {**base, name: bad}
                sweep.send("POST", url, data=data, as_json=body.as_json)
            if not body.as_json:
                sweep.send("POST", url, data={**base, name: ["1", BAD_VALUES[0]]})
    generic = campaign.fill(GENERIC)
    for bad in GENERIC_VALUES:
        sweep.send("GET", url, data=dict.fromkeys(generic, bad))
        sweep.send("POST", url, data=dict.fromkeys(generic, bad))


def _valid_path_value(entry: Entry, name: str, campaign: Campaign) -> str:
    source = entry.path.get(name)
    if source is None:
        raise AssertionError(f"URLS has no valid value for path parameter {name!r}")
    return source[1:] if source.startswith("=") else campaign.ids[source]
