"""An endpoint's settings, checked before anything is stored.

The base URL is where ``/chat/completions`` is posted: http or https, a host, no user or
password (a key in the URL would be stored and shown), no query or fragment. The API key is
never a setting: ``api_key_env`` names the environment variable that holds it.

Where a request may go: anywhere but the addresses no judge serves from and a request could
abuse (``address_refusal``): link-local ones, where cloud metadata services hand out the
machine's credentials (169.254.169.254, fe80::/10), the unspecified "this host" address
(0.0.0.0, ::), multicast and broadcast. Loopback and private addresses stay allowed: vLLM and
Ollama usually run on the same machine or the LAN.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "BASE_URL_MAX_CHARS",
    "EndpointFields",
    "address_refusal",
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


# Metadata services outside the link-local range: AWS's IPv6 one (in a private range) and
# Alibaba Cloud's (in the carrier-grade NAT range).
METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("fd00:ec2::254"), ipaddress.ip_address("100.100.100.200")}
)
THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")  # RFC 1122: "this host on this network"
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: an IPv4 address in its last 32 bits


def address_refusal(address: str) -> str | None:
    """Why no request may go to ``address`` (an IP address as text, an IPv6 one perhaps with
    its zone), or None when it may (anything that is not an IP address: a name is checked
    where it is resolved). An IPv4 address inside an IPv6 one is judged as itself."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return address_refusal(str(ip.ipv4_mapped))
        if ip in NAT64:
            return address_refusal(str(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)))
        ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])  # the zone does not matter
    if ip in METADATA_ADDRESSES:
        return f"{ip}, a cloud metadata address"
    if ip.is_link_local:
        return f"{ip}, a link-local address (where cloud metadata services answer)"
    if ip.is_unspecified or ip in THIS_NETWORK:
        return f'{ip}, an unspecified address ("this host", not a server\'s address)'
    if ip.is_multicast:
        return f"{ip}, a multicast address"
    if ip == ipaddress.IPv4Address("255.255.255.255"):
        return f"{ip}, the broadcast address"
    return None


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
    if (refusal := address_refusal(parts.hostname)) is not None:
        return f"base URL: {refusal}; a judge endpoint may not be there"
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
