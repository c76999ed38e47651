"""Registering and removing judge endpoints, and reading an endpoint's API key.

The key never enters the database: the endpoint stores the NAME of the environment variable
that holds it, and the key is read from the environment of the process that asks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.db import IntegrityError, transaction

from judges.addresses import host_refusal
from judges.client import ChatClient
from judges.core.endpoints import EndpointFields, base_url_normalise, endpoint_problems
from judges.limits import EndpointLimiter
from judges.models import JudgeEndpoint, JudgeRun
from kernel.queue import PENDING, RUNNING

__all__ = ["EndpointError", "endpoint_add", "endpoint_api_key", "endpoint_remove"]


class EndpointError(Exception):
    """An endpoint request breaks a rule; ``problems`` lists each, naming its field."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def endpoint_add(*, fields: EndpointFields, created_by: Any = None) -> JudgeEndpoint:
    """Register an endpoint; every problem of ``fields`` is reported, nothing stored then. A
    base URL whose host resolves to a refused address (``judges.core.endpoints``) is one, and
    so is a host whose name gets no answer within ``JUDGE_RESOLVE_TIMEOUT_SECONDS``."""
    fields = EndpointFields(
        **{
            **fields.__dict__,
            "name": fields.name.strip(),
            "model": fields.model.strip(),
            "base_url": base_url_normalise(fields.base_url),
            "api_key_env": fields.api_key_env.strip(),
        }
    )
    problems = endpoint_problems(fields)
    if not any(p.startswith("base URL:") for p in problems):
        # The name's addresses now; each request checks them again (judges.addresses).
        parts = urlsplit(fields.base_url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if (refusal := host_refusal(parts.hostname or "", port)) is not None:
            problems.append(f"base URL: {refusal}")
    if problems:
        raise EndpointError(problems)
    try:
        with transaction.atomic():
            return JudgeEndpoint.objects.create(
                **fields.__dict__,
                created_by=created_by if getattr(created_by, "pk", None) else None,
            )
    except IntegrityError as error:
        raise EndpointError([f"name: an endpoint named {fields.name!r} exists"]) from error


def endpoint_remove(*, endpoint: JudgeEndpoint) -> None:
    """Remove an endpoint; refused while a run uses it (its past runs and answers stay)."""
    with transaction.atomic():
        busy = JudgeRun.objects.filter(endpoint=endpoint, status__in=(PENDING, RUNNING))
        if busy.exists():
            raise EndpointError([f"{endpoint.name}: a judge run is using it; cancel it first"])
        endpoint.delete()


def endpoint_api_key(endpoint: JudgeEndpoint) -> str:
    """The key from the variable the endpoint names ("" when it names none). The error names
    the variable, never a value."""
    if not endpoint.api_key_env:
        return ""
    key = os.environ.get(endpoint.api_key_env, "")
    if not key:
        raise EndpointError(
            [f"{endpoint.name}: the environment variable {endpoint.api_key_env} is not set"]
        )
    return key


# A concurrency slot outlives its request by this much at most: a dead worker's slots come
# free once its requests would have timed out anyway.
LEASE_MARGIN_SECONDS = 5.0


def endpoint_client(endpoint: JudgeEndpoint, *, seed: int, pool_size: int) -> ChatClient:
    """A client for ``endpoint`` under its limits, which every worker asking it shares through
    Redis (concurrency, requests per minute); the key is read from the environment now."""
    limiter = EndpointLimiter(
        endpoint_id=endpoint.pk,
        concurrency=endpoint.concurrency,
        rpm=endpoint.requests_per_minute,
        lease_seconds=endpoint.timeout_seconds + LEASE_MARGIN_SECONDS,
    )
    return ChatClient(
        base_url=endpoint.base_url,
        api_key=endpoint_api_key(endpoint),
        timeout=endpoint.timeout_seconds,
        limiter=limiter,
        pool_size=pool_size,
        seed=seed,
    )
