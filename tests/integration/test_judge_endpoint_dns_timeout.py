"""Registering a judge endpoint waits a bounded time for its host's name: behind a DNS server
that never answers, the endpoints page answers within ``JUDGE_RESOLVE_TIMEOUT_SECONDS`` with
the base URL's field error "could not resolve host within N s", and stores nothing.

The DNS server is real: a UDP socket on port 53 of a loopback address that counts the queries
it reads and answers none. The system resolver finds its server in ``/etc/resolv.conf``
(there is no per-process setting), so the page is asked from a child process in a mount
namespace of its own (``unshare -m``) where a resolv.conf naming the silent server, with a
30 s timeout, is mounted over the real one; the machine's own file is never touched. The child
runs the real page through Django's test client against this test's database.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from judges.models import JudgeEndpoint
from tests.factories.collection import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

REPO = Path(__file__).resolve().parents[2]
SILENT_ADDRESS = "127.0.0.77"  # any 127/8 address is the loopback on Linux
HOST = "judge.qrelsmith-dns-test.example"
RESOLVER_TIMEOUT = 30  # what the system resolver would wait for the silent server
BOUND = 1.0  # JUDGE_RESOLVE_TIMEOUT_SECONDS in the child


class SilentDns:
    """A UDP DNS server that reads every query and answers none."""

    def __init__(self) -> None:
        self.queries: list[bytes] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((SILENT_ADDRESS, 53))
        self.sock.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                self.queries.append(self.sock.recv(4096))
            except TimeoutError:
                continue

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.sock.close()


@pytest.fixture
def silent_dns() -> Iterator[SilentDns]:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare(1): a mount namespace over /etc/resolv.conf")
    server = SilentDns()
    yield server
    server.close()


CHILD = """
import json, os, sys, time
import django
django.setup()
from django.contrib.auth.models import User
from django.test import Client
client = Client()
client.force_login(User.objects.get(username="organizer"))
fields = {"name": "slow-dns", "base_url": sys.argv[1], "model": "m", "concurrency": 4,
          "requests_per_minute": 0, "timeout_seconds": 60}
started = time.monotonic()
page = client.post("/organize/judges/endpoints/", fields)
print(json.dumps({"status": page.status_code, "seconds": time.monotonic() - started,
                  "page": page.content.decode()}))
"""


def _ask_page_behind(resolv_conf: Path, base_url: str) -> dict[str, object]:
    database = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
        f"{database['NAME']}",
        "ALLOWED_HOSTS": "testserver",  # the test client's host
        "JUDGE_RESOLVE_TIMEOUT_SECONDS": str(BOUND),
        "PYTHONPATH": str(REPO),
    }
    # The bind mount is private to the child's namespace and goes with it.
    script = 'mount --bind "$1" /etc/resolv.conf && exec "$2" -c "$3" "$4"'
    done = subprocess.run(  # noqa: S603
        ["unshare", "-m", "sh", "-c", script, "sh", resolv_conf, sys.executable, CHILD, base_url],  # noqa: S607
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=3 * RESOLVER_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_host_behind_a_silent_dns_server_is_a_field_error_in_bounded_time_when_registered(
    silent_dns: SilentDns, tmp_path: Path
) -> None:
    UserFactory.create(username="organizer", is_staff=True)
    resolv_conf = tmp_path / "resolv.conf"
    resolv_conf.write_text(
        f"nameserver {SILENT_ADDRESS}\noptions timeout:{RESOLVER_TIMEOUT} attempts:1\n"
    )
    answer = _ask_page_behind(resolv_conf, f"http://{HOST}:8000/v1")
    assert answer["status"] == 400
    assert f"base URL: could not resolve host within {BOUND:g} s ({HOST}" in str(answer["page"])
    assert float(answer["seconds"]) < BOUND + 3  # type: ignore[arg-type]
    # The lookup did reach the silent server (the resolver asked it, and was kept waiting).
    assert any(b"qrelsmith-dns-test" in query for query in silent_dns.queries)
    assert not JudgeEndpoint.objects.exists()
