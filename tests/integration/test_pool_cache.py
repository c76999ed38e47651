"""Pool figures and exports come from the cache until the next build."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from collection.models import RetrievalTask, Topic
from pooling.models import PoolBuild, Run
from pooling.selectors.pool_cache import pool_cache_key, pool_cache_warm
from pooling.services.pools import pool_build
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory, UserFactory
from tests.integration.pool_data import load_answer_rows, make_run, make_topics

pytestmark = pytest.mark.django_db


@pytest.fixture
def built() -> RetrievalTask:
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name="Cache-Camp"), kind="answer", primary_depth=3
    )
    t1, t2 = make_topics(task, 2)
    load_answer_rows(make_run(task, "A"), {t1.pk: [1, 2, 3], t2.pk: [7]})
    load_answer_rows(make_run(task, "B"), {t1.pk: [3, 4, 5]})
    pool_build(task=task)
    return task


@pytest.fixture
def organizer(client: Client) -> Client:
    client.force_login(UserFactory.create(username="org", is_staff=True))
    return client


def fetch(client: Client, url: str) -> tuple[bytes, int]:
    """The body of ``url`` (streamed ones read to the end) and the queries it took."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        assert response.status_code == 200
        body = response.getvalue()  # a streamed body is read to its end
    return body, len(queries)


def without_csrf(body: bytes) -> bytes:
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", body)


@pytest.mark.parametrize(
    "path",
    ["/api/pools/{}/", "/pools/{}/", "/pools/{}/export/hits.tsv", "/pools/{}/export/annotated.tsv"],
)
def test_figures_and_exports_come_from_the_cache_when_requested_again(
    organizer: Client, built: RetrievalTask, path: str
) -> None:
    url = path.format(built.pk)
    first, computed = fetch(organizer, url)
    second, cached = fetch(organizer, url)

    assert without_csrf(second) == without_csrf(first)
    assert cached <= computed - 3  # the figures' or the export's own queries are gone


PATHS = [
    "/api/pools/{}/",
    "/pools/{}/",
    "/pools/{}/export/hits.tsv",
    "/pools/{}/export/annotated.tsv",
]


def test_first_request_after_a_build_is_served_from_the_cache_when_the_worker_warmed_it(
    organizer: Client, built: RetrievalTask
) -> None:
    assert pool_cache_warm(built) == 4  # the figures and the three exports
    assert pool_cache_warm(built) == 0  # nothing left to compute
    for path in PATHS:
        url = path.format(built.pk)
        first, first_queries = fetch(organizer, url)
        second, second_queries = fetch(organizer, url)
        assert without_csrf(first) == without_csrf(second)
        assert first_queries == second_queries, url  # the first one was a hit too


def test_next_build_invalidates_cached_figures_and_exports_when_a_late_run_is_pooled(
    organizer: Client, built: RetrievalTask
) -> None:
    stats_url, export_url = f"/api/pools/{built.pk}/", f"/pools/{built.pk}/export/annotated.tsv"
    assert organizer.get(stats_url).json()["totals"]["items"] == 6
    assert b"Late" not in fetch(organizer, export_url)[0]
    topic = Topic.objects.get(task=built, number="A.2")

    load_answer_rows(make_run(built, "Late"), {topic.pk: [8, 9]})
    pool_build(task=built)

    assert organizer.get(stats_url).json()["totals"]["items"] == 8
    assert b"Late" in fetch(organizer, export_url)[0]


def test_figures_follow_a_run_edit_when_no_build_happened_since(
    organizer: Client, built: RetrievalTask
) -> None:
    url = f"/api/pools/{built.pk}/"
    assert not any(run["is_baseline"] for run in organizer.get(url).json()["runs"])

    Run.objects.filter(task=built, tag="A").update(is_baseline=True)

    runs = {run["label"].split("/")[1]: run for run in organizer.get(url).json()["runs"]}
    assert runs["A"]["is_baseline"]


def test_nothing_is_cached_when_a_build_of_the_campaign_is_running(built: RetrievalTask) -> None:
    assert pool_cache_key(built, "stats") is not None
    PoolBuild.objects.create(task=built, status=PoolBuild.Status.RUNNING)

    assert pool_cache_key(built, "stats") is None
