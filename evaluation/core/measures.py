"""ARQMath's prime measures, computed with pytrec_eval: pure, no Django.

The protocol is the organizers' (docs/evaluation.md, ../shared/data/arqmath/README.md):

- Task 1: keep the first row of each repeated (topic, doc) in file order; drop topics not in the
  qrels and unjudged docs ("prime"); nDCG' = trec_eval ``ndcg`` (gain = grade, full depth),
  MAP' = ``map`` and P'@10 = ``P_10`` at relevance level 2 (H+M binarization; a task may set
  another level for its own scale).
- Task 2: per topic formula id -> score (a repeated formula id keeps its LAST score); map to
  visual ids; stable sort by score; keep the first formula of each visual id; then as Task 1.
- Task 3: AR = mean grade of the rank-1 answer, P@1 = share of topics whose rank-1 answer has
  grade >= 2 (the relevance level; flags are grade 0). With ranks known (a Task 1 run scored
  with Task 3 measures), a topic's answer is its best-ranked row: lowest rank, then highest
  score, then file order; without them, trec_eval's first.
- The mean is over every qrels topic, a topic missing from the run scoring 0 (the published
  convention), or over the run's own qrels topics (``average="run"``).

Every run is ordered by trec_eval 9's rule before pytrec_eval sees it
(``evaluation.core.ranking``: score descending as a double, then doc id descending; the rank
column is ignored). A negative qrels grade is trec_eval's "in the pool, not judged": not
relevant, and not judged either (left out by priming and by the judged fraction).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pytrec_eval

from evaluation.core.ranking import Precision, ranked_run, trec_order, trec_top, with_precision
from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL, MAX_GRADE

Average = Literal["all", "run"]
Grades = Mapping[str, Mapping[str, int]]  # topic -> doc -> grade
Scores = dict[str, dict[str, float]]  # topic -> doc -> score
RunRow = tuple[str, str, float]  # (topic, doc, score) in file order
RankedRow = tuple[str, str, int, float]  # (topic, doc, rank, score) in file order

MEASURES = ("ndcg_prime", "map_prime", "p10_prime")
OPENQA_MEASURES = ("ar", "p1")
TOP = 10


@dataclass(slots=True)
class RunScores:
    """One run's evaluation: means, per-topic values and coverage figures."""

    run: str
    measures: dict[str, float]
    per_topic: dict[str, dict[str, float]]
    topics: int  # topics the mean is taken over
    run_topics: int  # qrels topics the run has rows for
    judged_at_10: float  # mean over the run's qrels topics, before priming
    notes: list[str] = field(default_factory=list)
    average: Average = "all"  # which topics the means are over
    answers: dict[str, str] = field(default_factory=dict)  # Task 3: topic -> answer id scored
    # Official measures under trec_eval -c: what each qrels topic missing from the run scores
    # (num_rel its count, gm_map ln 0.00001); empty: a missing topic scores 0.
    missing: dict[str, dict[str, float]] = field(default_factory=dict)

    def value(self, topic: str, measure: str) -> float:
        """What ``topic`` contributes to the mean of ``measure``."""
        found = self.per_topic.get(topic) or self.missing.get(topic) or {}
        return found.get(measure, 0.0)

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {
            "run": self.run,
            **self.measures,
            "topics": self.topics,
            "run_topics": self.run_topics,
            "judged_at_10": self.judged_at_10,
            "average": self.average,
            "per_topic": self.per_topic,
            "notes": self.notes,
        }
        if self.answers:
            found["answers"] = self.answers
        return found


def dedup_first(rows: Iterable[RunRow]) -> Scores:
    """topic -> doc -> score, keeping the first row of each (topic, doc) in file order."""
    scores: Scores = {}
    for topic, doc, score in rows:
        docs = scores.get(topic)
        if docs is None:
            docs = scores[topic] = {}
        if doc not in docs:
            docs[doc] = score
    return scores


def formula_scores_by_visual_id(
    rows: Iterable[RunRow], visual_ids: Mapping[str, str]
) -> tuple[Scores, set[str]]:
    """Task 2: formula rows -> topic -> visual id -> score, by the ARQMath-2/3 script's rules.

    A repeated formula id keeps its last score but its first position; formulas are sorted
    by score (stable) and the first formula of each visual id gives that visual id's score.
    Returns the scores and the formula ids the index does not know (left out).
    """
    by_formula: Scores = {}
    for topic, formula_id, score in rows:
        docs = by_formula.get(topic)
        if docs is None:
            docs = by_formula[topic] = {}
        docs[formula_id] = score  # last score wins, dict keeps first insertion position
    unknown: set[str] = set()
    visual_scores: Scores = {}
    for topic, formulas in by_formula.items():
        ranked = sorted(formulas.items(), key=lambda fs: fs[1], reverse=True)  # stable
        chosen: dict[str, float] = {}
        for formula_id, score in ranked:
            visual_id = visual_ids.get(formula_id)
            if visual_id is None:
                unknown.add(formula_id)
            elif visual_id not in chosen:
                chosen[visual_id] = score
        visual_scores[topic] = chosen
    return visual_scores, unknown


def is_judged(grade: int | None) -> bool:
    """trec_eval's judged: in the qrels with a grade of 0 or more (a negative grade is "in
    the pool but not judged", ``form_res_rels.c``)."""
    return grade is not None and grade >= 0


def prime(scores: Scores, grades: Grades) -> Scores:
    """Drop topics not in the qrels and docs unjudged for their topic (trec_eval -J)."""
    primed: Scores = {}
    for topic, docs in scores.items():
        judged = grades.get(topic)
        if judged:
            primed[topic] = {d: s for d, s in docs.items() if is_judged(judged.get(d))}
    return primed


def judged_fraction_at_10(scores: Scores, grades: Grades) -> dict[str, float]:
    """Per qrels topic of the run: share of its top 10 (trec_eval order) that is judged."""
    return judged_fraction(scores, grades, TOP)


def judged_fraction(scores: Scores, grades: Grades, k: int) -> dict[str, float]:
    """Per qrels topic of the run: share of its top k (trec_eval order) that is judged."""
    fractions: dict[str, float] = {}
    for topic, docs in scores.items():
        judged = grades.get(topic)
        if judged is None or not docs:
            continue
        top = trec_top(docs, k)
        fractions[topic] = sum(1 for d in top if is_judged(judged.get(d))) / len(top)
    return fractions


class PrimeEvaluator:
    """nDCG', MAP', P'@10 for runs against one qrels; build once, evaluate many runs."""

    def __init__(
        self,
        grades: Grades,
        *,
        relevance_level: int = ARQMATH_RELEVANCE_LEVEL,
        precision: Precision = "double",
    ) -> None:
        self.grades = {t: dict(docs) for t, docs in grades.items()}
        self.relevance_level = relevance_level
        self.precision = precision
        self.topics = sorted(self.grades)
        # trec_eval cannot take a topic without judgments; such a topic scores 0.
        usable = {t: d for t, d in self.grades.items() if d}
        # One pass for all three: trec_eval's ndcg takes its gain from the grade itself and
        # ignores the relevance level, which only binarizes map and P_10 (a unit test holds
        # this), so `trec_eval -m ndcg` and `trec_eval -l2 -m map -m P_10` are both answered.
        self._evaluator = pytrec_eval.RelevanceEvaluator(
            usable, {"ndcg", "map", "P_10"}, relevance_level=relevance_level
        )

    def evaluate(self, name: str, scores: Scores, *, average: Average = "all") -> RunScores:
        """Score a deduplicated run (topic -> doc -> score); priming happens here."""
        scores = with_precision(scores, self.precision)
        run_topics = [t for t in scores if t in self.grades]
        judged = judged_fraction_at_10(scores, self.grades)
        primed = {t: docs for t, docs in prime(scores, self.grades).items() if docs}
        values = self._evaluator.evaluate(ranked_run(primed)) if primed else {}
        per_topic: dict[str, dict[str, float]] = {}
        for topic in run_topics:
            found = values.get(topic, {})
            per_topic[topic] = {
                "ndcg_prime": found.get("ndcg", 0.0),
                "map_prime": found.get("map", 0.0),
                "p10_prime": found.get("P_10", 0.0),
                "judged_at_10": judged.get(topic, 0.0),
            }
        over = self.topics if average == "all" else run_topics
        measures = {m: mean_over(per_topic, over, m) for m in MEASURES}
        return RunScores(
            run=name,
            measures=measures,
            per_topic=per_topic,
            topics=len(over),
            run_topics=len(run_topics),
            judged_at_10=mean_over(per_topic, run_topics, "judged_at_10"),
            average=average,
        )


def mean_over(per_topic: Mapping[str, Mapping[str, float]], topics: Sequence[str], m: str) -> float:
    """Mean of measure ``m`` over ``topics``; a topic absent from ``per_topic`` scores 0."""
    if not topics:
        return 0.0
    return sum(per_topic[t][m] if t in per_topic else 0.0 for t in topics) / len(topics)


def evaluate_answer_run(
    name: str, rows: Iterable[RunRow], evaluator: PrimeEvaluator, *, average: Average = "all"
) -> RunScores:
    """Task 1 (and any doc-id run): dedup, prime, score."""
    return evaluator.evaluate(name, dedup_first(rows), average=average)


def evaluate_formula_run(
    name: str,
    rows: Iterable[RunRow],
    evaluator: PrimeEvaluator,
    visual_ids: Mapping[str, str],
    *,
    average: Average = "all",
) -> RunScores:
    """Task 2: rows are (topic, formula id, score); scored by visual id."""
    scores, unknown = formula_scores_by_visual_id(rows, visual_ids)
    result = evaluator.evaluate(name, scores, average=average)
    if unknown:
        result.notes.append(f"{len(unknown)} formula ids not in the formula index were left out")
    return result


def best_ranked(rows: Iterable[RankedRow]) -> dict[str, str]:
    """Task 3 from ranked rows: each topic's best-ranked doc (lowest rank, then highest score,
    then the first in file order)."""
    best: dict[str, tuple[int, float, str]] = {}
    for topic, doc, rank, score in rows:
        current = best.get(topic)
        if current is None or (rank, -score) < (current[0], -current[1]):
            best[topic] = (rank, score, doc)
    return {topic: doc for topic, (_, _, doc) in best.items()}


def evaluate_openqa_run(
    name: str,
    rows: Iterable[RunRow],
    grades: Grades,
    *,
    average: Average = "all",
    relevance_level: int = ARQMATH_RELEVANCE_LEVEL,
) -> RunScores:
    """Task 3: AR and P@1 of each topic's rank-1 answer (unjudged and flags count as 0)."""
    return evaluate_openqa_scores(
        name, dedup_first(rows), grades, average=average, relevance_level=relevance_level
    )


def evaluate_openqa_scores(
    name: str,
    scores: Scores,
    grades: Grades,
    *,
    average: Average = "all",
    relevance_level: int = ARQMATH_RELEVANCE_LEVEL,
) -> RunScores:
    """``evaluate_openqa_run`` on deduplicated scores: rank 1 is trec_eval's first."""
    answers = {topic: trec_order(docs)[0] for topic, docs in scores.items() if docs}
    return evaluate_openqa_answers(
        name, answers, grades, average=average, relevance_level=relevance_level
    )


def evaluate_openqa_answers(
    name: str,
    answers: Mapping[str, str],
    grades: Grades,
    *,
    average: Average = "all",
    relevance_level: int = ARQMATH_RELEVANCE_LEVEL,
    topics: Sequence[str] | None = None,
) -> RunScores:
    """AR and P@1 given each topic's answer (topic -> answer id); topics not in the qrels are
    left out, an unjudged answer or a flag scores 0. ``topics``: what ``average="all"`` means
    over (ARQMath-3: the answer task's official topics), else the qrels' topics."""
    per_topic: dict[str, dict[str, float]] = {}
    scored: dict[str, str] = {}
    for topic, first in answers.items():
        judged = grades.get(topic)
        if judged is None:
            continue
        grade = judged.get(first)
        value = float(grade) if grade is not None and 0 <= grade <= MAX_GRADE else 0.0
        per_topic[topic] = {
            "ar": value,
            "p1": 1.0 if value >= relevance_level else 0.0,
            "judged_at_10": 1.0 if is_judged(grade) else 0.0,
        }
        scored[topic] = first
    run_topics = list(per_topic)
    over = sorted(topics if topics is not None else grades) if average == "all" else run_topics
    return RunScores(
        run=name,
        measures={m: mean_over(per_topic, over, m) for m in OPENQA_MEASURES},
        per_topic=per_topic,
        topics=len(over),
        run_topics=len(run_topics),
        judged_at_10=mean_over(per_topic, run_topics, "judged_at_10"),
        average=average,
        answers=scored,
    )
