"""People and machine together over REST and the page: a human sample drawn beside a machine
judge with its inclusion probabilities stored, and each run's estimate with its interval,
against a hand computation of P@2 on evaluation_data's story."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from evaluation.models import HumanSample, HumanSampleItem
from tests.factories import UserFactory
from tests.integration.machine_judge_data import JUDGE_GRADES, import_judge, jsonl
from tests.integration.machine_judge_data import judged_task_with_open_item as judged_task

pytestmark = pytest.mark.django_db


def _task_and_judge(tmp_path: Path):  # type: ignore[no-untyped-def]
    data = judged_task()
    data.task.official_measures = ["P_2", "map"]
    data.task.save(update_fields=["official_measures"])
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    return data, judge


def test_estimate_is_the_full_qrels_value_when_the_budget_covers_every_item(
    tmp_path: Path,
) -> None:
    data, judge = _task_and_judge(tmp_path)
    api = APIClient()
    api.force_authenticate(UserFactory.create(is_staff=True))
    url = reverse("evaluation_api:human-sample", args=[data.task.pk])
    answer = api.post(url, {"judge": judge.pk, "budget": 100, "seed": 3}, format="json")
    assert answer.status_code == 201, answer.content
    found = answer.json()
    # The judge graded 8 pool items; 6 are in the final qrels (104 is flagged "do not know",
    # 203 judged by no one).
    assert (found["machine_items"], found["drawn"], found["judged"]) == (8, 8, 6)
    assert found["measures"] == ["P_2"]
    assert found["not_estimated"] == ["map"]
    runs = {r["run"]: r["estimates"]["P_2"] for r in found["runs"]}
    # By hand, relevant from grade 2 (H+M): alpha A.1 101 (H), 102 (N) -> 1/2; A.2 202 (H),
    # 201 (M) -> 1; mean 0.75. beta A.1 105 (M), 101 (H) -> 1; A.2 missing -> 0; mean 0.5.
    assert runs["Alpha/alpha"]["value"] == pytest.approx(0.75)
    assert runs["Beta/beta"]["value"] == pytest.approx(0.5)
    assert runs["Alpha/alpha"]["low"] == pytest.approx(runs["Alpha/alpha"]["high"])
    assert set(HumanSampleItem.objects.values_list("inclusion", flat=True)) == {1.0}
    assert api.get(url).json()[0]["judged"] == 6


def test_a_smaller_budget_draws_again_with_probabilities_when_drawn_twice(tmp_path: Path) -> None:
    data, judge = _task_and_judge(tmp_path)
    api = APIClient()
    api.force_authenticate(UserFactory.create(is_staff=True))
    url = reverse("evaluation_api:human-sample", args=[data.task.pk])
    assert api.post(url, {"judge": judge.pk, "budget": 0}, format="json").status_code == 400
    for seed in range(5):
        answer = api.post(url, {"judge": judge.pk, "budget": 4, "seed": seed}, format="json")
        assert answer.status_code == 201
        runs = answer.json()["runs"]
        for run in runs:
            e = run["estimates"]["P_2"]
            assert e["low"] <= e["value"] <= e["high"]
    assert HumanSample.objects.count() == 1  # a new draw replaces the judge's earlier one
    # The drawn items are stored with the probability each was drawn with.
    stored = list(HumanSampleItem.objects.values_list("inclusion", flat=True))
    assert all(0 < p <= 1 for p in stored)


def test_people_and_machine_page_shows_intervals_to_organizers(tmp_path: Path) -> None:
    data, judge = _task_and_judge(tmp_path)
    client = Client()
    client.force_login(UserFactory.create())
    url = reverse("evaluation:human-sample", args=[data.task.pk])
    assert client.get(url).status_code in (302, 403)
    client.force_login(UserFactory.create(is_staff=True))
    answer = client.post(url, {"judge": judge.pk, "budget": 100, "seed": 0})
    assert answer.status_code == 302
    text = client.get(url).content.decode()
    assert "Rests on <strong>6</strong> items judged by people of <strong>8</strong>" in text
    assert "0.7500 <small>[0.7500, 0.7500]</small>" in text
    bad = client.post(url, {"judge": judge.pk, "budget": -1, "seed": 0})
    assert bad.status_code == 400


def _people_builds(queries: list[dict[str, str]]) -> int:
    """How many qrels were built: each build (the people's, or one machine judge's) reads the
    task's adjudications once."""
    return sum('FROM "assessment_adjudication"' in q["sql"] for q in queries)


def test_the_page_and_rest_build_the_peoples_qrels_once_when_a_task_has_two_samples(
    tmp_path: Path,
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from evaluation.selectors.human_sample import human_sample_estimates
    from evaluation.selectors.sample_routing import sample_routing

    data, judge = _task_and_judge(tmp_path)
    second, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name="second")
    organizer = UserFactory.create(is_staff=True)
    api = APIClient()
    api.force_authenticate(organizer)
    url = reverse("evaluation_api:human-sample", args=[data.task.pk])
    for which, budget in ((judge, 100), (second, 4)):
        answer = api.post(url, {"judge": which.pk, "budget": budget, "seed": 1}, format="json")
        assert answer.status_code == 201, answer.content
    # The figures as each sample alone gives them (people's qrels built per sample).
    alone = {
        s.pk: (human_sample_estimates(sample=s), sample_routing(s))
        for s in HumanSample.objects.select_related("judge", "task")
    }
    client = Client()
    client.force_login(organizer)
    page_url = reverse("evaluation:human-sample", args=[data.task.pk])
    with CaptureQueriesContext(connection) as page_queries:
        page = client.get(page_url)
    assert page.status_code == 200
    # Two machine judges' qrels and the people's once (it was once per sample, twice over).
    assert _people_builds(page_queries.captured_queries) == 2 + 1
    with CaptureQueriesContext(connection) as api_queries:
        listed = api.get(url).json()
    assert _people_builds(api_queries.captured_queries) == 2 + 1
    for shown in listed:
        estimates, routing = alone[shown["id"]]
        assert (shown["drawn"], shown["judged"], shown["in_pool"], shown["queued"]) == (
            estimates.drawn,
            estimates.judged,
            routing.in_pool,
            routing.queued,
        )
        assert {r["run"]: r["estimates"] for r in shown["runs"]} == {
            label: {
                name: {k: v for k, v in e.__dict__.items() if k != "measure"}
                for name, e in values.items()
            }
            for label, values in estimates.rows
        }
    # Every figure on the page is the one each sample gives alone.
    text = page.content.decode()
    for estimates, _ in alone.values():
        assert f"<strong>{estimates.judged}</strong> items judged by people" in text
