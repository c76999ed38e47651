"""Keeping an endpoint's requests away from the addresses ``judges.core.endpoints`` refuses,
after the host's name is resolved.

Registration checks the address a base URL names, and what its name resolves to then; but a
name can resolve elsewhere later. So every connection the judge client opens resolves the
name itself, refuses the connection when any address it resolves to is refused, and connects
to the address it checked (never resolving again between the check and the connection, which
a name with a short lifetime could otherwise exploit). TLS still checks the certificate
against the name.

A resolver that never answers would hold a registration page (and a run's connection) for as
long as the system resolver keeps retrying, so a lookup waits ``JUDGE_RESOLVE_TIMEOUT_SECONDS``
at most; the lookup itself runs on in a daemon thread until the system resolver gives up (it
cannot be cancelled), but nobody waits for it.
"""

from __future__ import annotations

import queue
import socket
import threading
from typing import Any

import urllib3
from django.conf import settings
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NameResolutionError

from judges.core.endpoints import address_refusal

__all__ = [
    "ForbiddenAddress",
    "ResolveTimeout",
    "guarded_pool_manager",
    "host_refusal",
    "vetted_addresses",
]


class ForbiddenAddress(Exception):
    """A host resolves to an address no endpoint request may go to."""


class ResolveTimeout(socket.gaierror):
    """The host's name got no answer within ``JUDGE_RESOLVE_TIMEOUT_SECONDS``: a resolution
    error to urllib3 (a run's request fails naming it), a field error to registration."""

    def __init__(self, host: str, seconds: float) -> None:
        self.host, self.seconds = host, seconds
        super().__init__(f"could not resolve host within {seconds:g} s ({host}: no answer)")


def _resolve(host: str, port: int) -> list[str]:
    seconds = float(settings.JUDGE_RESOLVE_TIMEOUT_SECONDS)
    answer: queue.SimpleQueue[list[str] | BaseException] = queue.SimpleQueue()

    def lookup() -> None:
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            answer.put(list(dict.fromkeys(str(info[4][0]) for info in found)))
        except BaseException as error:  # handed to the waiting caller, raised there
            answer.put(error)

    threading.Thread(target=lookup, name=f"resolve {host}", daemon=True).start()
    try:
        got = answer.get(timeout=seconds)
    except queue.Empty:
        raise ResolveTimeout(host, seconds) from None
    if isinstance(got, BaseException):
        raise got
    return got


def vetted_addresses(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, in the resolver's order; ForbiddenAddress when any
    is refused (one bad answer among good ones is refused too: a name that points there at
    all is not an endpoint's). socket.gaierror when the name does not resolve."""
    addresses = _resolve(host, port)
    for address in addresses:
        if (refusal := address_refusal(address)) is not None:
            raise ForbiddenAddress(refusal if host == address else f"{host} resolves to {refusal}")
    return addresses


def host_refusal(host: str, port: int) -> str | None:
    """Why ``host`` may not be an endpoint's host as it resolves now, or None (also when it
    does not resolve: the server may not be up yet, and every request is checked again). A
    name whose resolver does not answer in time is refused: nothing says where it points."""
    try:
        vetted_addresses(host, port)
    except ForbiddenAddress as error:
        return f"{error}; a judge endpoint may not be there"
    except ResolveTimeout as error:
        return f"{error}; check the name, or the server's DNS, and register it again"
    except (socket.gaierror, UnicodeError):
        return None
    return None


class _GuardedConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        name = self._dns_host
        try:
            address = vetted_addresses(name, self.port)[0]
        except socket.gaierror as error:
            raise NameResolutionError(self.host, self, error) from error
        # Connect to the checked address; the name stays for the Host header and TLS.
        self._dns_host = address
        try:
            return super()._new_conn()
        finally:
            self._dns_host = name


class _GuardedHTTPSConnection(_GuardedConnection, HTTPSConnection):
    pass


class _GuardedPool(HTTPConnectionPool):
    ConnectionCls = _GuardedConnection


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


def guarded_pool_manager(**options: Any) -> urllib3.PoolManager:
    """A urllib3 PoolManager whose every connection goes only to an allowed address."""
    manager = urllib3.PoolManager(**options)
    manager.pool_classes_by_scheme = {"http": _GuardedPool, "https": _GuardedHTTPSPool}
    return manager
