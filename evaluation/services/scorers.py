"""How an evaluation job scores a task's runs with its official measures
(``evaluation.core.official``).

Three scorers share one shape: ``score(run)`` gives the run's ``RunScores`` on the full qrels,
``score_without_team(run)`` its means on the qrels without the items only its team's runs
contributed (the leave-one-team-out test; None where it does not apply), ``measures`` the keys
the significance tests and the reusability report use.

- ``PrimeScorer``: ARQMath's answer and formula tasks without official measures, exactly as
  published (nDCG', MAP', P'@10; ``evaluation.core.measures``).
- ``AnswerScorer``: ARQMath's open QA task (AR and P@1). An answer task's ``PrimeScorer`` also
  gives AR and P@1 of each run's first answer.
- ``MeasureScorer``: any task with official measures, and document tasks (their kind's
  defaults): trec_eval's measures by name (``evaluation.core.trec_measures``), binary ones at the
  task's relevance level, averaged the task's way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from collection.models import RetrievalTask
from evaluation.core.measures import (
    MEASURES,
    OPENQA_MEASURES,
    Average,
    Grades,
    PrimeEvaluator,
    RunScores,
    Scores,
    best_ranked,
    dedup_first,
    evaluate_openqa_answers,
    formula_scores_by_visual_id,
    judged_fraction_at_10,
    mean_over,
)
from evaluation.core.official import official_measure_names
from evaluation.core.qrels import qrels_without
from evaluation.core.ranking import trec_top
from evaluation.core.trec_measures import MeasureEvaluator, parse_measures
from evaluation.selectors import run_answers, run_rows, visual_ids
from pooling.models import Run

TeamItems = Mapping[int, Mapping[str, set[str]]]  # team -> topic -> item keys only it pooled


class Scorer(Protocol):
    measures: tuple[str, ...]

    def score(self, run: Run) -> RunScores: ...

    def score_without_team(self, run: Run) -> dict[str, float] | None: ...


def run_scores(run: Run) -> tuple[Scores, list[str]]:
    """Ranked runs, deduplicated by the protocol: the first row of a (topic, doc) wins; a
    formula run is scored by visual id. Document runs name their docnos (``run_rows``)."""
    rows = run_rows(run)
    if run.task.kind != RetrievalTask.Kind.FORMULA:
        return dedup_first(rows), []
    scores, unknown = formula_scores_by_visual_id(rows, visual_ids({doc for _, doc, _ in rows}))
    notes = (
        [f"{len(unknown)} formula ids not in the formula index were left out"] if unknown else []
    )
    return scores, notes


def first_answers(scores: Scores) -> dict[str, str]:
    """Each topic's first answer in trec_eval's order (the one a reader sees first)."""
    return {topic: trec_top(docs, 1)[0] for topic, docs in scores.items() if docs}


class PrimeScorer:
    """ARQMath's prime measures; for an answer task also AR and P@1 of each run's first answer,
    as ARQMath-3 scored Task 1 runs beside Task 3's (shown on the results page, not tested for
    significance)."""

    def __init__(
        self,
        grades: Grades,
        unique: TeamItems,
        *,
        level: int,
        average: Average,
        first_answer: bool = False,
    ):
        self.measures: tuple[str, ...] = MEASURES
        self.average = average
        self.grades, self.level, self.first_answer = grades, level, first_answer
        self.evaluator = PrimeEvaluator(grades, relevance_level=level)
        self.reduced = {
            team: PrimeEvaluator(qrels_without(grades, items), relevance_level=level)
            for team, items in unique.items()
        }
        self._scores: dict[int, Scores] = {}

    def score(self, run: Run) -> RunScores:
        scores, notes = run_scores(run)
        self._scores[run.pk] = scores
        result = self.evaluator.evaluate(run.tag, scores, average=self.average)
        result.notes.extend(notes)
        if self.first_answer:
            first = evaluate_openqa_answers(
                run.tag,
                first_answers(scores),
                self.grades,
                average=self.average,
                relevance_level=self.level,
            )
            result.measures.update(first.measures)
            for topic, values in first.per_topic.items():
                if topic in result.per_topic:
                    result.per_topic[topic].update(ar=values["ar"], p1=values["p1"])
        return result

    def score_without_team(self, run: Run) -> dict[str, float] | None:
        evaluator = self.reduced.get(run.team_id, self.evaluator)
        scores = self._scores.pop(run.pk)
        return evaluator.evaluate(run.tag, scores, average=self.average).measures


class AnswerScorer:
    def __init__(
        self, grades: Grades, *, level: int, average: Average, topics: Sequence[str] | None
    ):
        self.measures: tuple[str, ...] = OPENQA_MEASURES
        self.grades, self.level, self.average, self.topics = grades, level, average, topics

    def score(self, run: Run) -> RunScores:
        answers = best_ranked(run_answers(run))
        return evaluate_openqa_answers(
            run.tag,
            answers,
            self.grades,
            average=self.average,
            relevance_level=self.level,
            topics=self.topics,
        )

    def score_without_team(self, run: Run) -> dict[str, float] | None:
        return None


class MeasureScorer:
    def __init__(
        self,
        grades: Grades,
        unique: TeamItems,
        names: Sequence[str],
        *,
        level: int,
        average: Average,
    ):
        measures = parse_measures(names)
        self.measures = tuple(m.name for m in measures)
        self.grades, self.average = grades, average
        self.evaluator = MeasureEvaluator(grades, measures, relevance_level=level)
        self.reduced = {
            team: MeasureEvaluator(qrels_without(grades, items), measures, relevance_level=level)
            for team, items in unique.items()
        }
        self._scores: dict[int, Scores] = {}

    def score(self, run: Run) -> RunScores:
        scores, notes = run_scores(run)
        self._scores[run.pk] = scores
        found = self.evaluator.evaluate(scores, average=self.average)
        judged = judged_fraction_at_10(scores, self.grades)
        per_topic = {
            topic: {**values, "judged_at_10": judged.get(topic, 0.0)}
            for topic, values in found.per_topic.items()
        }
        return RunScores(
            run=run.tag,
            measures=found.measures,
            per_topic=per_topic,
            topics=found.topics,
            run_topics=found.run_topics,
            judged_at_10=mean_over(per_topic, list(per_topic), "judged_at_10"),
            notes=notes,
            average=self.average,
            missing=found.missing,
        )

    def score_without_team(self, run: Run) -> dict[str, float] | None:
        evaluator = self.reduced.get(run.team_id, self.evaluator)
        return evaluator.evaluate(self._scores.pop(run.pk), average=self.average).measures


def scorer_for(
    task: RetrievalTask,
    grades: Grades,
    unique: TeamItems,
    *,
    average: Average,
    topics: Sequence[str] | None = None,
) -> Scorer:
    """The task's scorer: its official measures, else its kind's defaults. ``topics``: the
    topic set open QA averages over (its answer task's official topics)."""
    level = task.relevance_level  # binary measures count grade >= the task's level
    names = official_measure_names(task.kind, task.official_measures)
    if names is not None:
        return MeasureScorer(grades, unique, names, level=level, average=average)
    if task.kind == RetrievalTask.Kind.OPENQA:
        return AnswerScorer(grades, level=level, average=average, topics=topics)
    first_answer = task.kind == RetrievalTask.Kind.ANSWER
    return PrimeScorer(grades, unique, level=level, average=average, first_answer=first_answer)
