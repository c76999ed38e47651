"""The REST side of nugget adjudication and publication (the services the pages use): who may
call what, bad input named by its field, requests sent twice changing nothing; the scores
page's significance table reused on reload and recomputed when a final label moves a figure;
and agreement taken against the final (adjudicated) labels, checked with scikit-learn."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient
from sklearn.metrics import cohen_kappa_score

from nuggets.models import NuggetAdjudication, NuggetPublicationEvent, NuggetScoreSnapshot
from nuggets.services.adjudication import nugget_adjudication_decide
from tests.factories.collection import RetrievalTaskFactory, UserFactory
from tests.integration.nugget_disputes import LABELS, N, S, disputed_task
from tests.integration.test_nugget_adjudication import expected_scores

pytestmark = pytest.mark.django_db


def _api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_adjudication_endpoint_lists_disputes_and_decides_for_organizers_only() -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    url = f"/api/nuggets/tasks/{data.task.pk}/adjudication/"
    n1 = data.nuggets["1"]
    answer = data.answers[("runB", "1")].pk
    body = {"answer": answer, "finals": {str(n1[0].pk): N}, "note": "bob is right"}
    assert _api().get(url).status_code in (401, 403)
    assert _api(data.alice).get(url).status_code == 403
    assert _api(data.alice).post(url, body, format="json").status_code == 403
    assert not NuggetAdjudication.objects.exists()

    listed = _api(boss).get(url).json()
    assert listed["undecided"] == 2
    assert [(a["answer"], a["topic"], a["disputed"]) for a in listed["answers"]] == [
        (data.answers[("runA", "1")].pk, "1", 1),
        (answer, "1", 2),
    ]
    machine = _api(boss).get(url, {"machine": "true"}).json()
    assert data.answers[("runA", "2")].pk in [a["answer"] for a in machine["answers"]]

    decided = _api(boss).post(url, body, format="json")
    assert decided.status_code == 200, decided.content
    shown = decided.json()
    assert shown["changed"] == [n1[0].pk]
    first = next(n for n in shown["nuggets"] if n["id"] == n1[0].pk)
    assert first["final"] == N
    assert first["note"] == "bob is right"
    assert {(o["assessor"], o["support"]) for o in first["labels"]} == {("alice", S), ("bob", N)}
    assert "runB" not in decided.content.decode()  # blind to the run, as the page is
    # Sent again: nothing changes, nothing new is stored.
    again = _api(boss).post(url, body, format="json")
    assert again.status_code == 200
    assert again.json()["changed"] == []
    assert NuggetAdjudication.objects.get().history == []
    assert _api(boss).get(url, {"state": "all"}).json()["undecided"] == 2  # nugget 3 still open
    # The scores take the final label, as the page's adjudication does.
    scores = _api(boss).get(f"/api/nuggets/tasks/{data.task.pk}/scores/").json()
    runb = next(r for r in scores["runs"] if r["run"] == "runB")
    assert runb["measures"] == pytest.approx(
        expected_scores({("runB", "1", 0): N})["runB"]["measures"]
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"answer": "x"}, "answer"),
        ({"answer": 0}, "answer"),
        ({"answer": 2**63}, "answer"),
        ({"finals": {}}, "finals"),
        ({"finals": {"abc": "support"}}, "finals"),
        ({"finals": {"²": "support"}}, "finals"),
        ({"finals": {"1": "maybe"}}, "finals"),
        ({"finals": ["support"]}, "finals"),
        ({"note": "x" * 100_000}, "note"),
        ({"machine": "perhaps"}, "machine"),
    ],
)
def test_adjudication_endpoint_names_the_bad_field_and_stores_nothing(
    change: dict[str, Any], field: str
) -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    url = f"/api/nuggets/tasks/{data.task.pk}/adjudication/"
    body = {"answer": data.answers[("runB", "1")].pk, "finals": {"1": S}, **change}
    response = _api(boss).post(url, body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not NuggetAdjudication.objects.exists()
    assert _api(boss).get(url, {"state": "later"}).json() == {
        "state": ['"later" is not a valid choice.']
    }


def test_adjudication_endpoint_refuses_what_the_service_refuses_all_or_nothing() -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    url = f"/api/nuggets/tasks/{data.task.pk}/adjudication/"
    n1, n2 = data.nuggets["1"], data.nuggets["2"]
    runb = data.answers[("runB", "1")].pk
    cases = [
        ({"answer": runb, "finals": {str(n1[0].pk): N, str(n1[1].pk): S}}, f"nugget {n1[1].pk}"),
        ({"answer": runb, "finals": {str(n2[0].pk): S}}, f"nugget {n2[0].pk} is not in"),
        ({"answer": 99_999_999, "finals": {str(n1[0].pk): S}}, "answer 99999999"),
    ]
    for body, said in cases:
        response = _api(boss).post(url, body, format="json")
        assert response.status_code == 400
        assert said in response.json()["detail"]
    assert not NuggetAdjudication.objects.exists()
    assert _api(boss).get("/api/nuggets/tasks/99999999/adjudication/").status_code == 404


def test_publication_endpoint_publishes_once_and_each_team_reads_only_its_own_runs() -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    carol = UserFactory.create(username="carol")
    data.teams["runB"].members.add(carol)
    outsider = UserFactory.create(username="dave")
    url = f"/api/nuggets/tasks/{data.task.pk}/publication/"
    assert _api().get(url).status_code in (401, 403)
    assert _api(carol).get(url).status_code == 404  # nothing published yet
    assert _api(boss).get(url).json()["published"] is False
    assert _api(carol).post(url, {"action": "publish"}, format="json").status_code == 403
    bad = _api(boss).post(url, {"action": "shout"}, format="json")
    assert bad.status_code == 400
    assert "action" in bad.json()
    refused = _api(boss).post(url, {"action": "withdraw"}, format="json")
    assert refused.status_code == 400
    assert "not published" in refused.json()["detail"]
    assert not NuggetScoreSnapshot.objects.exists()

    published = _api(boss).post(url, {"action": "publish"}, format="json")
    assert published.status_code == 201
    checksum = published.json()["latest"]["checksum"]
    # Sent twice with the figures unchanged: the same publication, one snapshot.
    twice = _api(boss).post(url, {"action": "publish"}, format="json")
    assert twice.status_code == 200
    assert twice.json()["latest"]["checksum"] == checksum
    assert NuggetScoreSnapshot.objects.count() == 1

    seen = _api(carol).get(url).json()
    assert [r["run"] for r in seen["runs"]] == ["runB"]
    expected = expected_scores({})["runB"]
    assert seen["runs"][0]["measures"] == pytest.approx(expected["measures"])
    for topic, measures in expected["per_topic"].items():
        assert seen["runs"][0]["per_topic"][topic] == pytest.approx(measures)
    assert seen["topics"] == ["1", "2"]
    assert _api(outsider).get(url).json()["runs"] == []
    assert [r["run"] for r in _api(boss).get(url).json()["runs"]] == ["runA", "runB", "runC"]

    # A final label afterwards: the published figures stay; publishing again freezes the new.
    nugget_adjudication_decide(
        task=data.task,
        answer_id=data.answers[("runB", "1")].pk,
        finals={data.nuggets["1"][0].pk: N},
        decided_by=boss,
    )
    assert _api(carol).get(url).json()["runs"][0]["measures"] == pytest.approx(expected["measures"])
    assert _api(boss).post(url, {"action": "publish"}, format="json").status_code == 201
    changed = expected_scores({("runB", "1", 0): N})["runB"]["measures"]
    assert _api(carol).get(url).json()["runs"][0]["measures"] == pytest.approx(changed)

    assert _api(boss).post(url, {"action": "withdraw"}, format="json").status_code == 201
    assert _api(boss).post(url, {"action": "withdraw"}, format="json").status_code == 200
    assert _api(carol).get(url).status_code == 404
    assert list(NuggetPublicationEvent.objects.order_by("at", "id").values_list("action")) == [
        ("publish",),
        ("publish",),
        ("withdraw",),
    ]


def test_the_scores_page_reuses_its_significance_until_a_final_label_moves_a_figure() -> None:
    cache.clear()
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    client = Client()
    client.force_login(boss)
    url = f"/nuggets/tasks/{data.task.pk}/scores/?measure=all"
    first = client.get(url)
    again = client.get(url)
    assert first.context["tests_computed_at"] == again.context["tests_computed_at"]
    assert [t.mean_difference for t in first.context["tests"]] == [
        t.mean_difference for t in again.context["tests"]
    ]
    nugget_adjudication_decide(
        task=data.task,
        answer_id=data.answers[("runB", "1")].pk,
        finals={data.nuggets["1"][0].pk: N},
        decided_by=boss,
    )
    after = client.get(url)
    assert after.context["tests_computed_at"] > first.context["tests_computed_at"]
    expected = expected_scores({("runB", "1", 0): N})
    for test in after.context["tests"]:
        per = {
            run: [expected[run]["per_topic"].get(t, {}).get("all", 0.0) for t in ("1", "2")]
            for run in (test.a, test.b)
        }
        assert test.mean_difference == pytest.approx((sum(per[test.a]) - sum(per[test.b])) / 2)
    ab = {(t.a, t.b): t.mean_difference for t in first.context["tests"]}
    assert {(t.a, t.b): t.mean_difference for t in after.context["tests"]} != ab
    assert 'id="significance-computed"' in after.content.decode()


def test_agreement_compares_each_second_opinion_with_the_final_labels() -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    finals = {("runB", "1", 0): N, ("runB", "1", 2): S}
    n1 = data.nuggets["1"]
    nugget_adjudication_decide(
        task=data.task,
        answer_id=data.answers[("runB", "1")].pk,
        finals={n1[0].pk: N, n1[2].pk: S},
        decided_by=boss,
    )
    rows = _api(boss).get(f"/api/nuggets/tasks/{data.task.pk}/scores/").json()["agreement"]
    by_name = {row["assessor"]: row for row in rows}
    for name, column in (("bob", 1), ("judge-llm", 2)):
        final, other = [], []
        for (run, topic), triples in LABELS.items():
            for index, triple in enumerate(triples):
                final.append(finals.get((run, topic, index), triple[0]))
                other.append(triple[column])
        row = by_name[name]
        assert (row["pairs"], row["adjudicated"]) == (len(final), 2)
        same = sum(x == y for x, y in zip(final, other, strict=True))
        assert row["agreement"] == pytest.approx(same / len(final))
        assert row["kappa"] == pytest.approx(cohen_kappa_score(final, other))
        strict = ([x == S for x in final], [x == S for x in other])
        assert row["kappa_strict"] == pytest.approx(cohen_kappa_score(*strict))
    page = Client()
    page.force_login(boss)
    text = page.get(f"/nuggets/tasks/{data.task.pk}/scores/").content.decode()
    assert "Agreement with the final labels" in text


def test_the_results_index_links_a_rag_task_to_its_published_nugget_scores() -> None:
    data = disputed_task()
    other = RetrievalTaskFactory.create(campaign=data.task.campaign)
    boss = UserFactory.create(username="boss", is_staff=True)
    client = Client()
    client.force_login(boss)
    text = client.get("/results/").content.decode()
    assert f'href="/nuggets/tasks/{data.task.pk}/published/"' in text
    assert f"/nuggets/tasks/{other.pk}/published/" not in text


def test_the_schema_lists_the_adjudication_and_publication_endpoints() -> None:
    client = Client()
    client.force_login(UserFactory.create(username="boss", is_staff=True))
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path in ("adjudication", "publication"):
        methods = schema["paths"][f"/api/nuggets/tasks/{{task_id}}/{path}/"]
        assert {"get", "post"} <= set(methods)
    components = schema["components"]["schemas"]
    assert "finals" in components["NuggetAdjudication"]["properties"]
    assert components["NuggetPublication"]["required"] == ["action"]
