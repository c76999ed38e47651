"""LLM judge runs against the project's fake judge server, a separate process over HTTP.

The expected grades come from the qrels file the server answers from (no confusion), not from
our own output; the server's /stats counts the requests it received.
"""

from __future__ import annotations

import io
import logging
import re
import secrets
import time
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from assessment.models import Judgment
from judges.core.endpoints import EndpointFields
from judges.models import JudgeAnswer, JudgeEndpoint, JudgeGradeSource, JudgeRun, ProbeItem
from judges.selectors.runs import run_status
from judges.services.endpoints import endpoint_add
from judges.services.probes import probe_add
from judges.services.runs import judge_run_execute, judge_run_prepare
from tests.factories.collection import UserFactory
from tests.integration.judge_server import (
    judge_server,
    judged_document_task,
    server_stats,
    write_qrels,
)

pytestmark = pytest.mark.django_db


def _endpoint(url: str, **fields: object):
    values = {"name": "fake", "base_url": url, "model": "fake-judge", "concurrency": 4, **fields}
    return endpoint_add(fields=EndpointFields(**values))  # type: ignore[arg-type]


def _grades(run: JudgeRun) -> dict[tuple[str, str], int | None]:
    rows = Judgment.objects.filter(assessor_id=run.judge.account_id).values_list(
        "hit__item__topic__number", "hit__item__key", "grade"
    )
    found: dict[tuple[str, str], int | None] = {}
    for number, key, grade in rows:
        assert (number, key) not in found, "two judgments of one item"
        found[(number, key)] = grade
    return found


def test_run_stores_one_judgment_per_item_equal_to_the_server_through_429_500_and_rate_limits(
    tmp_path: Path,
) -> None:
    task, truth = judged_document_task(topics=3, items=20)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    options = ["--error-rate-429", "0.15", "--error-rate-500", "0.15", "--seed", "3"]
    with judge_server(qrels, *options) as url:
        # 60 items at 1,200 a minute, a burst of 4: at least (60 - 4) / 20 = 2.8 s.
        endpoint = _endpoint(url, requests_per_minute=1200)
        run = judge_run_prepare(task=task, endpoint=endpoint, judge_name="llm")
        started = time.monotonic()
        run = judge_run_execute(run=run)
        elapsed = time.monotonic() - started
        stats = server_stats(url)
        assert run.status == "done", run.error
        assert _grades(run) == truth
        assert (run.items_total, run.asked, run.from_cache, run.failed) == (60, 60, 0, 0)
        assert stats["answered_items"] == 60
        assert stats["answered_more_than_once"] == 0
        assert stats["status"].get("429", 0) + stats["status"].get("500", 0) == run.retries > 0
        assert stats["requests"] >= (60 - 4) * 1.0  # every request counted, retries included
        assert elapsed >= (stats["requests"] - 4) / 20 - 0.2
        provenance = JudgeGradeSource.objects.filter(judge=run.judge).select_related("answer")
        assert provenance.count() == 60
        one = provenance.first().answer  # type: ignore[union-attr]
        assert (one.endpoint_name, one.model, one.prompt_version, one.temperature) == (
            "fake",
            "fake-judge",
            0,
            0.0,
        )
        assert one.raw_answer.endswith(f"Grade: {one.grade}")
        assert one.prompt_tokens > 0

        before = server_stats(url)["requests"]
        again = judge_run_execute(
            run=judge_run_prepare(task=task, endpoint=endpoint, judge_name="llm")
        )
        assert (again.asked, again.from_cache, again.status) == (0, 60, "done")
        assert server_stats(url)["requests"] == before  # the second run asked the server nothing
        assert _grades(again) == truth


def test_malformed_answers_are_failures_with_their_text_and_never_graded(tmp_path: Path) -> None:
    task, truth = judged_document_task(topics=2, items=25, seed=2)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    with judge_server(qrels, "--malformed-rate", "0.3", "--seed", "5") as url:
        run = judge_run_execute(
            run=judge_run_prepare(task=task, endpoint=_endpoint(url), judge_name="llm")
        )
    failed = JudgeAnswer.objects.filter(run=run, ok=False)
    assert 0 < run.failed == failed.count() < 50
    assert all(a.grade is None and "Grade: N" in a.failure and a.raw_answer for a in failed)
    grades = _grades(run)
    assert len(grades) == 50 - run.failed  # a failure stores no judgment
    assert all(truth[key] == grade for key, grade in grades.items())
    assert run.status == "done"
    assert run_status(run)["failures_note"] == f"with {run.failed} failures"


def test_a_run_whose_every_question_failed_is_failed_on_the_page_rest_and_command(
    tmp_path: Path,
) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    task, truth = judged_document_task(topics=2, items=3, seed=4)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    with judge_server(qrels, "--malformed-rate", "1.0", "--seed", "5") as url:
        run = judge_run_execute(
            run=judge_run_prepare(task=task, endpoint=_endpoint(url), judge_name="llm")
        )
        assert (run.items_total, run.failed) == (6, 6)
        assert run.status == "failed"
        assert run.error == "every one of the 6 items failed; nothing was judged"
        state = run_status(run)
        assert (state["status"], state["failures_note"]) == ("failed", "")
        options = {"campaign": task.campaign.name, "task": "document", "endpoint": "fake"}
        with pytest.raises(CommandError, match="failed: every one of the 6 items failed"):
            call_command(
                "run_judge", judge="cli", stdout=io.StringIO(), stderr=io.StringIO(), **options
            )
    assert not Judgment.objects.exists()
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = " ".join(client.get(f"/organize/task/{task.pk}/judge-runs/").content.decode().split())
    assert 'data-field="status">failed</span>' in page
    assert "nothing was judged" in page
    assert "6 of 6 questions (pool items and probes)" in re.sub(r"<[^>]+>", "", page)
    rest = client.get(f"/api/judges/runs/{run.pk}/").json()
    assert (rest["status"], rest["error"]) == ("failed", run.error)


def test_probes_are_judged_but_never_pooled_judged_by_people_or_in_qrels(tmp_path: Path) -> None:
    task, truth = judged_document_task(topics=1, items=5, seed=4)
    topic = task.topics.get()
    probes = [probe_add(topic=topic, kind=kind, seed=1) for kind in ProbeItem.Kind.values]
    assert "Note to the assessor" not in probes[0].text
    assert "Note to the assessor" in probes[1].text
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    with judge_server(qrels) as url:
        run = judge_run_execute(
            run=judge_run_prepare(task=task, endpoint=_endpoint(url), judge_name="llm")
        )
    assert run.items_total == 7
    assert JudgeAnswer.objects.filter(probe__in=probes, ok=True).count() == 2
    assert _grades(run) == truth  # no judgment of a probe
    assert not topic.pool_items.filter(key__startswith="probe-").exists()
    organizer = UserFactory.create(is_staff=True)
    client = Client()
    client.force_login(organizer)
    page = client.get(f"/organize/task/{task.pk}/judge-runs/")
    assert page.status_code == 200
    assert probes[1].key in page.content.decode()


def test_the_api_key_is_sent_but_never_stored_logged_or_shown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-" + secrets.token_hex(16)
    monkeypatch.setenv("JUDGE_TEST_KEY", key)
    task, truth = judged_document_task(topics=1, items=6, seed=6)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    caplog.set_level(logging.DEBUG)
    with judge_server(
        qrels, "--require-key-env", "JUDGE_TEST_KEY", env={"JUDGE_TEST_KEY": key}
    ) as url:
        endpoint = _endpoint(url, api_key_env="JUDGE_TEST_KEY")
        run = judge_run_execute(
            run=judge_run_prepare(task=task, endpoint=endpoint, judge_name="llm")
        )
        assert run.status == "done"
        assert _grades(run) == truth  # the server checked the key
        monkeypatch.setenv("JUDGE_TEST_KEY", "wrong-" + key[::-1])
        refused = judge_run_execute(
            run=judge_run_prepare(
                task=task,
                endpoint=_endpoint(url, name="other", model="m2", api_key_env="JUDGE_TEST_KEY"),
                judge_name="llm2",
            )
        )
        assert refused.status == "failed"
        assert "refused the credentials" in refused.error
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    pages = [
        client.get("/organize/judges/endpoints/").content,
        client.get(f"/organize/task/{task.pk}/judge-runs/").content,
        client.get("/api/judges/endpoints/").content,
        client.get(f"/api/judges/runs/{run.pk}/").content,
    ]
    assert all(key.encode() not in page for page in pages)
    assert key not in caplog.text
    with connection.cursor() as cursor:  # every text column of every table of the app
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE "
            "table_schema = 'public' AND data_type IN ('text', 'character varying', 'jsonb')"
        )
        for table, column in cursor.fetchall():
            cursor.execute(
                f'SELECT count(*) FROM "{table}" WHERE "{column}"::text LIKE %s',  # noqa: S608
                [f"%{key[3:]}%"],
            )
            assert cursor.fetchone()[0] == 0, (table, column)


def test_the_commands_register_an_endpoint_and_run_the_judge_printing_what_they_asked(
    tmp_path: Path,
) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    task, truth = judged_document_task(topics=2, items=4, seed=8)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    with judge_server(qrels) as url:
        out = io.StringIO()
        call_command(
            "judge_endpoint", "add", "cli", "--base-url", url, "--model", "fake", stdout=out
        )
        call_command("judge_endpoint", "list", stdout=out)
        assert f"cli\t{url}\tfake\tno key" in out.getvalue()
        with pytest.raises(CommandError, match="base URL"):
            call_command("judge_endpoint", "add", "x", "--base-url", "file:///etc", "--model", "m")
        first, second = io.StringIO(), io.StringIO()
        options = {"campaign": task.campaign.name, "task": "document", "endpoint": "cli"}
        call_command("run_judge", judge="cli-judge", stdout=first, stderr=io.StringIO(), **options)
        call_command("run_judge", judge="cli-judge", stdout=second, stderr=io.StringIO(), **options)
    assert "8 questions; asked 8, from cache 0, failed 0;" in first.getvalue()
    assert "8 questions; asked 0, from cache 8, failed 0; 0 tokens" in second.getvalue()
    call_command("judge_endpoint", "remove", "cli", stdout=io.StringIO())
    assert not JudgeEndpoint.objects.exists()
