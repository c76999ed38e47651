"""Where a judge endpoint's requests may go: never to a link-local (cloud metadata),
unspecified, multicast or broadcast address, whether the base URL names one, its name resolves
to one when registered, or later when a request is made; redirects are never followed.
Loopback and private addresses stay allowed.

Real sockets throughout: on Linux a connection to 0.0.0.0 reaches the local machine, so a
server on 127.0.0.1 would answer a request sent to ``http://0:PORT`` (the name "0" resolves to
0.0.0.0) if the client let it go; its request counter shows it did not.
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from judges.client import EndpointRefused
from judges.core.endpoints import EndpointFields
from judges.models import JudgeEndpoint
from judges.services.endpoints import EndpointError, endpoint_add, endpoint_client
from judges.services.runs import judge_run_execute, judge_run_prepare
from tests.factories.collection import UserFactory
from tests.integration.judge_server import (
    judge_server,
    judged_document_task,
    server_stats,
    write_qrels,
)

pytestmark = pytest.mark.django_db

REFUSED = [
    ("http://169.254.169.254/latest/meta-data", "link-local"),
    ("http://[fe80::1]:8000/v1", "link-local"),
    ("http://[::ffff:169.254.169.254]/v1", "link-local"),
    ("http://0.0.0.0:8000/v1", "unspecified"),
    ("http://[::]:8000/v1", "unspecified"),
    ("http://224.0.0.1/v1", "multicast"),
    ("http://[ff02::1]/v1", "multicast"),
    ("http://255.255.255.255/v1", "broadcast"),
    ("http://[fd00:ec2::254]/v1", "cloud metadata"),
    # Names the resolver turns into such addresses (no DNS needed: numeric forms).
    ("http://2852039166/v1", "2852039166 resolves to 169.254.169.254"),
    ("http://0:8000/v1", "0 resolves to 0.0.0.0"),
]


def _fields(url: str, name: str = "local") -> EndpointFields:
    return EndpointFields(name=name, base_url=url, model="m")


@pytest.mark.parametrize(("url", "says"), REFUSED)
def test_an_endpoint_at_a_refused_address_is_refused_by_field_when_registered(
    url: str, says: str
) -> None:
    with pytest.raises(EndpointError) as caught:
        endpoint_add(fields=_fields(url))
    (problem,) = caught.value.problems
    assert problem.startswith("base URL: "), problem
    assert says in problem
    assert not JudgeEndpoint.objects.exists()


def test_the_command_page_and_rest_refuse_the_metadata_address_and_store_nothing() -> None:
    metadata = "http://169.254.169.254/v1"
    with pytest.raises(CommandError, match=re.escape("base URL: 169.254.169.254, a link-local")):
        call_command(
            "judge_endpoint", "add", "meta", "--base-url", metadata, "--model", "m",
            stdout=io.StringIO(),
        )  # fmt: skip
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    fields = {"name": "meta", "base_url": metadata, "model": "m"}
    answer = client.post("/api/judges/endpoints/", fields, "application/json")
    assert answer.status_code == 400
    assert any("link-local" in p for p in answer.json()["problems"])
    page = client.post("/organize/judges/endpoints/", {**fields, "concurrency": 4,
                       "requests_per_minute": 0, "timeout_seconds": 60})  # fmt: skip
    assert page.status_code == 400
    assert "base URL: 169.254.169.254, a link-local address" in page.content.decode()
    assert not JudgeEndpoint.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "http://localhost:11434/v1",
        "http://[::1]:8000/v1",
        "http://10.1.2.3:8000/v1",
        "http://192.168.1.20/v1",
        "http://172.16.0.9:8000/v1",
        "http://[fd12:3456::1]:8000/v1",
    ],
)
def test_loopback_and_private_addresses_are_allowed_when_registered(url: str) -> None:
    assert endpoint_add(fields=_fields(url)).base_url == url


class _Counting(BaseHTTPRequestHandler):
    """Counts requests; answers each with the server's ``answer`` (status, Location)."""

    def do_POST(self) -> None:
        server = self.server
        server.hits += 1  # type: ignore[attr-defined]
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, location = server.answer  # type: ignore[attr-defined]
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[list[ThreadingHTTPServer]]:
    started = []
    for _ in range(2):
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
        server.hits = 0  # type: ignore[attr-defined]
        server.answer = (200, "")  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
    yield started
    for server in started:
        server.shutdown()
        server.server_close()


def _ask(endpoint: JudgeEndpoint) -> str:
    return endpoint_client(endpoint, seed=1, pool_size=1).ask({"model": "m"}).error


@pytest.mark.parametrize("target", ["second", "metadata"])
def test_a_redirect_from_an_endpoint_is_an_error_never_followed(
    servers: list[ThreadingHTTPServer], target: str
) -> None:
    first, second = servers
    where = {
        "second": f"http://127.0.0.1:{second.server_address[1]}/v1/chat/completions",
        "metadata": "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    }[target]
    first.answer = (307, where)  # type: ignore[attr-defined]
    endpoint = endpoint_add(fields=_fields(f"http://127.0.0.1:{first.server_address[1]}/v1"))
    assert _ask(endpoint).startswith("HTTP 307")
    assert (first.hits, second.hits) == (1, 0)  # type: ignore[attr-defined]


def test_a_name_that_resolves_to_a_refused_address_later_is_refused_at_request_time(
    servers: list[ThreadingHTTPServer],
) -> None:
    server, _ = servers
    port = server.server_address[1]
    endpoint = endpoint_add(fields=_fields(f"http://127.0.0.1:{port}/v1"))
    assert _ask(endpoint).startswith("not a chat completion")  # it was asked
    assert server.hits == 1  # type: ignore[attr-defined]
    # As if its name now resolved to 0.0.0.0 (which would reach this server on Linux).
    JudgeEndpoint.objects.filter(pk=endpoint.pk).update(base_url=f"http://0:{port}/v1")
    endpoint.refresh_from_db()
    with pytest.raises(EndpointRefused, match=re.escape("0 resolves to 0.0.0.0, an unspecified")):
        _ask(endpoint)
    assert server.hits == 1  # type: ignore[attr-defined]


def test_a_judge_run_whose_endpoint_now_resolves_to_a_refused_address_fails_saying_so(
    tmp_path: Path,
) -> None:
    task, truth = judged_document_task(topics=1, items=3, seed=4)
    with judge_server(write_qrels(tmp_path / "qrels.txt", truth)) as url:
        endpoint = endpoint_add(fields=_fields(url))
        moved = url.replace("127.0.0.1", "0")
        JudgeEndpoint.objects.filter(pk=endpoint.pk).update(base_url=moved)
        endpoint.refresh_from_db()
        run = judge_run_execute(
            run=judge_run_prepare(task=task, endpoint=endpoint, judge_name="llm")
        )
        assert run.status == "failed"
        assert "the endpoint's address is refused: 0 resolves to 0.0.0.0" in run.error
        assert server_stats(url)["requests"] == 0
