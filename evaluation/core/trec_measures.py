"""Any trec_eval measure, by trec_eval's or ir_measures' name, computed with pytrec_eval: pure.

Names are read by ``evaluation.core.trec_names``. pytrec_eval runs trec_eval's own per-topic code
(one relevance level and one ``-J`` setting per evaluator, so each combination gets its own);
what trec_eval's main program adds is done here, after trec_eval 9's ``trec_eval.c`` and
``meas_avg.c``:

- Runs are ranked by trec_eval's rule (``evaluation.core.ranking``): a topic whose scores are
  closer than float32 tells apart reaches pytrec_eval as negated ranks, so it keeps its order.
- ``depth`` is ``-M``: each topic's first M docs in trec_eval's order (score descending, doc id
  descending), cut *before* ``judged_only`` (``-J``) drops unjudged docs (``form_res_rels.c``).
- A negative qrels grade is "in the pool, not judged" (trec_eval's own reading): not relevant,
  not counted as a judged non-relevant document (bpref) and dropped by ``-J``.
- ``average="run"``: means over the qrels topics the run has results for (trec_eval).
  ``average="all"`` is ``-c``: every qrels topic, a topic missing from the run evaluated on an
  empty ranking (so ``num_rel`` keeps the qrels' count, ``gm_map`` gets ln 0.00001) with
  ``num_ret`` and ``utility`` then set to 0, as trec_eval does.
- The summary ("all") of ``num_*`` measures is their sum over topics, of ``gm_*`` measures the
  geometric mean (per-topic values are ln(max(value, 0.00001)), what trec_eval accumulates; its
  ``-q`` prints none), of every other measure the arithmetic mean.
- trec_eval computes 0/0 = NaN for ``iprec_at_recall_0.00`` and ``11pt_avg`` on an empty ranking
  (a missing topic under ``-c``, or nothing judged under ``-J``); JSON and the database hold no
  NaN, so such a value is 0, what ``-c``'s own help promises for a missing topic.

``Judged@k`` (ir_measures') is the share of a topic's first k docs, in trec_eval's order and
after ``depth``, that is judged; a missing topic scores 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pytrec_eval

from evaluation.core.measures import Average, Grades, Scores, judged_fraction
from evaluation.core.ranking import Precision, ranked_run, trec_top, with_precision
from evaluation.core.trec_names import (
    EXAMPLES,
    JUDGED,
    Measure,
    MeasureNameError,
    measure_names_check,
    parse_measures,
)

__all__ = [
    "EXAMPLES",
    "JUDGED",
    "Measure",
    "MeasureEvaluator",
    "MeasureNameError",
    "MeasureScores",
    "cut_to_depth",
    "evaluate_measures",
    "measure_names_check",
    "parse_measures",
    "summary",
]

MIN_GEO_MEAN = 0.00001  # trec_eval's floor for gm_ measures
RESET_WHEN_MISSING = ("num_ret", "utility")  # trec_eval -c: zeroed for a missing topic


def summary(trec: str, values: Sequence[float]) -> float:
    """trec_eval's "all" line of one measure from its per-topic values."""
    if not values:
        return 0.0
    if trec.startswith("num_"):
        return float(sum(values))
    if trec.startswith("gm_"):
        return math.exp(sum(values) / len(values))
    return sum(values) / len(values)


@dataclass(slots=True)
class MeasureScores:
    """One run's values, keyed by the measures' names.

    ``per_topic`` has the qrels topics the run has results for; ``missing`` what a qrels topic
    missing from the run scores under ``-c`` (empty unless ``average="all"``)."""

    measures: dict[str, float]
    per_topic: dict[str, dict[str, float]]
    topics: int  # topics the means are over
    run_topics: int  # qrels topics the run has results for
    missing: dict[str, dict[str, float]]

    def value(self, topic: str, name: str) -> float:
        """The value a topic contributes to the mean (missing topics as ``-c`` scores them)."""
        found = self.per_topic.get(topic) or self.missing.get(topic) or {}
        return found.get(name, 0.0)


def cut_to_depth(scores: Scores, depth: int) -> Scores:
    """trec_eval -M: each topic's first ``depth`` docs in trec_eval's order."""
    return {t: {d: docs[d] for d in trec_top(docs, depth)} for t, docs in scores.items()}


def _unjudged_doc(judged: Mapping[str, int]) -> str:
    doc = "qrelsmith-not-judged"
    while doc in judged:
        doc += "-"
    return doc


def _number(value: float) -> float:
    return 0.0 if value != value else float(value)  # trec_eval's 0/0 (see the module doc)


class MeasureEvaluator:
    """Any measures for runs against one qrels; build once, evaluate many runs."""

    def __init__(
        self,
        grades: Grades,
        measures: Sequence[Measure],
        *,
        relevance_level: int = 1,
        judged_only: bool = False,
        depth: int | None = None,
        precision: Precision = "double",
    ) -> None:
        if depth is not None and depth < 1:
            raise ValueError(f"depth must be at least 1, not {depth}")
        self.grades = {t: dict(docs) for t, docs in grades.items()}
        self.measures = list(measures)
        self.depth = depth
        self.precision = precision
        self.topics = sorted(self.grades)
        usable = {t: d for t, d in self.grades.items() if d}  # trec_eval needs a judgment
        groups: dict[tuple[int, bool], set[str]] = {}
        self._group: dict[str, tuple[int, bool]] = {}
        for m in self.measures:
            if m.judged_at is None:
                key = (
                    m.relevance_level or relevance_level,
                    judged_only if m.judged_only is None else m.judged_only,
                )
                groups.setdefault(key, set()).add(m.trec)
                self._group[m.name] = key
        self._evaluators = {
            key: pytrec_eval.RelevanceEvaluator(
                usable, trecs, relevance_level=key[0], judged_docs_only_flag=key[1]
            )
            for key, trecs in sorted(groups.items())
        }
        # What a qrels topic missing from a run scores under -c: the same for every run.
        # pytrec_eval can crash on an empty ranking (map with bpref), so each topic gets one
        # unjudged doc instead: the same values once num_ret and utility are reset, and 0
        # rather than 0/0 where trec_eval divides by num_ret (see the module doc).
        empty = {t: {_unjudged_doc(docs): 0.0} for t, docs in usable.items()}
        self._missing: dict[str, dict[str, float]] = {t: {} for t in self.topics}
        found = {key: e.evaluate(empty) if empty else {} for key, e in self._evaluators.items()}
        for m in self.measures:
            for topic in self.topics:
                if m.judged_at is not None or m.trec in RESET_WHEN_MISSING:
                    value = 0.0
                else:
                    value = _number(found[self._group[m.name]].get(topic, {}).get(m.trec, 0.0))
                    if topic not in usable and m.trec.startswith("gm_"):
                        value = math.log(MIN_GEO_MEAN)
                self._missing[topic][m.name] = value

    def _topic_values(self, scores: Scores) -> dict[str, dict[str, float]]:
        """topic -> measure name -> value, for the qrels topics the run has results for."""
        # trec_eval knows a topic from its result lines: one without docs is missing.
        run_topics = [t for t, docs in scores.items() if docs and t in self.grades]
        ranked = cut_to_depth(scores, self.depth) if self.depth else scores
        usable = {t: ranked[t] for t in run_topics if self.grades[t]}
        handed = ranked_run(usable)
        by_group = {
            key: evaluator.evaluate(handed) if usable else {}
            for key, evaluator in self._evaluators.items()
        }
        values: dict[str, dict[str, float]] = {t: {} for t in run_topics}
        for m in self.measures:
            if m.judged_at is not None:
                judged = judged_fraction(ranked, self.grades, m.judged_at)
                for topic in run_topics:
                    values[topic][m.name] = judged.get(topic, 0.0)
                continue
            found = by_group[self._group[m.name]]
            for topic in run_topics:
                computed = found.get(topic)
                values[topic][m.name] = (
                    _number(computed.get(m.trec, 0.0))
                    if computed is not None
                    else self._missing[topic][m.name]
                )
        return values

    def evaluate(self, scores: Scores, *, average: Average = "all") -> MeasureScores:
        """Score a deduplicated run (topic -> doc -> score)."""
        per_topic = self._topic_values(with_precision(scores, self.precision))
        over = self.topics if average == "all" else list(per_topic)
        missing = (
            {t: self._missing[t] for t in self.topics if t not in per_topic}
            if average == "all"
            else {}
        )
        means = {}
        for m in self.measures:
            values = [(per_topic.get(t) or missing[t])[m.name] for t in over]
            means[m.name] = summary(m.trec, values)
        return MeasureScores(means, per_topic, len(over), len(per_topic), missing)


def evaluate_measures(
    scores: Scores,
    grades: Mapping[str, Mapping[str, int]],
    names: Iterable[str],
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    average: Average = "all",
    precision: Precision = "double",
) -> MeasureScores:
    """One run, measures by name: a convenience over ``MeasureEvaluator``."""
    evaluator = MeasureEvaluator(
        grades,
        parse_measures(names),
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
        precision=precision,
    )
    return evaluator.evaluate(scores, average=average)
