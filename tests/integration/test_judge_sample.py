"""``run_judge --limit N`` (and the page's and REST's limit) judge a seeded random sample of
the pool, not its first N items: the sample is recomputed here from its definition (SHA-256 of
seed, topic and item id, the N smallest), the seed is recorded with the run, and a larger limit
with the same seed reuses the answers a smaller one cached."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from django.core.management import call_command

from judges.models import JudgeRun
from judges.selectors.work import judge_work
from tests.factories.collection import UserFactory
from tests.integration.judge_server import judge_server, judged_document_task, write_qrels

pytestmark = pytest.mark.django_db


def _expected(truth: dict[tuple[str, str], int], seed: int, n: int) -> set[tuple[str, str]]:
    def digest(key: tuple[str, str]) -> bytes:
        return hashlib.sha256(f"{seed}\t{key[0]}\t{key[1]}".encode()).digest()

    return set(sorted(truth, key=digest)[:n])


def _keys(work: list) -> set[tuple[str, str]]:
    return {(w.prompt.topic_number, w.key) for w in work if w.hit_id is not None}


def test_a_limited_run_judges_the_seeded_sample_not_the_first_items() -> None:
    task, truth = judged_document_task(topics=4, items=10, seed=5)
    first = judge_work(task, limit=8, sample_seed=0)
    assert _keys(first) == _expected(truth, 0, 8)
    assert len({k[0] for k in _keys(first)}) > 1  # the first 8 would all be topic 1's
    assert _keys(judge_work(task, limit=8, sample_seed=0)) == _keys(first)
    assert _keys(judge_work(task, limit=8, sample_seed=7)) == _expected(truth, 7, 8)
    assert _keys(judge_work(task, limit=8, sample_seed=7)) != _keys(first)
    assert _keys(judge_work(task, limit=12, sample_seed=0)) > _keys(first)
    assert len(_keys(judge_work(task, limit=100))) == 40
    # In pool order still: topic by topic.
    numbers = [w.prompt.topic_number for w in first]
    assert numbers == sorted(numbers)


def test_the_command_states_and_records_the_seed_and_a_larger_sample_reuses_the_cache(
    tmp_path: Path,
) -> None:
    task, truth = judged_document_task(topics=3, items=6, seed=9)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    options = {"campaign": task.campaign.name, "task": "document", "endpoint": "cli"}
    with judge_server(qrels) as url:
        call_command("judge_endpoint", "add", "cli", "--base-url", url, "--model", "fake")
        small, large = io.StringIO(), io.StringIO()
        call_command(
            "run_judge",
            judge="j",
            limit=5,
            sample_seed=11,
            stdout=small,
            stderr=io.StringIO(),
            **options,
        )
        call_command(
            "run_judge",
            judge="j",
            limit=9,
            sample_seed=11,
            stdout=large,
            stderr=io.StringIO(),
            **options,
        )
    assert (
        "over a random sample of 5 pool items (sample seed 11) and the probes: 5 questions; asked 5"
        in (small.getvalue())
    )
    assert "9 questions; asked 4, from cache 5" in large.getvalue()
    runs = list(JudgeRun.objects.order_by("pk"))
    assert [(r.parameters["limit"], r.parameters["sample_seed"]) for r in runs] == [
        (5, 11),
        (9, 11),
    ]


def test_the_page_and_rest_record_the_sample_seed_they_are_given() -> None:
    from django.test import Client

    from judges.core.endpoints import EndpointFields
    from judges.services.endpoints import endpoint_add

    task, _ = judged_document_task(topics=1, items=3, seed=4)
    endpoint = endpoint_add(
        fields=EndpointFields(name="e", base_url="http://127.0.0.1:9", model="m")
    )
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    api = client.post(
        f"/api/judges/tasks/{task.pk}/runs/",
        {"endpoint": "e", "judge": "j", "limit": 2, "sample_seed": 42},
        content_type="application/json",
    )
    assert api.status_code == 202, api.content
    page = client.post(
        f"/organize/task/{task.pk}/judge-runs/",
        {"action": "start", "endpoint": endpoint.pk, "judge": "j", "limit": 2, "sample_seed": 8},
    )
    assert page.status_code == 302, page.content
    recorded = [
        (r.parameters["limit"], r.parameters["sample_seed"])
        for r in JudgeRun.objects.order_by("pk")
    ]
    assert recorded == [(2, 42), (2, 8)]
    bad = client.post(
        f"/api/judges/tasks/{task.pk}/runs/",
        {"endpoint": "e", "judge": "j", "limit": 2, "sample_seed": -1},
        content_type="application/json",
    )
    assert bad.status_code == 400
    assert "sample_seed" in bad.json()["problems"][0]
