"""Machine judges stay out of assessors' sight and hands: not on the judging
pages or the REST judging API, not an assessor candidate, never logged in, not in the human
counts of the dashboard, its assignments neither moved nor revoked; and only organizers may
import, list or change judges (kernel.access)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.access import assessor_candidates, is_machine_account
from assessment.models import Assignment, MachineJudge
from assessment.selectors.adjudication.disputes import task_disputes
from assessment.selectors.dashboard import task_dashboard
from assessment.selectors.overview import campaign_overview
from assessment.selectors.progress import assignments_with_progress
from assessment.services.assignments import (
    AssignmentError,
    assignment_move,
    assignment_revoke,
    assignments_create,
)
from tests.factories import TopicFactory, UserFactory
from tests.integration.machine_judge_data import (
    JUDGE_GRADES,
    import_judge,
    jsonl,
    judged_task_with_open_item,
)

pytestmark = pytest.mark.django_db

NAME = "oracle-7f3a"
RATIONALE = "RATIONALE-c91e: the proof is complete"
PASSWORD = "secret-pass-123"


def with_secret_rationale() -> list[tuple[str, str, int, str]]:
    return [(t, p, g, RATIONALE if p == "101" else r) for t, p, g, r in JUDGE_GRADES]


def official(data) -> Assignment:  # type: ignore[no-untyped-def]
    return Assignment.objects.get(topic=data.topics["A.1"], purpose="official")


def test_assessor_pages_and_api_never_show_the_judge_when_it_graded_their_hits(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(with_secret_rationale()), name=NAME)
    assignment = official(data)
    client = Client()
    client.force_login(assignment.assessor)
    item = data.hits[101].item_id
    pages = [
        reverse("assessment:home"),
        reverse("assessment:items", args=[assignment.pk]),
        reverse("assessment:judge", args=[assignment.pk, item]),
        reverse("assessment_api:item-judgments", args=[assignment.pk, item]),
        reverse("home"),
    ]
    for url in pages:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        text = response.content.decode()
        for secret in (NAME, RATIONALE, judge.account.username, "machine"):
            assert secret not in text, (url, secret)
    # The judge's own assignments are nobody's page: 404 to the assessor and the organizer.
    machine = Assignment.objects.filter(assessor=judge.account).first()
    assert machine is not None
    assert client.get(reverse("assessment:items", args=[machine.pk])).status_code == 404
    organizer = Client()
    organizer.force_login(UserFactory.create(is_staff=True))
    assert organizer.get(reverse("assessment:items", args=[machine.pk])).status_code == 404


def test_assessor_progress_is_unchanged_when_a_judge_grades_the_same_topics(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    assessor = official(data).assessor

    def progress() -> list[tuple[int, int, int]]:
        return [(p.assignment.pk, p.judged, p.total) for p in assignments_with_progress(assessor)]

    before = progress()
    import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    assert progress() == before


def test_judge_account_is_never_an_assessor_candidate_when_someone_activates_it(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    account = judge.account
    assert is_machine_account(account)
    assert not is_machine_account(official(data).assessor)
    User.objects.filter(pk=account.pk).update(is_active=True)
    assert account not in assessor_candidates()
    topic = TopicFactory.create(task=data.task)
    with pytest.raises(AssignmentError, match=f"{NAME} is a machine judge"):
        assignments_create(topics=[topic], assessor=account, created_by=None)
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = client.get(reverse("assessment:organize_assignments", args=[data.task.pk]))
    assert account.username not in page.content.decode()


def test_judge_account_can_never_log_in_when_given_a_password_and_activated(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    username = judge.account.username
    client = Client()
    response = client.post(
        "/accounts/login/", {"username": username, "password": ""}, REMOTE_ADDR="10.0.0.9"
    )
    assert "_auth_user_id" not in client.session
    assert response.status_code == 200
    # Even activated with a password set (say, by mistake in the admin), it stays out.
    account = User.objects.get(pk=judge.account_id)
    account.is_active = True
    account.set_password(PASSWORD)
    account.save()
    client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert "_auth_user_id" not in client.session
    assert not client.login(username=username, password=PASSWORD)
    # A session made for it some other way is not honoured either.
    client.force_login(account)
    response = client.get(reverse("assessment:home"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    api = client.get(reverse("assessment_api:organize-agreement", args=[data.task.pk]))
    assert api.status_code in (401, 403)


def test_dashboard_counts_only_human_work_when_a_judge_grades_every_hit(tmp_path: Path) -> None:
    data = judged_task_with_open_item()

    def board() -> tuple[object, ...]:
        found = task_dashboard(task=data.task)
        return (
            found.judged,
            [(t.number, t.judged, t.flags, list(t.grades), t.assessor) for t in found.topics],
            [(a.name, a.judged, a.judgments) for a in found.assessors],
            found.progress[-1][1] if found.progress else 0,
        )

    def overview() -> list[tuple[int, int]]:
        return [(s.task.pk, s.judged) for _, tasks in campaign_overview() for s in tasks]

    before, summary = board(), overview()
    disputes = task_disputes(task=data.task)
    import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    assert board() == before
    assert overview() == summary
    after = task_disputes(task=data.task)
    assert [d.hit_id for d in after.disputes] == [d.hit_id for d in disputes.disputes]
    assert after.assessors == disputes.assessors
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = client.get(reverse("assessment:organize_task", args=[data.task.pk])).content.decode()
    assert NAME not in page


def test_judge_assignments_are_neither_moved_nor_revoked_when_an_organizer_tries(
    tmp_path: Path,
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    machine = Assignment.objects.filter(assessor=judge.account).first()
    assert machine is not None
    with pytest.raises(AssignmentError, match="a machine judge's assignment"):
        assignment_move(assignment=machine, assessor=UserFactory.create(), moved_by=None)
    with pytest.raises(AssignmentError, match="a machine judge's assignment"):
        assignment_revoke(assignment=machine)
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_assignments", args=[data.task.pk])
    response = client.post(url, {"action": "revoke", "assignment": machine.pk})
    assert response.status_code == 400
    machine.refresh_from_db()
    assert machine.revoked_at is None


# --- who may import, list and change judges ----------------------------------------------------


def people(data) -> dict[str, User | None]:  # type: ignore[no-untyped-def]
    participant = UserFactory.create()
    data.alpha.team.members.add(participant)
    return {
        "anonymous": None,
        "participant": participant,
        "assessor": official(data).assessor,
        "organizer": UserFactory.create(is_staff=True),
    }


@pytest.mark.parametrize("role", ["anonymous", "participant", "assessor"])
def test_only_organizers_import_list_or_change_judges_when_others_try(
    tmp_path: Path, role: str
) -> None:
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    user = people(data)[role]
    client = Client()
    if user is not None:
        client.force_login(user)
    page = reverse("assessment:organize_machine_judges", args=[data.task.pk])
    action = reverse("assessment:organize_machine_judge", args=[data.task.pk, judge.pk])
    upload = SimpleUploadedFile("j.qrels", b"A.1 0 101 1\n")
    refused = 302 if role == "anonymous" else 403
    assert client.get(page).status_code == refused
    assert client.post(page, {"name": "mine", "file": upload}).status_code == refused
    assert client.post(action, {"action": "delete"}).status_code == refused
    assert client.post(action, {"action": "counts", "counts": "1"}).status_code == refused
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    listing = reverse("assessment_api:organize-machine-judges", args=[data.task.pk])
    one = reverse("assessment_api:organize-machine-judge", args=[data.task.pk, judge.pk])
    upload.seek(0)
    answers = [
        api.get(listing).status_code,
        api.post(listing, {"name": "mine", "file": upload}, format="multipart").status_code,
        api.get(one).status_code,
        api.patch(one, {"counts_in_qrels": True}, format="json").status_code,
        api.delete(one).status_code,
    ]
    assert set(answers) <= {401, 403}
    assert list(MachineJudge.objects.values_list("name", "counts_in_qrels")) == [(NAME, False)]


def test_organizer_page_imports_toggles_and_deletes_when_used(tmp_path: Path) -> None:
    data = judged_task_with_open_item()
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = reverse("assessment:organize_machine_judges", args=[data.task.pk])
    upload = SimpleUploadedFile("llm.jsonl", jsonl(JUDGE_GRADES).encode())
    response = client.post(
        page,
        {"name": NAME, "description": "GPT, prompt 2", "file": upload, "file_format": "auto"},
        follow=True,
    )
    html = response.content.decode()
    assert "imported machine: oracle-7f3a from llm.jsonl (jsonl): 8 grades in 2 topic(s)" in html
    assert "2 grades for items not in the pool were skipped." in html
    judge = MachineJudge.objects.get(name=NAME)
    row = response.context["judges"][0]
    assert (row.label, row.topics, row.judged_hits) == (f"machine: {NAME}", 2, 8)
    assert row.distribution == [(3, 1), (2, 3), (1, 2), (0, 2)]
    bad = SimpleUploadedFile("bad.jsonl", b'{"topic": "A.1", "post_id": "101", "grade": 8}\n')
    refused = client.post(page, {"name": "other", "file": bad})
    assert refused.status_code == 400
    assert "bad.jsonl line 1, grade: grade 8 is outside 0-3" in refused.content.decode()
    action = reverse("assessment:organize_machine_judge", args=[data.task.pk, judge.pk])
    counted = client.post(action, {"action": "counts", "counts": "1"}, follow=True)
    assert f"machine: {NAME} now counts in official qrels." in counted.content.decode()
    judge.refresh_from_db()
    assert judge.counts_in_qrels
    deleted = client.post(action, {"action": "delete"}, follow=True)
    assert f"Deleted machine: {NAME} and its grades." in deleted.content.decode()
    assert not MachineJudge.objects.exists()


def test_rest_endpoints_import_list_patch_and_delete_when_an_organizer_calls(
    tmp_path: Path, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    data = judged_task_with_open_item()
    api = APIClient()
    api.force_authenticate(UserFactory.create(is_staff=True))
    listing = reverse("assessment_api:organize-machine-judges", args=[data.task.pk])
    upload = SimpleUploadedFile(
        "j.qrels", "".join(f"{t} 0 {p} {g}\n" for t, p, g, _ in JUDGE_GRADES).encode()
    )
    created = api.post(
        listing, {"name": NAME, "file": upload, "format": "qrels"}, format="multipart"
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["status"], body["stored"], body["skipped_not_in_pool"]) == ("created", 8, 2)
    upload.seek(0)
    again = api.post(listing, {"name": NAME, "file": upload}, format="multipart")
    assert (again.status_code, again.json()["status"]) == (200, "unchanged")
    bad = SimpleUploadedFile("bad.qrels", b"A.1 0 101\n")
    refused = api.post(listing, {"name": "x", "file": bad}, format="multipart")
    assert refused.status_code == 400
    assert refused.json()["problems"] == ["bad.qrels line 1, columns: expected 4 columns, found 3"]
    with django_assert_max_num_queries(8):
        [row] = api.get(listing).json()
    assert (row["label"], row["judged_hits"], row["counts_in_qrels"]) == (
        f"machine: {NAME}",
        8,
        False,
    )
    one = reverse("assessment_api:organize-machine-judge", args=[data.task.pk, row["id"]])
    patched = api.patch(one, {"counts_in_qrels": True}, format="json")
    assert (patched.status_code, patched.json()["counts_in_qrels"]) == (200, True)
    assert api.get(one).json()["grades"] == {"0": 2, "1": 2, "2": 3, "3": 1}
    assert api.delete(one).status_code == 204
    assert api.get(one).status_code == 404


def test_judging_service_and_token_refuse_the_judge_account_when_someone_tries(
    tmp_path: Path,
) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from assessment.services.judging import JudgingNotFound, judgment_submit

    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    machine = Assignment.objects.get(assessor=judge.account, topic=data.topics["A.1"])
    # Its grades change only through an import, never through the judging service.
    with pytest.raises(JudgingNotFound):
        judgment_submit(assignment=machine, hit=data.hits[101], assessor=judge.account, grade=0)
    with pytest.raises(CommandError, match="machine judge's account: no token, no team"):
        call_command("create_token", judge.account.username, "--team", "Alpha")
    assert not judge.account.teams.exists()


def test_a_judge_without_a_file_lists_no_empty_source_when_shown(tmp_path: Path) -> None:
    """An LLM judge run from the app has no file: its row shows the date, not an empty
    file name, an empty checksum and a stray separator before it."""
    data = judged_task_with_open_item()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name=NAME)
    MachineJudge.objects.filter(pk=judge.pk).update(source_name="", checksum="")
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    html = client.get(reverse("assessment:organize_machine_judges", args=[data.task.pk]))
    text = html.content.decode()
    assert NAME in text
    assert 'title="SHA-256 "' not in text
    assert "<td><small><br>" not in text
    assert "<td><small> · " not in text
