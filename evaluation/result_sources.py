"""Other apps' results on the participants' results index. The evaluation app sits below the
apps that score tasks in other ways (nugget scores of RAG tasks), so it cannot ask them itself:
each such app registers a *result source* in its ``AppConfig.ready()``, and the index lists a
task when any source links it for the user, with that source's link beside the task."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResultLink:
    """One link a source offers a user on the results index, for one task."""

    task_id: int
    label: str
    url: str


# A source answers, for one user, the links to the results that user may open now; it should
# take a bounded number of queries whatever the number of tasks, as the index is one page.
ResultSource = Callable[[Any], Iterable[ResultLink]]

_sources: list[ResultSource] = []


def result_source_register(source: ResultSource) -> None:
    """Add ``source`` once (``ready()`` may run more than once in one process)."""
    if source not in _sources:
        _sources.append(source)


def result_links(user: Any) -> dict[int, list[ResultLink]]:
    """Every registered source's links for ``user``, by task, in registration order."""
    links: dict[int, list[ResultLink]] = {}
    for source in _sources:
        for link in source(user):
            links.setdefault(link.task_id, []).append(link)
    return links
