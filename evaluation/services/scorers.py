"""How an evaluation job scores a task's runs with its official measures
(``evaluation.core.official``).

Three scorers share one shape: ``score(run)`` gives the run's ``RunScores`` on the full qrels,
``score_without_team(run)`` its means on the qrels without the items only its team's runs
contributed (the leave-one-team-out test; None where it does not apply), ``measures`` the keys
the significance tests and the reusability report use. ``score`` is ``score_read(run,
read(run))``: a caller that scores one run under several qrels reads it once.

- ``PrimeScorer``: ARQMath's answer and formula tasks without official measures, exactly as
  published (nDCG', MAP', P'@10; ``evaluation.core.measures``).
- ``AnswerScorer``: ARQMath's open QA task (AR and P@1), with ``AnswerExtras``: LO, and the
  MG and UI shares where the assessors were asked. An answer task's ``PrimeScorer`` also gives
  AR and P@1 of each run's first answer.
- ``MeasureScorer``: any task with official measures, and document tasks (their kind's
  defaults): trec_eval's measures by name (``evaluation.core.trec_measures``), binary ones at the
  task's relevance level, averaged the task's way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from collection.models import RetrievalTask
from evaluation.core.answer_questions import question_shares, shares_note
from evaluation.core.answers import answer_id
from evaluation.core.lexical_overlap import Bags, Reference, lexical_overlap
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
from evaluation.selectors.answer_extras import (
    AnswerRow,
    openqa_answer_rows,
    question_marks,
    questions_asked,
    task1_references,
)
from kernel.core.grades import MAX_GRADE
from pooling.core.algorithms import answer_key
from pooling.models import Run

TeamItems = Mapping[int, Mapping[str, set[str]]]  # team -> topic -> item keys only it pooled


class Scorer(Protocol):
    measures: tuple[str, ...]

    def score(self, run: Run) -> RunScores: ...

    def read(self, run: Run) -> Any: ...

    def score_read(self, run: Run, read: Any) -> RunScores: ...

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
        return self.score_read(run, self.read(run))

    def read(self, run: Run) -> tuple[Scores, list[str]]:
        return run_scores(run)

    def score_read(self, run: Run, read: tuple[Scores, list[str]]) -> RunScores:
        """The run scored from what ``read`` gave: a run read once scores under many qrels."""
        scores, notes = read
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


class AnswerExtras:
    """What ARQMath-3 reported beside AR and P@1, for every run of an open QA task: the shares
    of its answers marked machine-generated (MG) and holding unrelated information (UI) where
    the assessors were asked, and Lexical Overlap (LO) with the known relevant answers."""

    def __init__(self, task: RetrievalTask, grades: Grades, *, level: int):
        self.asked = questions_asked(task)
        self.marks = question_marks(task) if self.asked else {}
        self.rows = openqa_answer_rows(task)
        self.task1, self.task1_label = task1_references(task, level=level)
        self.references = self._references(grades, level)
        self.bags = Bags()  # every run's references tokenized once

    @staticmethod
    def best(rows: Sequence[AnswerRow]) -> dict[str, str]:
        """topic -> the text of the run's best-ranked answer (Task 3's rule)."""
        texts = {answer_key(text): text for _, _, _, text, _, _ in rows}
        best = best_ranked(
            (topic, answer_key(text), rank, score) for _, _, topic, text, rank, score in rows
        )
        return {topic: texts[key] for topic, key in best.items()}

    def _references(self, grades: Grades, level: int) -> dict[str, list[Reference]]:
        """Every run's answer judged relevant (H+M), with its team; then the Task 1 ones."""
        found: dict[str, dict[tuple[str, int | None], Reference]] = defaultdict(dict)
        for run_id, rows in self.rows.items():
            team = rows[0][1]
            for topic, text in self.best(rows).items():
                grade = grades.get(topic, {}).get(answer_id(run_id, answer_key(text)))
                if grade is not None and level <= grade <= MAX_GRADE:
                    found[topic].setdefault((text, team), Reference(text, team=team))
        for topic, references in self.task1.items():
            for reference in references:
                found[topic].setdefault((reference.text, None), reference)
        return {topic: list(refs.values()) for topic, refs in found.items()}

    def add(self, run: Run, result: RunScores, over: Sequence[str]) -> None:
        answers = self.best(self.rows.get(run.pk, []))
        overlap = lexical_overlap(
            {t: text for t, text in answers.items() if t in set(over)},
            self.references,
            team=run.team_id,
            topics=over,
            bags=self.bags,
        )
        result.measures["lo"] = overlap.value
        for topic, value in overlap.per_topic.items():
            result.per_topic.setdefault(topic, {})["lo"] = value
        note = overlap.description
        if self.task1_label:
            note = note.removesuffix(".") + f" (Task 1 answers from qrels {self.task1_label})."
        result.notes.append(note)
        if not self.asked:
            return
        keys = {topic: answer_key(text) for topic, text in answers.items()}
        for code, share in question_shares(keys, self.marks, self.asked).items():
            if share.value is not None:
                result.measures[code] = share.value
            result.measures[f"{code}_answers"] = float(share.answered)
        result.notes.append(shares_note(self.asked))


class AnswerScorer:
    def __init__(
        self,
        grades: Grades,
        *,
        level: int,
        average: Average,
        topics: Sequence[str] | None,
        extras: AnswerExtras | None = None,
    ):
        self.measures: tuple[str, ...] = OPENQA_MEASURES
        self.grades, self.level, self.average, self.topics = grades, level, average, topics
        self.extras = extras

    def score(self, run: Run) -> RunScores:
        return self.score_read(run, self.read(run))

    def read(self, run: Run) -> dict[str, str]:
        return best_ranked(run_answers(run))

    def score_read(self, run: Run, read: dict[str, str]) -> RunScores:
        answers = read
        result = evaluate_openqa_answers(
            run.tag,
            answers,
            self.grades,
            average=self.average,
            relevance_level=self.level,
            topics=self.topics,
        )
        if self.extras is not None:
            # LO is averaged over the topics AR and P@1 are.
            everywhere = self.topics if self.topics is not None else sorted(self.grades)
            over = everywhere if self.average == "all" else list(result.per_topic)
            self.extras.add(run, result, over)
        return result

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
        return self.score_read(run, self.read(run))

    def read(self, run: Run) -> tuple[Scores, list[str]]:
        return run_scores(run)

    def score_read(self, run: Run, read: tuple[Scores, list[str]]) -> RunScores:
        scores, notes = read
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
        extras = AnswerExtras(task, grades, level=level)
        return AnswerScorer(grades, level=level, average=average, topics=topics, extras=extras)
    first_answer = task.kind == RetrievalTask.Kind.ANSWER
    return PrimeScorer(grades, unique, level=level, average=average, first_answer=first_answer)
