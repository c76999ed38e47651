"""The audit page of a machine judge in real Chromium: reached from the machine judges page,
its figures shown with intervals, no console error (CSP included). Screenshot in
test-artifacts/judge-audit.png."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import UserFactory
from tests.integration.machine_judge_data import JUDGE_GRADES, import_judge, jsonl
from tests.integration.machine_judge_data import judged_task_with_open_item as judged_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_audit_page_is_reached_from_the_judges_list_when_an_organizer_opens_it(
    page, login, screenshot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    data = judged_task()
    import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name="umbrela-like")
    UserFactory.create(username="boss", is_staff=True)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    login("boss")
    page.goto(f"/organize/task/{data.task.pk}/machine-judges/")
    page.click("a.audit-link")
    page.wait_for_selector("#versus-qrels")
    page.click("text=Show 95% bootstrap intervals")
    page.wait_for_selector("#confusion-qrels")
    diagonal = page.locator("#confusion-qrels td.diagonal").all_inner_texts()
    assert diagonal == ["0", "0", "3", "1"]  # grades 0..3 agreed: 2 three times, 3 once
    assert "p10_prime" in page.locator("#ranking-table").inner_text()
    assert page.locator("#topic-audit-table tbody tr").count() == 2
    assert page.locator("#probe-results").is_visible()
    screenshot("judge-audit")
    assert errors == []
