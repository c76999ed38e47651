"""Assisted mode: assessors stay blind until an organizer lets a machine judge suggest; then
the judging page shows its grade, every judgment records whether a suggestion was shown, and
the audit splits agreement by it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment, Judgment, MachineJudge
from assessment.services.judging import judgment_submit
from assessment.services.machine_judges import machine_judge_suggests
from evaluation.selectors.audit import judge_audit
from tests.factories import UserFactory
from tests.integration.machine_judge_data import JUDGE_GRADES, import_judge, jsonl
from tests.integration.machine_judge_data import judged_task_with_open_item as judged_task

pytestmark = pytest.mark.django_db


def test_judgments_record_the_suggestion_when_the_task_is_in_assisted_mode(
    tmp_path: Path,
) -> None:
    data = judged_task()
    judge, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES))
    official = Assignment.objects.get(topic=data.topics["A.2"], purpose=Assignment.Purpose.OFFICIAL)
    client = Client()
    client.force_login(official.assessor)
    hit = data.hits[203]
    page_url = reverse("assessment:judge", args=[official.pk, hit.item_id])
    blind_page = client.get(page_url).content.decode()
    assert "machine-suggestion" not in blind_page  # blind by default
    blind = judgment_submit(assignment=official, hit=hit, assessor=official.assessor, grade=0)
    assert blind.suggestion_shown is False

    organizer = UserFactory.create(is_staff=True)
    client.force_login(organizer)
    action = reverse("assessment:organize_machine_judge", args=[data.task.pk, judge.pk])
    client.post(action, {"action": "suggests", "suggests": "1"})
    judge.refresh_from_db()
    assert judge.suggests is True

    client.force_login(official.assessor)
    shown_page = client.get(page_url).content.decode()
    assert 'data-suggestion="1"' in shown_page  # JUDGE_GRADES: A.2 203 -> 1
    changed = judgment_submit(assignment=official, hit=hit, assessor=official.assessor, grade=1)
    assert changed.suggestion_shown is True
    assert Judgment.objects.get(pk=changed.pk).suggestion_shown is True

    audit = judge_audit(task=data.task, judge=judge)
    split = {v.name: v for v in audit.by_suggestion}
    shown = split["people's judgments with the suggestion shown"]
    assert shown.pair is not None
    assert shown.pair.shared == 1
    assert split["people's judgments judged blind"].pair is not None


def test_only_one_judge_suggests_when_another_is_switched_on(tmp_path: Path) -> None:
    data = judged_task()
    first, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name="first")
    second, _ = import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES[:3]), name="second")
    machine_judge_suggests(judge=first, suggests=True)
    assert machine_judge_suggests(judge=second, suggests=True) == "first"
    assert list(MachineJudge.objects.filter(suggests=True).values_list("name", flat=True)) == [
        "second"
    ]
