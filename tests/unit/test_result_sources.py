"""The results index's registry of other apps' result sources: each source registered once,
links gathered by task in registration order; the nuggets app registers its source."""

from __future__ import annotations

import pytest

from evaluation import result_sources
from evaluation.result_sources import ResultLink, result_links, result_source_register
from nuggets.result_source import published_nugget_scores_links


def test_sources_register_once_and_their_links_gather_by_task_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(result_sources, "_sources", [])

    def first(user: object) -> list[ResultLink]:
        return [ResultLink(1, "A", "/a/1/"), ResultLink(2, "A", "/a/2/")]

    def second(user: object) -> list[ResultLink]:
        return [ResultLink(2, "B", f"/b/{user}/")]

    for source in (first, second, first):
        result_source_register(source)
    assert result_links("carol") == {
        1: [ResultLink(1, "A", "/a/1/")],
        2: [ResultLink(2, "A", "/a/2/"), ResultLink(2, "B", "/b/carol/")],
    }


def test_the_nuggets_app_registers_its_published_scores_source() -> None:
    assert published_nugget_scores_links in result_sources._sources
