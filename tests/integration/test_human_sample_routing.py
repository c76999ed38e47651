"""People judge the drawn human sample: the organizer sends a draw to assessors (page and
REST), each assessor judges only the drawn items of their topic through the judging API and
pages, and the people-and-machine estimate counts what they judged.

The story is evaluation_data's judged answer task with A.2 post 203 open. A.1's official
assignment is revoked first, so of A.1 only 102 (dual), 103 (adjudicated) and 105 (dual) are in
the people's qrels: 101 and 104 wait for a person. A.2 keeps its whole-topic official
assignment, which already covers 203.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.models import Assignment, AssignmentItem, Judgment
from assessment.selectors.dashboard import task_dashboard
from assessment.services.assignments.moves import assignment_revoke
from evaluation.models import HumanSampleItem
from evaluation.services.human_sample import human_sample_assign, human_sample_draw
from tests.factories import UserFactory
from tests.integration.machine_judge_data import JUDGE_GRADES, import_judge, jsonl
from tests.integration.machine_judge_data import judged_task_with_open_item as judged_task
from tests.integration.test_judging_pools import formula_pool

pytestmark = pytest.mark.django_db


def _story(tmp_path: Path):  # type: ignore[no-untyped-def]
    data = judged_task()
    data.task.official_measures = ["P_2"]
    data.task.save(update_fields=["official_measures"])
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    a1 = Assignment.objects.get(
        topic=data.topics["A.1"], purpose=Assignment.Purpose.OFFICIAL, revoked_at=None
    )
    assignment_revoke(assignment=a1)
    organizer = UserFactory.create(is_staff=True)
    api = APIClient()
    api.force_authenticate(organizer)
    return data, judge, api


def _draw(api: APIClient, task_id: int, judge_id: int, budget: int, seed: int = 0) -> dict:
    url = reverse("evaluation_api:human-sample", args=[task_id])
    answer = api.post(url, {"judge": judge_id, "budget": budget, "seed": seed}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()  # type: ignore[no-any-return]


def _assign(api: APIClient, task_id: int, judge_id: int, *people: User) -> dict:
    url = reverse("evaluation_api:human-sample-assign", args=[task_id])
    body = {"judge": judge_id, "assessors": [p.username for p in people]}
    answer = api.post(url, body, format="json")
    assert answer.status_code == 200, answer.content
    return answer.json()  # type: ignore[no-any-return]


def _scope(assignment_id: int) -> set[str]:
    return set(
        AssignmentItem.objects.filter(assignment_id=assignment_id).values_list(
            "item__key", flat=True
        )
    )


def test_assessor_judges_only_the_drawn_items_and_the_estimate_counts_them(
    tmp_path: Path,
) -> None:
    data, judge, api = _story(tmp_path)
    drawn = _draw(api, data.task.pk, judge.pk, budget=100)  # every graded item, probability 1
    assert (drawn["drawn"], drawn["judged"], drawn["queued"]) == (8, 5, 3)  # A.2's three
    # 101, 104 and 203 wait for a person; only 203 (A.2's whole topic) is in a queue.
    assert (drawn["to_judge"], drawn["to_judge_queued"]) == (3, 1)
    carol, dave = UserFactory.create(username="carol"), UserFactory.create(username="dave")
    routed = _assign(api, data.task.pk, judge.pk, carol, dave)
    # A.1's two open items go to a new scoped assignment of carol (least loaded, first
    # given); A.2's open 203 is already in its whole-topic official assignment.
    assert [(c["topic"], c["assessor"]) for c in routed["created"]] == [("A.1", "carol")]
    assert (routed["added"], routed["covered"], routed["refused"]) == (2, 1, [])
    assert routed["sample"]["queued"] == 5  # A.1's 101, 104 and A.2's three
    assert (routed["sample"]["to_judge"], routed["sample"]["to_judge_queued"]) == (3, 3)
    assert routed["message"].startswith("Sent 2 drawn items to assessors; new assignment A.1")
    [made] = routed["created"]
    assert _scope(made["id"]) == {"101", "104"}

    assessor = APIClient()
    assessor.force_authenticate(carol)
    [row] = assessor.get("/api/assignments/").json()["results"]
    assert (row["id"], row["judged_hits"], row["total_hits"]) == (made["id"], 0, 2)
    items_url = reverse("assessment_api:assignment-items", args=[made["id"]])
    items = assessor.get(items_url, {"limit": 100}).json()["results"]
    assert [i["hits"][0]["post_id"] for i in items] == [101, 104]
    # An item of the topic outside the draw is out of reach: neither shown nor judgeable.
    outside = data.hits[102]
    page = reverse("assessment_api:assignment-item", args=[made["id"], outside.item_id])
    assert assessor.get(page).status_code == 404
    refused = assessor.post(
        reverse("assessment_api:item-judgments", args=[made["id"], outside.item_id]),
        {"judgments": [{"hit": outside.pk, "grade": 3}]},
        format="json",
    )
    assert refused.status_code == 404
    assert not Judgment.objects.filter(assignment_id=made["id"]).exists()

    for item, grade in zip(items, (3, 1), strict=True):
        hit = item["hits"][0]["id"]
        answer = assessor.post(
            item["judgments_url"], {"judgments": [{"hit": hit, "grade": grade}]}, format="json"
        )
        assert answer.status_code == 200, answer.content
    [row] = assessor.get("/api/assignments/").json()["results"]
    assert (row["judged_hits"], row["total_hits"], row["continue_item"]) == (2, 2, None)

    found = api.get(reverse("evaluation_api:human-sample", args=[data.task.pk])).json()[0]
    assert (found["drawn"], found["judged"]) == (8, 7)
    runs = {r["run"]: r["estimates"]["P_2"]["value"] for r in found["runs"]}
    # By hand, relevant from grade 2: alpha A.1 101 (carol H), 102 (dual M) -> 1; A.2 202 (H),
    # 201 (M) -> 1; mean 1. beta A.1 105 (dual M), 101 (H) -> 1; A.2 no ranking -> 0; 0.5.
    assert runs == {"Alpha/alpha": pytest.approx(1.0), "Beta/beta": pytest.approx(0.5)}


def test_sending_twice_adds_nothing_and_a_new_draw_adds_only_its_new_items(
    tmp_path: Path,
) -> None:
    data, judge, api = _story(tmp_path)
    carol = UserFactory.create(username="carol")
    open_a1 = {("A.1", "101"), ("A.1", "104")}
    for seed in range(50):  # a draw that holds exactly one of A.1's two open items
        _draw(api, data.task.pk, judge.pk, budget=3, seed=seed)
        if len(set(HumanSampleItem.objects.values_list("topic", "item")) & open_a1) == 1:
            break
    small = _assign(api, data.task.pk, judge.pk, carol)
    assert small["added"] == 1
    [scoped] = Assignment.objects.filter(scoped=True, revoked_at=None)
    again = _assign(api, data.task.pk, judge.pk, carol)
    assert (again["created"], again["added"]) == ([], 0)
    _draw(api, data.task.pk, judge.pk, budget=100)
    bigger = _assign(api, data.task.pk, judge.pk, carol)
    assert (bigger["created"], bigger["added"]) == ([], 1)
    assert _scope(scoped.pk) == {"101", "104"}
    assert Assignment.objects.filter(scoped=True, revoked_at=None).count() == 1


def test_revoking_a_scoped_assignment_keeps_its_judgments_and_a_judged_item_is_not_resent(
    tmp_path: Path,
) -> None:
    data, judge, api = _story(tmp_path)
    _draw(api, data.task.pk, judge.pk, budget=100)
    carol, dave = UserFactory.create(username="carol"), UserFactory.create(username="dave")
    [made] = _assign(api, data.task.pk, judge.pk, carol)["created"]
    assessor = APIClient()
    assessor.force_authenticate(carol)
    item = data.hits[101].item_id
    answer = assessor.post(
        reverse("assessment_api:item-judgments", args=[made["id"], item]),
        {"judgments": [{"hit": data.hits[101].pk, "grade": 2}]},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    # A move hands the same scope on; carol's judgment of 101 counts as done for dave.
    moved = api.post(
        reverse("assessment_api:organize-assignment-move", args=[made["id"]]),
        {"assessor": "dave", "handover": "continue"},
        format="json",
    )
    assert moved.status_code == 200, moved.content
    [held] = Assignment.objects.filter(scoped=True, revoked_at=None)
    assert (held.assessor, _scope(held.pk)) == (dave, {"101", "104"})
    # 101 is judged (its line counts): sending again adds nothing to dave's scope.
    assert _assign(api, data.task.pk, judge.pk, carol)["added"] == 0
    revoked = api.post(reverse("assessment_api:organize-assignment-revoke", args=[held.pk]))
    assert revoked.status_code == 200, revoked.content
    assert Judgment.objects.filter(assessor=carol, hit=data.hits[101]).get().grade == 2
    assert _scope(held.pk) == {"101", "104"}  # the record of what was asked stays too


def test_organizer_sends_the_draw_from_the_page_which_shows_drawn_and_judged(
    tmp_path: Path,
) -> None:
    data, judge, api = _story(tmp_path)
    _draw(api, data.task.pk, judge.pk, budget=100)
    carol = UserFactory.create(username="carol")
    url = reverse("evaluation:human-sample-assign", args=[data.task.pk])
    client = Client()
    client.force_login(carol)
    assert client.post(url, {"judge": judge.pk, "assessors": [carol.pk]}).status_code in (302, 403)
    assert not Assignment.objects.filter(scoped=True).exists()
    client.force_login(UserFactory.create(is_staff=True))
    answer = client.post(url, {"judge": judge.pk, "assessors": [carol.pk]}, follow=True)
    text = answer.content.decode()
    assert "Sent 2 drawn items to assessors; new assignment A.1 → carol; 1 already" in text
    assert "Drawn <strong>8</strong> · judged by people <strong>5</strong>" in text
    assert "still to judge <strong>3</strong>: all in an assessor's queue" in text
    bad = client.post(url, {"judge": judge.pk, "assessors": ["nobody"]}, follow=True)
    assert "assessors:" in bad.content.decode()
    # carol's judging page shows her two items, and nothing of the machine's grades.
    client.force_login(carol)
    [held] = Assignment.objects.filter(scoped=True, revoked_at=None)
    listing = client.get(reverse("assessment:items", args=[held.pk])).content.decode()
    assert listing.count('class="item-tile') == 2
    judging = client.get(
        reverse("assessment:judge", args=[held.pk, data.hits[101].item_id])
    ).content.decode()
    assert "answers the question directly" not in judging  # the machine's rationale
    assert "<b data-position>1</b> of 2</span>" in judging
    assert (
        client.get(reverse("assessment:judge", args=[held.pk, data.hits[102].item_id])).status_code
        == 404
    )


def test_machine_grade_shows_only_in_assisted_mode_and_the_dashboard_counts_the_scope(
    tmp_path: Path,
) -> None:
    data, judge, api = _story(tmp_path)
    _draw(api, data.task.pk, judge.pk, budget=100)
    carol = UserFactory.create(username="carol")
    [made] = _assign(api, data.task.pk, judge.pk, carol)["created"]
    client = Client()
    client.force_login(carol)
    page = reverse("assessment:judge", args=[made["id"], data.hits[101].item_id])
    assert "data-suggestion" not in client.get(page).content.decode()
    judge.suggests = True  # the organizer switches the task to assisted mode
    judge.save(update_fields=["suggests"])
    assert 'data-suggestion="3"' in client.get(page).content.decode()  # JUDGE_GRADES: 101 -> 3
    board = task_dashboard(task=data.task)
    [row] = [p for p in board.assessors if p.name == "carol"]
    assert row.assigned_hits == 2  # her scope's hits, not A.1's five


def test_command_sends_the_draw_and_refuses_unknown_assessors(tmp_path: Path) -> None:
    data, judge, api = _story(tmp_path)
    _draw(api, data.task.pk, judge.pk, budget=100)
    UserFactory.create(username="carol")
    base = ["--campaign", data.task.campaign.name, "--task", data.task.name, "--judge", "oracle"]
    with pytest.raises(CommandError, match="nobody"):
        call_command("human_sample_assign", *base, "--assessors", "carol,nobody")
    out = StringIO()
    call_command("human_sample_assign", *base, "--assessors", "carol", stdout=out)
    sent = "Sent 2 drawn items to assessors; new assignment A.1 → carol; 1 already"
    assert sent in out.getvalue()
    out = StringIO()
    call_command("human_sample_assign", *base, "--assessors", "carol", stdout=out)
    assert out.getvalue().startswith("Nothing new to send")


def test_formula_task_routes_the_drawn_visual_ids_once_each(tmp_path: Path) -> None:
    pool = formula_pool(items=3, instances=2)
    lines = "".join(
        f"{pool.topic.number} 0 {hit.formula_id} {i % 4}\n"
        for i, hit in enumerate(h for hits in pool.hits for h in hits)
    )
    judge, _ = import_judge(pool.topic.task, tmp_path, lines, file_name="judge.qrels")
    sample = human_sample_draw(task=pool.topic.task, judge=judge, budget=100)
    # The task's qrels name a formula item by its visual id (the pool item's key).
    assert set(sample.items.values_list("item", flat=True)) == {"v0", "v1", "v2"}
    carol = UserFactory.create(username="carol")
    routed = human_sample_assign(sample=sample, assessors=[carol])
    assert (len(routed.created), routed.added) == (1, 3)
    [held] = routed.created
    assert _scope(held.pk) == {"v0", "v1", "v2"}
    assert human_sample_assign(sample=sample, assessors=[carol]).added == 0
