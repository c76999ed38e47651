"""What the commands print: runserver's start-up lines once, the demo's address on the port it
serves, and the qrels help saying what the reader accepts."""

import os
import signal
import socket
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from collection.models import Campaign
from demo.arqmath_campaign import CAMPAIGN
from evaluation.views.qrels import QrelsImportForm
from kernel.core.qrels import qrels_parse

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _runserver_output(tmp_path: Path, port: int) -> str:
    """runserver with its autoreloader (two processes), until it says it is serving."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PYTHONUNBUFFERED": "1",
    }
    server = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # the reloader's child is in the group: stop both
    )
    lines: list[str] = []
    deadline = time.monotonic() + 60
    try:
        assert server.stdout is not None
        for line in server.stdout:
            lines.append(line)
            if "Quit the server" in line or time.monotonic() > deadline:
                break
        time.sleep(1)  # anything printed twice would come right after
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        rest, _ = server.communicate(timeout=30)
    return "".join(lines) + (rest or "")


def test_runserver_prints_each_start_up_line_once_when_its_autoreloader_runs(
    tmp_path: Path,
) -> None:
    port = _free_port()
    output = _runserver_output(tmp_path, port)
    assert output.count(f"Starting development server at http://127.0.0.1:{port}/") == 1, output
    assert output.count("Watching for file changes") == 1, output
    assert output.count("System check identified") == 1, output


@pytest.mark.django_db
def test_demo_prints_the_address_on_the_port_it_serves_when_port_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    Campaign.objects.create(name=CAMPAIGN)  # an existing demo: the command prints the logins
    monkeypatch.setenv("PORT", "8123")
    out = StringIO()
    call_command("demo", stdout=out)
    assert "Open http://127.0.0.1:8123 and log in as:" in out.getvalue()
    assert ":8000" not in out.getvalue()


def test_qrels_help_says_what_the_reader_accepts_when_columns_are_spaces_or_tabs() -> None:
    help_text = str(QrelsImportForm().fields["file"].help_text)
    assert "tabs or spaces" in help_text
    assert "tab-separated" not in help_text
    entries = qrels_parse("A.1 0 101 3\r\nA.1\t0\t102\t2\n\nA.2 \t 0  103\t 1\n")
    assert [(e.topic, e.doc, e.grade) for e in entries] == [
        ("A.1", "101", 3),
        ("A.1", "102", 2),
        ("A.2", "103", 1),
    ]
