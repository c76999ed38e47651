"""Two document tasks of one campaign, as an organizer and a participant see them: every list
of tasks names each one, and the upload form tells them apart."""

from __future__ import annotations

import pytest

from tests.factories.collection import (
    CampaignFactory,
    DocumentCollectionFactory,
    RetrievalTaskFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_pages_listing_tasks_name_two_document_tasks_of_one_campaign(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    campaign = CampaignFactory.create(name="TREC 2026")
    for name in ("news-a", "news-b"):
        RetrievalTaskFactory.create(
            campaign=campaign,
            kind="document",
            name=name,
            collection=DocumentCollectionFactory.create(name=name),
        )
    UserFactory.create(username="olga", is_staff=True)
    TeamFactory.create(name="TeamA").members.add(UserFactory.create(username="alice"))

    login("olga")
    for path, shot in (("/pools/", "task-names-pools"), ("/results/", "task-names-results")):
        page.goto(path)
        screenshot(shot)
        rows = page.locator("table.data tbody tr")
        assert rows.count() == 2
        assert "news-a" in rows.nth(0).inner_text()
        assert "news-b" in rows.nth(1).inner_text()

    page.context.clear_cookies()
    login("alice")
    page.goto("/runs/")
    screenshot("task-names-upload")
    options = page.locator("select[name=task] option").all_inner_texts()
    assert "TREC 2026 · news-a (document)" in options, options
    assert "TREC 2026 · news-b (document)" in options, options
