"""The README's curl upload works as written against the demo.

The test reads the example from README.md ("REST API"), so a change to the example, the demo
or the upload that breaks it fails here instead of in a reader's terminal."""

from __future__ import annotations

import re
import shlex
from io import StringIO
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from collection.models import RetrievalTask
from pooling.models import Run

README = Path(__file__).resolve().parents[2] / "README.md"
DEMO_DIR = "var/demo/"  # where `make demo` writes its files (the demo command's default --dir)


def readme_upload_example() -> tuple[str, dict[str, str], str]:
    """(user whose token is made, the curl -F fields, the URL) from the README."""
    section = README.read_text().split("## REST API", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "README's REST API section has no sh example"
    text = block.group(1).replace("\\\n", " ")
    user = re.search(r"manage\.py create_token (\S+?)\)", text)
    assert user, "the example makes its token with manage.py create_token"
    curl = next(line for line in text.splitlines() if line.strip().startswith("curl"))
    words = shlex.split(curl)
    fields = dict(words[i + 1].split("=", 1) for i, word in enumerate(words) if word == "-F")
    assert words[words.index("-H") + 1] == "Authorization: Token $TOKEN"
    return user.group(1), fields, words[-1]


# Sequences restart so the demo's ids are those of a fresh `make demo` (task 1 = Task 1).
@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_readme_upload_example_is_accepted_when_sent_to_the_demo(tmp_path: Path) -> None:
    user, fields, url = readme_upload_example()
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "60", "--topics", "4", stdout=StringIO()
    )
    token = StringIO()
    call_command("create_token", user, stdout=token)
    upload = fields.pop("file")
    assert upload.startswith("@" + DEMO_DIR)
    path = tmp_path / upload.removeprefix("@" + DEMO_DIR)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.getvalue().strip()}")
    response = client.post(
        urlparse(url).path,
        {**fields, "file": SimpleUploadedFile(path.name, path.read_bytes())},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["run"]["id"])
    assert run.task == RetrievalTask.objects.get(pk=int(fields["task"]))
    assert (run.task.kind, run.tag, run.role) == ("answer", fields["tag"], fields["role"])
    assert run.team.members.filter(username=user).exists()
