"""An endpoint's settings, checked before anything is stored.

The base URL is where ``/chat/completions`` is posted: http or https, a host, no user or
password (a key in the URL would be stored and shown), no query or fragment. The API key is
never a setting: ``api_key_env`` names the environment variable that holds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "BASE_URL_MAX_CHARS",
    "EndpointFields",
    "base_url_normalise",
    "endpoint_problems",
]

BASE_URL_MAX_CHARS = 500
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,99}$")
ENV_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
MAX_CONCURRENCY = 256
MAX_REQUESTS_PER_MINUTE = 1_000_000
MAX_TIMEOUT = 3600.0


@dataclass(frozen=True)
class EndpointFields:
    name: str
    base_url: str
    model: str
    api_key_env: str = ""
    concurrency: int = 4
    requests_per_minute: int = 0  # 0: no limit
    timeout_seconds: float = 60.0
    price_per_1k_tokens: float = 0.0


def base_url_normalise(url: str) -> str:
    return url.strip().rstrip("/")


def _base_url_problem(url: str) -> str | None:
    if not url:
        return "base URL: give the server's address, e.g. http://127.0.0.1:8000/v1"
    if len(url) > BASE_URL_MAX_CHARS or re.search(r"\s|[\x00-\x1f\x7f]", url):
        return f"base URL: at most {BASE_URL_MAX_CHARS} characters, no spaces"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "base URL: not a valid URL"
    if parts.scheme not in ("http", "https"):
        return "base URL: must start with http:// or https://"
    if not parts.hostname:
        return "base URL: names no host"
    if parts.username is not None or parts.password is not None:
        return "base URL: no user or password in the URL (name the key's variable instead)"
    if parts.query or parts.fragment:
        return "base URL: no query or fragment"
    if port == 0:
        return "base URL: port 0 is not a port"
    return None


def endpoint_problems(fields: EndpointFields) -> list[str]:
    """Every problem of ``fields``, each naming its field; [] when they can be stored."""
    problems = []
    if not NAME_PATTERN.match(fields.name):
        problems.append(
            "name: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    if (problem := _base_url_problem(fields.base_url)) is not None:
        problems.append(problem)
    model = fields.model
    if not model.strip() or len(model) > 200 or re.search(r"[\x00-\x1f\x7f]", model):
        problems.append("model: 1-200 characters, no control characters")
    if fields.api_key_env and not ENV_PATTERN.match(fields.api_key_env):
        problems.append(
            "API key variable: the NAME of an environment variable (letters, digits, '_'), "
            "never the key itself"
        )
    if not 1 <= fields.concurrency <= MAX_CONCURRENCY:
        problems.append(f"concurrency: 1 to {MAX_CONCURRENCY}")
    if not 0 <= fields.requests_per_minute <= MAX_REQUESTS_PER_MINUTE:
        problems.append(f"requests per minute: 0 (no limit) to {MAX_REQUESTS_PER_MINUTE:,}")
    if not 0 < fields.timeout_seconds <= MAX_TIMEOUT:
        problems.append(f"timeout: more than 0 and at most {MAX_TIMEOUT:.0f} seconds")
    if not 0 <= fields.price_per_1k_tokens <= 1000:
        problems.append("price per 1k tokens: 0 to 1000")
    return problems
