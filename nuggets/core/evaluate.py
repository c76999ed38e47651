"""Scores of every run from nuggetizer files, without a database (``evaluate_nuggets``).

The topics a run is averaged over are those of the nuggets file when one is given (a topic a
run did not answer scores 0), otherwise every topic some run's assignments name. With a nuggets
file, its importance decides, its nuggets an assignment leaves out count as not supported, and
an assigned nugget it does not hold is an error (the two files disagree on the topic).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kernel.core.ordering import natural_key
from nuggets.core.nuggetizer import NuggetList
from nuggets.core.scores import JudgedNugget, Support, run_scores, topic_scores


@dataclass(frozen=True, slots=True)
class RunNuggetScores:
    run: str
    topics: int  # the topics averaged over
    measures: dict[str, float]
    per_topic: dict[str, dict[str, float]]
    # The topics averaged over, in order (shared by every run of one evaluation).
    scored_topics: tuple[str, ...] = ()


class NuggetFilesDisagree(ValueError):
    """An assignment names a topic or a nugget the nuggets file does not hold."""


def _judged(record: NuggetList, nuggets: NuggetList | None) -> list[JudgedNugget]:
    if nuggets is None:
        return [JudgedNugget(n.importance, n.assignment or Support.NONE) for n in record.nuggets]
    assigned = {n.text: n.assignment or Support.NONE for n in record.nuggets}
    known = {n.text for n in nuggets.nuggets}
    if unknown := [text for text in assigned if text not in known]:
        raise NuggetFilesDisagree(
            f"line {record.line}: run {record.run_id!r}, topic {record.qid!r} assigns a nugget "
            f"the nuggets file does not hold for that topic: {unknown[0][:80]!r}"
        )
    return [JudgedNugget(n.importance, assigned.get(n.text, Support.NONE)) for n in nuggets.nuggets]


def evaluate_nugget_files(
    assignments: Iterable[NuggetList], nuggets: Sequence[NuggetList] | None = None
) -> list[RunNuggetScores]:
    """Every run's scores, per topic and over the topics, runs in name order."""
    lists = {n.qid: n for n in nuggets} if nuggets is not None else None
    per_run: dict[str, dict[str, dict[str, float]]] = {}
    seen_topics: set[str] = set()
    for record in assignments:
        topic_nuggets = None
        if lists is not None:
            topic_nuggets = lists.get(record.qid)
            if topic_nuggets is None:
                raise NuggetFilesDisagree(
                    f"line {record.line}: topic {record.qid!r} (run {record.run_id!r}) is not "
                    "in the nuggets file"
                )
        scores = topic_scores(_judged(record, topic_nuggets))
        runs = per_run.setdefault(record.run_id, {})
        if record.qid in runs:
            raise NuggetFilesDisagree(
                f"line {record.line}: run {record.run_id!r}, topic {record.qid!r} assigned twice"
            )
        runs[record.qid] = scores
        seen_topics.add(record.qid)
    topics = tuple(sorted(lists if lists is not None else seen_topics, key=natural_key))
    return [
        RunNuggetScores(
            run=run,
            topics=len(topics),
            measures=run_scores(per_topic, topics),
            per_topic={t: per_topic[t] for t in sorted(per_topic, key=natural_key)},
            scored_topics=topics,
        )
        for run, per_topic in sorted(per_run.items())
    ]
