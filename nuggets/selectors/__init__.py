"""Reads of the nuggets app: a topic's nuggets, exports, the judging page and the scores."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from assessment.models import Assignment
from collection.models import RetrievalTask, Topic
from kernel.core.ordering import natural_key
from nuggets.core.citations import (
    CitationScores,
    CitationSupport,
    answer_citation_scores,
    run_citation_scores,
)
from nuggets.core.scores import (
    MEASURES,
    Importance,
    JudgedNugget,
    Support,
    run_scores,
    topic_scores,
)
from nuggets.models import (
    CitationLabel,
    Nugget,
    NuggetAdjudication,
    NuggetLabel,
    NuggetProposal,
    NuggetProposalRun,
    RagAnswer,
)


def topic_nuggets(topic_id: int) -> list[Nugget]:
    return list(Nugget.objects.filter(topic_id=topic_id, is_deleted=False).order_by("position"))


def pending_proposals(topic_id: int) -> list[NuggetProposal]:
    return list(
        NuggetProposal.objects.filter(
            topic_id=topic_id, decision=NuggetProposal.Decision.PENDING
        ).order_by("pk")
    )


def proposal_runs(topic_id: int, limit: int = 3) -> list[NuggetProposalRun]:
    """The topic's latest requests for machine proposals, newest first, with their answers
    (a failed answer is shown with its text)."""
    return list(
        NuggetProposalRun.objects.filter(topic_id=topic_id)
        .select_related("answer")
        .order_by("-created_at", "-pk")[:limit]
    )


def nuggets_export_lines(task: RetrievalTask) -> Iterator[str]:
    """The task's nuggets in nuggetizer's layout, one topic a line (topics with nuggets)."""
    by_topic: dict[int, list[Nugget]] = defaultdict(list)
    for nugget in Nugget.objects.filter(topic__task=task, is_deleted=False).order_by(
        "topic_id", "position"
    ):
        by_topic[nugget.topic_id].append(nugget)
    topics = sorted(
        Topic.objects.filter(pk__in=list(by_topic)), key=lambda t: natural_key(t.number)
    )
    for topic in topics:
        record = {
            "qid": topic.number,
            "query": topic.title,
            "nuggets": [{"text": n.text, "importance": n.importance} for n in by_topic[topic.pk]],
        }
        yield json.dumps(record, ensure_ascii=False) + "\n"


def _official_labels(task: RetrievalTask) -> dict[tuple[int, int], dict[int, str]]:
    """(answer, topic) -> nugget id -> support: the final label where an organizer adjudicated
    the pair, else the label of the topic's active official assignment."""
    found: dict[tuple[int, int], dict[int, str]] = defaultdict(dict)
    labels = NuggetLabel.objects.filter(
        assignment__topic__task=task,
        assignment__purpose=Assignment.Purpose.OFFICIAL,
        assignment__revoked_at__isnull=True,
    ).values_list("answer_id", "answer__topic_id", "nugget_id", "support")
    finals = NuggetAdjudication.objects.filter(answer__run__task=task).values_list(
        "answer_id", "answer__topic_id", "nugget_id", "support"
    )
    for answer_id, topic_id, nugget_id, support in [*labels, *finals]:
        found[(answer_id, topic_id)][nugget_id] = support
    return found


def assignments_export_lines(task: RetrievalTask) -> Iterator[str]:
    """The final labels (adjudicated, else official) in nuggetizer's assignments layout, one
    (run, topic) a line."""
    labels = _official_labels(task)
    nuggets = {n.pk: n for n in Nugget.objects.filter(topic__task=task)}
    answers = RagAnswer.objects.filter(pk__in=[a for a, _ in labels]).select_related("run", "topic")
    for answer in sorted(answers, key=lambda a: (a.run.tag, natural_key(a.topic.number))):
        given = labels[(answer.pk, answer.topic_id)]
        record = {
            "qid": answer.topic.number,
            "run_id": answer.run.tag,
            "nuggets": [
                {
                    "text": nuggets[pk].text,
                    "importance": nuggets[pk].importance,
                    "assignment": support,
                }
                for pk, support in sorted(given.items(), key=lambda i: nuggets[i[0]].position)
            ],
        }
        yield json.dumps(record, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class RunScoreRow:
    run: str
    team: str
    measures: dict[str, float]
    per_topic: dict[str, dict[str, float]]
    judged: int  # (answer, nugget) pairs labelled
    to_judge: int  # (answer, nugget) pairs of its answers to the scored topics
    scored_topics: list[str]
    # Citation support over the run's answers with citation labels (None: none labelled).
    support_precision: float | None = None
    support_recall: float | None = None
    cited_answers: int = 0

    @property
    def topic_cells(self) -> list[tuple[str, dict[str, float] | None]]:
        """Each scored topic's measures in the scores' topic order; None: no answer."""
        return [(topic, self.per_topic.get(topic)) for topic in self.topics]

    @property
    def topics(self) -> list[str]:
        return self.scored_topics


@dataclass(frozen=True)
class TaskScores:
    topics: list[str]
    runs: list[RunScoreRow]
    measures: tuple[str, ...] = MEASURES


def task_nugget_scores(task: RetrievalTask) -> TaskScores:
    """Every run's scores from the official labels: per topic and over the topics that have
    nuggets (a run without an answer to one scores 0 there; an unlabelled nugget counts as
    not supported, and how many are labelled is shown beside the scores)."""
    nuggets: dict[int, list[Nugget]] = defaultdict(list)
    for nugget in Nugget.objects.filter(topic__task=task, is_deleted=False):
        nuggets[nugget.topic_id].append(nugget)
    numbers = dict(Topic.objects.filter(pk__in=list(nuggets)).values_list("pk", "number"))
    topics = sorted(numbers.values(), key=natural_key)
    labels = _official_labels(task)
    citations = _official_citation_scores(task)
    per_run: dict[int, dict[str, dict[str, float]]] = defaultdict(dict)
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    answers = RagAnswer.objects.filter(run__task=task, topic_id__in=list(nuggets)).values_list(
        "pk", "run_id", "topic_id"
    )
    for answer_id, run_id, topic_id in answers:
        given = labels.get((answer_id, topic_id), {})
        judged = [
            JudgedNugget(Importance(n.importance), Support(given.get(n.pk, Support.NONE)))
            for n in nuggets[topic_id]
        ]
        per_run[run_id][numbers[topic_id]] = topic_scores(judged)
        counts[run_id][0] += sum(1 for n in nuggets[topic_id] if n.pk in given)
        counts[run_id][1] += len(nuggets[topic_id])
    rows = [
        RunScoreRow(
            run=run.tag,
            team=run.team.name,
            measures=run_scores(per_run[run.pk], topics),
            per_topic={t: per_run[run.pk][t] for t in topics if t in per_run[run.pk]},
            judged=counts[run.pk][0],
            to_judge=counts[run.pk][1],
            scored_topics=topics,
            **_citation_figures(citations.get(run.pk, [])),  # type: ignore[arg-type]
        )
        for run in task.runs.select_related("team").order_by("tag")
    ]
    return TaskScores(topics=topics, runs=rows)


def _official_citation_scores(task: RetrievalTask) -> dict[int, list[CitationScores]]:
    """Run id -> each labelled answer's citation support figures (official assignments)."""
    given: dict[int, dict[tuple[int, str], CitationSupport]] = defaultdict(dict)
    for answer_id, sentence, segment, support in CitationLabel.objects.filter(
        assignment__topic__task=task,
        assignment__purpose=Assignment.Purpose.OFFICIAL,
        assignment__revoked_at__isnull=True,
    ).values_list("answer_id", "sentence", "segment", "support"):
        given[answer_id][(sentence, segment)] = CitationSupport(support)
    found: dict[int, list[CitationScores]] = defaultdict(list)
    answers = RagAnswer.objects.filter(pk__in=list(given)).values_list("pk", "run_id", "sentences")
    for answer_id, run_id, sentences in answers:
        cited = [list(sentence.get("citations", [])) for sentence in sentences]
        found[run_id].append(answer_citation_scores(cited, given[answer_id]))
    return found


def _citation_figures(answers: list[CitationScores]) -> dict[str, float | int | None]:
    if not answers:
        return {"support_precision": None, "support_recall": None, "cited_answers": 0}
    scores = run_citation_scores(answers)
    return {
        "support_precision": scores.precision,
        "support_recall": scores.recall,
        "cited_answers": len(answers),
    }


@dataclass(frozen=True)
class JudgingAnswer:
    id: int
    position: int
    sentences: list[dict[str, object]]
    labels: dict[int, str]


def assignment_answers(assignment: Assignment, seed: int) -> list[JudgingAnswer]:
    """The topic's answers in a blind order (a seeded shuffle: never by run or team), with the
    labels this assignment gave."""
    answers = list(
        RagAnswer.objects.filter(topic_id=assignment.topic_id)
        .order_by("pk")
        .values_list("pk", "sentences")
    )
    random.Random(f"{seed}:{assignment.topic_id}").shuffle(answers)  # noqa: S311 (display order)
    given: dict[int, dict[int, str]] = defaultdict(dict)
    for answer_id, nugget_id, support in NuggetLabel.objects.filter(
        assignment=assignment
    ).values_list("answer_id", "nugget_id", "support"):
        given[answer_id][nugget_id] = support
    return [
        JudgingAnswer(id=pk, position=index + 1, sentences=sentences, labels=given[pk])
        for index, (pk, sentences) in enumerate(answers)
    ]
